// Package pgtest gives each test an empty PostgreSQL database of its own.
//
// DSN creates a fresh database (named t_<random>) for the calling test,
// drops it when the test ends, and returns a connection string pgx v5
// accepts: postgres://user@127.0.0.1:port/t_<random>?sslmode=disable.
//
// The server comes from, in this order:
//
//  1. TRIBUTARY_TEST_POSTGRES: the connection string of a server you run
//     (PostgreSQL 13 or newer; its role needs CREATEDB). Databases are created
//     and dropped on it; nothing else is touched.
//  2. Otherwise a throwaway server, started once per test binary, on the
//     first call to DSN, from the installed PostgreSQL binaries: initdb and
//     postgres from PATH, else from the highest /usr/lib/postgresql/<version>/bin
//     (Debian's postgresql package). It lives in a temporary directory, listens
//     on a free loopback port only, runs without fsync, encodes UTF8 in
//     locale C.UTF-8 (so that pg_trgm takes 'ü' for a letter), and is
//     stopped and removed when the tests end. As root it runs as the "postgres" user,
//     since PostgreSQL refuses to run as root (its directory, under $TMPDIR,
//     must then be reachable by that user, as it is under /tmp).
//
// With neither, DSN skips the test with the reason, or, when
// TRIBUTARY_REQUIRE_POSTGRES is set (CI sets it), fails it with that reason,
// so that PostgreSQL tests are never skipped silently.
//
// A package whose tests call DSN runs them through Main in its TestMain, so
// that the server is stopped once they have run and before goleak looks for
// goroutines left behind:
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
//
//	func TestStore(t *testing.T) {
//		conn, err := pgx.Connect(t.Context(), pgtest.DSN(t))
//		if err != nil {
//			t.Fatal(err)
//		}
//		defer conn.Close(context.Background())
//		// ... the database is empty and no other test sees it.
//	}
//
// DSN fails the test if Main is not in use. Should a test binary die without
// stopping the server (a panic in a test, -timeout, a kill), the server,
// started with a parent-death signal on Linux, shuts down with it, and the
// next server start removes the temporary directories such binaries left.
//
// The server is process-wide state (one per test binary, as intended): it is
// held in package-level variables, behind a mutex, and DSN is safe for
// parallel tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables DSN reads.
const (
	envServer  = "TRIBUTARY_TEST_POSTGRES"
	envRequire = "TRIBUTARY_REQUIRE_POSTGRES"
)

// state is the one server source of this test process.
var state struct {
	mu      sync.Mutex
	running bool // Main's Run is running the tests
	decided bool // the source below has been chosen (and a server started)
	admin   string
	skip    string // when there is no server: why
	err     error  // when starting the server failed
	srv     *server
}

// Runner is what Main returns: a *testing.M as goleak.VerifyTestMain takes it.
type Runner interface{ Run() int }

type runner struct{ m *testing.M }

// Main wraps m for TestMain: its Run runs the tests, then stops the server
// DSN started, if any, and removes its directory. Use it as
// goleak.VerifyTestMain(pgtest.Main(m)), or os.Exit(pgtest.Main(m).Run()).
func Main(m *testing.M) Runner { return runner{m} }

func (r runner) Run() int {
	state.mu.Lock()
	state.running = true
	state.mu.Unlock()
	defer stop()
	return r.m.Run()
}

// stop stops the server, if one was started, and makes later DSN calls fail.
func stop() {
	state.mu.Lock()
	defer state.mu.Unlock()
	state.running = false
	if state.srv != nil {
		if err := state.srv.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
		state.srv = nil
	}
}

// DSN creates an empty database for t alone, registers its removal with
// t.Cleanup, and returns its connection string. When no server is available
// it skips t (or fails it, under TRIBUTARY_REQUIRE_POSTGRES); when a server
// cannot be started or reached it fails t.
func DSN(t testing.TB) string {
	t.Helper()
	admin, err := adminDSN(t)
	if err != nil {
		t.Fatal("pgtest:", err)
	}
	name, err := randomName()
	if err != nil {
		t.Fatal("pgtest:", err)
	}
	ident := pgx.Identifier{name}.Sanitize()
	if err := execSQL(admin, "CREATE DATABASE "+ident); err != nil {
		t.Fatal("pgtest: creating the test's database:", err)
	}
	t.Cleanup(func() {
		if err := execSQL(admin, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			t.Error("pgtest: dropping the test's database:", err)
		}
	})
	dsn, err := withDatabase(admin, name)
	if err != nil {
		t.Fatal("pgtest:", err)
	}
	return dsn
}

// adminDSN returns the connection string of a database on the process's
// server, choosing (and starting) that server on the first call. It skips or
// fails t when there is none.
func adminDSN(t testing.TB) (string, error) {
	t.Helper()
	state.mu.Lock()
	defer state.mu.Unlock()
	if !state.running {
		return "", errors.New("the package's tests do not run through pgtest.Main: " +
			"its TestMain must be goleak.VerifyTestMain(pgtest.Main(m)), which stops the server after the tests")
	}
	if !state.decided {
		state.decided = true
		var bins binaries
		state.admin, bins, state.skip = decide(os.Getenv, findBinaries)
		if state.skip == "" && state.admin == "" {
			began := time.Now()
			state.srv, state.err = start(bins)
			if state.err == nil {
				state.admin = state.srv.dsn
				t.Logf("pgtest: started %s in %v (%s)", bins.postgres, time.Since(began).Round(time.Millisecond), state.admin)
			}
		}
	}
	if state.skip != "" {
		unavailable(t, state.skip, os.Getenv)
		return "", errors.New(state.skip) // not reached by a real testing.TB
	}
	return state.admin, state.err
}

// decide picks where the server comes from: the connection string in
// TRIBUTARY_TEST_POSTGRES (admin), or binaries to start one from. When
// neither is available, skip says why.
func decide(getenv func(string) string, find func() (binaries, error)) (admin string, bins binaries, skip string) {
	if dsn := getenv(envServer); dsn != "" {
		return dsn, binaries{}, ""
	}
	bins, err := find()
	if err != nil {
		return "", binaries{}, fmt.Sprintf("no %s and %v", envServer, err)
	}
	return "", bins, ""
}

// unavailable skips t with the reason, or fails it when
// TRIBUTARY_REQUIRE_POSTGRES is set.
func unavailable(t testing.TB, reason string, getenv func(string) string) {
	t.Helper()
	if getenv(envRequire) != "" {
		t.Fatalf("PostgreSQL tests required (%s is set), but: %s", envRequire, reason)
		return
	}
	t.Skipf("PostgreSQL tests skipped: %s", reason)
}

func randomName() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "t_" + hex.EncodeToString(b[:]), nil
}

// withDatabase returns dsn with its database replaced by name, in either of
// the forms pgx accepts: a URL, or keyword=value pairs (where the last
// dbname wins).
func withDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("%s is not a valid URL", envServer) // the error would repeat a password
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String(), nil
	}
	return dsn + " dbname=" + name, nil
}

// execSQL runs one statement on its own connection to dsn.
func execSQL(dsn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
