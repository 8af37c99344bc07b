package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

func TestSearchSandbox(t *testing.T) {
	r := cli(t, "search", "zendesk-support", "tickets", "--sandbox", "--sync",
		"--query", `{"filter": {"eq": {"status": "open"}}, "sort": [{"created_at": "desc"}]}`, "--limit", "3", "--fields", "id,status,created_at")
	r.want(t, 0)
	if r.stderr != "" {
		t.Errorf("stderr not quiet: %q", r.stderr)
	}
	var res struct {
		Hits []struct {
			ID   string         `json:"id"`
			Data map[string]any `json:"data"`
		} `json:"hits"`
		NextCursor *string `json:"next_cursor"`
	}
	decode(t, r.stdout, &res)
	if len(res.Hits) != 3 || res.NextCursor == nil {
		t.Fatalf("search: %s", r.stdout)
	}
	prev := "9999"
	for _, h := range res.Hits {
		if h.Data["status"] != "open" || len(h.Data) != 3 || h.Data["created_at"].(string) > prev {
			t.Errorf("hit %+v: not open, not projected or not sorted", h)
		}
		prev = h.Data["created_at"].(string)
	}

	// An id given as a string finds the record with that integer id.
	byID := cli(t, "search", "zendesk-support", "tickets", "--sandbox", "--sync",
		"--query", `{"filter": {"in": {"id": ["`+res.Hits[0].ID+`"]}}}`, "--fields", "id")
	byID.want(t, 0)
	var one struct {
		Hits []struct {
			ID string `json:"id"`
		} `json:"hits"`
	}
	decode(t, byID.stdout, &one)
	if len(one.Hits) != 1 || one.Hits[0].ID != res.Hits[0].ID {
		t.Errorf("search by an id given as a string: %s", byID.stdout)
	}

	// The next page from the cursor; the same query as a whole request.
	r2 := cli(t, "search", "zendesk-support", "tickets", "--sandbox", "--sync", "--cursor", *res.NextCursor,
		"--query", `{"query": {"filter": {"eq": {"status": "open"}}, "sort": [{"created_at": "desc"}]}, "limit": 3}`)
	r2.want(t, 0)
	var page2 struct {
		Hits []struct {
			ID string `json:"id"`
		} `json:"hits"`
	}
	decode(t, r2.stdout, &page2)
	if len(page2.Hits) != 3 || page2.Hits[0].ID == res.Hits[0].ID {
		t.Errorf("second page: %s", r2.stdout)
	}

	// Every page of hits, one per line.
	all := cli(t, "search", "zendesk-support", "tickets", "--sandbox", "--sync", "--all", "--limit", "10",
		"--query", `{"filter": {"eq": {"status": "open"}}}`)
	all.want(t, 0)
	hits := lines(t, all.stdout)
	everything := lines(t, cli(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--all").stdout)
	open := 0
	for _, rec := range everything {
		if rec["status"] == "open" {
			open++
		}
	}
	if len(hits) != open || open == 0 {
		t.Errorf("search --all: %d hits, %d open tickets", len(hits), open)
	}

	// Sync params: a Salesforce SOQL query.
	r = cli(t, "search", "salesforce", "accounts", "--sandbox", "--sync", "-p", "q=SELECT Id, Name, Industry FROM Account",
		"--query", `{"filter": {"eq": {"Industry": "Energy"}}}`, "--limit", "2")
	r.want(t, 0)
	if !strings.Contains(r.stdout, `"Industry": "Energy"`) {
		t.Errorf("salesforce search: %.300s", r.stdout)
	}

	// Progress of the sync on a terminal.
	r = invocation{isTerminal: true}.run(t, "search", "zendesk-support", "groups", "--sandbox", "--sync", "--limit", "1")
	r.want(t, 0)
	if !strings.Contains(r.stderr, "syncing groups: ") || !strings.Contains(r.stderr, " records, 1 page in ") {
		t.Errorf("sync progress: %q", r.stderr)
	}
}

func TestSearchErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"search", "zendesk-support", "tickets", "--sandbox"}, "add --sync"},
		{[]string{"search", "zendesk-support", "views", "--sandbox", "--sync"}, "views.search: no copy: only searchable entities have copies, and views is not one"},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--query", `{"filter": {"eq": {"nope": 1}}}`}, `unknown field`},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--query", `{"filter": {"gt": {"status": 1}}}`}, `status`},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--query", `{"filter":`}, `--query`},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--query", `{"filter": {"gt": {"created_at": "yesterday"}}}`},
			`created_at is a date-time: "yesterday" is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)`},
		{[]string{"search", "salesforce", "accounts", "--sandbox", "--sync", "--query", `{"filter": {"lt": {"CreatedDate": "31/01/2024"}}}`},
			`CreatedDate is a date-time: "31/01/2024" is not RFC 3339`},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--cursor", "garbage"}, `cursor`},
		{[]string{"exec", "zendesk-support", "tickets", "search", "--sandbox", "-p", `query={}`}, "tributary search zendesk-support tickets --sync"},
	} {
		r := cli(t, c.args...)
		r.want(t, exitUsage)
		if !strings.Contains(r.stderr, c.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, r.stderr, c.msg)
		}
	}
}

