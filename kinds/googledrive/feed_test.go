package googledrive_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

func inCopy(t *testing.T, r *replica.Replica, id string) bool {
	t.Helper()
	res, err := r.Search(context.Background(), "files", search.Request{Query: search.Query{Filter: search.Eq("id", id).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Hits) == 1
}

// countPaths counts the fake's requests by path.
func countPaths(s *googledrivetest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		out[r.Path]++
	}
	return out
}

// The changes feed across three syncs: the first takes a token for My
// Drive and one per shared drive, then walks each; the second reads
// inserts, edits, a trashed file and a removed one from the tokens (one
// request per token, none of files.list); the third, with a change in a
// shared drive only, finds it there. A token Drive refuses walks the
// copy in full again, never leaving it stale.
func TestChangesFeed(t *testing.T) {
	ctx := context.Background()
	s := googledrivetest.New(googledrivetest.WithFiles(150), googledrivetest.WithDrives(2, 10))
	defer s.Close()
	r, err := replica.Open(ctx, open(t, s), replica.SQLite(t.TempDir()+"/drive.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sync := func() replica.EntityReport {
		t.Helper()
		s.ResetRequests()
		rep, err := r.Sync(ctx, "files")
		if err != nil {
			t.Fatal(err)
		}
		return rep.Entities[0]
	}
	first := sync()
	n := countPaths(s)
	if first.Mode != replica.Full || first.Inserted != 170 || n["/changes/startPageToken"] != 3 || n["/files"] != 2+1+1 || n["/drives"] != 1 {
		t.Fatalf("first sync %+v, requests %v", first, n)
	}
	for _, r := range s.Requests() {
		if r.Path == "/changes/startPageToken" && r.Query.Get("driveId") != "" && r.Query.Get("supportsAllDrives") != "true" {
			t.Errorf("a shared drive's start token asked without supportsAllDrives: %v", r.Query)
		}
	}

	s.Clock().Advance(time.Minute)
	created, _ := s.Create("files")
	must(t, s.Update("files", googledrivetest.FileID(4)))
	must(t, s.Trash(googledrivetest.FileID(5)))
	must(t, s.Delete("files", googledrivetest.FileID(6)))
	second := sync()
	n = countPaths(s)
	if second.Mode != replica.Incremental || second.Inserted != 1 || second.Updated != 1 || second.Deleted != 2 || n["/changes"] != 3 || n["/files"] != 0 {
		t.Fatalf("second sync %+v, requests %v", second, n)
	}
	for id, want := range map[string]bool{created: true, googledrivetest.FileID(4): true, googledrivetest.FileID(5): false, googledrivetest.FileID(6): false} {
		if got := inCopy(t, r, id); got != want {
			t.Errorf("file %s in the copy: %v, want %v", id, got, want)
		}
	}
	res, _ := r.Search(ctx, "files", search.Request{Query: search.Query{Filter: search.Eq("id", googledrivetest.FileID(4)).Ptr()}})
	if len(res.Hits) != 1 || !strings.Contains(string(res.Hits[0].Data), `"name":"edited `) {
		t.Errorf("the edit is not in the copy: %+v", res.Hits)
	}

	drive1 := googledrivetest.DriveID(1)
	inDrive, err := s.CreateIn("files", drive1)
	must(t, err)
	third := sync()
	if third.Mode != replica.Incremental || third.Inserted != 1 || !inCopy(t, r, inDrive) {
		t.Fatalf("third sync %+v", third)
	}
	for _, q := range s.Requests() {
		if q.Path == "/changes" && q.Query.Get("driveId") == drive1 && (q.Query.Get("includeItemsFromAllDrives") != "true" || q.Query.Get("supportsAllDrives") != "true") {
			t.Errorf("a shared drive's changes read without includeItemsFromAllDrives and supportsAllDrives: %v", q.Query)
		}
	}

	// Drive forgets the tokens: a full walk, the deletion made meanwhile
	// found by it.
	s.ForgetTokens()
	must(t, s.Delete("files", googledrivetest.FileID(7)))
	full := sync()
	if full.Mode != replica.Full || full.Deleted != 1 || inCopy(t, r, googledrivetest.FileID(7)) || !strings.Contains(full.Reason, "token") {
		t.Errorf("after the tokens expired: %+v", full)
	}
	if again := sync(); again.Mode != replica.Incremental || again.Inserted+again.Updated+again.Deleted != 0 {
		t.Errorf("a sync after the full walk: %+v", again)
	}

	// The user leaves a shared drive: its part leaves the copy's scope,
	// and a full walk finds its files gone.
	must(t, s.LeaveDrive(googledrivetest.DriveID(0)))
	left := sync()
	if left.Mode != replica.Full || left.Deleted != 10 || !strings.Contains(left.Reason, "drive "+googledrivetest.DriveID(0)) {
		t.Errorf("after leaving a shared drive: %+v", left)
	}
}

// The feed refuses what it cannot follow, before any request.
func TestChangesFeedRefusesAQuery(t *testing.T) {
	s := googledrivetest.New()
	defer s.Close()
	c := open(t, s)
	for ch, err := range c.Changes(context.Background(), "files", tributary.Params{"q": "name contains 'x'"}, tributary.Checkpoint{}) {
		if err == nil || !strings.Contains(err.Error(), "q") || ch != nil {
			t.Errorf("a feed with q: %v", err)
		}
		break
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
