package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// backends runs test against a SQLite file and a PostgreSQL database;
// open opens one more *Store on the same database (the test closes none).
func backends(t *testing.T, test func(t *testing.T, open func() *store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "conn.db")
		test(t, opener(t, func(ctx context.Context) (*store.Store, error) { return store.OpenSQLite(ctx, path) }))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.DSN(t)
		test(t, opener(t, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) }))
	})
}

func opener(t *testing.T, open func(context.Context) (*store.Store, error)) func() *store.Store {
	return func() *store.Store {
		t.Helper()
		st, err := open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
}

// sealedBytes are bytes no text encoding would keep intact.
var sealedBytes = []byte{0, 1, 2, 0xff, 0xfe, 0x80, '\'', '"', '\\', 0, 'x', 0xc3, 0x28}

func TestConnectorsCRUD(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		// Created in an order that is not the ids' order.
		in := []store.Connector{
			{ID: "zeta", Tenant: "acme", ExternalUserID: "u1", Kind: "hubspot", Name: "Zeta CRM", Sealed: sealedBytes, Replication: []byte(`{"entities":["contacts"],"every":"1h"}`)},
			{ID: "alpha", Tenant: "globex", ExternalUserID: "u2", Kind: "zendesk-support", Name: "Alpha desk", Sealed: []byte("sealed-2")},
			{ID: "mid", Tenant: "acme", ExternalUserID: "u3", Kind: "github", Name: "Mid", Sealed: nil},
		}
		var made []store.Connector
		before := time.Now().Add(-time.Minute)
		for _, c := range in {
			got, err := st.CreateConnector(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != c.ID || got.Version != 1 || got.Created.Before(before) || got.Created.After(time.Now().Add(time.Minute)) ||
				!bytes.Equal(got.Sealed, c.Sealed) || !bytes.Equal(got.Replication, c.Replication) {
				t.Fatalf("created %v from %v", got, c)
			}
			made = append(made, *got)
		}
		// Another handle (a process) reads them exactly as created.
		other := open()
		for _, want := range made {
			got, err := other.Connector(ctx, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !equalConnector(*got, want) {
				t.Errorf("read %v, created %v", got, want)
			}
		}
		if got, _ := other.Connector(ctx, "zeta"); !bytes.Equal(got.Sealed, sealedBytes) || got.Replication == nil {
			t.Errorf("sealed bytes %x, replication %q", got.Sealed, got.Replication)
		}
		if got, _ := other.Connector(ctx, "alpha"); got.Replication != nil {
			t.Errorf("no replication came back as %q", got.Replication)
		}
		ids := func(tenant string) []string {
			t.Helper()
			cs, err := other.ListConnectors(ctx, tenant)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, c := range cs {
				if c.Tenant != tenant && tenant != "" {
					t.Errorf("tenant %q lists %v", tenant, c)
				}
				out = append(out, c.ID)
			}
			return out
		}
		if got := ids(""); !reflect.DeepEqual(got, []string{"zeta", "alpha", "mid"}) {
			t.Errorf("all connectors, oldest first: %v", got)
		}
		if got := ids("acme"); !reflect.DeepEqual(got, []string{"zeta", "mid"}) {
			t.Errorf("acme's connectors: %v", got)
		}
		if got := ids("nobody"); len(got) != 0 {
			t.Errorf("an unknown tenant's connectors: %v", got)
		}

		// A taken id: ErrExists, and the first connector is untouched.
		_, err := st.CreateConnector(ctx, store.Connector{ID: "zeta", Tenant: "globex", Kind: "x", Sealed: []byte("other")})
		wantErr(t, err, store.ErrExists, "zeta")
		if got, _ := st.Connector(ctx, "zeta"); !equalConnector(*got, made[0]) {
			t.Errorf("a refused create changed the connector: %v", got)
		}
		for name, bad := range map[string]store.Connector{
			"no id":       {Tenant: "a", Kind: "k"},
			"no tenant":   {ID: "i", Kind: "k"},
			"no kind":     {ID: "i", Tenant: "a"},
			"NUL in name": {ID: "i", Tenant: "a", Kind: "k", Name: "a\x00b"},
			"bad UTF-8":   {ID: "i\xff", Tenant: "a", Kind: "k"},
			"bad JSON":    {ID: "i", Tenant: "a", Kind: "k", Replication: []byte(`{"every":`)},
		} {
			if _, err := st.CreateConnector(ctx, bad); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%s: %v", name, err)
			}
		}
		if got := ids(""); len(got) != 3 {
			t.Errorf("invalid connectors were stored: %v", got)
		}

		_, err = st.Connector(ctx, "missing")
		wantErr(t, err, store.ErrNotFound, "missing")
		if _, err := st.Connector(ctx, "nul\x00id"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an id with NUL: %v", err)
		}
		if err := st.DeleteConnector(ctx, "alpha"); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Connector(ctx, "alpha"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a deleted connector: %v", err)
		}
		wantErr(t, st.DeleteConnector(ctx, "alpha"), store.ErrNotFound, "alpha")
		if got := ids(""); !reflect.DeepEqual(got, []string{"zeta", "mid"}) {
			t.Errorf("after the delete: %v", got)
		}
		// A new connector comes last, even with the id of a deleted one.
		if _, err := st.CreateConnector(ctx, store.Connector{ID: "alpha", Tenant: "acme", Kind: "k"}); err != nil {
			t.Fatal(err)
		}
		if got := ids("acme"); !reflect.DeepEqual(got, []string{"zeta", "mid", "alpha"}) {
			t.Errorf("after a re-create: %v", got)
		}
	})
}

