package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitPage(t *testing.T) {
	body := []byte(`{"tickets":[{"id":9007199254740993,"s":"a\"]}"},{"id":2}] ,"next_page":null,"count":2,"meta":{"x":[1,2]}}`)
	p, err := SplitPage(body, "tickets")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Records {
		got = append(got, string(r))
	}
	want := []string{`{"id":9007199254740993,"s":"a\"]}"}`, `{"id":2}`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	fields := map[string]string{}
	for k, v := range p.Fields {
		fields[k] = string(v)
	}
	if d := cmp.Diff(map[string]string{"next_page": "null", "count": "2", "meta": `{"x":[1,2]}`}, fields); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	if !p.Found {
		t.Error("Found = false")
	}
}

func TestSplitPageBareArrayAndMissingKey(t *testing.T) {
	p, err := SplitPage([]byte(` [ {"a":1} , [2] , "x" ] `), "")
	if err != nil || len(p.Records) != 3 || string(p.Records[1]) != "[2]" {
		t.Fatalf("bare array: %v %q", err, p.Records)
	}
	p, err = SplitPage([]byte(`{"other":[]}`), "tickets")
	if err != nil || p.Found || len(p.Records) != 0 {
		t.Fatalf("missing key: %v %+v", err, p)
	}
	p, err = SplitPage([]byte(`{"tickets":[]}`), "tickets")
	if err != nil || !p.Found || len(p.Records) != 0 {
		t.Fatalf("empty list: %v %+v", err, p)
	}
}

func TestSplitRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `{"tickets":[{"id":1},]}`, `{"tickets":[1 2]}`, `[1,2`, `{"a":"\x01"}`, `{"a":tru}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":"\q"}`, `{"a":1}x`, `{"a":"\u12"}`, `{"tickets":{"id":1},"a":tru}`} {
		if _, err := SplitPage([]byte(in), "tickets"); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("SplitPage(%q) err = %v, want ErrSyntax", in, err)
		}
	}
	deep := make([]byte, 0, 2*maxDepth+10)
	for range maxDepth + 5 {
		deep = append(deep, '[')
	}
	for range maxDepth + 5 {
		deep = append(deep, ']')
	}
	if _, err := SplitArray(deep); err == nil {
		t.Error("deep nesting accepted")
	}
}

func TestLookupAndValue(t *testing.T) {
	doc := []byte(`{"a":{"b":[{"c":"x"},{"c":12345678901234567890}]},"n":null,"k\u0065y":1}`)
	if v, ok := Lookup(doc, "a", "b", "1", "c"); !ok || string(v) != "12345678901234567890" {
		t.Errorf("Lookup = %s %v", v, ok)
	}
	if _, ok := Lookup(doc, "a", "x"); ok {
		t.Error("Lookup of a missing key succeeded")
	}
	if v, ok := Lookup(doc, "key"); !ok || string(v) != "1" {
		t.Errorf("escaped key: %s %v", v, ok)
	}
	// The first member of a key wins, and a lookup reads no further:
	// input malformed before it fails, input malformed after it does not.
	for _, c := range []struct {
		doc  string
		want string
		ok   bool
	}{
		{`{"a":1,"a":2}`, "1", true},
		{`{"b":[1,2],"a":"x",`, `"x"`, true},
		{`{"b":[1,2,"a":"x"}`, "", false},
		{`{"b":1,"c":2}`, "", false},
		{`{"b":1,"c":2`, "", false},
	} {
		if v, ok := Lookup([]byte(c.doc), "a"); ok != c.ok || string(v) != c.want {
			t.Errorf("Lookup(%s, a) = %s %v, want %s %v", c.doc, v, ok, c.want, c.ok)
		}
	}
	v, err := Value(doc)
	if err != nil {
		t.Fatal(err)
	}
	big := v.(map[string]any)["a"].(map[string]any)["b"].([]any)[1].(map[string]any)["c"]
	if big != json.Number("12345678901234567890") {
		t.Errorf("big number = %#v", big)
	}
	if n, ok := Int([]byte(`"42"`)); !ok || n != 42 {
		t.Errorf("Int of a string = %d %v", n, ok)
	}
}

