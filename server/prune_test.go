package server_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// A running service prunes on its own, on a clock the test controls: at
// start and every PruneEvery, the events older than EventRetention whose
// deliveries are done, and the connect sessions expired for longer than
// ConnectSessionRetention; an event with a pending delivery stays.
func TestRunPrunesOnASchedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "serve.db")
	// The store stamps events with the database's clock, the real one;
	// the service's clock is the bubble's, moved to start at the same
	// time.
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		st, err := store.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		logs := &logBuffer{}
		srv, err := server.New(server.Config{Store: st, Keys: newKeys(t, "k1"), Clients: []server.Client{clientA}, SyncEvery: -1,
			Logger: slog.New(slog.NewJSONHandler(logs, nil)), PruneEvery: time.Hour, EventRetention: 3 * time.Hour, ConnectSessionRetention: 2 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		bubbleStart := time.Now()
		server.AdvanceClock(srv, realStart.Sub(bubbleStart))
		now := realStart

		// Two events: one delivered to nobody (done), one with a delivery
		// pending; and a session that expires in 30 minutes.
		done, err := webhook.NewEvent(webhook.ConnectorCreated, clientA.ID, "conn_a", now, map[string]any{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending, err := webhook.NewEvent(webhook.ConnectorCreated, clientA.ID, "conn_b", now, map[string]any{},
			[]webhook.Endpoint{{Tenant: clientA.ID, URL: "http://127.0.0.1:1/hooks", Secret: hookSecret}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id string
			ev *store.Event
		}{{"conn_a", done}, {"conn_b", pending}} {
			if _, err := st.CreateConnector(ctx, store.Connector{ID: c.id, Tenant: clientA.ID, Kind: "zendesk-support"}, store.Emit(c.ev)); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.CreateConnectSession(ctx, store.ConnectSession{ID: "cs_1", TokenHash: "h1", Tenant: clientA.ID, Created: now, Expires: now.Add(30 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		kept := func() (event, pendingEvent, session bool) {
			_, err := st.EventByID(ctx, done.ID)
			event = !errors.Is(err, store.ErrNotFound)
			_, err = st.EventByID(ctx, pending.ID)
			pendingEvent = !errors.Is(err, store.ErrNotFound)
			_, err = st.ConnectSessionByToken(ctx, "h1")
			session = !errors.Is(err, store.ErrNotFound)
			return
		}

		runCtx, stop := context.WithCancel(ctx)
		ran := make(chan struct{})
		go func() { defer close(ran); srv.Run(runCtx) }()
		for _, step := range []struct {
			at                   time.Duration
			event, pending, sess bool
		}{
			{time.Minute, true, true, true},                 // the prune at start: nothing is old enough
			{2*time.Hour + time.Minute, true, true, true},   // the session expired 1.5 h ago, the event is 2 h old
			{3*time.Hour + time.Minute, true, true, false},  // the session expired 2.5 h ago
			{4*time.Hour + time.Minute, false, true, false}, // the event is 4 h old; the pending one stays
		} {
			time.Sleep(step.at - time.Since(bubbleStart))
			synctest.Wait()
			if e, p, s := kept(); e != step.event || p != step.pending || s != step.sess {
				t.Errorf("after %s: event kept %v, pending event kept %v, session kept %v; want %v, %v, %v", step.at, e, p, s, step.event, step.pending, step.sess)
			}
		}
		stop()
		<-ran
	})
}
