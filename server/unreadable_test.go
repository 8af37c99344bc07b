package server_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// A service started with other keys than those that sealed its
// connectors' credentials (here a key of the same id, as a --sandbox
// service's throwaway key was before a restart) never reports them
// healthy: the list and get endpoints, the console's list (and its
// status filter), the connector's page and the keys page say their
// credentials do not open, and why; a log line at start says how many.
// A connector created meanwhile opens, and is healthy.
func TestUnreadableCredentialsAreReported(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "serve.db")
	old := start(t, openSQLiteAt(t, path), nil, nil)
	ada := old.create(t, old.token(t, clientA, ""), "ada")
	bob := old.create(t, old.token(t, clientA, ""), "bob")

	s := start(t, openSQLiteAt(t, path), old.zd, withConsole) // another key "k1"
	tok := s.token(t, clientA, "")
	fresh := s.create(t, tok, "cyd")

	// The log line at start names how many.
	waitUntil(t, "the count at start", func() bool { return strings.Contains(s.logs.String(), "2 of 2 connectors' credentials do not open") })
	if !strings.Contains(s.logs.String(), `"by_key":"\"k1\": 2"`) {
		t.Errorf("the log line does not name the key: %s", s.logs)
	}

	// The API's list and get.
	a := s.do(t, "GET", "/v1/integrations/connectors", tok, nil)
	statuses := map[string]string{}
	for _, it := range a.json["data"].([]any) {
		m := it.(map[string]any)
		statuses[m["id"].(string)] = m["status"].(string)
		if m["status"] == server.StatusCredentialsUnreadable && !strings.Contains(m["status_reason"].(string), "keys do not open") {
			t.Errorf("list: %s has no reason: %v", m["id"], m)
		}
	}
	if statuses[ada] != server.StatusCredentialsUnreadable || statuses[bob] != server.StatusCredentialsUnreadable || statuses[fresh] != "healthy" {
		t.Errorf("list: %v", statuses)
	}
	for id, want := range map[string]string{ada: server.StatusCredentialsUnreadable, fresh: "healthy"} {
		if a := s.do(t, "GET", "/v1/integrations/connectors/"+id, tok, nil); a.status != 200 || a.json["status"] != want {
			t.Errorf("get %s: %d %s", id, a.status, a.body)
		}
	}
	if a := s.execute(t, tok, ada, map[string]any{"entity": "tickets", "action": "list"}); a.status == 200 {
		t.Errorf("execute with credentials that do not open: %s", a.body)
	}

	// The console.
	o := signedIn(t, s)
	rowRE := regexp.MustCompile(`<a href="/console/connectors/(conn_[^"]+)">[^<]*</a>(?:<br><span class="muted">[^<]*</span>)?</th>\s*<td[^>]*><span class="status ([a-z_]+)">`)
	rows := func(path string) map[string]string {
		t.Helper()
		p := o.get(path)
		if p.status != 200 {
			t.Fatalf("%s: %d", path, p.status)
		}
		out := map[string]string{}
		for _, m := range rowRE.FindAllStringSubmatch(p.body, -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	if got := rows("/console/connectors"); len(got) != 3 || got[ada] != server.StatusCredentialsUnreadable || got[bob] != server.StatusCredentialsUnreadable || got[fresh] != "healthy" {
		t.Errorf("the console lists %v", got)
	}
	if got := rows("/console/connectors?status=credentials_unreadable"); len(got) != 2 || got[fresh] != "" {
		t.Errorf("the console's filter credentials_unreadable lists %v", got)
	}
	if got := rows("/console/connectors?status=healthy"); len(got) != 1 || got[fresh] != "healthy" {
		t.Errorf("the console's filter healthy lists %v", got)
	}
	p := o.get("/console/connectors/" + ada)
	if !strings.Contains(p.body, `id="status">credentials unreadable<`) ||
		!strings.Contains(p.body, `the credentials are sealed under key &#34;k1&#34;, which this service&#39;s key &#34;k1&#34; does not open`) {
		t.Errorf("the connector's page: %.3000s", p.body)
	}
	p = o.get("/console/keys")
	if !strings.Contains(p.body, "2 of 3 connectors' credentials do not open with this service's keys") ||
		!strings.Contains(p.body, "Every connector whose credentials open is sealed under the primary key.") ||
		!regexp.MustCompile(`<th scope="row">k1</th>\s*<td[^>]*>primary[^<]*</td>\s*<td class="num"[^>]*>3</td>\s*<td class="num"[^>]*><span class="status failing">1</span></td>`).MatchString(p.body) {
		t.Errorf("the keys page: %.3000s", p.body)
	}

	// A key that is not in the ring at all.
	other := start(t, openSQLiteAt(t, path), old.zd, func(c *server.Config) { withConsole(c); c.Keys = newKeys(t, "k9") })
	p = signedIn(t, other).get("/console/connectors/" + fresh)
	if !strings.Contains(p.body, `the credentials are sealed under key &#34;k1&#34;, which is not in this service&#39;s keys`) {
		t.Errorf("the connector's page under another key: %.3000s", p.body)
	}
}

// The keys page of a service whose keys open every connector says so.
func TestKeysPageAllOpen(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, withConsole)
	s.create(t, s.token(t, clientA, ""), "ada")
	p := signedIn(t, s).get("/console/keys")
	if p.status != http.StatusOK || !strings.Contains(p.body, "All 1 connectors are sealed under the primary key.") || strings.Contains(p.body, `id="unreadable"`) {
		t.Errorf("the keys page: %.2000s", p.body)
	}
	waitUntil(t, "the count at start", func() bool { return strings.Contains(s.logs.String(), "every connector") })
}