// TestStrings checks Value and String on strings, whose plain ones skip
// the decoder, against encoding/json.
func TestStrings(t *testing.T) {
	for _, raw := range []string{`"abc"`, `""`, `"a\"b"`, `"café"`, "\"\xff\"", `"a\u0041"`, "\"tab\t\"", `"2024-01-02T03:04:05Z"`, `"unterminated`} {
		var want any
		wantErr := json.Unmarshal([]byte(raw), &want) != nil
		got, err := Value([]byte(raw))
		if wantErr {
			if err == nil {
				t.Errorf("Value(%q) = %#v, want an error", raw, got)
			}
		} else if err != nil || got != want {
			t.Errorf("Value(%q) = %#v, %v; want %#v", raw, got, err, want)
		}
		s, ok := String([]byte(raw))
		if ok == wantErr || ok && s != want {
			t.Errorf("String(%q) = %q, %v; want %#v", raw, s, ok, want)
		}
	}
}

// FuzzSplit checks that the splitter never panics and agrees with
// encoding/json on what is valid.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`{"tickets":[{"id":1}],"count":1}`, `[1,"a",{"b":null}]`, `{"a":"\u00e9"}`, `{`, `[1,]`, `{"tickets":null}`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`[{"pull_request":{"url":"x"},"id":1},{"id":2,"pull_request":null},3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pObj, errObj := SplitPage(data, "tickets")
		_, errArr := SplitArray(data)
		// Dropping records validates exactly as much, and leaves out
		// exactly the objects with a non-null "pull_request".
		for _, key := range []string{"tickets", ""} {
			all, errAll := SplitPage(data, key)
			kept, errKept := SplitPageDrop(data, key, "pull_request")
			if (errAll == nil) != (errKept == nil) {
				t.Fatalf("SplitPage(%q) err %v, SplitPageDrop err %v", key, errAll, errKept)
			}
			var want [][]byte
			for _, r := range all.Records {
				if v, ok := Lookup(r, "pull_request"); !ok || IsNull(v) || !bytes.Contains(r, []byte(`"pull_request"`)) {
					want = append(want, r)
				}
			}
			if errAll == nil && (len(kept.Records) != len(want) || kept.Dropped != len(all.Records)-len(want)) {
				t.Fatalf("%q: kept %d dropped %d, want kept %d of %d", data, len(kept.Records), kept.Dropped, len(want), len(all.Records))
			}
		}
		// The records are the array's elements, as encoding/json finds them.
		var m map[string]json.RawMessage
		if errObj == nil && json.Unmarshal(data, &m) == nil {
			var elems []json.RawMessage
			if json.Unmarshal(m["tickets"], &elems) == nil && len(elems) != len(pObj.Records) {
				t.Fatalf("%q: %d records, encoding/json finds %d", data, len(pObj.Records), len(elems))
			}
			for i := range elems {
				if !bytes.Equal(bytes.TrimSpace(elems[i]), pObj.Records[i]) {
					t.Fatalf("%q: record %d is %q, encoding/json finds %q", data, i, pObj.Records[i], elems[i])
				}
			}
		}
		valid := json.Valid(data)
		// Every refusal is either malformed JSON or a shape error, and a
		// shape error only ever describes valid JSON.
		for _, err := range []error{errObj, errArr} {
			if err != nil && errors.Is(err, ErrSyntax) == errors.Is(err, ErrShape) {
				t.Fatalf("%q: %v is not exactly one of ErrSyntax, ErrShape", data, err)
			}
			if errors.Is(err, ErrShape) && !valid {
				t.Fatalf("%q is not valid JSON, but the error is a shape error: %v", data, err)
			}
		}
		if !valid && errObj == nil && errArr == nil {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if valid && errObj != nil && errArr != nil {
			// Valid JSON that is neither an object nor an array, or an
			// object whose "tickets" is not an array, may be refused.
			var v any
			_ = json.Unmarshal(data, &v)
			switch x := v.(type) {
			case map[string]any:
				if _, ok := x["tickets"]; !ok {
					t.Fatalf("refused a valid object %q: %v", data, errObj)
				}
			case []any:
				t.Fatalf("refused a valid array %q: %v", data, errArr)
			}
		}
	})
}

