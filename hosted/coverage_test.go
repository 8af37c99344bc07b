package hosted_test

import (
	"context"
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
			}
		})
	}
	t.Logf("%d searchable entities across %d kinds", total, len(sb.Types()))
	if total != 49 {
		t.Errorf("%d searchable entities, the catalogue marks 49", total)
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
