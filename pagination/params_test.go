package pagination

import (
	"encoding/json"
	"hash/maphash"
	"net/url"
	"strconv"
	"testing"
)

// sameParams agrees with comparing JSON encodings, and params that are the
// same hash alike.
func TestSameParamsIsJSONEquality(t *testing.T) {
	values := []any{nil, 0, int64(0), 2, int64(2), float64(2), 2.5, json.Number("2"), "2", "", true, false,
		[]string{"a"}, []string{"a", "b"}, []any{"a"}, map[string]any{"x": 1}, map[string]any{"x": int64(1)}}
	seed := maphash.MakeSeed()
	for _, a := range values {
		for _, b := range values {
			pa := map[string]any{"k": a, "page": 1}
			pb := map[string]any{"k": b, "page": int64(1)}
			ja, _ := json.Marshal(pa)
			jb, _ := json.Marshal(pb)
			want := string(ja) == string(jb)
			if got := sameParams(pa, pb); got != want {
				t.Errorf("sameParams(%s, %s) = %v, want %v", ja, jb, got, want)
			}
			ha, errA := hashParams(seed, pa)
			hb, errB := hashParams(seed, pb)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if want && ha != hb {
				t.Errorf("%s and %s are the same but hash apart", ja, jb)
			}
		}
	}
	if sameParams(map[string]any{"a": 1}, map[string]any{"b": 1}) || sameParams(map[string]any{}, nil) {
		t.Error("different keys compare the same")
	}
}

func BenchmarkSameParams(b *testing.B) {
	a := map[string]any{"owner": "octo", "repo": "hello", "state": "all", "per_page": 100, "page": int64(7)}
	c := map[string]any{"owner": "octo", "repo": "hello", "state": "all", "per_page": 100, "page": int64(7)}
	seed := maphash.MakeSeed()
	b.ReportAllocs()
	for b.Loop() {
		if !sameParams(a, c) {
			b.Fatal("differ")
		}
		if _, err := hashParams(seed, a); err != nil {
			b.Fatal(err)
		}
	}
}

// pageParam reads what url.Parse and Query would.
func TestPageParam(t *testing.T) {
	for _, u := range []string{
		"https://api.github.com/repositories/1/issues?state=all&per_page=100&page=7",
		"https://x/a?page=2", "https://x/a?labels=bug,ui&page=12#frag", "https://x/a?pages=3&page=4",
		"https://x/a", "https://x/a?page=", "https://x/a?page=x", "", "https://x/a?per_page=100",
		"https://x.zendesk.com/api/v2/users.json?page=3&per_page=100", "https://x/a?page=5&page=6",
	} {
		var want int64
		var wantOK bool
		if pu, err := url.Parse(u); err == nil {
			n, err := strconv.ParseInt(pu.Query().Get("page"), 10, 64)
			want, wantOK = n, err == nil
		}
		if got, ok := pageParam(u); got != want || ok != wantOK {
			t.Errorf("pageParam(%q) = %d, %v; url.Parse finds %d, %v", u, got, ok, want, wantOK)
		}
	}
}
