package pagination

import (
	"encoding/json"
	"hash/maphash"
	"math"
	"strconv"
)

// Params are compared and hashed on every page (is the next page the one
// fetched ahead? has the walk been here before?), so these work without
// encoding them: two params are the same when their JSON would be, with
// integers the same whatever their Go type.

// sameParams reports whether a and b would encode to the same JSON.
func sameParams(a, b map[string]any) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !sameValue(va, vb) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if ia, ok := integer(a); ok {
		ib, ok := integer(b)
		return ok && ia == ib
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []string:
		y, ok := b.([]string)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	// Anything else (nested objects, other slices): compare the JSON.
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// integer returns v as an int64 when it is an integer of any Go type, or a
// float or json.Number holding one.
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case uint32:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// hashParams hashes params so that sameParams params hash alike. Each
// member is hashed on its own and the hashes are added, so that the map's
// order does not matter and no sorting is needed.
func hashParams(seed maphash.Seed, params map[string]any) (uint64, error) {
	var sum uint64
	var buf [32]byte
	for k, v := range params {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(k)
		h.WriteByte(0)
		if n, ok := integer(v); ok {
			h.Write(strconv.AppendInt(buf[:0], n, 10))
		} else {
			switch x := v.(type) {
			case string:
				h.WriteByte('"')
				h.WriteString(x)
			case nil:
				h.WriteString("null")
			case bool:
				h.WriteString(strconv.FormatBool(x))
			default:
				b, err := json.Marshal(v)
				if err != nil {
					return 0, err
				}
				h.Write(b)
			}
		}
		sum += h.Sum64()
	}
	return sum, nil
}
