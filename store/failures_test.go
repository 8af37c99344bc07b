package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// dropV3 turns a current PostgreSQL store's tables into version 2's.
var dropV3 = []string{
	"ALTER TABLE tributary_entities DROP COLUMN failure_class",
	"ALTER TABLE tributary_entities DROP COLUMN failure_message",
	"ALTER TABLE tributary_entities DROP COLUMN failures",
	"ALTER TABLE tributary_entities DROP COLUMN failed_at",
	"ALTER TABLE tributary_entities DROP COLUMN retry_at",
}

// doubling is a back-off of 1 s doubling per failure, capped at 8 s.
func doubling(n int) time.Duration { return min(time.Second<<(n-1), 8*time.Second) }

// A transient failure counts up and waits a growing back-off from the
// database's clock; ClaimNext passes the copy over until then, Claim takes
// it; a success clears it.
func TestFailureTransient(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		if err := st.Register(ctx, "c", "flaky", "fine"); err != nil {
			t.Fatal(err)
		}
		var last *store.Failure
		for n := 1; n <= 5; n++ {
			before := time.Now().Add(-time.Second)
			f, err := st.RecordFailure(ctx, "c", "flaky", store.FailureTransient, "store: the source failed: 503", doubling)
			if err != nil {
				t.Fatal(err)
			}
			wait := f.RetryAt.Sub(f.FailedAt)
			if f.Failures != n || f.Class != store.FailureTransient || f.FailedAt.Before(before) || wait != doubling(n) {
				t.Fatalf("failure %d: %+v (waits %v, want %v)", n, f, wait, doubling(n))
			}
			last = f
		}
		if last.RetryAt.Sub(last.FailedAt) != 8*time.Second {
			t.Fatalf("the back-off is not capped: %+v", last)
		}
		// Only the healthy copy is given out.
		c, err := st.ClaimNext(ctx, "w", time.Minute, 0)
		if err != nil || c == nil || c.Entity != "fine" {
			t.Fatalf("ClaimNext: %+v %v", c, err)
		}
		// One claim per connector at a time: once the healthy copy's is
		// given up, it is given out again, never the failing one.
		if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if c, err := st.ClaimNext(ctx, "w", time.Minute, 0); err != nil || c == nil || c.Entity != "fine" {
			t.Fatalf("ClaimNext gave out a copy waiting for its back-off: %+v %v", c, err)
		} else if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}
		// An explicit claim takes it.
		if _, err := st.Claim(ctx, "c", "flaky", "user", time.Minute); err != nil {
			t.Fatalf("Claim of a failing copy: %v", err)
		}
		stats, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f := statsFailure(t, stats, "c", "flaky"); f == nil || f.Failures != 5 || f.Message != "store: the source failed: 503" {
			t.Fatalf("stats: %+v", f)
		}
		if f := statsFailure(t, stats, "c", "fine"); f != nil {
			t.Fatalf("stats of the healthy copy: %+v", f)
		}
		if err := st.ClearFailure(ctx, "c", "flaky"); err != nil {
			t.Fatal(err)
		}
		if f, err := st.CopyFailure(ctx, "c", "flaky"); f != nil || err != nil {
			t.Fatalf("after ClearFailure: %+v %v", f, err)
		}
		// Counting starts again.
		if f, err := st.RecordFailure(ctx, "c", "flaky", store.FailureTransient, "again", doubling); err != nil || f.Failures != 1 {
			t.Fatalf("after a success: %+v %v", f, err)
		}
	})
}

// A transient failure's retry time passes: ClaimNext gives the copy out.
func TestFailureRetryAtPasses(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		if _, err := st.RecordFailure(ctx, "c", "flaky", store.FailureTransient, "timeout", func(int) time.Duration { return 300 * time.Millisecond }); err != nil {
			t.Fatal(err)
		}
		if c, err := st.ClaimNext(ctx, "w", time.Minute, 0); c != nil || err != nil {
			t.Fatalf("before its retry time: %+v %v", c, err)
		}
		time.Sleep(400 * time.Millisecond)
		if c, err := st.ClaimNext(ctx, "w", time.Minute, 0); err != nil || c == nil || c.Entity != "flaky" {
			t.Fatalf("after its retry time: %+v %v", c, err)
		}
	})
}

