package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// tombstoneStore makes a SQLite store with a copy of zendesk-support
// tickets 1 to 3, of which ticket 2 was deleted at the source.
func tombstoneStore(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "tributary.db")
	st, err := store.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sp := store.Spec{Connector: "zendesk-support", Entity: "tickets", IDField: "id",
		Schema: search.Schema{"id": search.TypeInteger, "subject": search.TypeString, "status": search.TypeString}}
	rec := func(id int) []byte {
		return fmt.Appendf(nil, `{"id":%d,"subject":"ticket %d","status":"open"}`, id, id)
	}
	l, err := st.BeginFull(ctx, sp, store.Tombstones())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, [][]byte{rec(1), rec(2), rec(3)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	u, err := st.BeginUpdate(ctx, sp)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, nil, [][]byte{rec(2)}, []byte(`"c"`)); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// store stats, export, drop and compact on a file that does not exist or is
// empty refuse it and leave it as it was: absent stays absent, empty stays
// empty.
func TestStoreCommandsMakeNoStore(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"store", "stats"},
		{"store", "export", "zendesk-support", "tickets"},
		{"store", "drop", "zendesk-support"},
		{"store", "compact"},
	} {
		r := cli(t, append(args, "--store", missing)...)
		r.want(t, exitUsage)
		if !strings.Contains(r.stderr, "no such file") {
			t.Errorf("%v on a missing file: %q", args, r.stderr)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v made %s: %v", args, missing, err)
		}
		r = cli(t, append(args, "--store", empty)...)
		if r.code == exitOK || !strings.Contains(r.stderr, "not a Tributary store") {
			t.Errorf("%v on an empty file: exit %d, %q", args, r.code, r.stderr)
		}
		if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
			t.Fatalf("%v wrote into the empty file: %v, %v", args, fi, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left beside the empty one: %v", entries)
	}
}

// A file of garbage is a corrupt store, and the message says how to
// recover: move it aside, and synchronize again.
func TestCorruptStoreSaysHowToRecover(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tributary.db")
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef garbage, not a database\n", 400))
	if err := os.WriteFile(db, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"store", "stats"},
		{"search", "zendesk-support", "tickets"},
	} {
		r := cli(t, append(args, "--store", db)...)
		r.want(t, exitOther)
		for _, want := range []string{"corrupt store", "to recover, move the file aside ('mv " + db + " " + db + ".damaged')",
			"'tributary sync zendesk-support --sandbox --store " + db + "'"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: %q lacks %q", args, r.stderr, want)
			}
		}
	}
	if b, err := os.ReadFile(db); err != nil || string(b) != string(garbage) {
		t.Errorf("the damaged file was changed: %v", err)
	}
}

// searchHit is a hit of search --deleted.
type searchHit struct {
	ID      string          `json:"id"`
	Data    json.RawMessage `json:"data"`
	Deleted *bool           `json:"deleted"`
}

// search --deleted finds the tombstones too, each hit marked; without it
// the hits have no mark; it goes only with --store.
func TestSearchDeleted(t *testing.T) {
	db := tombstoneStore(t)
	var hits []searchHit
	r := cli(t, "search", "zendesk-support", "tickets", "--store", db, "--all")
	r.want(t, 0)
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var h searchHit
		decode(t, l, &h)
		hits = append(hits, h)
	}
	if len(hits) != 2 || hits[0].ID != "1" || hits[1].ID != "3" || hits[0].Deleted != nil {
		t.Errorf("search without --deleted: %s", r.stdout)
	}

	hits = nil
	r = cli(t, "search", "zendesk-support", "tickets", "--store", db, "--all", "--deleted",
		"--query", `{"sort": [{"id": "asc"}]}`)
	r.want(t, 0)
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var h searchHit
		decode(t, l, &h)
		hits = append(hits, h)
	}
	var marks []string
	for _, h := range hits {
		if h.Deleted == nil {
			t.Fatalf("a hit without its mark: %s", r.stdout)
		}
		marks = append(marks, fmt.Sprintf("%s:%v", h.ID, *h.Deleted))
	}
	if want := []string{"1:false", "2:true", "3:false"}; !slices.Equal(marks, want) {
		t.Errorf("search --deleted --all: %v, want %v", marks, want)
	}

	r = cli(t, "search", "zendesk-support", "tickets", "--store", db, "--deleted", "--limit", "1",
		"--query", `{"filter": {"eq": {"subject": "ticket 2"}}}`)
	r.want(t, 0)
	var page struct {
		Hits       []searchHit `json:"hits"`
		NextCursor *string     `json:"next_cursor"`
	}
	decode(t, r.stdout, &page)
	if len(page.Hits) != 1 || page.Hits[0].ID != "2" || page.Hits[0].Deleted == nil || !*page.Hits[0].Deleted || page.NextCursor != nil {
		t.Errorf("search --deleted, one page: %s", r.stdout)
	}

	r = cli(t, "search", "zendesk-support", "tickets", "--sandbox", "--sync", "--deleted")
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "--deleted") {
		t.Errorf("--deleted without --store: %q", r.stderr)
	}
}

