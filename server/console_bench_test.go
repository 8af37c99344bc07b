package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx"

	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// BenchmarkConsolePages measures the console's pages over PostgreSQL
// holding 10,000 connectors (two tenants, 1,000 external users, each
// connector's credentials sealed for real) and 100,000 copies (one in a
// hundred failing, one connector in a thousand marked needs_reconnect and
// one with a copy failing with class auth): a page of the connectors list
// (the first, one in the middle, one tenant's, each status filter) and a
// connector's page, each
// request timed end to end over loopback HTTP, and the 95th percentile
// reported (ms):
//
//	go test ./server -run '^$' -bench ConsolePages -benchtime 400x -timeout 600s
func BenchmarkConsolePages(b *testing.B) {
	const connectors, copiesEach = 10_000, 10
	ctx := context.Background()
	dsn := pgtest.DSN(b)
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	keyLine, err := keyring.NewKey("k1")
	if err != nil {
		b.Fatal(err)
	}
	keys, err := keyring.Parse(keyLine)
	if err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	creds, _ := json.Marshal(map[string]any{"credentials": zdCreds})
	ids := make([]string, connectors)
	for lo := 0; lo < connectors; lo += 500 {
		var vals []string
		var args []any
		for i := lo; i < lo+500; i++ {
			ids[i] = fmt.Sprintf("conn_bench%06d", i)
			sealed, err := keys.Seal(creds, []byte(ids[i]))
			if err != nil {
				b.Fatal(err)
			}
			tenant := []string{clientA.ID, clientB.ID}[i%2]
			n := len(args)
			vals = append(vals, fmt.Sprintf("($%d, $%d, $%d, 'zendesk-support', 'helpdesk', $%d, 1, %d)", n+1, n+2, n+3, n+4, time.Now().UnixMilli()))
			args = append(args, ids[i], tenant, fmt.Sprintf("user-%d", i%1000), sealed)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO tributary_connectors (id, tenant, external_user_id, kind, name, sealed, version, created_at) VALUES "+strings.Join(vals, ", "), args...); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Now().UnixMilli()
	if _, err := db.ExecContext(ctx, `INSERT INTO tributary_entities (connector, entity, synced_at, records)
		SELECT c.id, 'entity_' || g, $1::bigint - g * 60000, 1000 * g FROM tributary_connectors c, generate_series(1, $2) g`, now, copiesEach); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE tributary_entities SET failure_class = 'transient', failure_message = 'the vendor answered 503',
		failures = 2, failed_at = $1::bigint, retry_at = $1::bigint + 60000 WHERE entity = 'entity_1' AND right(connector, 2) = '00'`, now); err != nil {
		b.Fatal(err)
	}
	// One connector in a thousand marked as refused by the vendor (a
	// refused refresh), one in a thousand with a copy failing with class
	// auth: the "needs reconnect" filter finds 20 among 10,000.
	if _, err := db.ExecContext(ctx, "UPDATE tributary_connectors SET needs_reconnect = 1 WHERE right(id, 3) = '050'"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE tributary_entities SET failure_class = 'auth', failure_message = 'the vendor answered 401',
		failures = 1, failed_at = $1::bigint WHERE entity = 'entity_2' AND right(connector, 3) = '500'`, now); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM tributary_entities").Scan(&n); err != nil || n != connectors*copiesEach {
		b.Fatalf("%d copies (%v)", n, err)
	}

	srv, err := server.New(server.Config{Store: st, Keys: keyLine, Clients: []server.Client{clientA, clientB}, SyncEvery: -1, Admin: adminPassword})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			b.Error(err)
		}
	}()
	s := &service{url: "http://" + ln.Addr().String()}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: time.Minute}
	get := func(path string) (string, time.Duration) {
		t0 := time.Now()
		resp, err := hc.Get(s.url + path)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d %v %.300s", path, resp.StatusCode, err, body)
		}
		return string(body), d
	}
	login, _ := get("/console/login")
	resp, err := hc.PostForm(s.url+"/console/login", url.Values{"csrf": {csrfRE.FindStringSubmatch(login)[1]}, "password": {adminPassword}})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if body, _ := get("/console/connectors"); strings.Count(body, `<th scope="row">`) != 50 || !strings.Contains(body, `id="next"`) {
		b.Fatalf("the first page does not list 50 connectors and a next page: %.500s", body)
	}
	if body, _ := get("/console/connectors/" + ids[100]); strings.Count(body, `<tr id="copy-`) != copiesEach || !strings.Contains(body, "the vendor answered 503") {
		b.Fatalf("the connector page does not show its 10 copies and failure: %.500s", body)
	}
	lists := []string{"/console/connectors", "/console/connectors?after=5000", "/console/connectors?tenant=tenant-b&after=2000",
		"/console/connectors?status=failing", "/console/connectors?tenant=tenant-a&user=user-42",
		"/console/connectors?status=needs_reconnect", "/console/connectors?status=healthy&after=5000"}
	var listTimes, pageTimes []time.Duration
	byList := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_, d := get(lists[i%len(lists)])
		listTimes = append(listTimes, d)
		byList[lists[i%len(lists)]] = append(byList[lists[i%len(lists)]], d)
		_, d = get("/console/connectors/" + ids[(i*7919)%connectors])
		pageTimes = append(pageTimes, d)
	}
	b.StopTimer()
	for _, l := range lists {
		b.Logf("%s: p95 %.1f ms", l, p95(byList[l]))
	}
	b.ReportMetric(p95(listTimes), "list-p95-ms")
	b.ReportMetric(p95(pageTimes), "connector-p95-ms")
	if body, _ := get("/console/connectors?status=needs_reconnect"); strings.Count(body, `<th scope="row">`) != 20 {
		b.Errorf("the needs reconnect filter lists %d connectors, want 20", strings.Count(body, `<th scope="row">`))
	}
}

// p95 is the 95th percentile of ds in milliseconds.
func p95(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*95/100)].Microseconds()) / 1000
}
