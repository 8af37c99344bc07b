package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// dropV6 turns a version 6 store's tables into version 5's.
const dropV6 = "DROP TABLE tributary_connect_sessions"

// dropV7 turns a current store's tables into version 6's.
const dropV7 = "ALTER TABLE tributary_entities DROP COLUMN last_sync"

// dropV7Index goes with dropV7, before it.
const dropV7Index = "DROP INDEX tributary_entities_failing"

// checkSessions runs a connect session through its life on st: found by
// its token, started (twice: the first flow's state then matches
// nothing), claimed once by one callback, finished once with its event.
func checkSessions(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	cs := store.ConnectSession{ID: "cs_1", TokenHash: "tok-hash", Tenant: "app", ExternalUserID: "u1",
		AllowedKinds: []string{"github", "zendesk-support"}, ReturnURL: "https://app.example/back", Created: now, Expires: now.Add(30 * time.Minute)}
	if err := st.CreateConnectSession(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateConnectSession(ctx, cs); !errors.Is(err, store.ErrExists) {
		t.Fatalf("the same session twice: %v", err)
	}
	got, err := st.ConnectSessionByToken(ctx, "tok-hash")
	if err != nil || got.Status != store.ConnectPending || got.Tenant != "app" || len(got.AllowedKinds) != 2 || !got.Expires.Equal(cs.Expires) {
		t.Fatalf("by token: %v %v", got, err)
	}
	if printed := fmt.Sprintf("%v %+v %#v", got, got, *got); strings.Contains(printed, "tok-hash") {
		t.Errorf("a printed session shows its token hash: %s", printed)
	}
	if _, err := st.ConnectSessionByToken(ctx, "other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown token: %v", err)
	}
	if err := st.ClaimConnectSession(ctx, "cs_1", "state-1"); !errors.Is(err, store.ErrSessionState) {
		t.Fatalf("a claim before any start: %v", err)
	}
	for _, state := range []string{"state-1", "state-2"} {
		if err := st.StartConnectSession(ctx, "cs_1", "github", state, "browser", []byte("sealed")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ConnectSessionByState(ctx, "state-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the first flow's state after the second started: %v", err)
	}
	got, err = st.ConnectSessionByState(ctx, "state-2")
	if err != nil || got.Kind != "github" || got.BrowserHash != "browser" || string(got.Sealed) != "sealed" || got.Status != store.ConnectStarted {
		t.Fatalf("by state: %v %v", got, err)
	}
	if err := st.ClaimConnectSession(ctx, "cs_1", "state-1"); !errors.Is(err, store.ErrSessionState) {
		t.Fatalf("a claim with the old state: %v", err)
	}
	if err := st.ClaimConnectSession(ctx, "cs_1", "state-2"); err != nil {
		t.Fatal(err)
	}
	if err := st.ClaimConnectSession(ctx, "cs_1", "state-2"); !errors.Is(err, store.ErrSessionState) {
		t.Fatalf("a second claim: %v", err)
	}
	if err := st.StartConnectSession(ctx, "cs_1", "github", "state-3", "browser", nil); !errors.Is(err, store.ErrSessionState) {
		t.Fatalf("a start once claimed: %v", err)
	}
	ev := &store.Event{ID: "evt_cs", Type: "connect.completed", Tenant: "app", Connector: "conn_1", Body: []byte(`{}`)}
	if err := st.FinishConnectSession(ctx, "cs_1", store.ConnectCompleted, "conn_1", store.Emit(ev)); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishConnectSession(ctx, "cs_1", store.ConnectFailed, "again"); !errors.Is(err, store.ErrSessionState) {
		t.Fatalf("a second finish: %v", err)
	}
	got, err = st.ConnectSessionByToken(ctx, "tok-hash")
	if err != nil || got.Status != store.ConnectCompleted || got.Result != "conn_1" || got.Sealed != nil {
		t.Fatalf("finished: %v %v", got, err)
	}
	if rec, err := st.EventByID(ctx, "evt_cs"); err != nil || rec.Type != "connect.completed" {
		t.Fatalf("the event written with the finish: %v %v", rec, err)
	}
}

func TestConnectSessionsSQLite(t *testing.T) {
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checkSessions(t, st)
}

func TestConnectSessionsPostgres(t *testing.T) {
	st, err := store.OpenPostgres(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checkSessions(t, st)
}

// A version-5 store is upgraded to 6 when opened, by processes opening it
// at once, and then keeps connect sessions.
func TestUpgradeV5SQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range append(append(dropV9("sqlite"), dropV8...), dropV7Index, dropV7, dropV6, "UPDATE tributary_meta SET value = '5' WHERE name = 'schema_version'") {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	stores := openAtOnce(t, 3, func(ctx context.Context) (*store.Store, error) { return store.OpenSQLite(ctx, path) })
	if v := schemaVersion(t, db); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded file is at version %s", v)
	}
	checkSessions(t, stores[1])
}

func TestUpgradeV5Postgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, stmt := range append(append(dropV9("postgres"), dropV8...), dropV7Index, dropV7, dropV6, "UPDATE tributary_meta SET value = '5' WHERE name = 'schema_version'") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	stores := openAtOnce(t, 3, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if v := pgVersion(t, conn); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded database is at version %s", v)
	}
	checkSessions(t, stores[0])
}
