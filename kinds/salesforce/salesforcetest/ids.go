package salesforcetest

import "strings"

// Salesforce record ids are 15 case-sensitive characters (a three-character
// key prefix naming the object, then instance and record characters) plus a
// three-character suffix that makes the 18-character form case-insensitive.
// The fake builds them from the record index: key prefix, the pod "RO", a
// reserved "0", the index+1 in base 62 over nine characters, then the
// checksum suffix. Ids of one object therefore sort in index order.

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const (
	idPod        = "RO0"
	idDigits     = 9
	suffixAlphas = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
)

// makeID returns the 18-character id of record i of the object with the
// given key prefix.
func makeID(prefix string, i int) string {
	var b [18]byte
	copy(b[:3], prefix)
	copy(b[3:6], idPod)
	n := uint64(i) + 1
	for k := 14; k >= 6; k-- {
		b[k] = base62[n%62]
		n /= 62
	}
	sum := idSuffix(string(b[:15]))
	copy(b[15:], sum)
	return string(b[:])
}

// idSuffix computes the three-character case-safety suffix of a 15-character
// id: for each block of five characters, a five-bit mask of which characters
// are upper-case letters, as one character of A-Z0-5.
func idSuffix(id15 string) string {
	var out [3]byte
	for block := 0; block < 3; block++ {
		var mask int
		for j := 0; j < 5; j++ {
			c := id15[block*5+j]
			if c >= 'A' && c <= 'Z' {
				mask |= 1 << j
			}
		}
		out[block] = suffixAlphas[mask]
	}
	return string(out[:])
}

// validIDFormat reports whether s looks like a Salesforce id (15 or 18
// alphanumeric characters, with a correct suffix when 18).
func validIDFormat(s string) bool {
	if len(s) != 15 && len(s) != 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	if len(s) == 18 {
		return strings.EqualFold(idSuffix(s[:15]), s[15:])
	}
	return true
}

// parseID returns the index of the record with id s among the records of
// the object with the given key prefix, accepting the 15- and 18-character
// forms. ok is false when s is not an id the fake could have issued for
// that prefix.
func parseID(prefix, s string) (int, bool) {
	if !validIDFormat(s) || s[:3] != prefix || s[3:6] != idPod {
		return 0, false
	}
	var n uint64
	for k := 6; k < 15; k++ {
		d := strings.IndexByte(base62, s[k])
		n = n*62 + uint64(d)
	}
	if n == 0 || n > 1<<40 {
		return 0, false
	}
	return int(n - 1), true
}

// to18 converts a 15-character id to its 18-character form; other strings
// are returned unchanged.
func to18(s string) string {
	if len(s) == 15 && validIDFormat(s) {
		return s + idSuffix(s)
	}
	return s
}