// TestSearchLimitRule: --limit follows the contract's limit, the most hits
// per page, at least 1, 1000 when left out; 0 and negative values are
// refused alike (exit 2) with the rule and the way to get the default.
func TestSearchLimitRule(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	cli(t, "sync", "zendesk-support", "groups", "--sandbox", "--store", db).want(t, 0)
	hits := func(args ...string) int {
		t.Helper()
		r := cli(t, append([]string{"search", "zendesk-support", "groups", "--store", db}, args...)...)
		r.want(t, 0)
		var res struct{ Hits []any }
		decode(t, r.stdout, &res)
		return len(res.Hits)
	}
	all := hits()
	if all < 2 || all > search.DefaultLimit {
		t.Fatalf("without --limit: %d hits, want every group (the default page holds %d)", all, search.DefaultLimit)
	}
	if n := hits("--limit", "1"); n != 1 {
		t.Errorf("--limit 1: %d hits", n)
	}
	for _, n := range []string{"0", "-1"} {
		r := cli(t, "search", "zendesk-support", "groups", "--store", db, "--limit", n)
		r.want(t, exitUsage)
		want := "--limit " + n + ": the most hits per page is at least 1 (leave --limit out for the default, 1000; --all follows every page)"
		if !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("--limit %s: stderr %q, want %q", n, r.stderr, want)
		}
	}
}

// hinted returns the commands quoted in a message ('tributary …'), split
// into arguments as a shell would (the tests' paths need no quoting).
func hinted(t *testing.T, msg string) [][]string {
	t.Helper()
	var out [][]string
	for _, m := range regexp.MustCompile(`'(tributary [^']*)'`).FindAllStringSubmatch(msg, -1) {
		out = append(out, strings.Fields(m[1])[1:])
	}
	if len(out) == 0 {
		t.Fatalf("no command hinted in %q", msg)
	}
	return out
}

// TestHintsWork: every command a store hint prints runs as printed, and
// afterwards the command that printed it succeeds.
func TestHintsWork(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"no such store file", []string{"search", "github", "issues", "--store", db}},
		{"no copy of an entity read with params", []string{"search", "zendesk-support", "ticket_comments", "--store", db}},
		{"no copy under a name", []string{"search", "mailchimp", "campaigns", "--store", db, "--name", "acme"}},
		{"empty store", []string{"store", "stats", "--store", filepath.Join(dir, "empty.db")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.args[0] == "store" {
				// A store with no copies yet.
				st, err := store.OpenSQLite(context.Background(), c.args[3])
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			r := cli(t, c.args...)
			msg := r.stderr + r.stdout
			for _, h := range hinted(t, msg) {
				cli(t, h...).want(t, 0)
			}
			if c.args[0] == "store" {
				if r = cli(t, c.args...); strings.Contains(r.stdout, "no copies yet") {
					t.Errorf("the hint made no copy:\n%s", r.stdout)
				}
				return
			}
			cli(t, c.args...).want(t, 0)
		})
	}
}

// A date filter on a date-time field: a plain date means midnight UTC, and
// Salesforce's datetimes (+0000) compare as instants.
func TestSearchDateFilter(t *testing.T) {
	for _, c := range []struct{ kind, entity, field string }{
		{"zendesk-support", "tickets", "created_at"},
		{"salesforce", "accounts", "CreatedDate"},
	} {
		r := cli(t, "search", c.kind, c.entity, "--sandbox", "--sync", "--limit", "1000", "--fields", c.field,
			"--query", `{"filter": {"gte": {"`+c.field+`": "2000-01-01"}}}`)
		r.want(t, 0)
		var res struct {
			Hits []struct {
				Data map[string]any `json:"data"`
			} `json:"hits"`
		}
		decode(t, r.stdout, &res)
		if len(res.Hits) == 0 {
			t.Fatalf("%s %s gte 2000-01-01: no hits", c.kind, c.entity)
		}
		at, _ := res.Hits[0].Data[c.field].(string)
		eq := cli(t, "search", c.kind, c.entity, "--sandbox", "--sync", "--fields", c.field,
			"--query", `{"filter": {"eq": {"`+c.field+`": "`+at+`"}}}`)
		eq.want(t, 0)
		decode(t, eq.stdout, &res)
		if len(res.Hits) == 0 || res.Hits[0].Data[c.field] != at {
			t.Errorf("%s %s eq %s: %s", c.kind, c.entity, at, eq.stdout)
		}
	}
}
