package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// loadTickets makes a copy of connector's entity: tickets 1 to n, then an
// update that deletes ticket 2.
func loadTickets(t *testing.T, st *store.Store, connector, entity string, n int) {
	t.Helper()
	ctx := context.Background()
	sp := store.Spec{Connector: connector, Entity: entity, Schema: changeSchema, IDField: "id"}
	l, err := st.BeginFull(ctx, sp, store.Tombstones())
	if err != nil {
		t.Fatal(err)
	}
	var page [][]byte
	for i := 1; i <= n; i++ {
		page = append(page, ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	if err := l.Write(ctx, page, []byte(`"p"`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	u, err := st.BeginUpdate(ctx, sp)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, nil, [][]byte{ticket(2, "deleted", "ticket 2")}, []byte(`"u"`)); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
}

// Drop removes one copy, or every copy of a connector, with its feed and
// checkpoint, and leaves the others; what it does not find is
// ErrNotSynced; a copy under a live claim is ErrBusy. Compact then runs,
// and the copies left are searched as before.
func TestDropCompact(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		loadTickets(t, st, "a", "tickets", 20)
		loadTickets(t, st, "a", "users", 5)
		loadTickets(t, st, "b", "tickets", 7)

		if _, err := st.Drop(ctx, "a", "nope"); !errors.Is(err, store.ErrNotSynced) {
			t.Errorf("drop of a missing copy: %v, want ErrNotSynced", err)
		}
		if _, err := st.Drop(ctx, "", ""); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("drop without a connector: %v, want ErrInvalid", err)
		}
		c, err := st.Claim(ctx, "a", "users", "worker-1", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Drop(ctx, "a", ""); !errors.Is(err, store.ErrBusy) {
			t.Errorf("drop of a claimed copy: %v, want ErrBusy", err)
		}
		if n := len(mustCopies(t, st)); n != 3 {
			t.Fatalf("a refused drop left %d copies, want 3", n)
		}
		if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}

		got, err := st.Drop(ctx, "a", "tickets")
		if err != nil || !slices.Equal(got, []string{"tickets"}) {
			t.Fatalf("drop a/tickets: %v, %v", got, err)
		}
		if _, err := st.Search(ctx, "a", "tickets", search.Request{}); !errors.Is(err, store.ErrNotSynced) {
			t.Errorf("search of a dropped copy: %v, want ErrNotSynced", err)
		}
		if _, err := st.Checkpoint(ctx, "a", "tickets"); !errors.Is(err, store.ErrNotSynced) {
			t.Errorf("checkpoint of a dropped copy: %v, want ErrNotSynced", err)
		}
		if _, err := st.Changes(ctx, "a", "tickets", 0, 10); !errors.Is(err, store.ErrNotSynced) {
			t.Errorf("changes of a dropped copy: %v, want ErrNotSynced", err)
		}
		if got := idsOf(t, st, "a", "users", `{}`, false); len(got) != 4 {
			t.Errorf("a/users after dropping a/tickets: %v", got)
		}

		got, err = st.Drop(ctx, "a", "")
		if err != nil || !slices.Equal(got, []string{"users"}) {
			t.Fatalf("drop a: %v, %v", got, err)
		}
		cs := mustCopies(t, st)
		if len(cs) != 1 || cs[0].Connector != "b" {
			t.Fatalf("copies after dropping a: %+v", cs)
		}
		// The dropped copy can be made again, from nothing.
		loadTickets(t, st, "a", "tickets", 3)
		if got := idsOf(t, st, "a", "tickets", `{}`, true); !slices.Equal(got, []int{1, 2, 3}) {
			t.Errorf("a/tickets made again: %v", got)
		}
		page, err := st.Changes(ctx, "a", "tickets", 0, 100)
		if err != nil || len(page.Changes) != 4 {
			t.Errorf("the new copy's feed: %+v, %v; want its own 3 inserts and 1 delete", page, err)
		}

		cp, err := st.Compact(ctx)
		if err != nil || cp.Before <= 0 || cp.After <= 0 {
			t.Fatalf("compact: %+v, %v", cp, err)
		}
		if got := idsOf(t, st, "b", "tickets", `{"eq":{"status":"open"}}`, false); !slices.Equal(got, []int{1, 3, 4, 5, 6, 7}) {
			t.Errorf("b/tickets after compact: %v", got)
		}
	})
}

func mustCopies(t *testing.T, st *store.Store) []store.CopyState {
	t.Helper()
	cs, err := st.Copies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Records reads the live records in id order, the tombstones too with
// Deleted, and says which are; Tombstones tells a search's hits apart.
func TestRecordsAndTombstones(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		loadTickets(t, st, "a", "tickets", 12)
		read := func(deleted bool) (ids []string, dead []string) {
			for rec, err := range st.Records(ctx, "a", "tickets", store.SearchOptions{Deleted: deleted}) {
				if err != nil {
					t.Fatal(err)
				}
				var v struct{ ID int }
				if err := json.Unmarshal(rec.Data, &v); err != nil || fmt.Sprint(v.ID) != rec.ID {
					t.Fatalf("record %q: %s, %v", rec.ID, rec.Data, err)
				}
				ids = append(ids, rec.ID)
				if !rec.DeletedAt.IsZero() {
					dead = append(dead, rec.ID)
				}
			}
			return ids, dead
		}
		live, dead := read(false)
		if want := []string{"1", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}; !slices.Equal(live, want) || dead != nil {
			t.Errorf("live records %v (tombstones %v), want %v", live, dead, want)
		}
		all, dead := read(true)
		if len(all) != 12 || !slices.Equal(dead, []string{"2"}) {
			t.Errorf("with tombstones %v, tombstones %v", all, dead)
		}
		// Breaking the loop ends the read.
		for range st.Records(ctx, "a", "tickets", store.SearchOptions{}) {
			break
		}
		for _, err := range st.Records(ctx, "a", "nope", store.SearchOptions{}) {
			if !errors.Is(err, store.ErrNotSynced) {
				t.Errorf("records of a missing copy: %v", err)
			}
		}
		tomb, err := st.Tombstones(ctx, "a", "tickets", []string{"1", "2", "3", "99"})
		if err != nil || len(tomb) != 1 || !tomb["2"] {
			t.Errorf("tombstones: %v, %v", tomb, err)
		}
	})
}

// OpenSQLiteExisting creates no file and writes nothing into an empty one.
func TestOpenSQLiteExisting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := store.OpenSQLiteExisting(ctx, missing); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a missing file: %v, want ErrInvalid", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing file was made: %v", err)
	}
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenSQLiteExisting(ctx, empty); !errors.Is(err, store.ErrVersion) {
		t.Errorf("an empty file: %v, want ErrVersion", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file: %v, %v; want 0 bytes", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
	made := filepath.Join(dir, "made.db")
	st, err := store.OpenSQLite(ctx, made)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = store.OpenSQLiteExisting(ctx, made)
	if err != nil {
		t.Fatalf("an existing store: %v", err)
	}
	st.Close()
}

// OpenPostgresExisting creates no tables in an empty database.
func TestOpenPostgresExisting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	for range 2 { // the first refusal wrote nothing the second would open
		if _, err := store.OpenPostgresExisting(ctx, dsn); !errors.Is(err, store.ErrVersion) {
			t.Errorf("an empty database: %v, want ErrVersion", err)
		}
	}
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mustCopies(t, st)); n != 0 {
		t.Errorf("%d copies", n)
	}
	st.Close()
	st, err = store.OpenPostgresExisting(ctx, dsn)
	if err != nil {
		t.Fatalf("an existing store: %v", err)
	}
	st.Close()
}
