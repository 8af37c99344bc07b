package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// More full loads at once than the PostgreSQL pool has connections (a
// worker running many syncs), each between two pages while the others
// write theirs: every load finishes. A load used to keep its COPY
// connection from its first page to its commit, so that with the pool's
// connections held by loads waiting for their vendor, the next statement any of
// them needed from the pool waited forever.
func TestLoadsBeyondThePoolFinish(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.OpenPostgres(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const loads = 24 // the writers' pool holds 12
	var firstPages, wg sync.WaitGroup
	firstPages.Add(loads)
	errs := make(chan error, loads)
	for i := range loads {
		wg.Go(func() {
			spec := store.Spec{Connector: fmt.Sprintf("c%02d", i), Entity: "e", Schema: workerSchema, IDField: "id"}
			err := func() error {
				l, err := st.BeginFull(ctx, spec)
				if err != nil {
					firstPages.Done()
					return err
				}
				defer l.Abort(context.Background())
				err = l.Write(ctx, workerRecords(1)[:400], nil)
				firstPages.Done()
				if err != nil {
					return err
				}
				firstPages.Wait() // every load between two pages at once
				if err := l.Write(ctx, workerRecords(1)[400:], nil); err != nil {
					return err
				}
				return l.Commit(ctx)
			}()
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a load of %d at once: %v", loads, err)
		}
	}
	for i := range loads {
		if n, err := st.Count(ctx, fmt.Sprintf("c%02d", i), "e"); err != nil || n != 800 {
			t.Fatalf("copy %d: %d records, %v", i, n, err)
		}
	}
}

// The PostgreSQL pools keep the connections a burst opened: one used to
// keep two and close the others as they came back, so that a process
// running many syncs at once opened a connection for most statements.
func TestPoolKeepsItsConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for range 3 {
		readsAtOnce(t, st, 12)
	}
	for name, p := range map[string]*sql.DB{"writes": store.Pool(st), "reads": store.ReadPool(st)} {
		if s := p.Stats(); s.MaxIdleClosed > 0 {
			t.Fatalf("the pool of %s closed %d connections it had just used (%d open, %d idle)", name, s.MaxIdleClosed, s.OpenConnections, s.Idle)
		}
	}
	if s := store.ReadPool(st).Stats(); s.OpenConnections < 2 {
		t.Fatalf("12 reads at once opened %d read connections", s.OpenConnections)
	}
}

// readsAtOnce runs n reads of st at once.
func readsAtOnce(t *testing.T, st *store.Store, n int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := st.CopiesFreshness(ctx, time.Minute, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// pool_max_conns in the connection string (pgxpool's parameter) sizes
// the pools (a quarter for reads, at least two), so that processes
// sharing one server can divide it; it is not sent to the server (which
// would refuse an unknown parameter), and a value out of range is refused
// before any connection.
func TestPoolSizeFromDSN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := store.OpenPostgres(ctx, dsn+"&pool_max_conns=3")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	readsAtOnce(t, st, 12)
	w, r := store.Pool(st).Stats(), store.ReadPool(st).Stats()
	if w.MaxOpenConnections != 1 || r.MaxOpenConnections != 2 || w.OpenConnections+r.OpenConnections > 3 {
		t.Fatalf("pool_max_conns=3: writes allow %d connections, reads %d (want 1 and 2), %d and %d open",
			w.MaxOpenConnections, r.MaxOpenConnections, w.OpenConnections, r.OpenConnections)
	}
	// One connection is one pool, for writes and reads alike.
	one, err := store.OpenPostgres(ctx, dsn+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, err := one.CopiesFreshness(ctx, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if store.Pool(one) != store.ReadPool(one) || store.Pool(one).Stats().MaxOpenConnections != 1 {
		t.Fatalf("pool_max_conns=1: two pools, or more than one connection")
	}
	for _, bad := range []string{"0", "-1", "1001", "lots"} {
		_, err := store.OpenPostgres(ctx, dsn+"&pool_max_conns="+bad)
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "pool_max_conns") || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("pool_max_conns=%s: %v; want ErrInvalid naming the parameter and its value", bad, err)
		}
	}
}
