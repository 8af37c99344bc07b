package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// dropV8 turns a current store's tables into version 7's.
var dropV8 = []string{
	"DROP INDEX tributary_connectors_reconnect",
	"ALTER TABLE tributary_connectors DROP COLUMN needs_reconnect",
	"ALTER TABLE tributary_connectors DROP COLUMN last_used",
	"DELETE FROM tributary_meta WHERE name = 'needs_reconnect_backfill'",
}

// The reconnection mark: set and cleared under the connector's lock
// without a new version, cleared by new credentials, and the console's
// filter by health agrees with HealthOf for every connector.
func TestNeedsReconnectAndHealth(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		for _, id := range []string{"ok", "marked", "authfail", "failing", "both"} {
			if _, err := st.CreateConnector(ctx, store.Connector{ID: id, Tenant: "t", Kind: "zendesk-support", Sealed: []byte("s")}); err != nil {
				t.Fatal(err)
			}
			if err := st.Register(ctx, id, "tickets"); err != nil {
				t.Fatal(err)
			}
		}
		mark := func(id string, on bool) *store.Connector {
			t.Helper()
			c, err := st.LockConnectorEvents(ctx, id, func(ctx context.Context, c *store.Connector) ([]byte, []*store.Event, error) {
				c.NeedsReconnect = on
				return nil, nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		if c := mark("marked", true); !c.NeedsReconnect || c.Version != 1 {
			t.Fatalf("after marking: %v", c)
		}
		mark("both", true)
		for id, class := range map[string]store.FailureClass{"authfail": store.FailureAuth, "failing": store.FailureTransient, "both": store.FailureConfig} {
			if _, err := st.RecordFailure(ctx, id, "tickets", class, "boom", nil); err != nil {
				t.Fatal(err)
			}
		}
		want := map[store.Health][]string{store.Healthy: {"ok"}, store.NeedsReconnect: {"marked", "authfail", "both"}, store.Failing: {"failing"},
			store.AnyHealth: {"ok", "marked", "authfail", "failing", "both"}}
		check := func(want map[store.Health][]string) {
			t.Helper()
			for h, ids := range want {
				got, err := st.ConnectorSummaries(ctx, store.ConnectorQuery{Health: h})
				if err != nil {
					t.Fatal(err)
				}
				var gotIDs []string
				for _, c := range got {
					gotIDs = append(gotIDs, c.ID)
					if rh := store.HealthOf(c.NeedsReconnect, c.AuthFailing, c.Failing); h != store.AnyHealth && rh != h {
						t.Errorf("%s: the filter %s keeps it, HealthOf says %s", c.ID, h, rh)
					}
				}
				if !slices.Equal(gotIDs, ids) {
					t.Errorf("%s: %v, want %v", h, gotIDs, ids)
				}
			}
		}
		check(want)
		if c, err := st.Connector(ctx, "marked"); err != nil || !c.NeedsReconnect {
			t.Fatalf("Connector: %v %v", c, err)
		}
		// New credentials clear it; a new name alone does not.
		name := "renamed"
		if c, _, err := st.UpdateConnector(ctx, "both", store.ConnectorChange{Name: &name}); err != nil || !c.NeedsReconnect {
			t.Fatalf("after a rename: %v %v", c, err)
		}
		if c, _, err := st.UpdateConnector(ctx, "both", store.ConnectorChange{Sealed: []byte("new")}); err != nil || c.NeedsReconnect {
			t.Fatalf("after new credentials: %v %v", c, err)
		}
		if c := mark("marked", false); c.NeedsReconnect || c.Version != 1 {
			t.Fatalf("after clearing: %v", c)
		}
		check(map[store.Health][]string{store.Healthy: {"ok", "marked", "both"}, store.NeedsReconnect: {"authfail"}, store.Failing: {"failing"}})
	})
}

// RecordUse keeps each connector's latest use, ignores unknown ids, and
// the list shows it.
func TestRecordUse(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		for _, id := range []string{"a", "b"} {
			if _, err := st.CreateConnector(ctx, store.Connector{ID: id, Tenant: "t", Kind: "zendesk-support"}); err != nil {
				t.Fatal(err)
			}
		}
		if c, _ := st.Connector(ctx, "a"); !c.LastUsed.IsZero() {
			t.Fatalf("a new connector was used at %v", c.LastUsed)
		}
		t1 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		t2 := t1.Add(time.Minute)
		if err := st.RecordUse(ctx, map[string]time.Time{"a": t2, "b": t1, "gone": t1}); err != nil {
			t.Fatal(err)
		}
		if err := st.RecordUse(ctx, map[string]time.Time{"a": t1}); err != nil { // older: kept the later
			t.Fatal(err)
		}
		page, _, err := st.ConnectorsPage(ctx, store.ConnectorQuery{Tenant: "t", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]time.Time{}
		for _, c := range page {
			got[c.ID] = c.LastUsed
		}
		if !got["a"].Equal(t2) || !got["b"].Equal(t1) {
			t.Errorf("last used %v, want a %v, b %v", got, t2, t1)
		}
	})
}

