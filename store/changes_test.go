package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

var changeSchema = search.Schema{"id": search.TypeInteger, "status": search.TypeString, "subject": search.TypeString}

func changeSpec() store.Spec {
	return store.Spec{Connector: "c", Entity: "tickets", Schema: changeSchema, IDField: "id"}
}

func ticket(id int, status, subject string) []byte {
	return fmt.Appendf(nil, `{"id":%d,"status":%q,"subject":%q}`, id, status, subject)
}

// ids runs a search and returns the ids it finds, in order.
func ids(t *testing.T, st *store.Store, filter string, deleted bool) []int {
	t.Helper()
	return idsOf(t, st, "c", "tickets", filter, deleted)
}

// idsOf returns the ids of connector's entity that filter finds, in order.
func idsOf(t *testing.T, st *store.Store, connector, entity, filter string, deleted bool) []int {
	t.Helper()
	var req search.Request
	if err := json.Unmarshal([]byte(`{"query":{"filter":`+filter+`,"sort":[{"id":"asc"}]},"limit":1000}`), &req); err != nil {
		t.Fatal(err)
	}
	res, err := st.SearchWith(context.Background(), connector, entity, req, store.SearchOptions{Deleted: deleted})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, h := range res.Hits {
		n, _ := strconv.Atoi(h.ID)
		out = append(out, n)
	}
	return out
}

func TestUpdatesAndTombstones(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		st, err := store.OpenSQLite(context.Background(), t.TempDir()+"/c.db")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		testUpdates(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := store.OpenPostgres(context.Background(), pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		testUpdates(t, st)
	})
}

