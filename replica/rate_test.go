//go:build !race

// Run without the race detector (CI runs it in a step of its own): it
// measures requests and pacing over thousands of records.

package replica_test

import (
	"context"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// TestExportsKeepToTheirRateLimit: against a fake that enforces Zendesk's
// limit on its incremental exports (here 10 requests a second, for a
// test of seconds rather than minutes: the same mechanism as the
// documented 10 a minute), a long sync paces itself: not one throttled
// answer, and at least 90% of the allowed rate used.
func TestExportsKeepToTheirRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of pacing")
	}
	const limit, per = 10, time.Second
	fake := zendesktest.New(zendesktest.WithTickets(4000), zendesktest.WithClock(fakeserver.NewRealClock()), zendesktest.WithExportRateLimit(limit, per))
	defer fake.Close()
	kc := kindCase{kind: "zendesk-support", creds: crashCreds, opts: []tributary.Option{zendesk.WithExportRateLimit(limit, per)}}
	r, err := replica.Open(context.Background(), openKind(t, kc, fake.URL), replica.SQLite(t.TempDir()+"/rate.db"),
		replica.WithParams("tickets", tributary.Params{"per_page": 100}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	rep, err := r.Sync(context.Background(), "tickets")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	e := rep.Entities[0]
	n := e.Usage.Requests
	used := float64(n-1) / took.Seconds() / (float64(limit) / per.Seconds())
	t.Logf("%d requests in %s: %.0f%% of the allowed rate, %d throttled", n, took.Round(time.Millisecond), 100*used, e.Usage.Throttled)
	if e.Usage.Throttled != 0 || e.Usage.Retries != 0 {
		t.Errorf("%d throttled answers, %d retries", e.Usage.Throttled, e.Usage.Retries)
	}
	if n < 30 || e.Inserted != 4000 {
		t.Fatalf("%d requests, %d tickets: not a long sync", n, e.Inserted)
	}
	if used < 0.9 {
		t.Errorf("used %.0f%% of the allowed rate, want at least 90%%", 100*used)
	}
}
