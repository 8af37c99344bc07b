package notion_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// pass reads the pages' feed from cp: the ids read, the checkpoint, and
// the requests it took.
func pass(t *testing.T, c *notion.Client, s *notiontest.Server, cp tributary.Checkpoint) ([]string, tributary.Checkpoint, int) {
	t.Helper()
	s.ResetRequests()
	var ids []string
	for ch, err := range c.Changes(context.Background(), "pages", nil, cp) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			id, _ := r.StringAt("id")
			ids = append(ids, id)
		}
		cp = ch.Checkpoint
	}
	return ids, cp, len(apiRequests(s))
}

// The search scan stops exactly at the checkpoint: the pages edited since
// and those that share the checkpoint's minute (Notion's times are to the
// minute) are read, the page before it ends the scan, with no further
// request; a page edited later in the checkpoint's own minute is read by
// the next pass, never lost to the tie.
func TestScanStopsAtCheckpointWithTies(t *testing.T) {
	s := notiontest.New(notiontest.WithPages(150), notiontest.WithDataSources(0))
	defer s.Close()
	c := open(t, s)
	ids, cp, n := pass(t, c, s, tributary.Checkpoint{})
	if len(ids) != 150 || n != 2 || cp.Next != nil {
		t.Fatalf("full pass: %d pages in %d requests, checkpoint %+v", len(ids), n, cp)
	}
	newest := notiontest.PageID(149)
	if want := notiontest.Epoch.Add(-2 * time.Minute); !cp.Since.Equal(want) {
		t.Fatalf("checkpoint %v, want the newest page's minute %v", cp.Since, want)
	}
	s.Clock().Advance(5 * time.Minute)
	p3, p7, p11 := notiontest.PageID(3), notiontest.PageID(7), notiontest.PageID(11)
	for _, id := range []string{p3, p7} {
		if err := s.Update("pages", id); err != nil {
			t.Fatal(err)
		}
	}
	ids, cp, n = pass(t, c, s, cp)
	if want := []string{p7, p3, newest}; !slices.Equal(ids, want) || n != 1 {
		t.Fatalf("after two edits: read %v in %d requests, want %v in 1 (the checkpoint's minute read again, the page before it not)", ids, n, want)
	}
	// 30 s later, in the same minute as the new checkpoint.
	s.Clock().Advance(30 * time.Second)
	if err := s.Update("pages", p11); err != nil {
		t.Fatal(err)
	}
	ids, _, n = pass(t, c, s, cp)
	if !slices.Contains(ids, p11) || len(ids) != 3 || n != 1 {
		t.Errorf("a page edited in the checkpoint's minute: read %v in %d requests, want it with %s and %s", ids, n, p3, p7)
	}
}

// A page moved to the trash leaves the search; the sweep of the copy
// (daily, here on every sync) makes it a deletion. A page edited in
// between is read by the scan, and its blocks again.
func TestTrashedPagesLeaveTheCopy(t *testing.T) {
	ctx := context.Background()
	s := notiontest.New(notiontest.WithPages(20), notiontest.WithDataSources(0))
	defer s.Close()
	c := open(t, s)
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/n.db"), replica.WithReconcile(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "pages", "blocks"); err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(time.Minute)
	trashed, edited := notiontest.PageID(4), notiontest.PageID(9)
	if err := s.Delete("pages", trashed); err != nil {
		t.Fatal(err)
	}
	added, err := s.AppendBlock(edited, "A new paragraph")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Sync(ctx, "pages", "blocks")
	if err != nil {
		t.Fatal(err)
	}
	if pr := rep.Entities[0]; pr.Mode != replica.Incremental || pr.Deleted != 1 || pr.Swept == nil {
		t.Errorf("pages: %+v (swept %+v)", pr, pr.Swept)
	}
	for _, tc := range []struct {
		entity, id string
		want       bool
	}{{"pages", trashed, false}, {"pages", edited, true}, {"blocks", added, true}} {
		res, err := r.Search(ctx, tc.entity, search.Request{Query: search.Query{Filter: search.Eq("id", tc.id).Ptr()}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) == 1; got != tc.want {
			t.Errorf("%s %s in the copy: %v, want %v", tc.entity, tc.id, got, tc.want)
		}
	}
}