// A store of version 7 with connectors is upgraded in place; the marks
// its service kept inside the sealed credentials are copied into the
// column once, by MigrateNeedsReconnect, and never again.
func TestUpgradeV7(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, backend string, open func(context.Context) (*store.Store, error), exec func(stmts ...string), version func() string) {
		ctx := context.Background()
		st, err := open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "b", "c"} {
			if _, err := st.CreateConnector(ctx, store.Connector{ID: id, Tenant: "t", Kind: "zendesk-support", Sealed: []byte("legacy-" + id)}); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		exec(append(append(dropV9(backend), dropV8...), "UPDATE tributary_meta SET value = '7' WHERE name = 'schema_version'")...)
		st, err = open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if v := version(); v != strconv.Itoa(store.SchemaVersion) {
			t.Fatalf("upgraded to %s", v)
		}
		boom := errors.New("boom")
		if _, err := st.MigrateNeedsReconnect(ctx, func(*store.Connector) (bool, error) { return false, boom }); !errors.Is(err, boom) {
			t.Fatalf("a failing migration: %v", err)
		}
		var seen []string
		n, err := st.MigrateNeedsReconnect(ctx, func(c *store.Connector) (bool, error) {
			seen = append(seen, string(c.Sealed))
			return c.ID == "b", nil
		})
		if err != nil || n != 1 || !slices.Equal(seen, []string{"legacy-a", "legacy-b", "legacy-c"}) {
			t.Fatalf("migrated %d (%v), saw %v", n, err, seen)
		}
		if c, _ := st.Connector(ctx, "b"); !c.NeedsReconnect {
			t.Error("b is not marked")
		}
		if c, _ := st.Connector(ctx, "a"); c.NeedsReconnect {
			t.Error("a is marked")
		}
		if n, err := st.MigrateNeedsReconnect(ctx, func(*store.Connector) (bool, error) { t.Error("migrated twice"); return true, nil }); n != 0 || err != nil {
			t.Errorf("again: %d %v", n, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "v7.db")
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		run(t, "sqlite", func(ctx context.Context) (*store.Store, error) { return store.OpenSQLite(ctx, path) },
			func(stmts ...string) {
				for _, s := range stmts {
					if _, err := db.Exec(s); err != nil {
						t.Fatal(err)
					}
				}
			}, func() string { return schemaVersion(t, db) })
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.DSN(t)
		ctx := context.Background()
		run(t, "postgres", func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) },
			func(stmts ...string) {
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				for _, s := range stmts {
					if _, err := conn.Exec(ctx, s); err != nil {
						t.Fatal(err)
					}
				}
			}, func() string {
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				return pgVersion(t, conn)
			})
	})
}