// A permanent failure waits for ResetFailures of its connector, however
// long; the other connectors' failures stay.
func TestFailurePermanent(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		called := false
		f, err := st.RecordFailure(ctx, "c", "tickets", store.FailureAuth, "unauthorized: the token was revoked", func(int) time.Duration { called = true; return time.Millisecond })
		if err != nil {
			t.Fatal(err)
		}
		if called || !f.RetryAt.IsZero() || f.Class != store.FailureAuth || f.Failures != 1 {
			t.Fatalf("a permanent failure: %+v (backoff called: %v)", f, called)
		}
		if _, err := st.RecordFailure(ctx, "c", "users", store.FailureConfig, "invalid params: replication_config.start_date", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RecordFailure(ctx, "other", "users", store.FailureConfig, "invalid params", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		if c, err := st.ClaimNext(ctx, "w", time.Minute, 0); c != nil || err != nil {
			t.Fatalf("ClaimNext gave out a copy failed for good: %+v %v", c, err)
		}
		copies, err := st.Copies(ctx)
		if err != nil || len(copies) != 3 || copies[0].Failure == nil || copies[0].Failure.Class != store.FailureAuth {
			t.Fatalf("copies: %+v %v", copies, err)
		}
		n, err := st.ResetFailures(ctx, "c")
		if err != nil || n != 2 {
			t.Fatalf("ResetFailures: %d %v", n, err)
		}
		// One claim per connector at a time: the first of its copies is
		// given out, and neither is failing any more.
		c, err := st.ClaimNext(ctx, "w", time.Minute, 0)
		if err != nil || c == nil || c.Connector != "c" || c.Entity != "tickets" {
			t.Fatalf("after ResetFailures: %+v %v", c, err)
		}
		for _, e := range []string{"tickets", "users"} {
			if f, err := st.CopyFailure(ctx, "c", e); f != nil || err != nil {
				t.Fatalf("c %s after ResetFailures: %+v %v", e, f, err)
			}
		}
		if f, err := st.CopyFailure(ctx, "other", "users"); err != nil || f == nil || f.Class != store.FailureConfig {
			t.Fatalf("another connector's failure: %+v %v", f, err)
		}
	})
}

func TestFailureArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.RecordFailure(ctx, "c", "e", "flaky", "x", nil)
	wantErr(t, err, store.ErrInvalid, `"flaky"`, "config, auth, transient")
	long := strings.Repeat("é", store.MaxFailureMessage)
	f, err := st.RecordFailure(ctx, "c", "e", store.FailureTransient, long, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Message) > store.MaxFailureMessage || !utf8.ValidString(f.Message) || !strings.HasSuffix(f.Message, "…") || !f.RetryAt.IsZero() {
		t.Fatalf("a long message: %d bytes, valid %v, retry %v", len(f.Message), utf8.ValidString(f.Message), f.RetryAt)
	}
	if f, err := st.CopyFailure(ctx, "c", "missing"); f != nil || err != nil {
		t.Fatalf("an unknown copy: %+v %v", f, err)
	}
}

func statsFailure(t *testing.T, st *store.Stats, connector, entity string) *store.Failure {
	t.Helper()
	for _, e := range st.Entities {
		if e.Connector == connector && e.Entity == entity {
			return e.Failure
		}
	}
	t.Fatalf("no copy %s/%s in the stats", connector, entity)
	return nil
}