func equalConnector(a, b store.Connector) bool {
	return a.ID == b.ID && a.Tenant == b.Tenant && a.ExternalUserID == b.ExternalUserID && a.Kind == b.Kind && a.Name == b.Name &&
		bytes.Equal(a.Sealed, b.Sealed) && bytes.Equal(a.Replication, b.Replication) && (a.Replication == nil) == (b.Replication == nil) &&
		a.Version == b.Version && a.Created.Equal(b.Created)
}

// Printing a connector, with any verb or through slog, shows the length
// of its sealed credentials and never their bytes.
func TestConnectorPrintsNoSealedBytes(t *testing.T) {
	t.Parallel()
	secret := []byte("SEALED-TOKEN-4f2a9c")
	c := store.Connector{ID: "c1", Tenant: "acme", Kind: "hubspot", Name: "CRM", Sealed: secret, Version: 3}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		out = append(out, fmt.Sprintf(verb, c), fmt.Sprintf(verb, &c), fmt.Sprintf(verb, []store.Connector{c}), fmt.Sprintf(verb, map[string]*store.Connector{"k": &c}))
	}
	out = append(out, c.String(), fmt.Sprint(c), fmt.Sprintln(&c))
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("connector", "c", c, "p", &c)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("connector", "c", c, "p", &c)
	out = append(out, logs.String())
	forms := []string{string(secret), hex.EncodeToString(secret), strings.ToUpper(hex.EncodeToString(secret)), base64.StdEncoding.EncodeToString(secret),
		fmt.Sprint(secret), "83 69 65 76"} // the decimal bytes
	for _, s := range out {
		for _, f := range forms {
			if strings.Contains(s, f) {
				t.Errorf("%q shows the sealed bytes (%q)", s, f)
			}
		}
	}
	for _, s := range out[:len(out)-1] {
		if !strings.Contains(s, "19 bytes") || !strings.Contains(s, `"c1"`) {
			t.Errorf("%q does not describe the connector", s)
		}
	}
	if !strings.Contains(logs.String(), "sealed_bytes=19") || !strings.Contains(logs.String(), `"sealed_bytes":19`) {
		t.Errorf("the logs do not describe the connector: %s", logs.String())
	}
}

// Two updates from the same version: exactly one wins.
func TestUpdateSealedCAS(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		a, b := open(), open()
		if _, err := a.CreateConnector(ctx, store.Connector{ID: "c", Tenant: "t", Kind: "k", Sealed: []byte("v1")}); err != nil {
			t.Fatal(err)
		}
		for round := range 5 {
			c, err := a.Connector(ctx, "c")
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			vs, errs := make([]int64, 2), make([]error, 2)
			for i, st := range []*store.Store{a, b} {
				wg.Go(func() { vs[i], errs[i] = st.UpdateSealed(ctx, "c", c.Version, []byte("from "+strconv.Itoa(i))) })
			}
			wg.Wait()
			won := -1
			for i := range 2 {
				switch {
				case errs[i] == nil && vs[i] == c.Version+1:
					if won >= 0 {
						t.Fatalf("round %d: both updates won", round)
					}
					won = i
				case errors.Is(errs[i], store.ErrConflict):
				default:
					t.Fatalf("round %d: update %d: %d, %v", round, i, vs[i], errs[i])
				}
			}
			if won < 0 {
				t.Fatalf("round %d: no update won: %v", round, errs)
			}
			wantErr(t, errs[1-won], store.ErrConflict, "version "+strconv.FormatInt(c.Version+1, 10))
			got, err := b.Connector(ctx, "c")
			if err != nil || got.Version != c.Version+1 || string(got.Sealed) != "from "+strconv.Itoa(won) {
				t.Fatalf("round %d: after the race: %v %v", round, got, err)
			}
		}
		if _, err := a.UpdateSealed(ctx, "c", 1, []byte("stale")); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a stale version: %v", err)
		}
		if _, err := a.UpdateSealed(ctx, "missing", 1, []byte("x")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a missing connector: %v", err)
		}
	})
}

