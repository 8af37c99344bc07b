package kinds_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// openRecorded opens a connector of typ whose requests go to rec (a
// guard, or a canned answer).
func openRecorded(t *testing.T, typ string, rec http.RoundTripper) tributary.Connector {
	t.Helper()
	conn, err := kinds.Open(typ, fuzzCredentials(t, typ), tributary.WithHTTPClient(&http.Client{Transport: rec}),
		tributary.WithBaseURL("http://vendor.invalid"),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: time.Millisecond}),
		tributary.WithoutPacing())
	if err != nil {
		t.Fatalf("open %s: %v", typ, err)
	}
	return conn
}

// scalarLeaf is an integer or boolean parameter of an action, by path
// (object members nested), possibly the elements of an array.
type scalarLeaf struct {
	path  []string
	param tributary.Param // the integer or boolean itself
	array bool            // the parameter is an array of them
}

func scalarLeaves(params []tributary.Param, prefix []string) []scalarLeaf {
	var out []scalarLeaf
	for _, p := range params {
		path := append(append([]string(nil), prefix...), p.Name)
		switch {
		case p.Type == tributary.TypeInteger || p.Type == tributary.TypeBoolean:
			out = append(out, scalarLeaf{path: path, param: p})
		case p.Type == tributary.TypeArray && p.Items != nil && (p.Items.Type == tributary.TypeInteger || p.Items.Type == tributary.TypeBoolean):
			out = append(out, scalarLeaf{path: path, param: *p.Items, array: true})
		case p.Type == tributary.TypeObject:
			out = append(out, scalarLeaves(p.Fields, path)...)
		}
	}
	return out
}

// forms returns a leaf's value typed (as a program passes it) and as a
// string (as a caller holding JSON does), in a non-canonical spelling
// where there is one ("007" for 7).
func forms(p tributary.Param) (typed any, str string) {
	if p.Type == tributary.TypeBoolean {
		return true, "true"
	}
	n := int64(7)
	switch {
	case len(p.Enum) > 0:
		fmt.Sscan(p.Enum[0], &n)
	case p.Min != nil:
		n = int64(*p.Min)
	case p.Max != nil:
		n = int64(*p.Max)
	}
	if n >= 0 {
		return n, fmt.Sprintf("00%d", n)
	}
	return n, fmt.Sprint(n)
}

// withLeaf returns the required params of decl with the leaf set to v.
func withLeaf(decl []tributary.Param, leaf scalarLeaf, v any) tributary.Params {
	p := tributary.Params{}
	for _, d := range decl {
		if d.Required {
			p[d.Name] = sample(d)
		}
	}
	if leaf.array {
		v = []any{v}
	}
	cur := map[string]any(p)
	for _, k := range leaf.path[:len(leaf.path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[leaf.path[len(leaf.path)-1]] = v
	return p
}

// TestIntegerAndBooleanParamsAsStrings runs, for every integer and boolean
// parameter of every action of every catalogue, the operation twice: with
// the value typed and spelled as a string ("007", "true"). Both are
// accepted, and the vendor receives exactly the same requests: the
// canonical value, never the string.
func TestIntegerAndBooleanParamsAsStrings(t *testing.T) {
	total := 0
	var unsent []string
	for _, typ := range kinds.Types() {
		rec := &guard{}
		conn := openRecorded(t, typ, rec)
		for _, e := range conn.Entities() {
			for _, a := range e.Actions {
				if a == tributary.ActionSearch {
					continue // no request: TestSearchValuesAsStrings
				}
				for _, leaf := range scalarLeaves(e.Params[a], nil) {
					name := fmt.Sprintf("%s %s.%s %s", typ, e.Name, a, strings.Join(leaf.path, "."))
					typed, str := forms(leaf.param)
					want := runOp(conn, e.Name, a, withLeaf(e.Params[a], leaf, typed))
					sentTyped := rec.take()
					got := runOp(conn, e.Name, a, withLeaf(e.Params[a], leaf, str))
					sentStr := rec.take()
					if refusal(want) != refusal(got) {
						t.Errorf("%s: typed %v, string %q: %v", name, want, str, got)
						continue
					}
					if strings.Join(sentTyped, "\n") != strings.Join(sentStr, "\n") {
						t.Errorf("%s: the string %q sent\n%s\nthe value %v sent\n%s", name, str, strings.Join(sentStr, "\n"), typed, strings.Join(sentTyped, "\n"))
					}
					if len(sentStr) > 0 && strings.Contains(strings.Join(sentStr, ""), str) && str != fmt.Sprint(typed) {
						t.Errorf("%s: the string %q reached the vendor: %s", name, str, sentStr)
					}
					if len(sentTyped) > 0 {
						total++
					} else {
						unsent = append(unsent, fmt.Sprintf("%s (%v)", name, want))
					}
				}
			}
		}
	}
	if total < 50 {
		t.Errorf("only %d parameters were checked on the wire", total)
	}
	t.Logf("%d integer and boolean parameters checked on the wire; not sent:\n%s", total, strings.Join(unsent, "\n"))
}

// runOp runs one operation; any error but a refusal of the params is
// expected (the recorder answers 404).
func runOp(c tributary.Connector, entity string, a tributary.Action, p tributary.Params) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := tributary.Execute(ctx, c, tributary.Request{Entity: entity, Action: a, Params: p})
	if res != nil && res.Download != nil {
		res.Download.Close()
	}
	return err
}

// refusal reduces an error to the refusal before sending it is, or "sent".
func refusal(err error) string {
	var te *tributary.Error
	if err == nil || !errors.As(err, &te) || te.StatusCode != 0 {
		return "sent"
	}
	return te.Error()
}
