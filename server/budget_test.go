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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// The environment of a child `serve` process of TestServeBudget.
const (
	envBudgetChild = "TRIBUTARY_BUDGET_CHILD" // the Zendesk fake's URL, through the parent's recording proxy
	envBudgetRate  = "TRIBUTARY_BUDGET_RATE"  // the account's limit, "n/period"
)

// The account's limit in TestServeBudget: Zendesk's 700 a minute scaled to
// 40 every 2 seconds (the same fixed-window mechanism), and enough tickets
// that ticket_comments, read one request per ticket, takes many windows.
const (
	budgetLimit   = 40
	budgetPer     = 2 * time.Second
	budgetTickets = 300
)

// budgetChild runs a service as a child process, as `tributary serve
// --store postgres://…` does (two sync workers, the copies kept current in
// the background), with the Zendesk plan's limit configured: it prints its
// address on stdout, then serves until its stdin closes.
func budgetChild() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.OpenPostgres(ctx, os.Getenv(envChildStore))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: store:", err)
		os.Exit(3)
	}
	n, per, _ := strings.Cut(os.Getenv(envBudgetRate), "/")
	limit, _ := strconv.Atoi(n)
	window, _ := time.ParseDuration(per)
	srv, err := server.New(server.Config{Store: st, Keys: os.Getenv(envChildKeys), Clients: []server.Client{clientA},
		SyncEvery: time.Hour, SyncWorkers: 2, LeaseTTL: 2 * time.Second,
		ConnectorOptions: map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL(os.Getenv(envBudgetChild)),
			zendesk.WithAPIRateLimit(limit, window), zendesk.WithExportRateLimit(0, 0)}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: server:", err)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(3)
	}
	fmt.Println(ln.Addr().String())
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		cancel()
	}()
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "child: serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// answered is one request the fake answered: when it arrived, which
// process sent it, and the status.
type answered struct {
	at     time.Time
	from   int
	status int
}

// requestLog records every request that reaches the fake.
type requestLog struct {
	mu  sync.Mutex
	all []answered
}

// proxy forwards to target and records each request as sent by process
// from.
func (l *requestLog) proxy(t *testing.T, target string, from int) string {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, r)
		l.mu.Lock()
		l.all = append(l.all, answered{at: at, from: from, status: sw.status})
		l.mu.Unlock()
	}), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// TestServeBudget: two serve processes on one PostgreSQL store keep one