// N read-modify-writes of a counter kept in Sealed, each under
// LockConnector, from goroutines on two *Store handles (two processes' worth
// of connections): none is lost. Each holds the lock a little while, so
// that without the lock they would overlap.
func TestLockConnectorExcludes(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		handles := []*store.Store{open(), open()}
		if _, err := handles[0].CreateConnector(ctx, store.Connector{ID: "c", Tenant: "t", Kind: "k", Sealed: []byte("0")}); err != nil {
			t.Fatal(err)
		}
		const n = 24
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			st := handles[i%2]
			wg.Go(func() {
				_, err := st.LockConnector(ctx, "c", func(ctx context.Context, c *store.Connector) ([]byte, error) {
					v, err := strconv.Atoi(string(c.Sealed))
					if err != nil {
						return nil, err
					}
					time.Sleep(3 * time.Millisecond) // the HTTP refresh
					return []byte(strconv.Itoa(v + 1)), nil
				})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		c, err := handles[1].Connector(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Sealed) != strconv.Itoa(n) || c.Version != n+1 {
			t.Fatalf("counter %q at version %d; want %d at %d", c.Sealed, c.Version, n, n+1)
		}

		// An error from fn rolls back and comes back as it is; a nil
		// result changes nothing.
		errRefresh := errors.New("the refresh token was revoked")
		_, err = handles[0].LockConnector(ctx, "c", func(ctx context.Context, c *store.Connector) ([]byte, error) {
			return []byte("half-done"), errRefresh
		})
		if !errors.Is(err, errRefresh) {
			t.Fatalf("fn's error came back as %v", err)
		}
		got, err := handles[0].LockConnector(ctx, "c", func(ctx context.Context, c *store.Connector) ([]byte, error) { return nil, nil })
		if err != nil || string(got.Sealed) != strconv.Itoa(n) || got.Version != n+1 {
			t.Fatalf("after a failed and an empty lock: %v %v", got, err)
		}
		// A save returns the new row, which UpdateSealed from the old
		// version then loses to.
		got, err = handles[1].LockConnector(ctx, "c", func(ctx context.Context, c *store.Connector) ([]byte, error) { return []byte("new"), nil })
		if err != nil || string(got.Sealed) != "new" || got.Version != n+2 {
			t.Fatalf("a save under the lock: %v %v", got, err)
		}
		if _, err := handles[0].UpdateSealed(ctx, "c", n+1, []byte("late")); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("an update from before the lock: %v", err)
		}
		_, err = handles[0].LockConnector(ctx, "missing", func(context.Context, *store.Connector) ([]byte, error) {
			t.Error("fn ran for a missing connector")
			return nil, nil
		})
		wantErr(t, err, store.ErrNotFound, "missing")
	})
}

// v1Fixture copies testdata/v1.db, a store written by schema version 1
// (a copy of 40 records of faultSpec), into a new directory.
func v1Fixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/v1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func schemaVersion(t *testing.T, q interface {
	QueryRow(string, ...any) *sql.Row
}) string {
	t.Helper()
	var v string
	if err := q.QueryRow("SELECT value FROM tributary_meta WHERE name = 'schema_version'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkMigrated checks a store upgraded from version 1: its copy is still
// searchable, and it keeps connectors.
func checkMigrated(t *testing.T, st *store.Store, records int64) {
	t.Helper()
	ctx := context.Background()
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.SchemaVersion != store.SchemaVersion || len(stats.Entities) != 1 || stats.Entities[0].Records != records {
		t.Fatalf("stats after the upgrade: %+v", stats)
	}
	res, err := st.Search(ctx, faultSpec.Connector, faultSpec.Entity, reqAll())
	if err != nil || len(res.Hits) != 10 {
		t.Fatalf("search after the upgrade: %v %v", res, err)
	}
	if _, err := st.CreateConnector(ctx, store.Connector{ID: "after-upgrade", Tenant: "t", Kind: "k", Sealed: []byte("s")}); err != nil {
		t.Fatal(err)
	}
	if cs, err := st.ListConnectors(ctx, ""); err != nil || len(cs) != 1 {
		t.Fatalf("connectors after the upgrade: %v %v", cs, err)
	}
}

// Several processes open one version-1 file at once: one upgrades it,
// the others find it upgraded.
func TestMigrateV1SQLite(t *testing.T) {
	t.Parallel()
	path := v1Fixture(t)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := schemaVersion(t, db); v != "1" {
		t.Fatalf("the fixture is at version %s", v)
	}
	stores := openAtOnce(t, 4, func(ctx context.Context) (*store.Store, error) { return store.OpenSQLite(ctx, path) })
	if v := schemaVersion(t, db); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded file is at version %s", v)
	}
	checkMigrated(t, stores[0], 40)
	if c, err := stores[3].Connector(context.Background(), "after-upgrade"); err != nil || string(c.Sealed) != "s" {
		t.Fatalf("another handle: %v %v", c, err)
	}
	// And it opens again, as a current store.
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if v := schemaVersion(t, db); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("reopened: version %s", v)
	}
}

