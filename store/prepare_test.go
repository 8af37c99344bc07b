package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// TestPreparedPages loads pages prepared in a goroutine while the previous
// one is written (as a full synchronization does), and checks the copy
// against one loaded with Write: the same records, the same answers to a
// filter, a keyword and a fuzzy search. A page whose write failed (here,
// a cancelled context) is offered again, and its words still reach the
// vocabulary that fuzzy searches read.
func TestPreparedPages(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		open := func(name string) *store.Store {
			st, err := store.OpenSQLite(context.Background(), t.TempDir()+"/"+name+".db")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		testPreparedPages(t, open("prepared"), open("written"))
	})
	t.Run("postgres", func(t *testing.T) {
		open := func() *store.Store {
			st, err := store.OpenPostgres(context.Background(), pgtest.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		testPreparedPages(t, open(), open())
	})
}

func testPreparedPages(t *testing.T, prepared, written *store.Store) {
	ctx := context.Background()
	subjects := []string{"printer jammed", "password reset", "invoice missing", "printer offline", "refund request"}
	var pages [][][]byte
	for p := range 6 {
		var page [][]byte
		for i := range 50 {
			id := p*40 + i // pages overlap: a record read twice keeps its last version
			page = append(page, ticket(id, []string{"open", "closed", "pending"}[(id+p)%3], fmt.Sprintf("%s %d", subjects[(id+p)%len(subjects)], id)))
		}
		pages = append(pages, page)
	}
	// A page of its own with a word no other page has: its first write
	// fails, its second succeeds.
	pages = append(pages, [][]byte{ticket(1000, "open", "quarantined mailbox")})

	// What a copy must hold: each id's last version.
	last := map[int]string{} // id → status
	printers := map[int]bool{}
	for _, pg := range pages {
		for _, rec := range pg {
			var r struct {
				ID      int    `json:"id"`
				Status  string `json:"status"`
				Subject string `json:"subject"`
			}
			if err := json.Unmarshal(rec, &r); err != nil {
				t.Fatal(err)
			}
			last[r.ID] = r.Status
			printers[r.ID] = strings.HasPrefix(r.Subject, "printer ")
		}
	}
	var wantOpen, wantPrinter []int
	for id, st := range last {
		if st == "open" {
			wantOpen = append(wantOpen, id)
		}
		if printers[id] {
			wantPrinter = append(wantPrinter, id)
		}
	}
	slices.Sort(wantOpen)
	slices.Sort(wantPrinter)

	lw, err := written.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range pages {
		if err := lw.Write(ctx, pg, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	lp, err := prepared.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan *store.Page, 1)
	go func() {
		defer close(ready)
		for _, pg := range pages {
			ready <- lp.Prepare(pg)
		}
	}()
	n := 0
	for pg := range ready {
		if n++; n == len(pages) {
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if err := lp.WritePage(cancelled, pg, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("WritePage with a cancelled context: %v, want context.Canceled", err)
			}
			pg = lp.Prepare(pages[len(pages)-1])
		}
		if err := lp.WritePage(ctx, pg, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := lp.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	for _, filter := range []string{
		`{"eq":{"status":"open"}}`,
		`{"keyword":{"subject":"printer"}}`,
		`{"fuzzy":{"subject":"pasword"}}`,
		`{"fuzzy":{"subject":"quarantine"}}`,
		`{"and":[{"gt":{"id":100}},{"in":{"status":["closed","pending"]}}]}`,
	} {
		got, want := ids(t, prepared, filter, false), ids(t, written, filter, false)
		if !slices.Equal(got, want) {
			t.Errorf("%s: prepared pages give %v, written pages %v", filter, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s finds nothing", filter)
		}
	}
	if got := ids(t, prepared, `{"eq":{"status":"open"}}`, false); !slices.Equal(got, wantOpen) {
		t.Errorf("open tickets: %v, want %v", got, wantOpen)
	}
	if got := ids(t, prepared, `{"keyword":{"subject":"printer"}}`, false); !slices.Equal(got, wantPrinter) {
		t.Errorf("keyword printer: %v, want %v", got, wantPrinter)
	}
	if got := ids(t, prepared, `{"fuzzy":{"subject":"quarantine"}}`, false); !slices.Equal(got, []int{1000}) {
		t.Errorf("fuzzy \"quarantine\" after a failed page: %v, want [1000]", got)
	}

	// A bad record fails the write of its page, and nothing of it is
	// written.
	l, err := prepared.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Abort(ctx)
	if err := l.WritePage(ctx, l.Prepare([][]byte{ticket(1, "open", "a"), []byte(`{"status":"open"}`)}), nil); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a record without an id: %v, want ErrInvalid", err)
	}
	if l.Records() != 0 {
		t.Errorf("after a failed page the load holds %d records", l.Records())
	}
}

// TestCloseDuringLoad closes a SQLite store while a full synchronization
// writes into it, each page starting a checkpoint in the background: the
// writes fail with an error, nothing panics, and no goroutine is left
// (TestMain's goleak).
func TestCloseDuringLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/close.db")
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	written := make(chan int, 1)
	done := make(chan error, 1)
	go func() {
		for p := 0; ; p++ {
			var page [][]byte
			for i := range 100 {
				page = append(page, ticket(p*100+i, "open", fmt.Sprintf("printer %d", i)))
			}
			if err := l.WritePage(ctx, l.Prepare(page), nil); err != nil {
				done <- err
				return
			}
			select {
			case written <- p:
			default:
			}
		}
	}()
	<-written
	<-written
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("a page written after Close: %v, want an error saying the store is closed", err)
	}
}
