package kinds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/tributary-dev/tributary/internal/fakes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// staticCredentials are the credentials of the kinds whose fakes'
// (internal/fakes) would need a token request before the first call.
var staticCredentials = map[string]map[string]any{
	"salesforce": {"client_id": "fuzz-client", "client_secret": "fuzz-client-secret", "refresh_token": "fuzz-refresh",
		"access_token": "fuzz-access", "instance_url": "https://acme.my.salesforce.com"},
}

// fuzzCredentials returns placeholder credentials that open typ with no
// token request: its fake's (fakeserver.Kind.Credentials), so that a new
// kind is covered without a line here, or staticCredentials'.
func fuzzCredentials(tb testing.TB, typ string) map[string]any {
	if c, ok := staticCredentials[typ]; ok {
		return c
	}
	k, ok := fakes.Of(typ)
	if !ok {
		tb.Fatalf("no fake registered for kind %s (internal/fakes)", typ)
	}
	return k.Credentials
}

// guard is the RoundTripper of the fuzzed connectors: it keeps what is
// sent (method, URL and body) and answers everything with an empty 404, so
// nothing leaves the process and nothing is retried.
type guard struct {
	mu   sync.Mutex
	sent []string
}

func (g *guard) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
	}
	g.mu.Lock()
	g.sent = append(g.sent, r.Method+" "+r.URL.String()+" "+string(body))
	g.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusNotFound, Status: "404 Not Found", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(strings.NewReader(`{}`)),
		Request: r, ContentLength: 2,
	}, nil
}

// take returns and forgets what was sent since the last call.
func (g *guard) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sent
	g.sent = nil
	return s
}

// fuzzOp is the fuzz input: one operation as JSON.
type fuzzOp struct {
	Entity string           `json:"entity"`
	Action tributary.Action `json:"action"`
	Params tributary.Params `json:"params"`
}

// sample returns a value of p's type (the first allowed value, the
// minimum, the required members), for building seed operations.
func sample(p tributary.Param) any {
	switch p.Type {
	case tributary.TypeString:
		if len(p.Enum) > 0 {
			return p.Enum[0]
		}
		return "x"
	case tributary.TypeInteger, tributary.TypeNumber:
		if p.Min != nil {
			return *p.Min
		}
		return 1
	case tributary.TypeBoolean:
		return true
	case tributary.TypeArray:
		item := tributary.Param{Type: tributary.TypeString, Enum: p.Enum}
		if p.Items != nil {
			item = *p.Items
		}
		return []any{sample(item)}
	case tributary.TypeObject:
		m := map[string]any{}
		for _, f := range p.Fields {
			if f.Required {
				m[f.Name] = sample(f)
			}
		}
		return m
	}
	return "x"
}

// FuzzValidate decodes random JSON as {entity, action, params} and runs it
// through every kind: tributary.Validate against the kind's catalogue, and
// the kind's connector (List, Get, APISearch, Download and Execute) over a
// transport that records every request. It never panics or hangs; every
// refusal is a *tributary.Error matching ErrUnknownEntity,
// ErrUnsupportedAction or ErrInvalidParams (with the parameter named); the
// connector refuses exactly what Validate refuses, naming the same
// parameter, and sends nothing then; Validate leaves its input alone and
// its normal form validates to itself.
func FuzzValidate(f *testing.F) {
	g := &guard{}
	hc := &http.Client{Transport: g}
	type kindUnderTest struct {
		typ      string
		entities []tributary.Entity
		conn     tributary.Connector
	}
	var all []kindUnderTest
	for _, typ := range kinds.Types() {
		ents, err := kinds.Catalogue(typ)
		if err != nil {
			f.Fatal(err)
		}
		creds := fuzzCredentials(f, typ)
		conn, err := kinds.Open(typ, creds, tributary.WithHTTPClient(hc), tributary.WithBaseURL("http://fuzz.invalid"),
			tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: time.Millisecond}),
			tributary.WithoutPacing())
		if err != nil {
			f.Fatalf("open %s: %v", typ, err)
		}
		all = append(all, kindUnderTest{typ, ents, conn})

		// Seeds: every entity and action of the catalogue with its required
		// params filled in.
		for _, e := range ents {
			for _, a := range e.Actions {
				p := tributary.Params{}
				for _, d := range e.Params[a] {
					if d.Required {
						p[d.Name] = sample(d)
					}
				}
				b, err := json.Marshal(fuzzOp{Entity: e.Name, Action: a, Params: p})
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
			}
		}
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		var ops []fuzzOp
		var plain fuzzOp
		if json.Unmarshal(data, &plain) == nil {
			ops = append(ops, plain)
		}
		var num fuzzOp
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&num) == nil {
			ops = append(ops, num)
		}
		if len(ops) == 0 {
			return
		}
		g.take()
		for _, op := range ops {
			for _, k := range all {
				checkKind(t, g, k.typ, k.entities, k.conn, op)
			}
		}
	})
}