// An incremental synchronization of a copy written by version 1, whose
// records table has a hid column and whose word index has the unicode61
// tokenizer, updates it as it did then.
func TestUpdateV1SQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, v1Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.BeginUpdate(ctx, faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, [][]byte{
		[]byte(`{"id":3,"gen":2,"subject":"quarantined mailbox"}`),
		[]byte(`{"id":100,"gen":2,"subject":"quarantined printer"}`),
	}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if c := u.Counts(); c != (store.Counts{Inserted: 1, Updated: 1}) {
		t.Errorf("counts %+v, want 1 inserted and 1 updated", c)
	}
	for filter, want := range map[string][]int{
		`{"keyword":{"subject":"quarantined"}}`: {3, 100},
		`{"eq":{"gen":2}}`:                      {3, 100},
		`{"fuzzy":{"subject":"printr"}}`:        {100},
	} {
		if got := idsOf(t, st, faultSpec.Connector, faultSpec.Entity, filter, false); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", filter, got, want)
		}
	}
	// Record 3's old words are gone; the 39 others keep theirs.
	if got := idsOf(t, st, faultSpec.Connector, faultSpec.Entity, `{"keyword":{"subject":"password"}}`, false); len(got) != 39 || slices.Contains(got, 3) {
		t.Errorf("password: %v, want the 39 records but 3", got)
	}
}

// A version-1 file stamped a newer library's version is refused and left
// as it is.
func TestOpenNewerVersionSQLite(t *testing.T) {
	t.Parallel()
	path := v1Fixture(t)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	newer := strconv.Itoa(store.SchemaVersion + 1)
	setMeta(t, db, newer)
	db.Close()
	before := stateOf(t, path)
	_, err = store.OpenSQLite(context.Background(), path)
	wantErr(t, err, store.ErrVersion, path, "schema "+newer, "up to "+strconv.Itoa(store.SchemaVersion))
	before.check(t, path)
}

// openAtOnce opens n stores at once and closes them when the test ends.
func openAtOnce(t *testing.T, n int, open func(context.Context) (*store.Store, error)) []*store.Store {
	t.Helper()
	stores, errs := make([]*store.Store, n), make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = open(context.Background())
		})
	}
	close(start)
	wg.Wait()
	for _, st := range stores {
		if st != nil {
			t.Cleanup(func() { st.Close() })
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d of %d at once: %v", i, n, err)
		}
	}
	return stores
}

// makeV1Postgres makes the database at dsn a version-1 store with a copy of
// 300 records: a current store less what versions 2 and 3 added.
func makeV1Postgres(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadRecords(ctx, st, faultRecords(1, 300)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	for _, stmt := range append(append(append(slices.Clone(dropV5), dropV4...), dropV3...), "DROP TABLE tributary_connectors", "UPDATE tributary_meta SET value = '1' WHERE name = 'schema_version'") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func pgVersion(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(context.Background(), "SELECT value FROM tributary_meta WHERE name = 'schema_version'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateV1Postgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	conn := makeV1Postgres(t, dsn)
	stores := openAtOnce(t, 4, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if v := pgVersion(t, conn); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded database is at version %s", v)
	}
	checkMigrated(t, stores[0], 300)
	if c, err := stores[3].Connector(context.Background(), "after-upgrade"); err != nil || string(c.Sealed) != "s" {
		t.Fatalf("another handle: %v %v", c, err)
	}
}

// A version-1 store that cannot be written still opens for searching;
// connectors, which it lacks, fail with ErrVersion.
func TestV1ReadOnlyPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	conn := makeV1Postgres(t, dsn)
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
	if res, err := st.Search(ctx, faultSpec.Connector, faultSpec.Entity, reqAll()); err != nil || len(res.Hits) != 10 {
		t.Fatalf("search: %v %v", res, err)
	}
	if stats, err := st.Stats(ctx); err != nil || stats.SchemaVersion != 1 {
		t.Fatalf("stats: %+v %v", stats, err)
	}
	_, err = st.ListConnectors(ctx, "")
	wantErr(t, err, store.ErrVersion, "schema version 1", "read-only")
	if v := pgVersion(t, conn); v != "1" {
		t.Fatalf("the read-only open changed the version to %s", v)
	}
}

// Processes that open one new PostgreSQL database at once take turns to
// create the tables.
func TestOpenNewAtOncePostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	stores := openAtOnce(t, 4, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if _, err := stores[0].CreateConnector(context.Background(), store.Connector{ID: "c", Tenant: "t", Kind: "k"}); err != nil {
		t.Fatal(err)
	}
}