// store export prints the live records as the sync stored them; with
// --deleted every record in an envelope that says whether it is a
// tombstone; a copy the store does not have is a usage error.
func TestStoreExport(t *testing.T) {
	db := tombstoneStore(t)
	r := cli(t, "store", "export", "zendesk-support", "tickets", "--store", db)
	r.want(t, 0)
	if want := "{\"id\":1,\"subject\":\"ticket 1\",\"status\":\"open\"}\n{\"id\":3,\"subject\":\"ticket 3\",\"status\":\"open\"}\n"; r.stdout != want {
		t.Errorf("export:\n%s\nwant:\n%s", r.stdout, want)
	}

	r = cli(t, "store", "export", "zendesk-support", "tickets", "--store", db, "--deleted")
	r.want(t, 0)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			ID        string          `json:"id"`
			Deleted   bool            `json:"deleted"`
			DeletedAt *time.Time      `json:"deleted_at"`
			Data      json.RawMessage `json:"data"`
		}
		decode(t, l, &e)
		if e.Deleted != (e.DeletedAt != nil) || e.DeletedAt != nil && time.Since(*e.DeletedAt) > time.Minute ||
			!strings.Contains(string(e.Data), `"subject":"ticket `+e.ID+`"`) {
			t.Errorf("export --deleted line: %s", l)
		}
		got = append(got, fmt.Sprintf("%s:%v", e.ID, e.Deleted))
	}
	if want := []string{"1:false", "2:true", "3:false"}; !slices.Equal(got, want) {
		t.Errorf("export --deleted: %v, want %v", got, want)
	}

	r = cli(t, "store", "export", "zendesk-support", "users", "--store", db)
	r.want(t, exitUsage)
	if r.stdout != "" || !strings.Contains(r.stderr, "has no copy of zendesk-support users") {
		t.Errorf("export of a missing copy: %q, %q", r.stdout, r.stderr)
	}
}

// store drop removes a copy, and then reports it missing; compact prints
// the sizes; store stats shows no copy left.
func TestStoreDropCompact(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tributary.db")
	cli(t, "sync", "zendesk-support", "tickets", "users", "--sandbox", "--store", db).want(t, 0)

	r := cli(t, "store", "drop", "zendesk-support", "tickets", "--store", db)
	r.want(t, 0)
	if r.stdout != "dropped zendesk-support/tickets\n" {
		t.Errorf("drop: %q", r.stdout)
	}
	s := stats(t, invocation{}, "--store", db)
	if len(s.Entities) != 1 || s.Entities[0].Entity != "users" {
		t.Errorf("stats after drop: %+v", s.Entities)
	}
	r = cli(t, "search", "zendesk-support", "tickets", "--store", db)
	r.want(t, exitUsage)
	r = cli(t, "store", "drop", "zendesk-support", "tickets", "--store", db)
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "has no copy of zendesk-support tickets") {
		t.Errorf("drop again: %q", r.stderr)
	}
	r = cli(t, "store", "drop", "--store", db)
	r.want(t, exitUsage)

	r = cli(t, "store", "drop", "zendesk-support", "--store", db)
	r.want(t, 0)
	if r.stdout != "dropped zendesk-support/users\n" {
		t.Errorf("drop of the connector: %q", r.stdout)
	}
	r = cli(t, "store", "compact", "--store", db)
	r.want(t, 0)
	if !strings.HasPrefix(r.stdout, "compacted "+db+": ") || !strings.Contains(r.stdout, " before, ") {
		t.Errorf("compact: %q", r.stdout)
	}
	if s := stats(t, invocation{}, "--store", db); len(s.Entities) != 0 {
		t.Errorf("stats after dropping every copy: %+v", s.Entities)
	}
	// The sync makes the copy again.
	cli(t, "sync", "zendesk-support", "tickets", "--sandbox", "--store", db).want(t, 0)
	if n, _, _ := stats(t, invocation{}, "--store", db).copyOf(t, "zendesk-support", "tickets"); n == 0 {
		t.Errorf("no tickets after syncing again")
	}
}
