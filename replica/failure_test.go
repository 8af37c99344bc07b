package replica_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// failingTransport answers every request with status (0: passes it to the
// fake) and counts the requests.
type failingTransport struct {
	status atomic.Int32
	sent   atomic.Int64
}

func (f *failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.sent.Add(1)
	status := int(f.status.Load())
	if status == 0 {
		return http.DefaultTransport.RoundTrip(req)
	}
	body := fmt.Sprintf(`{"error":"status %d"}`, status)
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Request: req, ContentLength: int64(len(body)),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// failureBackends runs test on a SQLite file and a PostgreSQL database.
func failureBackends(t *testing.T, test func(t *testing.T, st *store.Store)) {
	for _, bname := range []string{"sqlite", "postgres"} {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			var st *store.Store
			var err error
			if bname == "sqlite" {
				st, err = store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
			} else {
				st, err = store.OpenPostgres(ctx, pgtest.DSN(t))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			test(t, st)
		})
	}
}

// copyStats returns the stats of one copy, as `tributary store stats`
// shows them.
func copyStats(t *testing.T, st *store.Store, connector, entity string) store.EntityStats {
	t.Helper()
	stats, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range stats.Entities {
		if e.Connector == connector && e.Entity == entity {
			return e
		}
	}
	t.Fatalf("no copy %s/%s in the stats", connector, entity)
	return store.EntityStats{}
}

// A copy whose source refuses the credentials is tried once, its failure
// recorded (the store's stats show it, without the credentials), and not
// tried again by any worker however long they run, until its connector's
// failures are reset: then it is synchronized at once, and the failure is
// gone.
func TestWorkerStopsOnAuthFailure(t *testing.T) {
	t.Parallel()
	failureBackends(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		_, urls := startWorkerFakes(t)
		if err := st.Register(ctx, "zd-a", "groups"); err != nil {
			t.Fatal(err)
		}
		rt := &failingTransport{}
		rt.status.Store(http.StatusUnauthorized)
		open := workerOpener(urls, nil, tributary.WithHTTPClient(&http.Client{Transport: rt}))
		var reports atomic.Int64
		opts := []replica.WorkerOption{replica.WithEvery(time.Hour), replica.WithPoll(20 * time.Millisecond),
			replica.WithReplicaOptionsFor(workerReplicaOptions(t)),
			replica.WithReport(func(string, replica.EntityReport, error) { reports.Add(1) })}
		w := replica.NewWorker(st, open, append(opts, replica.WithOwner("a"))...)
		n, err := w.RunOnce(ctx)
		if n != 1 || !errors.Is(err, tributary.ErrUnauthorized) || replica.FailureClass(err) != store.FailureAuth {
			t.Fatalf("RunOnce: %d syncs, %v", n, err)
		}
		sent := rt.sent.Load()
		if sent == 0 || sent > 4 {
			t.Fatalf("%d requests for one refused sync", sent)
		}
		e := copyStats(t, st, "zd-a", "groups")
		f := e.Failure
		if f == nil || f.Class != store.FailureAuth || f.Failures != 1 || !f.RetryAt.IsZero() || !strings.Contains(f.Message, "unauthorized") || !e.SyncedAt.IsZero() {
			t.Fatalf("the copy's stats: %+v (failure %+v)", e, f)
		}
		for _, v := range workerCase("zd-a").creds {
			if s, ok := v.(string); ok && len(s) > 3 && strings.Contains(f.Message, s) {
				t.Fatalf("the recorded failure holds a credential: %q", f.Message)
			}
		}

		// Another worker, in a loop for a while, and a new one (a restart)
		// leave it alone: the store says it failed for good.
		rctx, stop := context.WithTimeout(ctx, 700*time.Millisecond)
		defer stop()
		if err := replica.NewWorker(st, open, append(opts, replica.WithOwner("b"))...).Run(rctx); err != nil {
			t.Fatal(err)
		}
		if n, err := replica.NewWorker(st, open, append(opts, replica.WithOwner("c"))...).RunOnce(ctx); n != 0 || err != nil {
			t.Fatalf("a new worker: %d syncs, %v", n, err)
		}
		if got := rt.sent.Load(); got != sent || reports.Load() != 1 {
			t.Fatalf("the refused copy was tried again: %d requests (was %d), %d reports", got, sent, reports.Load())
		}
		// The credentials are mended; until the failures are reset, the
		// workers do not know.
		rt.status.Store(0)
		if n, err := w.RunOnce(ctx); n != 0 || err != nil {
			t.Fatalf("before ResetFailures: %d syncs, %v", n, err)
		}
		if n, err := st.ResetFailures(ctx, "zd-a"); n != 1 || err != nil {
			t.Fatalf("ResetFailures: %d, %v", n, err)
		}
		if n, err := w.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("after ResetFailures: %d syncs, %v", n, err)
		}
		if e := copyStats(t, st, "zd-a", "groups"); e.Failure != nil || e.Records == 0 || e.SyncedAt.IsZero() {
			t.Fatalf("after the sync: %+v (failure %+v)", e, e.Failure)
		}
	})
}

