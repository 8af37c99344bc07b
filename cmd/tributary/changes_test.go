package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// changeLine is one line of tributary changes.
type changeLine struct {
	Seq  int64           `json:"seq"`
	Op   string          `json:"op"`
	ID   string          `json:"id"`
	Data json.RawMessage `json:"data"`
}

func changeLines(t *testing.T, out string) []changeLine {
	t.Helper()
	var cs []changeLine
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var c changeLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		cs = append(cs, c)
	}
	return cs
}

// tributary changes prints a copy's feed as NDJSON: after a first sync,
// one insert per record, whose data is the record search --store shows;
// a sync that reads the same records again adds no change; --since the
// last seq prints nothing; a cursor past the feed, or a copy never
// synchronized, is a usage error that says what to do.
func TestChangesCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tributary.db")
	cli(t, "sync", "zendesk-support", "tickets", "--sandbox", "--store", db).want(t, 0)
	r := cli(t, "changes", "zendesk-support", "tickets", "--store", db, "--since", "0", "--page-size", "37")
	r.want(t, 0)
	cs := changeLines(t, r.stdout)
	r = cli(t, "search", "zendesk-support", "tickets", "--store", db, "--all")
	r.want(t, 0)
	hits := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var h struct {
			ID   string          `json:"id"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatal(err)
		}
		hits[h.ID] = string(h.Data)
	}
	if len(cs) != len(hits) || len(cs) == 0 {
		t.Fatalf("%d changes for %d records", len(cs), len(hits))
	}
	for i, c := range cs {
		if c.Seq != int64(i+1) || c.Op != "insert" || hits[c.ID] != string(c.Data) {
			t.Fatalf("change %d: %+v, the record is %s", i, c, hits[c.ID])
		}
	}
	last := strconv.FormatInt(cs[len(cs)-1].Seq, 10)

	// Again: the sandbox serves the same tickets, but at another address,
	// which the records it reads again (the feed's overlap) carry in
	// their url: those, and only those, are updates.
	cli(t, "sync", "zendesk-support", "tickets", "--sandbox", "--store", db).want(t, 0)
	r = cli(t, "changes", "zendesk-support", "tickets", "--store", db, "--since", last)
	r.want(t, 0)
	again := changeLines(t, r.stdout)
	if len(again) >= len(cs) {
		t.Fatalf("%d changes after a sync that read the same tickets", len(again))
	}
	for _, c := range again {
		if c.Op != "update" || hits[c.ID] == string(c.Data) || !strings.Contains(hits[c.ID], `"url":"http://127.0.0.1:`) {
			t.Fatalf("after the same tickets: %s %s", c.Op, c.ID)
		}
	}

	r = cli(t, "changes", "zendesk-support", "tickets", "--store", db, "--since", "999999")
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "cursor 999999") {
		t.Errorf("a cursor past the feed: %s", r.stderr)
	}
	r = cli(t, "changes", "zendesk-support", "users", "--store", db)
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "run 'tributary sync zendesk-support users --sandbox --store "+db) {
		t.Errorf("a copy never synchronized: %s", r.stderr)
	}
	cli(t, "changes", "zendesk-support", "tickets", "--store", db, "--since", "-1").want(t, exitUsage)
	cli(t, "changes", "zendesk-support", "tickets", "--store", filepath.Join(t.TempDir(), "none.db")).want(t, exitUsage)
}
