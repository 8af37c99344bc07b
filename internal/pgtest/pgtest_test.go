package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// TestMain is what every package using DSN has: the server is stopped after
// the tests, before goleak looks for goroutines left running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(Main(m)) }

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func queryRow[T any](t *testing.T, conn *pgx.Conn, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func TestDSNGivesAnEmptyDatabaseOverLoopback(t *testing.T) {
	dsn := DSN(t)
	if os.Getenv(envServer) == "" {
		if !strings.HasPrefix(dsn, "postgres://"+superuser+"@127.0.0.1:") || !strings.HasSuffix(dsn, "?sslmode=disable") {
			t.Errorf("DSN = %q, want postgres://%s@127.0.0.1:<port>/<db>?sslmode=disable", dsn, superuser)
		}
	}
	conn := connect(t, dsn)
	db := queryRow[string](t, conn, "SELECT current_database()")
	if !strings.HasPrefix(db, "t_") || !strings.Contains(dsn, "/"+db+"?") && !strings.HasSuffix(dsn, "dbname="+db) {
		t.Errorf("connected to database %q with DSN %q", db, dsn)
	}
	if n := queryRow[int64](t, conn, "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"); n != 0 {
		t.Errorf("the new database has %d relations in public, want none", n)
	}
	if enc := queryRow[string](t, conn, "SHOW server_encoding"); enc != "UTF8" {
		t.Errorf("server_encoding = %s, want UTF8", enc)
	}
}

func TestTwoCallsGiveTwoDatabases(t *testing.T) {
	a, b := connect(t, DSN(t)), connect(t, DSN(t))
	nameA := queryRow[string](t, a, "SELECT current_database()")
	nameB := queryRow[string](t, b, "SELECT current_database()")
	if nameA == nameB {
		t.Fatalf("both DSNs lead to %s", nameA)
	}
	if _, err := a.Exec(t.Context(), "CREATE TABLE records (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if n := queryRow[int64](t, b, "SELECT count(*) FROM pg_class WHERE relname = 'records'"); n != 0 {
		t.Error("a table created in one database is visible in the other")
	}
}

func TestDatabaseDroppedAfterCleanup(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		conn := connect(t, DSN(t)) // closed by a cleanup that runs before the drop
		name = queryRow[string](t, conn, "SELECT current_database()")
	})
	if t.Failed() || name == "" {
		t.FailNow()
	}
	other := connect(t, DSN(t))
	if n := queryRow[int64](t, other, "SELECT count(*) FROM pg_database WHERE datname = $1", name); n != 0 {
		t.Errorf("database %s still exists after its test's cleanup", name)
	}
}