// A copy whose source fails (503) is tried again after a back-off that
// starts at WithPoll's duration and doubles with every consecutive
// failure, counted by the store across workers, up to WithEvery's; no
// worker tries it before; a success clears it.
func TestWorkerBacksOffTransientFailures(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	failureBackends(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		_, urls := startWorkerFakes(t)
		if err := st.Register(ctx, "zd-a", "groups"); err != nil {
			t.Fatal(err)
		}
		rt := &failingTransport{}
		rt.status.Store(http.StatusServiceUnavailable)
		open := workerOpener(urls, nil, tributary.WithHTTPClient(&http.Client{Transport: rt}))
		const poll, every = 50 * time.Millisecond, 300 * time.Millisecond
		want := []time.Duration{poll, 2 * poll, 4 * poll, every, every}
		worker := func(i int) *replica.Worker {
			return replica.NewWorker(st, open, replica.WithOwner(fmt.Sprint("w", i)), replica.WithEvery(every), replica.WithPoll(poll),
				replica.WithReplicaOptionsFor(workerReplicaOptions(t)))
		}
		// runDue runs a new worker (a restart: nothing kept in memory)
		// until it has synchronized the copy once, and checks it was not
		// due before retry.
		runDue := func(i int, retry time.Time) error {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				n, err := worker(i).RunOnce(ctx)
				if n == 1 {
					if !retry.IsZero() && time.Now().Before(retry.Add(-50*time.Millisecond)) {
						t.Fatalf("try %d ran at %v, before its retry time %v", i, time.Now(), retry)
					}
					return err
				}
				if n != 0 || err != nil || time.Now().After(deadline) {
					t.Fatalf("try %d: %d syncs, %v", i, n, err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		var retry time.Time
		for i, wait := range want {
			err := runDue(i, retry)
			if !errors.Is(err, tributary.ErrServer) || replica.FailureClass(err) != store.FailureTransient {
				t.Fatalf("try %d: %v", i, err)
			}
			f := copyStats(t, st, "zd-a", "groups").Failure
			if f == nil || f.Class != store.FailureTransient || f.Failures != i+1 || f.RetryAt.Sub(f.FailedAt) != wait {
				t.Fatalf("try %d: failure %+v, want a wait of %v", i, f, wait)
			}
			if n, err := worker(100 + i).RunOnce(ctx); n != 0 || err != nil {
				t.Fatalf("right after try %d: %d syncs, %v", i, n, err)
			}
			retry = f.RetryAt
		}
		rt.status.Store(0)
		if err := runDue(len(want), retry); err != nil {
			t.Fatal(err)
		}
		if e := copyStats(t, st, "zd-a", "groups"); e.Failure != nil || e.Records == 0 {
			t.Fatalf("after a success: %+v (failure %+v)", e, e.Failure)
		}
	})
}

func TestFailureClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want store.FailureClass
	}{
		{&tributary.Error{Err: tributary.ErrUnauthorized}, store.FailureAuth},
		{fmt.Errorf("opening: %w", &tributary.Error{Err: tributary.ErrForbidden}), store.FailureAuth},
		{&tributary.Error{Err: tributary.ErrInvalidCredentials}, store.FailureAuth},
		{&tributary.Error{Param: "replication_config.start_date", Err: tributary.ErrInvalidParams}, store.FailureConfig},
		{&tributary.Error{Err: tributary.ErrUnknownEntity}, store.FailureConfig},
		{&tributary.Error{Err: tributary.ErrServer}, store.FailureTransient},
		{&tributary.Error{Err: tributary.ErrRateLimited}, store.FailureTransient},
		{store.ErrUnavailable, store.FailureTransient},
		{errors.New("connection reset"), store.FailureTransient},
	} {
		if got := replica.FailureClass(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}