// checkKind runs one operation against one kind.
func checkKind(t *testing.T, g *guard, typ string, ents []tributary.Entity, conn tributary.Connector, op fuzzOp) {
	t.Helper()
	before := deepCopy(op.Params)

	// The connector's methods, each against Validate for its own action.
	methods := []struct {
		a    tributary.Action
		call func(ctx context.Context) error
	}{
		{tributary.ActionList, func(ctx context.Context) error { _, err := conn.List(ctx, op.Entity, op.Params); return err }},
		{tributary.ActionGet, func(ctx context.Context) error { _, err := conn.Get(ctx, op.Entity, op.Params); return err }},
		{tributary.ActionAPISearch, func(ctx context.Context) error { _, err := conn.APISearch(ctx, op.Entity, op.Params); return err }},
		{tributary.ActionDownload, func(ctx context.Context) error {
			s, err := conn.Download(ctx, op.Entity, op.Params)
			if s != nil {
				s.Close()
			}
			return err
		}},
	}
	for _, m := range methods {
		norm, verr := tributary.Validate(typ, ents, op.Entity, m.a, op.Params)
		checkRefusal(t, typ, op.Entity, m.a, verr)
		if verr == nil {
			again, err := tributary.Validate(typ, ents, op.Entity, m.a, norm)
			if err != nil {
				t.Fatalf("%s %s.%s: the normal form %#v of %#v is refused: %v", typ, op.Entity, m.a, norm, op.Params, err)
			}
			if !reflect.DeepEqual(again, norm) {
				t.Fatalf("%s %s.%s: the normal form is not a fixpoint:\n%#v\n%#v", typ, op.Entity, m.a, norm, again)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cerr := m.call(ctx)
		cancel()
		sent := g.take()
		compare(t, typ, op.Entity, m.a, verr, cerr, sent)
	}

	// Execute with the operation's own action (search, unknown actions).
	_, verr := tributary.Validate(typ, ents, op.Entity, op.Action, op.Params)
	checkRefusal(t, typ, op.Entity, op.Action, verr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	res, xerr := tributary.Execute(ctx, conn, tributary.Request{Entity: op.Entity, Action: op.Action, Params: op.Params})
	cancel()
	if res != nil && res.Download != nil {
		res.Download.Close()
	}
	compare(t, typ, op.Entity, op.Action, verr, xerr, g.take())

	if !reflect.DeepEqual(before, op.Params) {
		t.Fatalf("%s %s: params were modified:\n%#v\n%#v", typ, op.Entity, before, op.Params)
	}
}

// TestValidateEmptyParamName: a parameter named "" is refused with an
// error that still names it.
func TestValidateEmptyParamName(t *testing.T) {
	ents, err := kinds.Catalogue("gong")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tributary.Validate("gong", ents, "calls", tributary.ActionList, tributary.Params{"": "0"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) {
		t.Fatalf("got %v, want ErrInvalidParams", err)
	}
	if te.Param == "" {
		t.Errorf("Param is empty: %v", err)
	}
}

// checkRefusal checks the shape of a Validate error.
func checkRefusal(t *testing.T, typ, entity string, a tributary.Action, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var te *tributary.Error
	if !errors.As(err, &te) {
		t.Fatalf("%s %s.%s: Validate returned %T, not *tributary.Error: %v", typ, entity, a, err, err)
	}
	switch {
	case errors.Is(err, tributary.ErrUnknownEntity), errors.Is(err, tributary.ErrUnsupportedAction):
	case errors.Is(err, tributary.ErrInvalidParams):
		if te.Param == "" {
			t.Fatalf("%s %s.%s: ErrInvalidParams without Param: %v", typ, entity, a, err)
		}
	default:
		t.Fatalf("%s %s.%s: Validate refused with an unexpected sentinel: %v", typ, entity, a, err)
	}
	if te.Kind != typ || te.Entity != entity || te.Action != a {
		t.Fatalf("%s %s.%s: the error names %q %q.%q", typ, entity, a, te.Kind, te.Entity, te.Action)
	}
}

// compare checks a connector call against what Validate said.
func compare(t *testing.T, typ, entity string, a tributary.Action, verr, cerr error, sent []string) {
	t.Helper()
	if cerr != nil {
		var te *tributary.Error
		if !errors.As(cerr, &te) {
			t.Fatalf("%s %s.%s: the connector returned %T, not *tributary.Error: %v", typ, entity, a, cerr, cerr)
		}
		if errors.Is(cerr, context.DeadlineExceeded) {
			t.Fatalf("%s %s.%s: the call hung: %v", typ, entity, a, cerr)
		}
	}
	if verr == nil {
		if errors.Is(cerr, tributary.ErrUnknownEntity) {
			t.Fatalf("%s %s.%s: Validate accepted but the connector says %v", typ, entity, a, cerr)
		}
		return
	}
	if len(sent) > 0 {
		t.Fatalf("%s %s.%s: Validate refused (%v) but the connector sent %v", typ, entity, a, verr, sent)
	}
	if cerr == nil {
		t.Fatalf("%s %s.%s: Validate refused (%v) but the connector accepted", typ, entity, a, verr)
	}
	var vt, ct *tributary.Error
	errors.As(verr, &vt)
	errors.As(cerr, &ct)
	if !errors.Is(cerr, vt.Err) || ct.Param != vt.Param {
		t.Fatalf("%s %s.%s: Validate refused with %v but the connector with %v", typ, entity, a, verr, cerr)
	}
}

// deepCopy copies a JSON-shaped value (maps, slices, scalars).
func deepCopy(p tributary.Params) tributary.Params {
	if p == nil {
		return nil
	}
	var cp func(v any) any
	cp = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = cp(e)
			}
			return m
		case tributary.Params:
			m := make(tributary.Params, len(x))
			for k, e := range x {
				m[k] = cp(e)
			}
			return m
		case []any:
			s := make([]any, len(x))
			for i, e := range x {
				s[i] = cp(e)
			}
			return s
		}
		return v
	}
	return cp(p).(tributary.Params)
}