// The console's status filter pages through what only the keys tell:
// of 130 connectors, every other one's credentials sealed under a key
// the service does not hold, the filter credentials_unreadable lists the
// 65 in creation order, 50 then 15, and healthy the 65 others.
func TestConsoleFilterUnreadablePages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := start(t, sqliteStore(t), nil, withConsole)
	ours, err := keyring.Parse(s.keys)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := keyring.Parse(newKeys(t, "k2"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for i := range 130 {
		id := fmt.Sprintf("conn_many%03d", i)
		ring, status := ours, "healthy"
		if i%2 == 1 {
			ring, status = theirs, server.StatusCredentialsUnreadable
		}
		sealed, err := ring.Seal([]byte(`{"credentials":{}}`), []byte(id))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.st.CreateConnector(ctx, store.Connector{ID: id, Tenant: clientA.ID, ExternalUserID: "many", Kind: "zendesk-support", Sealed: sealed}); err != nil {
			t.Fatal(err)
		}
		want[status] = append(want[status], id)
	}
	o := signedIn(t, s)
	rowRE := regexp.MustCompile(`<th scope="row"><a href="/console/connectors/([^"]+)">`)
	nextRE := regexp.MustCompile(`href="([^"]+)" id="next"`)
	for status, ids := range want {
		var seen []string
		var sizes []int
		for path := "/console/connectors?status=" + status; path != "" && len(sizes) < 5; {
			p := o.get(strings.ReplaceAll(path, "&amp;", "&"))
			got := rowRE.FindAllStringSubmatch(p.body, -1)
			sizes = append(sizes, len(got))
			for _, m := range got {
				seen = append(seen, m[1])
			}
			path = ""
			if m := nextRE.FindStringSubmatch(p.body); m != nil {
				path = m[1]
			}
		}
		if !slices.Equal(seen, ids) || !slices.Equal(sizes, []int{50, 15}) {
			t.Errorf("%s: pages of %v, %d connectors, want 50 and 15 of %d in order", status, sizes, len(seen), len(ids))
		}
	}
}
