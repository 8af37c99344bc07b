package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// entityNames lists kind's entities, those keep tells (all when nil),
// joined as the errors list them.
func entityNames(t *testing.T, kind string, keep func(tributary.Entity) bool) string {
	t.Helper()
	es, err := kinds.Catalogue(kind)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if keep == nil || keep(e) {
			out = append(out, e.Name)
		}
	}
	return strings.Join(out, ", ")
}

// The errors users reported as unclear, each with its exact text: the
// names the user typed (flags, environment variables, entities), what to
// do instead, and nothing twice.
func TestErrorTexts(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	searchable := func(e tributary.Entity) bool { return e.Supports(tributary.ActionSearch) && len(e.Searchable) > 0 }
	noCopy := "only searchable entities have copies, and macros is not one (they are " + entityNames(t, "zendesk-support", searchable) +
		"); read it with 'tributary exec zendesk-support macros list --all'"
	key := strings.TrimSpace(cli(t, "serve", "keygen").stdout)
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"an entity named by a word of its name", nil, []string{"describe", "mailchimp", "members"}, exitUsage,
			`tributary: mailchimp members: unknown entity: mailchimp has no entity "members"; did you mean "list_members" or "segment_members"? (entities: ` +
				entityNames(t, "mailchimp", nil) + ")"},
		{"describe without a type", nil, []string{"describe"}, exitUsage,
			"tributary: describe needs a connector type, one of " + strings.Join(kinds.Types(), ", ") +
				": tributary describe <type> [entity] (see 'tributary describe --help')"},
		{"the changes of an entity without a copy", nil, []string{"changes", "zendesk-support", "macros", "--store", db}, exitUsage,
			"tributary: zendesk-support macros: no copy: " + noCopy},
		{"a search of an entity without a copy", nil, []string{"search", "zendesk-support", "macros", "--store", db}, exitUsage,
			"tributary: zendesk-support macros.search: no copy: " + noCopy},
		{"a sync of an entity without a copy", nil, []string{"sync", "zendesk-support", "macros", "--sandbox", "--store", db}, exitUsage,
			"tributary: zendesk-support macros: no copy: " + noCopy},
		{"a bad --range", nil, []string{"download", "zendesk-support", "attachments", "--sandbox", "-p", "attachment_id=1", "--range", "5-2", "-o", filepath.Join(dir, "f")}, exitUsage,
			`tributary: zendesk-support attachments.download: invalid params: --range: invalid range: "5-2": unit must be bytes (want bytes=<first>-<last>, bytes=<first>- or bytes=-<n>)`},
		{"an unknown action", nil, []string{"exec", "zendesk-support", "tickets", "lst", "--sandbox"}, exitUsage,
			`tributary: zendesk-support tickets.lst: unsupported action: there is no action "lst"; did you mean "list"? (tickets offers list, get, search)`},
		{"a short console password", map[string]string{envServeKeys: key, envServeClients: "app:0123456789abcdef0123", envAdminPassword: "short"},
			[]string{"serve", "--store", filepath.Join(dir, "serve.db"), "--listen", "127.0.0.1:0"}, exitUsage,
			"tributary: $TRIBUTARY_ADMIN_PASSWORD: the console's password needs at least 12 characters (see 'tributary serve --help')"},
		{"an unreachable PostgreSQL", nil, []string{"search", "zendesk-support", "tickets", "--store", "postgres://u@127.0.0.1:1/x"}, exitOther,
			"tributary: --store postgres://u@127.0.0.1:1/x: store: open: store unavailable: cannot reach the database server: " +
				"failed to connect to `user=u database=x`: 127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := invocation{env: c.env}.run(t, c.args...)
			if r.code != c.code || r.stderr != c.want+"\n" {
				t.Errorf("%v: exit %d\n got %s\nwant %s", c.args, r.code, r.stderr, c.want)
			}
		})
	}
}