// FuzzSkipString checks the eight-bytes-at-a-time string scanner against
// the plain byte-by-byte one.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"0123456789abcdef\\u00e9xyz"`, "\"\x01\"", `"unterminated`, `"long string without anything special in it at all"`, `"\q"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			data = append([]byte{'"'}, data...)
		}
		end1, err1 := skipString(data, 0)
		end2, err2 := skipStringSlow(data, 0)
		if end1 != end2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: fast (%d, %v), slow (%d, %v)", data, end1, err1, end2, err2)
		}
	})
}

// The eight-bytes-at-a-time scan jumps to the first byte that ends or
// interrupts a plain run; a byte just above a flagged one ('!' after '"',
// ']' after '\\') is where a borrow would flag a second byte. Every
// position of every such byte in the first two words, and after it
// anything, gives what the byte-by-byte scan gives.
func TestSkipStringJumpsToTheFirstSpecialByte(t *testing.T) {
	for _, special := range []string{`"`, `\"`, `\u00e9"`, `\q`, "\x01", `\`} {
		for _, after := range []string{``, `!!!!!!!!"`, `]]]]]]]"`, "\x1f\"", `"`, `abcdefgh"`} {
			for at := range 18 {
				data := []byte(`"` + strings.Repeat("a", at) + special + after)
				end1, err1 := skipString(data, 0)
				end2, err2 := skipStringSlow(data, 0)
				if end1 != end2 || (err1 == nil) != (err2 == nil) {
					t.Errorf("%q: fast (%d, %v), slow (%d, %v)", data, end1, err1, end2, err2)
				}
			}
		}
	}
}

func TestSplitPageDrop(t *testing.T) {
	body := []byte(`[{"id":1},{"id":2,"pull_request":{"url":"u"}},{"id":3,"pull_request":null},` +
		`{"id":4,"nested":{"pull_request":{}}},5]`)
	p, err := SplitPageDrop(body, "", "pull_request")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Records {
		got = append(got, string(r))
	}
	want := []string{`{"id":1}`, `{"id":3,"pull_request":null}`, `{"id":4,"nested":{"pull_request":{}}}`, `5`}
	if d := cmp.Diff(want, got); d != "" || p.Dropped != 1 {
		t.Errorf("(-want +got):\n%s dropped=%d", d, p.Dropped)
	}
	// A dropped record is still validated.
	if _, err := SplitPageDrop([]byte(`{"items":[{"pull_request":{"u":tru}}]}`), "items", "pull_request"); !errors.Is(err, ErrSyntax) {
		t.Errorf("invalid dropped record: err = %v, want ErrSyntax", err)
	}
}

