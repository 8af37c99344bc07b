package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tributary-dev/tributary"
)

// TestExecuteOutMarshalJSON: the hand-built encoding of execute's answer is
// byte for byte what encoding/json makes of the struct's tags (with HTML
// escaping off).
func TestExecuteOutMarshalJSON(t *testing.T) {
	rec := json.RawMessage(`{"id":9100000000000000009,"subject":"a <b> & \"c\"","via":{"channel":"email"}}`)
	for _, o := range []executeOut{
		{Connector: "support", Entity: "tickets", Action: tributary.ActionList, Records: []json.RawMessage{}},
		{Connector: "support", Entity: "tickets", Action: tributary.ActionList, Records: []json.RawMessage{rec, rec}, Count: 2,
			Meta: map[string]any{"next_page": "https://x/?a=1&b=2", "count": 250}, Truncated: true,
			Next: &nextCall{Connector: "support", Entity: "tickets", Action: tributary.ActionList, Params: tributary.Params{"per_page": 25}, Skip: 2},
			Note: "cut at <the> limit"},
		{Connector: "support", Entity: "tickets", Action: tributary.ActionSearch, Hits: []hitOut{{ID: "1", Score: 0.5, Data: rec}, {ID: "2", Score: 1e21, Data: rec}}, Count: 2},
		{Connector: "s", Entity: "e", Action: tributary.ActionSearch, Hits: []hitOut{}, Meta: map[string]any{}},
	} {
		got, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		type plain executeOut // the tags, without the method
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain(o)); err != nil {
			t.Fatal(err)
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("MarshalJSON\n%s\nencoding/json\n%s", got, want.Bytes())
		}
	}
}

func TestCompactJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":[1,2],"b":"x y"}`, ""},
		{`{"a":"say \" { hi","b":"\\"}`, ""},
		{`{"a":"\\\\\" }","b":["\\\\"]}`, ""},
		{`[{"a":1},[]]`, ""},
		{"{ \"a\": [1, 2],\n\t\"b\": \"x y\" }", `{"a":[1,2],"b":"x y"}`},
		{`{"a":1} `, `{"a":1}`},
		{`{"a":1}{"b":2}`, "error"},
		{`{"a":1`, "error"},
		{`{"a":"1}`, "error"},
		{`{"a":"1\"}`, "error"},
		{`{"a":1}}`, "error"},
		{``, "error"},
	} {
		in := json.RawMessage(c.in)
		got, err := compactJSON(in)
		switch {
		case c.want == "error":
			if err == nil {
				t.Errorf("%q: %s, want an error", c.in, got)
			}
		case err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.want == "": // compact already: the same bytes, not a copy
			if string(got) != c.in || &got[0] != &in[0] {
				t.Errorf("%q: %q", c.in, got)
			}
		case string(got) != c.want:
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzCompactJSON: on JSON, compactJSON answers what json.Compact does.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2],"b":"x y"}`, `{"a":"say \" { hi","b":"\\"}`, "[ {\"a\" : \"\\\\\" } ]", `{"a":1}{}`, `"s"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var want bytes.Buffer
		_ = json.Compact(&want, raw)
		got, err := compactJSON(bytes.Clone(raw))
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%q: %q, %v; json.Compact: %q", raw, got, err, want.Bytes())
		}
	})
}
