package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// The change feed endpoint end to end, through package hosted: a
// connector's copy, synchronized in the background, reads as a feed
// whose replay is the copy; after changes at the vendor and another
// sync, a reader that follows the feed from its cursor holds the copy
// again, the deletion included. The endpoint answers at every path, to
// the connector's owner only; a cursor behind the retention is a 410
// "cursor_expired" that hosted reads as tributary.ErrCursorExpired.
func TestChangesEndpoint(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := b.open(t)
			zd := zendesktest.New(zendesktest.WithTickets(30))
			t.Cleanup(zd.Close)
			svc := start(t, st, zd, func(c *server.Config) { c.SyncEvery, c.SyncWorkers = 50*time.Millisecond, 1 })
			c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "user-1"})
			if err != nil {
				t.Fatal(err)
			}
			id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
			if err != nil {
				t.Fatal(err)
			}
			replayed, cursor := map[string]string{}, int64(0)
			follow := func() {
				t.Helper()
				for {
					page, err := c.Changes(ctx, id, "tickets", cursor, 7)
					if err != nil {
						t.Fatal(err)
					}
					for _, ch := range page.Changes {
						if ch.Op == "delete" {
							delete(replayed, ch.ID)
						} else {
							replayed[ch.ID] = string(ch.Data)
						}
					}
					cursor = page.NextCursor
					if !page.HasMore {
						return
					}
				}
			}
			// waitFor follows the feed until the copy holds n tickets,
			// the replay is the copy, and done says so.
			waitFor := func(n int, done func() bool) {
				t.Helper()
				deadline := time.Now().Add(20 * time.Second)
				for {
					if _, err := st.ChangeCursor(ctx, id, "tickets"); err == nil {
						follow()
						copy := liveTickets(t, st, id)
						if len(copy) == n && sameMap(replayed, copy) && done() {
							return
						}
					}
					if time.Now().After(deadline) {
						t.Fatalf("the feed's replay (%d records) never matched a copy of %d", len(replayed), n)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			waitFor(30, func() bool { return true })

			zd.Clock().Advance(5 * time.Minute)
			created, err := zd.Create("tickets")
			if err != nil {
				t.Fatal(err)
			}
			ids := zd.IDs("tickets")
			if err := zd.Update("tickets", ids[3]); err != nil {
				t.Fatal(err)
			}
			if err := zd.Delete("tickets", ids[5]); err != nil {
				t.Fatal(err)
			}
			zd.Clock().Advance(2 * time.Minute)
			waitFor(30, func() bool {
				_, gone := replayed[ids[5]]
				_, made := replayed[created]
				return !gone && made
			})

			tok := svc.token(t, clientA, "user-1")
			for _, p := range []string{"/v1/integrations/connectors/", "/api/v1/integrations/connectors/", "/api/v1/connectors/sources/"} {
				a := svc.do(t, "GET", p+id+"/changes?entity=tickets&limit=2", tok, nil)
				if a.status != http.StatusOK || a.json["next_cursor"] != 2.0 || a.json["has_more"] != true || !strings.Contains(string(a.body), `"op":"insert"`) {
					t.Fatalf("GET %s: %d %s", p, a.status, a.body)
				}
			}
			for q, want := range map[string]int{"": 400, "?entity=tickets&cursor=-1": 400, "?entity=tickets&limit=0": 400, "?entity=nope": 400, "?entity=tickets&cursor=999999": 400} {
				if a := svc.do(t, "GET", "/v1/integrations/connectors/"+id+"/changes"+q, tok, nil); a.status != want {
					t.Errorf("%q: %d %s, want %d", q, a.status, a.body, want)
				}
			}
			if a := svc.do(t, "GET", "/v1/integrations/connectors/"+id+"/changes?entity=tickets", svc.token(t, clientB, ""), nil); a.status != http.StatusNotFound {
				t.Fatalf("another tenant: %d %s", a.status, a.body)
			}
			if a := svc.do(t, "GET", "/v1/integrations/connectors/"+id+"/changes?entity=tickets", "", nil); a.status != http.StatusUnauthorized {
				t.Fatalf("no token: %d %s", a.status, a.body)
			}

			st.SetRetention(store.Retention{MaxChanges: 1})
			zd.Clock().Advance(5 * time.Minute)
			if err := zd.Update("tickets", ids[4]); err != nil {
				t.Fatal(err)
			}
			zd.Clock().Advance(2 * time.Minute)
			deadline := time.Now().Add(20 * time.Second)
			for {
				_, err = c.Changes(ctx, id, "tickets", 0, 10)
				if err != nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			var te *tributary.Error
			if !errors.Is(err, tributary.ErrCursorExpired) || !errors.As(err, &te) || te.StatusCode != http.StatusGone || !strings.Contains(te.Message, "read the records again") {
				t.Fatalf("a cursor behind the retention: %v", err)
			}
		})
	}
}

// liveTickets is the service's copy of connector id's tickets, by id.
func liveTickets(t *testing.T, st *store.Store, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	res, err := st.Search(context.Background(), id, "tickets", search.Request{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		out[h.ID] = string(h.Data)
	}
	return out
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The change feed names what is wrong with the entity asked for: an
// unknown one gets the nearest names, one that can never have a copy is
// told why and what reads it, and "yet" is said only of one that will
// have a copy once synchronized.
func TestChangesEntityErrors(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	for _, c := range []struct {
		entity, typ string
		status      int
		msg         string
	}{
		{"tickts", "unknown_entity", 400, `zendesk-support has no entity "tickts"; did you mean "tickets"? (entities: tickets, users,`},
		{"macros", "unsupported_action", 400, "only searchable entities have copies, and macros is not one (they are tickets, users, organizations, groups, ticket_comments, ticket_audits, ticket_metrics, ticket_fields, brands, tags, satisfaction_ratings, ticket_forms); read it with the execute endpoint's list action"},
		{"users", "not_found", 404, `the connector has no copy of "users" yet`},
	} {
		a := s.do(t, "GET", "/v1/integrations/connectors/"+id+"/changes?entity="+c.entity, tok, nil)
		e, _ := a.json["error"].(map[string]any)
		if msg, _ := e["message"].(string); a.status != c.status || a.errType() != c.typ || !strings.HasPrefix(msg, c.msg) {
			t.Errorf("entity=%s: %d %s, want %d %s saying %q", c.entity, a.status, a.body, c.status, c.typ, c.msg)
		}
	}
}
