package jsonx_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// jsonx.Unmarshal on every kind's records: kinds/decoders_test.go (beside
// the kinds: importing them here would compile every kind a second time,
// against this package's test build).

func TestUnmarshalEdgeCases(t *testing.T) {
	type rec struct {
		ID    int64            `json:"id"`
		Big   uint64           `json:"big"`
		F     float64          `json:"f"`
		S     string           `json:"s"`
		P     *string          `json:"p"`
		N     *int64           `json:"n"`
		Raw   json.RawMessage  `json:"raw"`
		Any   any              `json:"any"`
		M     map[string]any   `json:"m"`
		Arr   []int64          `json:"arr"`
		Inner struct{ X bool } `json:"inner"`
	}
	docs := []string{
		`{"id":9007199254740993,"big":18446744073709551615,"f":1e-7,"s":"a\"b\\c\u00e9\ud83d\ude00\n","p":null,"n":-9223372036854775808,"raw":{"k":[1, 2 ,{"z":null}]},"any":[1,"x",true,null,{"a":1.5}],"m":{"q":"r"},"arr":[1,2,3],"inner":{"X":true},"unknown":{"deep":[1]}}`,
		`{"id":1,"S":"case-insensitive key","INNER":{"x":false}}`,
		`{"raw":"string raw","any":12345678901234567890}`,
	}
	for _, d := range docs {
		var want, got rec
		werr := json.Unmarshal([]byte(d), &want)
		gerr := jsonx.Unmarshal([]byte(d), &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: encoding/json err %v, jsonx err %v", d, werr, gerr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-encoding/json +jsonx):\n%s", d, diff)
		}
	}
}
