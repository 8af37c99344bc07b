package intercom

// idSet remembers the record ids a walk has yielded. Intercom's ids of
// companies and contacts are 24 lower-case hex digits (12 bytes once
// decoded); those are kept as [12]byte keys, any other id as a string.
type idSet struct {
	hex   map[[12]byte]struct{}
	other map[string]struct{}
}

func newIDSet() *idSet {
	return &idSet{hex: map[[12]byte]struct{}{}, other: map[string]struct{}{}}
}

// add records id and reports whether it was new. The empty id (a record
// without one) is always new: it cannot be told apart from another.
func (s *idSet) add(id string) bool {
	if id == "" {
		return true
	}
	if k, ok := hexKey(id); ok {
		if _, dup := s.hex[k]; dup {
			return false
		}
		s.hex[k] = struct{}{}
		return true
	}
	if _, dup := s.other[id]; dup {
		return false
	}
	s.other[id] = struct{}{}
	return true
}

func hexKey(id string) ([12]byte, bool) {
	var k [12]byte
	if len(id) != 24 {
		return k, false
	}
	for i := range 12 {
		hi, ok1 := nibble(id[2*i])
		lo, ok2 := nibble(id[2*i+1])
		if !ok1 || !ok2 {
			return k, false
		}
		k[i] = hi<<4 | lo
	}
	return k, true
}

// nibble decodes one lower-case hex digit; upper case is not accepted, so
// that two ids differing only in case stay two ids.
func nibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
