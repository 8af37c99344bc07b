package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// The environment of a child `serve` process of TestKilledServe.
const (
	envChild      = "TRIBUTARY_SERVE_CHILD"
	envChildStore = "TRIBUTARY_SERVE_CHILD_STORE" // a SQLite path or a postgres:// DSN
	envChildKeys  = "TRIBUTARY_SERVE_CHILD_KEYS"
	envChildFake  = "TRIBUTARY_SERVE_CHILD_FAKE" // the Zendesk fake's URL (through the parent's counting proxy)
)

// childServe runs a service as a child process: it prints its address on
// stdout, then serves until it is killed or its stdin closes.
func childServe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var st *store.Store
	var err error
	if dsn := os.Getenv(envChildStore); strings.HasPrefix(dsn, "postgres://") {
		st, err = store.OpenPostgres(ctx, dsn)
	} else {
		st, err = store.OpenSQLite(ctx, dsn)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: store:", err)
		os.Exit(3)
	}
	srv, err := server.New(server.Config{Store: st, Keys: os.Getenv(envChildKeys), Clients: []server.Client{clientA},
		SyncEvery: time.Minute, SyncWorkers: 2, LeaseTTL: time.Second,
		ConnectorOptions: map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL(os.Getenv(envChildFake)),
			zendesk.WithAPIRateLimit(0, 0), zendesk.WithExportRateLimit(0, 0), zendesk.WithBudgetPacing(false)}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: server:", err)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(3)
	}
	fmt.Println(ln.Addr().String())
	go func() { // the parent closing stdin ends the child gracefully
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		cancel()
	}()
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "child: serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// countingProxy forwards to the fake and counts the requests.
func countingProxy(t *testing.T, target string) (string, *atomic.Int64) {
	u, _ := url.Parse(target)
	var n atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(u)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rp.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String(), &n
}

// Two serve processes share one store; one is killed with SIGKILL in the
// middle of its background sync. The other takes its copies over once the
// leases lapse, and every copy ends equal to the source: nothing lost,
// nothing twice.
func TestKilledServe(t *testing.T) {
	parallelUnlessRace(t)
	if os.Getenv(envChild) != "" {
		childServe()
		return
	}
	for _, b := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "serve.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	} {
		t.Run(b.name, func(t *testing.T) {
			parallelUnlessRace(t)
			killedServe(t, b.dsn(t))
		})
	}
}

func killedServe(t *testing.T, dsn string) {
	zd := zendesktest.New(zendesktest.WithTickets(500), zendesktest.WithUsers(300), zendesktest.WithOrganizations(200))
	defer zd.Close()
	keys := newKeys(t, "k1")
	type child struct {
		cmd      *exec.Cmd
		addr     string
		requests *atomic.Int64
		stdin    interface{ Close() error }
	}
	spawn := func(name string) *child {
		proxy, n := countingProxy(t, zd.URL)
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledServe$")
		cmd.Env = append(os.Environ(), envChild+"=1", envChildStore+"="+dsn, envChildKeys+"="+keys, envChildFake+"="+proxy)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addr, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return &child{cmd: cmd, addr: strings.TrimSpace(addr), requests: n, stdin: stdin}
	}
	victim := spawn("victim")
	// Connectors are created through the victim before the survivor runs,
	// so the victim starts every sync.
	s := &service{url: "http://" + victim.addr}
	tok := s.token(t, clientA, "")
	var ids []string
	for i := range 3 {
		ids = append(ids, s.create(t, tok, fmt.Sprintf("user-%d", i)))
	}
	deadline := time.Now().Add(30 * time.Second)
	for victim.requests.Load() < 15 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	survivor := spawn("survivor")
	ctx := context.Background()
	var st *store.Store
	var err error
	if strings.HasPrefix(dsn, "postgres://") {
		st, err = store.OpenPostgres(ctx, dsn)
	} else {
		st, err = store.OpenSQLite(ctx, dsn)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The victim must die holding claims, in the middle of a sync.
	mark := fmt.Sprintf(":%d:", victim.cmd.Process.Pid)
	var held []string
	for held == nil && time.Now().Before(deadline) {
		copies, err := st.Copies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range copies {
			if strings.Contains(c.Owner, mark) {
				held = append(held, c.Connector+"/"+c.Entity)
			}
		}
	}
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = victim.cmd.Wait()
	killedAt := time.Now()
	if held == nil {
		t.Fatal("the victim never held a claim")
	}
	t.Logf("killed the victim after %d requests to the source, holding %v", victim.requests.Load(), held)
	entities := []string{"tickets", "users", "organizations"}
	deadline = time.Now().Add(90 * time.Second)
	for {
		done, all := 0, 0
		copies, err := st.Copies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range copies {
			all++
			// Every copy whole, and those the victim held synchronized
			// again since it died.
			if !c.SyncedAt.IsZero() && (!slices.Contains(held, c.Connector+"/"+c.Entity) || c.SyncedAt.After(killedAt)) {
				done++
			}
		}
		if done == all && all >= len(ids)*len(entities) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s, %d of %d copies synchronized (those the victim held, since the kill)", done, all)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the survivor finished %v after the kill, with %d requests", time.Since(killedAt).Round(time.Millisecond), survivor.requests.Load())
	survivor.stdin.Close()
	if err := survivor.cmd.Wait(); err != nil {
		t.Errorf("the survivor did not shut down cleanly: %v", err)
	}
	for _, id := range ids {
		for _, e := range entities {
			got := copyIDs(t, st, id, e)
			want := zd.IDs(e)
			if len(got) != len(want) {
				t.Errorf("%s %s: %d records in the copy, %d at the source", id, e, len(got), len(want))
				continue
			}
			for _, w := range want {
				if !got[w] {
					t.Errorf("%s %s: record %s missing", id, e, w)
					break
				}
			}
		}
	}
}

// copyIDs reads the ids of every live record of a copy, failing on a
// duplicate.
func copyIDs(t *testing.T, st *store.Store, connector, entity string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	req := search.Request{Limit: 1000}
	for {
		res, err := st.Search(context.Background(), connector, entity, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if out[h.ID] {
				t.Fatalf("%s %s: record %s twice", connector, entity, h.ID)
			}
			out[h.ID] = true
		}
		if res.NextCursor == nil {
			return out
		}
		req.Cursor = *res.NextCursor
	}
}