// Zendesk account's copies, against a fake that enforces the account's
// limit in fixed windows. Syncs of one connector are serialized across
// the processes (store.ClaimNext), so they keep to the limit together:
// not one throttled answer, and every copy complete. The budget used is
// the requests served in the busy windows (every fixed window of the
// fake's strictly between the one of the first request and the one of
// the last: the first and last are partial by nature) over those
// windows' number times the limit; it must be at least 90% when
// TRIBUTARY_STRICT_TIMING is set (CI's strict-timing step, nothing else
// running), and is logged otherwise.
func TestServeBudget(t *testing.T) {
	if u := os.Getenv(envBudgetChild); u != "" {
		budgetChild()
		return
	}
	if testing.Short() {
		t.Skip("runs two serve processes for seconds")
	}
	if os.Getenv("TRIBUTARY_STRICT_TIMING") == "" {
		// Beside the other tests; alone where the budget is a target.
		t.Parallel()
	}
	dsn := pgtest.DSN(t)
	zd := zendesktest.New(zendesktest.WithTickets(budgetTickets), zendesktest.WithUsers(200), zendesktest.WithOrganizations(100),
		zendesktest.WithClock(fakeserver.NewRealClock()), zendesktest.WithAPIRateLimit(budgetLimit, budgetPer))
	defer zd.Close()
	keys := newKeys(t, "k1")
	var log requestLog
	type child struct {
		cmd   *exec.Cmd
		addr  string
		stdin interface{ Close() error }
	}
	spawn := func(i int) *child {
		cmd := exec.Command(os.Args[0], "-test.run=^TestServeBudget$")
		cmd.Env = append(os.Environ(), envBudgetChild+"="+log.proxy(t, zd.URL, i), envChildStore+"="+dsn, envChildKeys+"="+keys,
			envBudgetRate+"="+strconv.Itoa(budgetLimit)+"/"+budgetPer.String())
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
			t.Fatalf("serve %d: %v", i, err)
		}
		return &child{cmd: cmd, addr: strings.TrimSpace(addr), stdin: stdin}
	}
	children := []*child{spawn(0), spawn(1)}
	s := &service{url: "http://" + children[0].addr}
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	// The budget is measured over the syncs: not the credential check the
	// create made, which precedes them by up to a SyncEvery.
	created := time.Now()

	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		copies, err := st.Copies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, c := range copies {
			if c.Connector == id && !c.SyncedAt.IsZero() {
				done++
			}
		}
		if done > 0 && done == len(copies) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("after 2 minutes, %d of %d copies synchronized", done, len(copies))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range children {
		c.stdin.Close()
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("a serve process did not shut down cleanly: %v", err)
		}
	}

	log.mu.Lock()
	reqs := slices.DeleteFunc(slices.Clone(log.all), func(a answered) bool { return a.at.Before(created) })
	log.mu.Unlock()
	slices.SortFunc(reqs, func(a, b answered) int { return a.at.Compare(b.at) })
	throttled, handoffs := 0, 0
	perProcess := [2]int{}
	served := map[time.Time]int{} // per window of the fake's
	for i, r := range reqs {
		if r.status == http.StatusTooManyRequests {
			throttled++
			continue
		}
		perProcess[r.from]++
		served[r.at.Truncate(budgetPer)]++
		if i > 0 && reqs[i-1].from != r.from {
			handoffs++
		}
	}
	first, last := reqs[0].at.Truncate(budgetPer), reqs[len(reqs)-1].at.Truncate(budgetPer)
	windows, busy, fullest := 0, 0, 0
	for w := first.Add(budgetPer); w.Before(last); w = w.Add(budgetPer) {
		windows++
		busy += served[w]
		fullest = max(fullest, served[w])
	}
	used := float64(busy) / float64(windows*budgetLimit)
	t.Logf("%d requests (%d and %d by the two processes, %d switches between them) in %s; %d throttled; %d busy windows of %d requests a %s: %.1f%% of the budget used, the fullest window %d",
		len(reqs), perProcess[0], perProcess[1], handoffs, reqs[len(reqs)-1].at.Sub(reqs[0].at).Round(time.Millisecond), throttled,
		windows, budgetLimit, budgetPer, 100*used, fullest)
	if throttled != 0 {
		t.Errorf("the fake throttled %d requests", throttled)
	}
	if windows < 5 {
		t.Errorf("only %d busy windows: not a long sync", windows)
	}
	if used < 0.9 {
		if os.Getenv("TRIBUTARY_STRICT_TIMING") != "" {
			t.Errorf("used %.1f%% of the budget, want at least 90%%", 100*used)
		} else {
			t.Logf("used %.1f%% of the budget (at least 90%% is required under TRIBUTARY_STRICT_TIMING only: a loaded machine may slow the syncs)", 100*used)
		}
	}
	// Every copy complete (every copy was synchronized, above).
	for _, e := range []string{"tickets", "users", "organizations"} {
		got, want := copyIDs(t, st, id, e), zd.IDs(e)
		if len(got) != len(want) {
			t.Errorf("%s: %d records in the copy, %d at the source", e, len(got), len(want))
		}
		for _, w := range want {
			if !got[w] {
				t.Errorf("%s: record %s missing", e, w)
				break
			}
		}
	}
	if got := len(copyIDs(t, st, id, "ticket_comments")); got < budgetTickets {
		t.Errorf("ticket_comments: %d comments of %d tickets", got, budgetTickets)
	}
}