// TestShapeErrors: valid JSON of another shape says what was expected and
// what arrived; malformed JSON says where it breaks.
func TestShapeErrors(t *testing.T) {
	cases := []struct {
		body string
		spec Spec
		want string
		is   error
	}{
		{`{"tickets":{"id":1}}`, Spec{Key: "tickets"}, `expected an array under "tickets", got an object`, ErrShape},
		{`{"tickets":"none","count":0}`, Spec{Key: "tickets"}, `expected an array under "tickets", got a string`, ErrShape},
		{`{"tickets":[{"id":1}],"tickets":7}`, Spec{Key: "tickets"}, `expected an array under "tickets", got a number`, ErrShape},
		{`[{"id":1}]`, Spec{Key: "tickets"}, `expected an object with an array under "tickets", got an array`, ErrShape},
		{`{"users":[],"count":0}`, Spec{Key: "tickets", Required: true}, `expected an array under "tickets", got an object with "count", "users"`, ErrShape},
		{`{}`, Spec{Key: "tickets", Required: true}, `expected an array under "tickets", got an empty object`, ErrShape},
		{`{"type":"file","name":"a.md"}`, Spec{}, `expected an array, got an object`, ErrShape},
		{` true `, Spec{}, `expected an array, got a boolean`, ErrShape},
		{`null`, Spec{One: true}, `expected an array or an object, got null`, ErrShape},
		{``, Spec{}, `expected an array, got an empty body`, ErrSyntax},
		{`<html>`, Spec{Key: "tickets"}, `expected JSON, got malformed JSON at byte 0: unexpected character`, ErrSyntax},
		{`{"tickets":[1,]}`, Spec{Key: "tickets"}, `expected JSON, got malformed JSON at byte 14: unexpected character`, ErrSyntax},
		{`{"a":1} {}`, Spec{One: true}, `expected JSON, got malformed JSON at byte 8: data after the top-level value`, ErrSyntax},
	}
	for _, c := range cases {
		_, err := Split([]byte(c.body), c.spec)
		if err == nil || err.Error() != c.want || !errors.Is(err, c.is) {
			t.Errorf("Split(%q, %+v) = %v, want %q (%v)", c.body, c.spec, err, c.want, c.is)
		}
	}
	// The missing key is only an error when required.
	if p, err := Split([]byte(`{"users":[]}`), Spec{Key: "tickets"}); err != nil || p.Found {
		t.Errorf("not required: %+v %v", p, err)
	}
	// One: an object body is a page of that one record.
	p, err := Split([]byte(` {"type":"file","name":"a.md"} `), Spec{One: true})
	if err != nil || len(p.Records) != 1 || string(p.Records[0]) != `{"type":"file","name":"a.md"}` || !p.Found {
		t.Errorf("one record: %q %v", p.Records, err)
	}

	objects := []struct{ body, key, want string }{
		{`{"ticket":[1]}`, "ticket", `expected an object under "ticket", got an array`},
		{`{"ticket":null}`, "ticket", `expected an object under "ticket", got null`},
		{`{"error":"x"}`, "ticket", `expected an object under "ticket", got an object with "error"`},
		{`[{"id":1}]`, "ticket", `expected an object with an object under "ticket", got an array`},
		{`[{"id":1}]`, "", `expected an object, got an array`},
		{`"x"`, "", `expected an object, got a string`},
	}
	for _, c := range objects {
		_, err := Object([]byte(c.body), c.key)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrShape) {
			t.Errorf("Object(%q, %q) = %v, want %q", c.body, c.key, err, c.want)
		}
	}
	if v, err := Object([]byte(`{"ticket":{"id":1},"x":2}`), "ticket"); err != nil || string(v) != `{"id":1}` {
		t.Errorf("Object: %s %v", v, err)
	}
}

// A dot path names a records array inside nested objects (GraphQL's
// data.<connection>.nodes): the page's fields are the members beside it.
func TestSplitNested(t *testing.T) {
	body := []byte(`{"data":{"issues":{"pageInfo":{"hasNextPage":true,"endCursor":"c2"},"nodes":[{"id":"a"},{"id":"b"}]}},"extensions":{}}`)
	p, err := Split(body, Spec{Key: "data.issues.nodes", Required: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 2 || string(p.Records[1]) != `{"id":"b"}` {
		t.Errorf("records %q", p.Records)
	}
	if string(p.Fields["pageInfo"]) != `{"hasNextPage":true,"endCursor":"c2"}` || len(p.Fields) != 1 {
		t.Errorf("fields %q", p.Fields)
	}
	// A body that is not valid JSON after the records is refused, as a
	// flat page's is.
	if _, err := Split(append(body[:len(body)-1:len(body)-1], []byte(`,"x":}`)...), Spec{Key: "data.issues.nodes"}); !errors.Is(err, ErrSyntax) {
		t.Errorf("malformed tail: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"data":null,"errors":[{"message":"x"}]}`, `expected an object under "data.issues", got null`},
		{`{"data":{"teams":{}}}`, `expected an object under "data.issues", got an object with "teams"`},
		{`{"data":{"issues":{"nodes":{}}}}`, `expected an array under "data.issues.nodes", got an object`},
		{`{"data":{"issues":[]}}`, `expected an object under "data.issues", got an array`},
	} {
		_, err := Split([]byte(c.body), Spec{Key: "data.issues.nodes", Required: true})
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
	// Not required: a missing object is a page without records.
	if p, err := Split([]byte(`{"data":null}`), Spec{Key: "data.issues.nodes"}); err != nil || p.Found || len(p.Records) != 0 {
		t.Errorf("not required: %+v %v", p, err)
	}
	obj, err := Object([]byte(`{"data":{"issue":{"id":"x"}}}`), "data.issue")
	if err != nil || string(obj) != `{"id":"x"}` {
		t.Errorf("Object: %s %v", obj, err)
	}
	if _, err := Object([]byte(`{"data":{"issue":null}}`), "data.issue"); err == nil || err.Error() != `expected an object under "data.issue", got null` {
		t.Errorf("Object null: %v", err)
	}
}