func testUpdates(t *testing.T, st *store.Store) {
	ctx := context.Background()
	if _, err := st.BeginUpdate(ctx, changeSpec()); !errors.Is(err, store.ErrNotSynced) {
		t.Fatalf("an update without a copy: %v, want ErrNotSynced", err)
	}
	if _, err := st.Checkpoint(ctx, "c", "tickets"); !errors.Is(err, store.ErrNotSynced) {
		t.Fatalf("checkpoint without a copy: %v, want ErrNotSynced", err)
	}
	l, err := st.BeginFull(ctx, changeSpec(), store.Tombstones())
	if err != nil {
		t.Fatal(err)
	}
	var page [][]byte
	for i := 1; i <= 10; i++ {
		page = append(page, ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	if err := l.Write(ctx, page[:5], []byte(`"page 1"`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, page[5:], []byte(`"page 2"`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if c := l.Counts(); c != (store.Counts{Inserted: 10}) {
		t.Errorf("first load counts %+v", c)
	}
	if cp, err := st.Checkpoint(ctx, "c", "tickets"); err != nil || string(cp) != `"page 2"` {
		t.Fatalf("checkpoint after the load: %q, %v; want the last page's", cp, err)
	}

	u, err := st.BeginUpdate(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	err = u.Apply(ctx,
		[][]byte{ticket(1, "solved", "ticket 1 password reset"), ticket(2, "open", "ticket 2"), ticket(11, "new", "ticket 11")},
		[][]byte{ticket(3, "deleted", "ticket 3"), ticket(99, "deleted", "never seen")},
		[]byte(`"feed 1"`))
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if c := u.Counts(); c != (store.Counts{Inserted: 1, Updated: 1, Unchanged: 1, Deleted: 1}) {
		t.Errorf("update counts %+v, want 1 inserted, 1 updated, 1 unchanged, 1 deleted", c)
	}
	if got := ids(t, st, `{}`, false); !slices.Equal(got, []int{1, 2, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("live records %v", got)
	}
	if got := ids(t, st, `{}`, true); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("with deletions %v", got)
	}
	if got := ids(t, st, `{"eq":{"status":"solved"}}`, false); !slices.Equal(got, []int{1}) {
		t.Errorf("the updated value: %v", got)
	}
	if got := ids(t, st, `{"eq":{"status":"open"}}`, false); slices.Contains(got, 1) {
		t.Errorf("the old value still found: %v", got)
	}
	if got := ids(t, st, `{"keyword":{"subject":"password"}}`, false); !slices.Equal(got, []int{1}) {
		t.Errorf("a new word of the update: %v", got)
	}
	if got := ids(t, st, `{"fuzzy":{"subject":"pasword"}}`, false); !slices.Equal(got, []int{1}) {
		t.Errorf("fuzzy on a new word of the update: %v", got)
	}
	if cp, _ := st.Checkpoint(ctx, "c", "tickets"); string(cp) != `"feed 1"` {
		t.Errorf("checkpoint after the update %q", cp)
	}
	if n, err := st.Count(ctx, "c", "tickets"); err != nil || n != 10 {
		t.Errorf("count %d, %v", n, err)
	}

	// A record deleted comes back.
	u, _ = st.BeginUpdate(ctx, changeSpec())
	if err := u.Apply(ctx, [][]byte{ticket(3, "open", "ticket 3 again")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if c := u.Counts(); c.Inserted != 1 {
		t.Errorf("a restored record counts %+v", c)
	}
	if cp, _ := st.Checkpoint(ctx, "c", "tickets"); string(cp) != `"feed 1"` {
		t.Errorf("a nil checkpoint changed it: %q", cp)
	}

	// A full walk that misses 4 and 5 keeps them as deletions; 3 was
	// deleted again at the source.
	l, err = st.BeginFull(ctx, changeSpec(), store.Tombstones())
	if err != nil {
		t.Fatal(err)
	}
	var walk [][]byte
	for _, i := range []int{1, 2, 6, 7, 8, 9, 10, 11, 12} {
		walk = append(walk, ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	if err := l.Write(ctx, walk, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// 1 and 11 changed bytes; 12 is new; 3, 4 and 5 are gone.
	if c := l.Counts(); c != (store.Counts{Inserted: 1, Updated: 2, Unchanged: 6, Deleted: 3}) {
		t.Errorf("full walk counts %+v", c)
	}
	if got := ids(t, st, `{}`, false); !slices.Equal(got, []int{1, 2, 6, 7, 8, 9, 10, 11, 12}) {
		t.Errorf("live after the walk %v", got)
	}
	if got := ids(t, st, `{}`, true); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {
		t.Errorf("deletions after the walk %v", got)
	}
	if cp, _ := st.Checkpoint(ctx, "c", "tickets"); cp != nil {
		t.Errorf("a walk without checkpoints kept %q", cp)
	}

	// Another schema: the copy must be walked in full.
	other := changeSpec()
	other.Schema = search.Schema{"id": search.TypeInteger, "status": search.TypeString}
	if _, err := st.BeginUpdate(ctx, other); !errors.Is(err, store.ErrNotSynced) {
		t.Errorf("an update with other fields: %v", err)
	}
}

// FinishWith writes a last page and ends the update in one transaction:
// the page's changes, its checkpoint and the end's summary together, or
// nothing of them when the update's claim was lost meanwhile.
func TestFinishWith(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		l, err := st.BeginFull(ctx, changeSpec(), store.Tombstones())
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Write(ctx, [][]byte{ticket(1, "open", "one"), ticket(2, "open", "two"), ticket(3, "open", "three")}, []byte(`"load"`)); err != nil {
			t.Fatal(err)
		}
		if err := l.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		u, err := st.BeginUpdate(ctx, changeSpec())
		if err != nil {
			t.Fatal(err)
		}
		if err := u.FinishWith(ctx, [][]byte{ticket(1, "solved", "one"), ticket(4, "new", "four")}, [][]byte{ticket(2, "deleted", "two")}, []byte(`"feed"`)); err != nil {
			t.Fatal(err)
		}
		want := store.Counts{Inserted: 1, Updated: 1, Deleted: 1}
		if c := u.Counts(); c != want {
			t.Errorf("counts %+v, want %+v", c, want)
		}
		if got := ids(t, st, `{}`, false); !slices.Equal(got, []int{1, 3, 4}) {
			t.Errorf("live records %v, want 1 3 4", got)
		}
		if cp, _ := st.Checkpoint(ctx, "c", "tickets"); string(cp) != `"feed"` {
			t.Errorf("checkpoint %q", cp)
		}
		cs, err := st.ConnectorCopies(ctx, "c")
		if err != nil || len(cs) != 1 || cs[0].LastSync == nil || cs[0].LastSync.Full || cs[0].LastSync.Counts != want {
			t.Fatalf("the last sync's summary: %+v %v, want the page counted", cs, err)
		}
		if err := u.FinishWith(ctx, nil, nil, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("FinishWith after the end: %v", err)
		}

		// The claim lost before the end: nothing of the page is written.
		c, err := st.Claim(ctx, "c", "tickets", "w1", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		u, err = st.BeginUpdate(ctx, changeSpec(), store.Fenced(c))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		if _, err := st.Claim(ctx, "c", "tickets", "w2", time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := u.FinishWith(ctx, [][]byte{ticket(5, "new", "five")}, [][]byte{ticket(1, "deleted", "one")}, []byte(`"lost"`)); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("FinishWith under a lost claim: %v, want ErrLeaseLost", err)
		}
		if got := ids(t, st, `{}`, false); !slices.Equal(got, []int{1, 3, 4}) {
			t.Errorf("live records after the lost FinishWith %v, want 1 3 4", got)
		}
		if cp, _ := st.Checkpoint(ctx, "c", "tickets"); string(cp) != `"feed"` {
			t.Errorf("checkpoint after the lost FinishWith %q", cp)
		}
	})
}