// A test that leaves a connection open does not keep its database alive.
func TestDatabaseDroppedDespiteOpenConnection(t *testing.T) {
	var name string
	var leftOpen *pgx.Conn
	t.Run("user", func(t *testing.T) {
		var err error
		leftOpen, err = pgx.Connect(t.Context(), DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		name = queryRow[string](t, leftOpen, "SELECT current_database()")
	})
	if leftOpen != nil {
		defer leftOpen.Close(context.Background())
	}
	if t.Failed() {
		t.FailNow()
	}
	other := connect(t, DSN(t))
	if n := queryRow[int64](t, other, "SELECT count(*) FROM pg_database WHERE datname = $1", name); n != 0 {
		t.Errorf("database %s still exists after its test's cleanup", name)
	}
}

func TestTrigramExtension(t *testing.T) {
	conn := connect(t, DSN(t))
	if _, err := conn.Exec(t.Context(), "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		t.Fatal(err)
	}
	if s := queryRow[float32](t, conn, "SELECT similarity('pasword reset', 'password reset')"); s < 0.5 {
		t.Errorf("similarity('pasword reset', 'password reset') = %v, want ≥ 0.5", s)
	}
	// Letters beyond ASCII are letters (the locale is C.UTF-8, not C, where
	// 'ü' would be no word at all), so fuzzy search works on any language.
	if trgm := queryRow[[]string](t, conn, "SELECT show_trgm('ü')"); len(trgm) == 0 {
		t.Error("show_trgm('ü') is empty: the database's locale does not take 'ü' for a letter")
	}
}

func TestOneServerPerProcess(t *testing.T) {
	if os.Getenv(envServer) != "" {
		t.Skipf("%s is set: no throwaway server", envServer)
	}
	DSN(t)
	state.mu.Lock()
	first := state.srv
	state.mu.Unlock()
	DSN(t)
	state.mu.Lock()
	second := state.srv
	state.mu.Unlock()
	if first == nil || first != second {
		t.Fatalf("servers %p then %p, want one", first, second)
	}
	if _, err := os.Stat(filepath.Join(first.dir, "data", "PG_VERSION")); err != nil {
		t.Errorf("server directory: %v", err)
	}
}

func TestDSNRequiresMain(t *testing.T) {
	state.mu.Lock()
	state.running = false
	state.mu.Unlock()
	defer func() {
		state.mu.Lock()
		state.running = true
		state.mu.Unlock()
	}()
	_, err := adminDSN(&fakeTB{})
	if err == nil || !strings.Contains(err.Error(), "pgtest.Main(m)") {
		t.Errorf("without Main: %v, want an error naming pgtest.Main", err)
	}
}

func TestDecide(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	noBinaries := func() (binaries, error) {
		return findBinariesIn(
			func(string) (string, error) { return "", errors.New("not found") },
			func(string) ([]string, error) { return nil, nil })
	}
	installed := func() (binaries, error) { return binaries{"/pg/initdb", "/pg/postgres"}, nil }
	mustNotLook := func() (binaries, error) {
		t.Error("looked for binaries although TRIBUTARY_TEST_POSTGRES is set")
		return binaries{}, errors.New("looked")
	}

	admin, _, skip := decide(env(map[string]string{envServer: "postgres://u@db:5432/x"}), mustNotLook)
	if admin != "postgres://u@db:5432/x" || skip != "" {
		t.Errorf("with %s: admin %q, skip %q", envServer, admin, skip)
	}
	admin, bins, skip := decide(env(nil), installed)
	if admin != "" || bins.initdb != "/pg/initdb" || skip != "" {
		t.Errorf("with binaries: admin %q, binaries %v, skip %q", admin, bins, skip)
	}
	_, _, skip = decide(env(nil), noBinaries)
	const want = "no TRIBUTARY_TEST_POSTGRES and no initdb found (install Debian's postgresql)"
	if skip != want {
		t.Fatalf("with neither: skip %q, want %q", skip, want)
	}

	tb := &fakeTB{}
	unavailable(tb, skip, env(nil))
	if tb.skipped != "PostgreSQL tests skipped: "+want || tb.fatal != "" {
		t.Errorf("without %s: skipped %q, fatal %q", envRequire, tb.skipped, tb.fatal)
	}
	tb = &fakeTB{}
	unavailable(tb, skip, env(map[string]string{envRequire: "1"}))
	if tb.skipped != "" || !strings.HasSuffix(tb.fatal, want) || !strings.Contains(tb.fatal, envRequire) {
		t.Errorf("with %s: skipped %q, fatal %q", envRequire, tb.skipped, tb.fatal)
	}
}

// fakeTB records what a real testing.TB would do on Skipf and Fatalf.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (*fakeTB) Helper()                          {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	install := func(version string, programs ...string) string {
		bin := filepath.Join(root, version, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range programs {
			if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(bin, "initdb")
	}
	v96 := install("9.6", "initdb", "postgres")
	v15 := install("15", "initdb", "postgres")
	v16 := install("16", "initdb") // incomplete: no postgres
	notOnPath := func(string) (string, error) { return "", errors.New("not found") }
	glob := func(string) ([]string, error) { return []string{v96, v16, v15}, nil }

	b, err := findBinariesIn(notOnPath, glob)
	if err != nil || b.initdb != v15 || b.postgres != filepath.Join(filepath.Dir(v15), "postgres") {
		t.Errorf("got %v, %v; want version 15's (the highest complete one)", b, err)
	}

	// PATH comes first, through symbolic links, with postgres from initdb's
	// own directory.
	link := filepath.Join(root, "initdb")
	if err := os.Symlink(v96, link); err != nil {
		t.Fatal(err)
	}
	b, err = findBinariesIn(func(string) (string, error) { return link, nil }, glob)
	if err != nil || b.initdb != v96 || b.postgres != filepath.Join(filepath.Dir(v96), "postgres") {
		t.Errorf("got %v, %v; want the one on PATH (9.6)", b, err)
	}
}

func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u@127.0.0.1:5432/postgres?sslmode=disable", "postgres://u@127.0.0.1:5432/t_1?sslmode=disable"},
		{"postgresql://u:p%40ss@db/?sslmode=require", "postgresql://u:p%40ss@db/t_1?sslmode=require"},
		{"postgres://u@db", "postgres://u@db/t_1"},
		{"host=db user=u dbname=postgres", "host=db user=u dbname=postgres dbname=t_1"},
	} {
		got, err := withDatabase(c.in, "t_1")
		if err != nil || got != c.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// The last dbname wins in keyword=value form, as pgx reads it.
	cfg, err := pgx.ParseConfig("host=db user=u dbname=postgres dbname=t_1")
	if err != nil || cfg.Database != "t_1" {
		t.Errorf("pgx reads database %q (%v), want t_1", cfg.Database, err)
	}
}

// TestStart: the server Start gives outside a test accepts connections,
// and is gone once stopped (its directory with it).
func TestStart(t *testing.T) {
	if _, err := findBinaries(); err != nil {
		unavailable(t, err.Error(), os.Getenv)
	}
	dsn, stop, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRow(t.Context(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("SELECT 1: %d, %v", one, err)
	}
	conn.Close(context.Background())
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err == nil {
		t.Error("a second stop succeeded")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if c, err := pgx.Connect(ctx, dsn); err == nil {
		c.Close(context.Background())
		t.Error("the server still accepts connections after stop")
	}
}