// checkMigratedV2 checks a store upgraded from version 2: its copy is
// still searchable, its connector and claims are kept, and it records
// failures.
func checkMigratedV2(t *testing.T, st *store.Store, records int64) {
	t.Helper()
	ctx := context.Background()
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.SchemaVersion != store.SchemaVersion || len(stats.Entities) != 2 || stats.Entities[1].Records != records || stats.Entities[0].Failure != nil {
		t.Fatalf("stats after the upgrade: %+v", stats)
	}
	res, err := st.Search(ctx, faultSpec.Connector, faultSpec.Entity, reqAll())
	if err != nil || len(res.Hits) != 10 {
		t.Fatalf("search after the upgrade: %v %v", res, err)
	}
	if c, err := st.Connector(ctx, "before-upgrade"); err != nil || string(c.Sealed) != "sealed" {
		t.Fatalf("the connector after the upgrade: %v %v", c, err)
	}
	// The claim tokens go on from version 2's.
	c, err := st.Claim(ctx, faultSpec.Connector, "pending", "new-worker", time.Minute)
	if err != nil || c.Token != 2 {
		t.Fatalf("a claim after the upgrade: %+v %v", c, err)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordFailure(ctx, faultSpec.Connector, "pending", store.FailureAuth, "unauthorized", nil); err != nil {
		t.Fatal(err)
	}
	// Only never-synchronized copies are due (the fixture's synchronized
	// copy is as old as the fixture): the failed one is not given out.
	if c, err := st.ClaimNext(ctx, "w", time.Minute, 100*365*24*time.Hour); c != nil || err != nil {
		t.Fatalf("ClaimNext after a failure: %+v %v", c, err)
	}
	stats, err = st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f := statsFailure(t, stats, faultSpec.Connector, "pending"); f == nil || f.Class != store.FailureAuth {
		t.Fatalf("the failure in the stats: %+v", f)
	}
}

// Several processes open one version-2 file (testdata/v2.db, written by
// the version-2 library: a copy of 40 records of faultSpec, a copy
// "pending" claimed once and never synchronized, and a connector) at once:
// one upgrades it in place, the others find it upgraded.
func TestMigrateV2SQLite(t *testing.T) {
	t.Parallel()
	stores := openFixtureAtOnce(t, "v2", "2", 4)
	checkMigratedV2(t, stores[0], 40)
	if f, err := stores[3].CopyFailure(context.Background(), faultSpec.Connector, "pending"); err != nil || f == nil {
		t.Fatalf("another handle: %v %v", f, err)
	}
}

// makeV2Postgres makes the database at dsn a version-2 store like
// testdata/v2.db, with a copy of 300 records: a current store less what
// version 3 added.
func makeV2Postgres(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadRecords(ctx, st, faultRecords(1, 300)); err != nil {
		t.Fatal(err)
	}
	c, err := st.Claim(ctx, faultSpec.Connector, "pending", "old-worker", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateConnector(ctx, store.Connector{ID: "before-upgrade", Tenant: "t", Kind: "k", Sealed: []byte("sealed")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	for _, stmt := range append(append(append(slices.Clone(dropV5), dropV4...), dropV3...), "UPDATE tributary_meta SET value = '2' WHERE name = 'schema_version'") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func TestMigrateV2Postgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	conn := makeV2Postgres(t, dsn)
	stores := openAtOnce(t, 4, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if v := pgVersion(t, conn); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded database is at version %s", v)
	}
	checkMigratedV2(t, stores[0], 300)
}

// A version-2 store that cannot be written opens for searching and shows
// its copies; recording a failure, which it has no room for, fails with
// ErrVersion.
func TestV2ReadOnlyPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	conn := makeV2Postgres(t, dsn)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn+sep+"options=-c%20default_transaction_read_only%3Don")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if stats, err := st.Stats(ctx); err != nil || stats.SchemaVersion != 2 || len(stats.Entities) != 2 {
		t.Fatalf("stats: %+v %v", stats, err)
	}
	if copies, err := st.Copies(ctx); err != nil || len(copies) != 2 {
		t.Fatalf("copies: %+v %v", copies, err)
	}
	_, err = st.RecordFailure(ctx, "c", "e", store.FailureAuth, "x", nil)
	wantErr(t, err, store.ErrVersion, "schema version 2", "read-only")
	if v := pgVersion(t, conn); v != "2" {
		t.Fatalf("the read-only open changed the version to %s", v)
	}
}

// openFixtureAtOnce copies testdata/NAME.db, written by the library at
// schema version, to a temporary file, checks its version, opens it by n
// stores at once (one upgrades it, the others find it upgraded) and checks
// that it is now at SchemaVersion.
func openFixtureAtOnce(t *testing.T, name, version string, n int) []*store.Store {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := schemaVersion(t, db); v != version {
		t.Fatalf("the fixture is at version %s", v)
	}
	stores := openAtOnce(t, n, func(ctx context.Context) (*store.Store, error) { return store.OpenSQLite(ctx, path) })
	if v := schemaVersion(t, db); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded file is at version %s", v)
	}
	return stores
}
