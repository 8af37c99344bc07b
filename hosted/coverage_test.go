package hosted_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/tributary-dev/tributary/kinds"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/search"
)

// searchable lists a catalogue's entities that offer search.
func searchable(es []tributary.Entity) []string {
	var out []string
	for _, e := range es {
		if e.Supports(tributary.ActionSearch) && len(e.Searchable) > 0 {
			out = append(out, e.Name)
		}
	}
	return out
}

// createRequest is the create call of a sandbox connector of kind.
func createRequest(sb *sandbox.Sandbox, kind string) hosted.CreateRequest {
	req := hosted.CreateRequest{ConnectorType: kind, Name: kind, Credentials: sb.Credentials(kind)}
	if kind == "intercom" { // the service requires a start date for Intercom
		req.ReplicationConfig = map[string]any{"start_date": "2000-01-01T00:00:00Z"}
	}
	return req
}

// TestSearchEverySearchableEntity: for every kind and every entity its
// catalogue marks searchable, with no params from the caller, `search`
// answers with records in direct mode (a durable replica of the sandbox
// fake) and through the service (the hosted client against tributary
// serve, which copies the entity on its first search).
func TestSearchEverySearchableEntity(t *testing.T) {
	sb := sandbox.New()
	defer sb.Close()
	var opts []hostedtest.Option
	for _, kind := range sb.Types() {
		o, err := sb.Options(kind)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, hostedtest.WithConnectorOptions(kind, append(o, fast)...))
	}
	srv := newService(t, opts...)
	defer srv.Close()
	client, err := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
		ExternalUserID: "customer-42"}, fast)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	total := 0
	for _, kind := range sb.Types() {
		t.Run(kind, func(t *testing.T) {
			conn, err := sb.Open(kind, fast)
			if err != nil {
				t.Fatal(err)
			}
			entities := searchable(conn.Entities())
			total += len(entities)
			if got := replica.Syncable(conn.Entities()); len(got) != len(entities) {
				t.Errorf("replica.Syncable = %v, want every searchable entity %v", got, entities)
			}
			direct, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/direct.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			if _, err := direct.Sync(ctx, entities...); err != nil {
				t.Fatalf("direct sync: %v", err)
			}
			id, err := client.CreateConnector(ctx, createRequest(sb, kind))
			if err != nil {
				t.Fatal(err)
			}
			h, err := client.Connector(id, kind)
			if err != nil {
				t.Fatal(err)
			}
			for _, entity := range entities {
				if want, got := sourceCount(t, conn, entity), direct.Len(entity); got != want {
					t.Errorf("direct: the copy of %s holds %d records, the source %d", entity, got, want)
				}
				res, err := direct.Search(ctx, entity, search.Request{Limit: 5})
				if err != nil || len(res.Hits) == 0 {
					t.Errorf("direct: search %s: %v hits, %v", entity, hitCount(res), err)
				}
				out, err := tributary.Execute(ctx, h, tributary.Request{Entity: entity, Action: tributary.ActionSearch,
					Params: tributary.Params{"query": map[string]any{}, "limit": 5}})
				if err != nil || out.Search == nil || len(out.Search.Hits) == 0 {
					t.Errorf("hosted: search %s: %v", entity, err)
				}
				e, _ := tributary.FindEntity(conn.Entities(), entity)
				checkDateTimes(t, e, map[string]tributary.Connector{"direct": direct.Connector(), "hosted": h})
			}
		})
	}
	t.Logf("%d searchable entities across %d kinds", total, len(sb.Types()))
	// Every registered kind has a fake here, and the seven first kinds'
	// 49 searchable entities stay searchable (a floor: each new kind adds
	// its own).
	if got, want := sb.Types(), kinds.Types(); !slices.Equal(got, want) {
		t.Errorf("the sandbox covers %v, the registry holds %v", got, want)
	}
	if total < 49 {
		t.Errorf("%d searchable entities, the first seven kinds alone mark 49", total)
	}
}

// sourceCount counts the records a walk of the entity's copy scope reads
// (every part's, for a scope read in parts).
func sourceCount(t *testing.T, conn tributary.Connector, entity string) int {
	t.Helper()
	ctx := context.Background()
	e, _ := tributary.FindEntity(conn.Entities(), entity)
	parts := []tributary.Part{{Params: e.CopyParams(nil)}}
	if e.CopiedInParts() {
		parts = nil
		for p, err := range e.Scope.Parts(ctx, conn, nil) {
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
	}
	n := 0
	for _, p := range parts {
		for _, err := range tributary.All(ctx, conn, entity, p.Params) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}

func hitCount(res *search.Result) int {
	if res == nil {
		return 0
	}
	return len(res.Hits)
}

// checkDateTimes checks e's date-time fields against the records of its
// copy, in each mode: a string field holding RFC 3339 date-times is typed
// date-time, a date-time field holds nothing else, a filter on one with a
// value of its records or a plain date finds records, and one with
// "yesterday" is refused as invalid params.
func checkDateTimes(t *testing.T, e tributary.Entity, modes map[string]tributary.Connector) {
	t.Helper()
	ctx := context.Background()
	run := func(c tributary.Connector, filter map[string]any) (*search.Result, error) {
		out, err := tributary.Execute(ctx, c, tributary.Request{Entity: e.Name, Action: tributary.ActionSearch,
			Params: tributary.Params{"query": map[string]any{"filter": filter}, "limit": 20}})
		if err != nil {
			return nil, err
		}
		return out.Search, nil
	}
	all, err := run(modes["direct"], nil)
	if err != nil {
		t.Fatalf("%s: %v", e.Name, err)
	}
	for _, f := range e.Searchable {
		var sample string
		for _, hit := range all.Hits {
			v, ok := at(hit.Data, f.Name).(string)
			if !ok || v == "" { // Mailchimp's send_time of a campaign not sent
				continue
			}
			dt, _ := search.ValueOf(v)
			switch {
			case f.Type == tributary.TypeString && dt.IsDateTime():
				t.Errorf("%s.%s holds the date-time %q but is typed string", e.Name, f.Name, v)
			case f.Type == tributary.TypeDateTime && !dt.IsDateTime():
				t.Errorf("%s.%s is typed date-time but holds %q", e.Name, f.Name, v)
			case f.Type == tributary.TypeDateTime && sample == "":
				sample = v
			}
		}
		if f.Type != tributary.TypeDateTime {
			continue
		}
		for mode, c := range modes {
			_, err := run(c, map[string]any{"gt": map[string]any{f.Name: "yesterday"}})
			if !errors.Is(err, tributary.ErrInvalidParams) || !strings.Contains(err.Error(), f.Name+" is a date-time: \"yesterday\" is not RFC 3339") {
				t.Errorf("%s: %s.%s gt yesterday: %v, want invalid params", mode, e.Name, f.Name, err)
			}
			if sample == "" {
				continue
			}
			for _, filter := range []map[string]any{{"eq": map[string]any{f.Name: sample}}, {"gte": map[string]any{f.Name: "1970-01-01"}}} {
				if res, err := run(c, filter); err != nil || len(res.Hits) == 0 {
					t.Errorf("%s: %s %v: %v hits, %v", mode, e.Name, filter, hitCount(res), err)
				}
			}
		}
	}
}

// at is the value at a dot path of a JSON object.
func at(data json.RawMessage, path string) any {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
