package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	svix "github.com/svix/svix-webhooks/go"

	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/webhook"
)

const hookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// hook is one webhook request the test receiver got.
type hook struct {
	id, typ string
	data    map[string]any
}

// The service's events reach the client's endpoint, signed (svix
// verifies), in order: connector.created, the background sync's
// sync.completed with its counts, connector.deleted; the other tenant's
// endpoint gets none of them; a replay sends one again; GET /v1/webhooks
// shows the endpoint healthy.
func TestEventsReachTheClientsWebhooks(t *testing.T) {
	t.Parallel()
	wh, err := svix.NewWebhook(hookSecret)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string][]hook{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := wh.Verify(body, r.Header); err != nil {
			t.Errorf("%s: svix refuses the signature: %v", r.URL.Path, err)
		}
		var p struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], hook{id: r.Header.Get("webhook-id"), typ: p.Type, data: p.Data})
		mu.Unlock()
	}))
	defer recv.Close()
	received := func(path string) []hook {
		mu.Lock()
		defer mu.Unlock()
		return append([]hook(nil), got[path]...)
	}
	a, b := clientA, clientB
	a.Webhooks = []server.Webhook{{URL: recv.URL + "/a", Secret: hookSecret}}
	b.Webhooks = []server.Webhook{{URL: recv.URL + "/b", Secret: hookSecret, Events: []string{"sync.*"}}}
	db := sqliteStore(t)
	svc := start(t, db, nil, func(c *server.Config) {
		c.Clients = []server.Client{a, b}
		c.SyncEvery = time.Hour
		c.Delivery = server.DeliveryConfig{Poll: 20 * time.Millisecond, Backoff: 10 * time.Millisecond}
	})
	tok := svc.token(t, a, "")
	id := svc.create(t, tok, "user-1")
	waitFor := func(what string, cond func([]hook) bool) []hook {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if h := received("/a"); cond(h) {
				return h
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: got %+v", what, received("/a"))
		return nil
	}
	hooks := waitFor("connector.created and a sync.completed", func(h []hook) bool {
		return len(h) >= 2 && h[len(h)-1].typ == webhook.SyncCompleted
	})
	if hooks[0].typ != webhook.ConnectorCreated || hooks[0].data["connector_id"] != id {
		t.Errorf("first event: %+v, want connector.created of %s", hooks[0], id)
	}
	sc := hooks[1].data
	if sc["connector_id"] != id || sc["mode"] != "full" || sc["entity"] == nil || sc["inserted"] == nil || sc["updated"] == nil || sc["deleted"] == nil {
		t.Errorf("sync.completed data: %v", sc)
	}
	if a := svc.do(t, "DELETE", "/v1/integrations/connectors/"+id, tok, nil); a.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", a.status, a.body)
	}
	hooks = waitFor("connector.deleted", func(h []hook) bool { return h[len(h)-1].typ == webhook.ConnectorDeleted })
	// Its copies are gone: at once, or once the sync that held one
	// fails (no such connector) or, having committed, is due again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, err := db.ConnectorCopies(t.Context(), id)
		if err == nil && len(left) <= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the deleted connector's copies left in the store: %+v %v", left, err)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a := svc.do(t, "GET", "/v1/integrations/connectors/"+id, tok, nil); a.status != http.StatusNotFound {
		t.Errorf("status of a deleted connector: %d %s", a.status, a.body)
	}
	if n := len(received("/b")); n != 0 {
		t.Errorf("the other tenant's endpoint got %d events", n)
	}
	// Replay the creation event.
	ans := svc.do(t, "POST", "/v1/webhooks/replay", tok, map[string]any{"endpoint": recv.URL + "/a", "event_id": hooks[0].id})
	if ans.status != http.StatusAccepted || fmt.Sprint(ans.json["replayed"]) != "1" {
		t.Fatalf("replay: %d %s", ans.status, ans.body)
	}
	n := len(hooks)
	waitFor("the replayed event", func(h []hook) bool { return len(h) == n+1 && h[n].id == hooks[0].id })
	// Another tenant cannot replay to this endpoint, nor a user token.
	if ans := svc.do(t, "POST", "/v1/webhooks/replay", svc.token(t, b, ""), map[string]any{"endpoint": recv.URL + "/a", "event_id": hooks[0].id}); ans.status != http.StatusBadRequest {
		t.Errorf("replay by another tenant: %d %s", ans.status, ans.body)
	}
	if ans := svc.do(t, "POST", "/v1/webhooks/replay", svc.token(t, a, "user-1"), map[string]any{"endpoint": recv.URL + "/a", "event_id": hooks[0].id}); ans.status != http.StatusForbidden {
		t.Errorf("replay with a user's token: %d %s", ans.status, ans.body)
	}
	st := svc.do(t, "GET", "/v1/webhooks", tok, nil)
	if st.status != 200 || !strings.Contains(string(st.body), `"status":"healthy"`) || strings.Contains(string(st.body), "whsec_") {
		t.Errorf("GET /v1/webhooks: %d %s", st.status, st.body)
	}
	// Metrics.
	m := svc.do(t, "GET", "/metrics", "", nil)
	for _, name := range []string{"tributary_webhook_delivered_total", "tributary_webhook_pending", "tributary_webhook_delivery_latency_seconds", "tributary_webhook_endpoint_failing"} {
		if !strings.Contains(string(m.body), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if strings.Contains(fmt.Sprintf("%v %+v", a, a.Webhooks), "MfKQ9r8") {
		t.Error("a printed client shows its webhook secret")
	}
}

// An endpoint with ChangesOnly gets sync.completed only for the syncs
// that changed records: while the background sync finds nothing new, the
// default endpoint gets an event per sync and it gets none; a ticket
// updated at the source gives it one, the sync that read the change.
// Other types reach it as before; GET /v1/webhooks says which it is.
func TestChangesOnlyEndpoint(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string][]hook{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], hook{id: r.Header.Get("webhook-id"), typ: p.Type, data: p.Data})
		mu.Unlock()
	}))
	defer recv.Close()
	// syncs returns the sync.completed events path received: those that
	// changed records and those that did not, by event id.
	syncs := func(path string) (changed, noop map[string]hook, created bool) {
		mu.Lock()
		defer mu.Unlock()
		changed, noop = map[string]hook{}, map[string]hook{}
		for _, h := range got[path] {
			switch h.typ {
			case webhook.ConnectorCreated:
				created = true
			case webhook.SyncCompleted:
				n := 0.0
				for _, k := range []string{"inserted", "updated", "deleted"} {
					v, _ := h.data[k].(float64)
					n += v
				}
				if n > 0 {
					changed[h.id] = h
				} else {
					noop[h.id] = h
				}
			}
		}
		return changed, noop, created
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited 30 s for %s", what)
			}
		}
	}
	// sameChanges: the changes-only endpoint got exactly the events of
	// the syncs that changed records, once the deliveries caught up.
	sameChanges := func() bool {
		all, _, _ := syncs("/all")
		only, noop, _ := syncs("/changes")
		if len(noop) > 0 {
			t.Fatalf("the changes-only endpoint got no-op syncs: %v", noop)
		}
		if len(all) != len(only) {
			return false
		}
		for id := range all {
			if _, ok := only[id]; !ok {
				return false
			}
		}
		return true
	}
	a := clientA
	a.Webhooks = []server.Webhook{{URL: recv.URL + "/all", Secret: hookSecret}, {URL: recv.URL + "/changes", Secret: hookSecret, ChangesOnly: true}}
	svc := start(t, sqliteStore(t), nil, func(c *server.Config) {
		c.Clients = []server.Client{a}
		c.SyncEvery = 100 * time.Millisecond
		c.Delivery = server.DeliveryConfig{Poll: 20 * time.Millisecond, Backoff: 10 * time.Millisecond}
	})
	tok := svc.token(t, a, "")
	svc.create(t, tok, "user-1")

	// The first syncs insert; then they find nothing new.
	waitUntil("no-op syncs at the default endpoint", func() bool { _, noop, _ := syncs("/all"); return len(noop) >= 5 })
	waitUntil("the changes-only endpoint to get the first syncs", sameChanges)
	if _, _, created := syncs("/changes"); !created {
		t.Error("the changes-only endpoint did not get connector.created")
	}
	first, _, _ := syncs("/changes")
	if len(first) == 0 {
		t.Fatal("no sync changed records: the first syncs should have inserted")
	}
	_, noop, _ := syncs("/all")
	waitUntil("more no-op syncs", func() bool { _, more, _ := syncs("/all"); return len(more) >= len(noop)+5 })
	if now, _, _ := syncs("/changes"); len(now) != len(first) {
		t.Errorf("no-op syncs sent %d events to the changes-only endpoint", len(now)-len(first))
	}

	// A change at the source: one event, the sync that read it.
	id := svc.zd.IDs("tickets")[0]
	if err := svc.zd.Update("tickets", id); err != nil {
		t.Fatal(err)
	}
	svc.zd.Clock().Advance(2 * time.Minute) // past the export's minute
	waitUntil("the update's event at the changes-only endpoint", func() bool {
		now, _, _ := syncs("/changes")
		for _, h := range now {
			if _, old := first[h.id]; !old && h.data["entity"] == "tickets" && h.data["updated"] == 1.0 {
				return true
			}
		}
		return false
	})
	waitUntil("both endpoints to agree on what changed", sameChanges)

	ans := svc.do(t, "GET", "/v1/webhooks", tok, nil)
	eps, _ := ans.json["endpoints"].([]any)
	flags := map[string]any{}
	for _, e := range eps {
		m := e.(map[string]any)
		flags[m["url"].(string)] = m["changes_only"]
	}
	if flags[recv.URL+"/all"] != false || flags[recv.URL+"/changes"] != true {
		t.Errorf("GET /v1/webhooks: %s", ans.body)
	}
}
