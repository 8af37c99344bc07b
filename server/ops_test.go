package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
)

// /healthz, /readyz and /metrics answer; every request has a log line with
// its request id (the caller's, when it gives a sane one) and no secret.
func TestOperations(t *testing.T) {
	t.Parallel()
	st := sqliteStore(t)
	s := start(t, st, nil, nil)
	if a := s.do(t, "GET", "/healthz", "", nil); a.status != 200 {
		t.Errorf("healthz: %d %s", a.status, a.body)
	}
	if a := s.do(t, "GET", "/readyz", "", nil); a.status != 200 {
		t.Errorf("readyz: %d %s", a.status, a.body)
	}
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	for range 3 {
		if a := s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list"}); a.status != 200 {
			t.Fatalf("list: %d %s", a.status, a.body)
		}
	}
	if a := s.execute(t, tok, id, map[string]any{"entity": "ticket", "action": "list"}); a.errType() != "unknown_entity" {
		t.Errorf("unknown entity: %d %s", a.status, a.body)
	}
	req, _ := http.NewRequest("POST", s.url+"/api/v1/connectors/sources/"+id+"/execute", strings.NewReader(`{"entity":"tickets","action":"list"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Request-Id", "caller-id-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-Id"); got != "caller-id-42" {
		t.Errorf("X-Request-Id answered %q", got)
	}
	// A request is counted once its answer is sent: wait for the last one.
	s.metricsHave(t,
		`tributary_requests_total{endpoint="execute",kind="zendesk-support",outcome="success"} 4`,
		`tributary_requests_total{endpoint="execute",kind="zendesk-support",outcome="unknown_entity"} 1`,
		`tributary_requests_total{endpoint="create",kind="zendesk-support",outcome="success"} 1`,
		`tributary_requests_total{endpoint="token",kind="none",outcome="success"} 1`,
		`tributary_vendor_requests_total{kind="zendesk-support"} 4`,
		`tributary_request_duration_seconds_count{endpoint="execute",kind="zendesk-support"} 5`)
	// A search synchronizes the copy; its lag is reported.
	if a := s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "search", "params": map[string]any{"query": map[string]any{}, "limit": 1}}); a.status != 200 {
		t.Fatalf("search: %d %s", a.status, a.body)
	}
	s.metricsHave(t, `tributary_sync_lag_seconds{connector="`+id+`",entity="tickets"}`, `tributary_syncs_total{kind="zendesk-support",outcome="success"} 1`,
		// The store's freshness, in aggregate: the one copy synchronized.
		`tributary_copies{state="fresh"} 1`, `tributary_copies{state="overdue"} 0`, `tributary_copies_failing 0`,
		`tributary_copy_staleness_seconds_bucket{le="15"} 1`, `tributary_copy_staleness_seconds_count 1`)

	lines := strings.Split(strings.TrimSpace(s.logs.String()), "\n")
	var found bool
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if rec["msg"] == "request" && rec["request_id"] == "caller-id-42" && rec["connector"] == id && rec["status"] == float64(200) && rec["action"] == "list" {
			found = true
		}
		if rec["msg"] == "request" && (rec["request_id"] == "" || rec["request_id"] == nil) {
			t.Errorf("a request line without a request id: %s", l)
		}
	}
	if !found {
		t.Errorf("no log line for the request caller-id-42:\n%s", s.logs.String())
	}
	leaks(t, "the log", s.logs.String(), zendesktest.DefaultAPIToken, clientA.Secret, clientB.Secret, tok)

	// The store going away makes the service not ready.
	st.Close()
	if a := s.do(t, "GET", "/readyz", "", nil); a.status != http.StatusServiceUnavailable {
		t.Errorf("readyz with the store closed: %d %s", a.status, a.body)
	}
}

// Rotating the keys re-seals every connector under the new key while
// executes go on; afterwards a service with the new key alone opens them.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	st := sqliteStore(t)
	old := newKeys(t, "old")
	s := start(t, st, nil, func(c *server.Config) { c.Keys = old })
	tok := s.token(t, clientA, "")
	var ids []string
	for i := range 20 {
		ids = append(ids, s.create(t, tok, fmt.Sprintf("user-%d", i)))
	}
	fresh := newKeys(t, "new")
	both := start(t, st, s.zd, func(c *server.Config) { c.Keys = fresh + "\n" + old })
	tokBoth := both.token(t, clientA, "")

	// Executes on both services while the rotation runs.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var failures, calls atomic.Int64
	for _, svc := range []*service{s, both} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := tok
			if svc == both {
				tk = tokBoth
			}
			for i := 0; ctx.Err() == nil; i++ {
				a := svc.execute(t, tk, ids[i%len(ids)], map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}})
				calls.Add(1)
				if a.status != 200 {
					failures.Add(1)
					t.Errorf("execute during the rotation: %d %s", a.status, a.body)
				}
			}
		}()
	}
	n, err := both.srv.RotateKeys(context.Background())
	time.Sleep(100 * time.Millisecond)
	stop()
	wg.Wait()
	if err != nil || n != len(ids) {
		t.Fatalf("RotateKeys: %d, %v", n, err)
	}
	if n, err := both.srv.RotateKeys(context.Background()); n != 0 || err != nil {
		t.Errorf("a second rotation re-sealed %d (%v)", n, err)
	}
	t.Logf("%d executes during the rotation, %d failed", calls.Load(), failures.Load())

	only := start(t, st, s.zd, func(c *server.Config) { c.Keys = fresh })
	tokNew := only.token(t, clientA, "")
	for _, id := range ids {
		if a := only.execute(t, tokNew, id, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}}); a.status != 200 {
			t.Fatalf("after the rotation, with the new key alone: %d %s", a.status, a.body)
		}
	}
}

// 1,000 concurrent executes through the hosted client, none failing.
func TestThousandConcurrentExecutes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	s := start(t, sqliteStore(t), nil, nil)
	c, err := hosted.New(hosted.Config{BaseURL: s.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "user-1"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector(id, "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	ids := s.zd.IDs("tickets")[:50]
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			want := ids[i%len(ids)]
			rec, err := conn.Get(context.Background(), "tickets", tributary.Params{"ticket_id": want})
			if err == nil {
				if got, _ := rec.IntAt("id"); fmt.Sprint(got) != want {
					err = fmt.Errorf("get %s answered ticket %d", want, got)
				}
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed < 5 {
			t.Error(err)
		}
		failed++
	}
	t.Logf("%d concurrent gets in %v, %d failed", n, time.Since(t0), failed)
}

// On shutdown, a request in flight finishes and Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{Store: sqliteStore(t), Keys: newKeys(t, "k"), Clients: []server.Client{clientA}, SyncEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	// The request in flight: a token exchange whose body comes slowly.
	pr, pw := io.Pipe()
	resCh := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", url+"/api/v1/account/applications/token", pr)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			resCh <- -1
			return
		}
		resp.Body.Close()
		resCh <- resp.StatusCode
	}()
	_, _ = pw.Write([]byte(`{"client_id": "` + clientA.ID + `", `))
	time.Sleep(200 * time.Millisecond)
	cancel() // shutdown starts with the request in flight
	time.Sleep(200 * time.Millisecond)
	_, _ = pw.Write([]byte(`"client_secret": "` + clientA.Secret + `"}`))
	pw.Close()
	if code := <-resCh; code != 200 {
		t.Errorf("the request in flight at shutdown answered %d", code)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if resp, err := http.Get(url + "/healthz"); err == nil {
		resp.Body.Close()
		t.Error("the service still answers after shutdown")
	}
}

// metricsHave waits (a second at most) for /metrics to hold every line.
func (s *service) metricsHave(t *testing.T, want ...string) {
	t.Helper()
	var body string
	for try := 0; try < 50; try++ {
		body = string(s.do(t, "GET", "/metrics", "", nil).body)
		missing := 0
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}

// Past 1,000 copies /metrics gives the copies' freshness in aggregate
// only: a series per copy would be a fleet's hundreds of thousands.
func TestMetricsOfAFleet(t *testing.T) {
	t.Parallel()
	st := sqliteStore(t)
	s := start(t, st, nil, nil)
	ctx := context.Background()
	for i := range 201 {
		if err := st.Register(ctx, fmt.Sprintf("c%03d", i), "a", "b", "c", "d", "e"); err != nil {
			t.Fatal(err)
		}
	}
	s.metricsHave(t, `tributary_copies{state="never_synchronized"} 1005`, `tributary_copies{state="fresh"} 0`,
		`tributary_copy_staleness_seconds_count 0`)
	body := string(s.do(t, "GET", "/metrics", "", nil).body)
	for _, name := range []string{"tributary_sync_lag_seconds{", "tributary_copy_failing{"} {
		if strings.Contains(body, name) {
			t.Errorf("/metrics has a series a copy (%s…) for 1,005 copies", name)
		}
	}
}
