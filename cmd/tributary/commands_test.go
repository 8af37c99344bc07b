package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/sandbox"
)

// TestRun goes through run, main's own entry point, with the process's
// environment.
func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"kinds", "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got []map[string]any
	decode(t, stdout.String(), &got)
	if len(got) != len(kinds.Types()) || stderr.Len() != 0 {
		t.Fatalf("kinds --json: %d kinds, stderr %q", len(got), stderr.String())
	}
}

func TestKinds(t *testing.T) {
	r := cli(t, "kinds")
	r.want(t, 0)
	for _, k := range kinds.Types() {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k) + `\s+\S`).MatchString(r.stdout) {
			t.Errorf("kinds does not list %s:\n%s", k, r.stdout)
		}
	}
	r = cli(t, "kinds", "--json")
	r.want(t, 0)
	var got []struct {
		ConnectorType string   `json:"connector_type"`
		Vendor        string   `json:"vendor"`
		Entities      []string `json:"entities"`
	}
	decode(t, r.stdout, &got)
	for i, k := range kinds.Types() {
		es, _ := kinds.Catalogue(k)
		if got[i].ConnectorType != k || got[i].Vendor == "" || len(got[i].Entities) != len(es) {
			t.Errorf("kinds --json [%d] = %+v, want %s with %d entities", i, got[i], k, len(es))
		}
	}
	cli(t, "kinds", "extra").want(t, exitUsage)
}

// TestCredentialFieldsMatchKinds checks the command's table of credential
// fields (and so the environment variables describe shows) against the
// fields each kind accepts, as its own error message lists them.
func TestCredentialFieldsMatchKinds(t *testing.T) {
	infos := kindInfos()
	if len(infos) != len(kinds.Types()) {
		t.Errorf("kindInfos has %d kinds, kinds.Types() %d", len(infos), len(kinds.Types()))
	}
	accepted := regexp.MustCompile(`\(accepted: ([a-z_, ]+)\)`)
	for _, k := range kinds.Types() {
		err := kinds.CheckCredentials(k, map[string]any{"not_a_field": "x"})
		m := accepted.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: cannot read the accepted fields from %q", k, err)
			continue
		}
		want := strings.Split(m[1], ", ")
		var got []string
		for _, f := range infos[k].fields {
			got = append(got, f.name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: credential fields %v, the kind accepts %v", k, got, want)
		}
	}
	if got := envName("zendesk-support", "api_token"); got != "TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN" {
		t.Errorf("envName = %s", got)
	}
}

func TestDescribeKind(t *testing.T) {
	for _, k := range kinds.Types() {
		r := cli(t, "describe", k)
		r.want(t, 0)
		for _, f := range kindInfos()[k].fields {
			if !strings.Contains(r.stdout, envName(k, f.name)) {
				t.Errorf("describe %s does not show %s", k, envName(k, f.name))
			}
		}
		es, _ := kinds.Catalogue(k)
		for _, e := range es {
			if !regexp.MustCompile(`(?m)^  ` + e.Name + `\s+` + string(e.Actions[0])).MatchString(r.stdout) {
				t.Errorf("describe %s does not list entity %s with its actions", k, e.Name)
			}
		}
	}
	r := cli(t, "describe", "zendesk-support", "--json")
	r.want(t, 0)
	var d kindDesc
	decode(t, r.stdout, &d)
	if d.Credentials == nil || d.Credentials.Fields[2].Env != "TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN" || !d.Credentials.Fields[2].Secret {
		t.Errorf("describe --json credentials = %+v", d.Credentials)
	}
	cli(t, "describe", "nope").want(t, exitUsage)
	cli(t, "describe", "zendesk-support", "nope").want(t, exitUsage)
}

func TestDescribeEntity(t *testing.T) {
	r := cli(t, "describe", "zendesk-support", "tickets")
	r.want(t, 0)
	for _, re := range []string{
		`(?m)^list$`, `(?m)^get$`, `(?m)^search$`,
		`(?m)^  ticket_id\s+integer\s+yes\s+>= 1\s`,
		`(?m)^  per_page\s+integer\s+no\s+1\.\.100\s`,
		`(?m)^  sort\s+string\s+no\s+id\|status\|updated_at\|-id\|-status\|-updated_at\s`,
		`(?m)^  limit\s+integer\s+no\s+>= 1\s+1000\s`,
		`(?m)^  query\.filter\s+object`,
		`(?m)^searchable fields`, `(?m)^  status\s+string`,
		`(?m)^  created_at\s+date-time`, `(?m)^  updated_at\s+date-time`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("describe zendesk-support tickets does not match %s:\n%s", re, r.stdout)
		}
	}
	r = cli(t, "describe", "gong", "calls_extensive", "--json")
	r.want(t, 0)
	var d kindDesc
	decode(t, r.stdout, &d)
	if d.Credentials != nil || len(d.Entities) != 1 {
		t.Fatalf("describe entity --json: %+v", d)
	}
	var filter *paramDesc
	for i, p := range d.Entities[0].Actions["list"] {
		if p.Name == "filter" {
			filter = &d.Entities[0].Actions["list"][i]
		}
	}
	if filter == nil || filter.Type != "object" || len(filter.Fields) == 0 {
		t.Fatalf("gong calls_extensive list filter = %+v", filter)
	}
	if len(d.Entities[0].Searchable) == 0 {
		t.Errorf("no searchable fields in %+v", d.Entities[0])
	}
	if !strings.HasPrefix(d.Entities[0].Copy, "every call") {
		t.Errorf("gong calls_extensive: describe shows the copy scope %q, want every call", d.Entities[0].Copy)
	}
}

// describe shows what the copy of an entity whose list needs params
// covers when sync supplies them (its copy scope).
func TestDescribeCopyScope(t *testing.T) {
	r := cli(t, "describe", "salesforce", "accounts")
	r.want(t, 0)
	if re := `(?m)^copy: every Account record with its searchable fields \(SOQL SELECT <searchable fields> FROM Account\)$`; !regexp.MustCompile(re).MatchString(r.stdout) {
		t.Errorf("describe salesforce accounts does not match %s:\n%s", re, r.stdout)
	}
	r = cli(t, "describe", "salesforce", "tasks", "--json")
	r.want(t, 0)
	var d kindDesc
	decode(t, r.stdout, &d)
	if len(d.Entities) != 1 || !strings.HasPrefix(d.Entities[0].Copy, "every Task record") {
		t.Errorf("describe salesforce tasks --json: copy %q", d.Entities[0].Copy)
	}
	if r := cli(t, "describe", "zendesk-support", "tickets"); strings.Contains(r.stdout, "copy:") {
		t.Errorf("zendesk tickets need no list params, yet describe shows a copy scope:\n%s", r.stdout)
	}
}

func TestExecList(t *testing.T) {
	r := cli(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "-p", "per_page=3")
	r.want(t, 0)
	if r.stderr != "" {
		t.Errorf("stderr not quiet: %q", r.stderr)
	}
	var page struct {
		Records []map[string]any `json:"records"`
		Meta    map[string]any   `json:"meta"`
		Next    map[string]any   `json:"next"`
	}
	decode(t, r.stdout, &page)
	if len(page.Records) != 3 || page.Records[0]["id"] != json.Number("35436") {
		t.Errorf("records = %v", page.Records)
	}
	if page.Meta["count"] != json.Number("250") {
		t.Errorf("meta = %v", page.Meta)
	}
	if page.Next["page"] != json.Number("2") || page.Next["per_page"] != json.Number("3") {
		t.Errorf("next = %v", page.Next)
	}

	// The next page, from the previous output's next, through stdin.
	next, _ := json.Marshal(page.Next)
	r = invocation{stdin: bytes.NewReader(next)}.run(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--params", "-")
	r.want(t, 0)
	decode(t, r.stdout, &page)
	if len(page.Records) != 3 || page.Records[0]["id"] != json.Number("35439") {
		t.Errorf("second page records = %v", page.Records)
	}

	// A Salesforce SOQL list: the query in --params, the next page's
	// next_records_url in next.
	r = cli(t, "exec", "salesforce", "accounts", "list", "--sandbox", "--params", `{"q": "SELECT Id, Name FROM Account"}`)
	r.want(t, 0)
	decode(t, r.stdout, &page)
	if len(page.Records) == 0 || page.Meta["done"] != false || page.Next["next_records_url"] == nil {
		t.Errorf("salesforce page: meta %v next %v", page.Meta, page.Next)
	}
}

func TestExecGet(t *testing.T) {
	r := cli(t, "exec", "zendesk-support", "users", "get", "--sandbox", "-p", "user_id=9007199254740993")
	r.want(t, 0)
	// Ids beyond 2^53 come out exactly as the source sent them.
	if !strings.Contains(r.stdout, `"id": 9007199254740993`) {
		t.Errorf("get output lost the id: %.300s", r.stdout)
	}
	var page pageOutput
	decode(t, r.stdout, &page)
	if len(page.Records) != 1 {
		t.Errorf("get: %d records", len(page.Records))
	}
}

func TestExecNestedParams(t *testing.T) {
	// Gong's nested filter: dotted keys build the object, arrays split on
	// commas.
	r := cli(t, "exec", "gong", "calls_extensive", "list", "--sandbox",
		"-p", "filter.fromDateTime=2024-01-01T00:00:00Z", "-p", "contentSelector.exposedFields.parties=true")
	r.want(t, 0)
	var page pageOutput
	decode(t, r.stdout, &page)
	if len(page.Records) == 0 {
		t.Errorf("no calls: %.300s", r.stdout)
	}
}

func TestParamsTyping(t *testing.T) {
	b := tributary.Bound
	es := []tributary.Entity{{Name: "things", Actions: []tributary.Action{"list"}, Params: map[tributary.Action][]tributary.Param{"list": {
		{Name: "n", Type: tributary.TypeInteger, Min: b(1)},
		{Name: "x", Type: tributary.TypeNumber},
		{Name: "flag", Type: tributary.TypeBoolean},
		{Name: "ids", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeInteger}},
		{Name: "tags", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString}},
		{Name: "obj", Type: tributary.TypeObject},
		{Name: "name", Type: tributary.TypeString},
		{Name: "page[size]", Type: tributary.TypeInteger},
		{Name: "filter", Type: tributary.TypeObject, Fields: []tributary.Param{
			{Name: "callIds", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString}},
			{Name: "limit", Type: tributary.TypeInteger},
		}},
	}}}}
	op := operation{kind: "k", entities: es, entity: "things", action: "list"}
	a := &app{stdin: strings.NewReader("")}
	got, err := a.params(op, paramFlags{json: `{"name": "from-json", "filter": {"limit": 1}}`, pairs: []string{
		"n=5", "x=1.5", "flag=true", "ids=1,2,3", "tags=a,b", "tags2=[1]", `obj={"a":1}`, "name=007",
		"page[size]=10", "filter.callIds=c1,c2", "filter.limit=7", "free.deep=12", "text=hello",
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := tributary.Params{
		"n": int64(5), "x": 1.5, "flag": true, "ids": []any{int64(1), int64(2), int64(3)}, "tags": []any{"a", "b"},
		"tags2": []any{int64(1)}, "obj": map[string]any{"a": int64(1)}, "name": "007", "page[size]": int64(10),
		"filter": map[string]any{"callIds": []any{"c1", "c2"}, "limit": int64(7)},
		"free":   map[string]any{"deep": int64(12)}, "text": "hello",
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("params\n got %s\nwant %s", gotJSON, wantJSON)
	}
	for _, bad := range []string{"n=five", "n=1.0", "n=99999999999999999999", "x=big", "flag=maybe", "flag=1", "ids=1,x", "obj=[1]", "novalue", "=v"} {
		_, err := a.params(op, paramFlags{pairs: []string{bad}})
		var te *tributary.Error
		if !errors.As(err, &te) || te.Entity != "things" || te.Action != "list" || exitCode(context.Background(), err) != exitUsage {
			t.Errorf("-p %s: error %v, want an invalid params error naming the operation", bad, err)
		}
	}
	if _, err := a.params(op, paramFlags{json: `[1]`}); exitCode(context.Background(), err) != exitUsage {
		t.Errorf("--params [1]: %v", err)
	}
}

func TestExecAll(t *testing.T) {
	r := cli(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--all", "-p", "per_page=40")
	r.want(t, 0)
	if r.stderr != "" {
		t.Errorf("stderr not quiet when not a terminal: %q", r.stderr)
	}
	recs := lines(t, r.stdout)
	if len(recs) != zendesktest.DefaultTickets {
		t.Fatalf("%d records, want %d", len(recs), zendesktest.DefaultTickets)
	}
	for i, rec := range recs {
		if rec["id"] != json.Number(itoa(zendesktest.FirstTicketID+int64(i))) {
			t.Fatalf("record %d has id %v", i, rec["id"])
		}
	}

	// api_search pages through Next.
	r = cli(t, "exec", "github", "issues", "api_search", "--sandbox", "--all", "-p", "q=repo:octo/hello is:issue", "-p", "per_page=50")
	r.want(t, 0)
	if n := len(lines(t, r.stdout)); n == 0 {
		t.Errorf("api_search --all: no records")
	}

	cli(t, "exec", "zendesk-support", "tickets", "get", "--sandbox", "--all", "-p", "ticket_id=35436").want(t, exitUsage)
}

// TestExecAllInterrupted cancels the walk (as Ctrl-C does) once output has
// started: every line written is whole, and the exit code says interrupted.
func TestExecAllInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	w := writerFunc(func(b []byte) (int, error) {
		cancel()
		return out.Write(b)
	})
	r := invocation{ctx: ctx, stdout: w}.run(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--all", "-p", "per_page=100")
	r.want(t, exitInterrupted)
	recs := lines(t, out.String())
	if len(recs) == 0 || len(recs) >= zendesktest.DefaultTickets {
		t.Fatalf("%d records written, want some but not all", len(recs))
	}
	if !strings.Contains(r.stderr, "interrupted: "+itoa(int64(len(recs)))+" records written") {
		t.Errorf("stderr = %q, want the count of %d records", r.stderr, len(recs))
	}
}

// TestProgress shows progress when stderr is a terminal, and ends it with a
// summary line.
func TestProgress(t *testing.T) {
	r := invocation{isTerminal: true}.run(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--all", "-p", "per_page=50")
	r.want(t, 0)
	if len(lines(t, r.stdout)) != zendesktest.DefaultTickets {
		t.Errorf("stdout changed by progress")
	}
	if !regexp.MustCompile(`tickets: 250 records, 5 pages in \S+\n$`).MatchString(r.stderr) {
		t.Errorf("progress summary missing: %q", r.stderr)
	}
	r = invocation{isTerminal: true}.run(t, "exec", "zendesk-support", "tickets", "list", "--sandbox", "--all", "--no-progress")
	r.want(t, 0)
	if r.stderr != "" {
		t.Errorf("--no-progress: stderr %q", r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	limited := zendesktest.New(zendesktest.WithFaults(zendesktest.Faults{RateLimitFirst: 100, RetryAfter: time.Hour}))
	defer limited.Close()
	failing := zendesktest.New(zendesktest.WithFaults(zendesktest.Faults{ServerErrorFirst: 100}))
	defer failing.Close()
	env := map[string]string{
		"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme",
		"TRIBUTARY_ZENDESK_SUPPORT_EMAIL":     zendesktest.DefaultEmail,
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": zendesktest.DefaultAPIToken,
	}
	wrong := map[string]string{
		"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme",
		"TRIBUTARY_ZENDESK_SUPPORT_EMAIL":     zendesktest.DefaultEmail,
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": "WRONG",
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		msg  string // a part of the one-line error
	}{
		{"ok with env credentials", env, []string{"exec", "zendesk-support", "tickets", "list", "--base-url", zd.URL, "-p", "per_page=1"}, 0, ""},
		{"unknown command", nil, []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"unknown flag", nil, []string{"exec", "--frob"}, exitUsage, "unknown flag: --frob"},
		{"missing args", nil, []string{"exec", "zendesk-support"}, exitUsage, "exec takes 3 arguments (<type> <entity> <action>), got 1"},
		{"unknown kind", nil, []string{"exec", "zendesk", "tickets", "list", "--sandbox"}, exitUsage, `unknown connector_type "zendesk"`},
		{"unknown entity", nil, []string{"exec", "zendesk-support", "tikets", "list", "--sandbox"}, exitUsage, `no entity "tikets"; did you mean "tickets"?`},
		{"unknown kind, near", nil, []string{"exec", "hubspt", "contacts", "list", "--sandbox"}, exitUsage, `unknown connector_type "hubspt"; did you mean "hubspot"?`},
		{"unknown parameter", nil, []string{"exec", "zendesk-support", "tickets", "list", "--sandbox", "-p", "per_pag=1"}, exitUsage, `parameter "per_pag": is not a parameter of this action; did you mean "per_page"?`},
		{"id as a string", nil, []string{"exec", "zendesk-support", "tickets", "get", "--sandbox", "--params", `{"ticket_id": "1"}`}, exitNotFound, "tickets.get: not found (HTTP 404"},
		{"id as a bad string", nil, []string{"exec", "zendesk-support", "tickets", "get", "--sandbox", "--params", `{"ticket_id": "1x"}`}, exitUsage, `parameter "ticket_id": must be an integer, got a string "1x"`},
		{"unsupported action", nil, []string{"exec", "zendesk-support", "tickets", "download", "--sandbox"}, exitUsage, "tickets.download: unsupported action"},
		{"missing parameter", nil, []string{"exec", "zendesk-support", "tickets", "get", "--sandbox"}, exitUsage, `tickets.get: invalid params: parameter "ticket_id"`},
		{"ill-typed parameter", nil, []string{"exec", "zendesk-support", "tickets", "get", "--sandbox", "-p", "ticket_id=x"}, exitUsage, `parameter "ticket_id": "x" is not an integer`},
		{"out of range", nil, []string{"exec", "zendesk-support", "tickets", "list", "--sandbox", "-p", "per_page=1000"}, exitUsage, `parameter "per_page"`},
		{"exclusive flags", nil, []string{"exec", "zendesk-support", "tickets", "list", "--sandbox", "--hosted", "http://x"}, exitUsage, "sandbox"},
		{"no credentials", nil, []string{"exec", "zendesk-support", "tickets", "list"}, exitAuth, "TRIBUTARY_ZENDESK_SUPPORT_*"},
		{"rejected credentials", wrong, []string{"exec", "zendesk-support", "tickets", "list", "--base-url", zd.URL}, exitAuth, "tickets.list: unauthorized (HTTP 401"},
		{"not found", nil, []string{"exec", "zendesk-support", "tickets", "get", "--sandbox", "-p", "ticket_id=1"}, exitNotFound, "tickets.get: not found (HTTP 404"},
		{"rate limited", env, []string{"exec", "zendesk-support", "tickets", "list", "--base-url", limited.URL}, exitRateLimited, "tickets.list: rate limited (HTTP 429)"},
		{"server error", env, []string{"exec", "zendesk-support", "tickets", "list", "--base-url", failing.URL, "--retries", "0"}, exitOther, "tickets.list: server error (HTTP 5"},
		{"hosted without token", nil, []string{"exec", "zendesk-support", "tickets", "list", "--hosted", zd.URL, "--connector-id", "x"}, exitAuth, "TRIBUTARY_HOSTED_TOKEN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := invocation{env: c.env}.run(t, c.args...)
			r.want(t, c.code)
			if c.code == 0 {
				return
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "tributary: ") || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("stderr = %q, want one line with %q", r.stderr, c.msg)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q on an error", r.stdout)
			}
			// The same failure for programs.
			r = invocation{env: c.env}.run(t, append(c.args, "--json-errors")...)
			r.want(t, c.code)
			var je struct {
				Error jsonError `json:"error"`
			}
			decode(t, r.stderr, &je)
			if je.Error.ExitCode != c.code || je.Error.Type == "" || !strings.Contains(je.Error.Message, c.msg) {
				t.Errorf("--json-errors = %+v", je.Error)
			}
		})
	}
}

func TestJSONErrorFields(t *testing.T) {
	r := cli(t, "exec", "zendesk-support", "tickets", "get", "--sandbox", "-p", "ticket_id=x", "--json-errors")
	r.want(t, exitUsage)
	var je struct {
		Error jsonError `json:"error"`
	}
	decode(t, r.stderr, &je)
	want := jsonError{Type: "invalid_params", ExitCode: 2, ConnectorType: "zendesk-support", Entity: "tickets", Action: "get", Param: "ticket_id"}
	je.Error.Message = ""
	if je.Error != want {
		t.Errorf("json error = %+v, want %+v", je.Error, want)
	}
	r = cli(t, "exec", "zendesk-support", "tickets", "get", "--sandbox", "-p", "ticket_id=1", "--json-errors")
	decode(t, r.stderr, &je)
	if je.Error.Type != "not_found" || je.Error.Status != 404 || je.Error.Code != "RecordNotFound" {
		t.Errorf("not found json error = %+v", je.Error)
	}
	r = cli(t, "frobnicate", "--json-errors")
	decode(t, r.stderr, &je)
	if je.Error.Type != "usage" || je.Error.ExitCode != 2 {
		t.Errorf("usage json error = %+v", je.Error)
	}
}

// TestNoSecretPrinted runs failing and verbose commands with credentials
// that must never appear in what the command prints.
func TestNoSecretPrinted(t *testing.T) {
	const secret = "SECRET-0f9e8d7c6b5a"
	zd := zendesktest.New()
	defer zd.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(file, []byte(`{"subdomain": "acme", "email": "agent@example.com", "api_token": "`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badJSON, []byte(`{"api_token": "`+secret+`"`), 0o600); err != nil {
		t.Fatal(err)
	}
	badField := filepath.Join(dir, "badfield.json")
	if err := os.WriteFile(badField, []byte(`{"subdomain": "acme", "api_token": "`+secret+`", "api_tokn": "`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme", "TRIBUTARY_ZENDESK_SUPPORT_EMAIL": "a@example.com",
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": secret, "TRIBUTARY_HOSTED_TOKEN": secret, "TRIBUTARY_CLIENT_SECRET": secret}
	for _, args := range [][]string{
		{"exec", "zendesk-support", "tickets", "list", "--base-url", zd.URL, "-v"},
		{"exec", "zendesk-support", "tickets", "list", "--base-url", zd.URL, "--credentials", file, "-v", "--json-errors"},
		{"exec", "zendesk-support", "tickets", "list", "--credentials", badJSON},
		{"exec", "zendesk-support", "tickets", "list", "--credentials", badField},
		{"exec", "zendesk-support", "tickets", "list", "--hosted", zd.URL, "--connector-id", "c1", "-v"},
		{"create-connector", "zendesk-support", "--hosted", zd.URL, "--credentials", file, "--external-user-id", "u1", "-v"},
		{"describe", "zendesk-support"},
	} {
		r := invocation{env: env}.run(t, args...)
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v printed the secret:\n%s%s", args, r.stdout, r.stderr)
		}
		if args[0] != "describe" && r.code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
}

// TestTokenRotationSaved: Zendesk rotates refresh tokens; the new one is
// written back into the --credentials file so the next run still works.
func TestTokenRotationSaved(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	file := filepath.Join(t.TempDir(), "zendesk.json")
	creds := map[string]any{"subdomain": "acme", "refresh_token": zendesktest.DefaultRefreshToken,
		"client_id": zendesktest.DefaultClientID, "client_secret": zendesktest.DefaultClientSecret}
	if err := writeFileAtomic(file, creds); err != nil {
		t.Fatal(err)
	}
	args := []string{"exec", "zendesk-support", "tickets", "list", "--base-url", zd.URL, "--credentials", file, "-p", "per_page=1"}
	r := cli(t, args...)
	r.want(t, 0)
	var saved map[string]any
	b, _ := os.ReadFile(file)
	decode(t, string(b), &saved)
	rt, _ := saved["refresh_token"].(string)
	if rt == "" || rt == zendesktest.DefaultRefreshToken || saved["access_token"] == nil {
		t.Fatalf("credentials file after the refresh: %v", saved)
	}
	if !strings.Contains(r.stderr, "saved to "+file) || strings.Contains(r.stderr, rt) {
		t.Errorf("stderr = %q", r.stderr)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %v", fi.Mode())
	}
	// The old refresh token no longer works; the saved one does.
	cli(t, args...).want(t, 0)
}

func TestHelp(t *testing.T) {
	r := cli(t, "--help")
	r.want(t, 0)
	for _, s := range []string{"Exit codes:", "130", "Examples:", "--sandbox", "completion"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("tributary --help lacks %q", s)
		}
	}
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).root()
	for _, c := range root.Commands() {
		r := cli(t, c.Name(), "--help")
		r.want(t, 0)
		if !strings.Contains(r.stdout, "Examples:\n") || !strings.Contains(r.stdout, "  tributary "+c.Name()+" ") {
			t.Errorf("%s --help has no examples:\n%s", c.Name(), r.stdout)
		}
	}
	r = cli(t, "--version")
	r.want(t, 0)
	if !strings.HasPrefix(r.stdout, "tributary version ") {
		t.Errorf("--version: %q", r.stdout)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := cli(t, "completion", shell)
		r.want(t, 0)
		if !strings.Contains(r.stdout, "tributary") {
			t.Errorf("completion %s printed no script", shell)
		}
	}
	complete := func(args ...string) []string {
		r := cli(t, append([]string{"__complete"}, args...)...)
		r.want(t, 0)
		var out []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				out = append(out, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return out
	}
	if got := complete("exec", ""); !slices.Equal(got, kinds.Types()) {
		t.Errorf("types: %v", got)
	}
	if got := complete("exec", "zendesk-support", ""); !slices.Contains(got, "tickets") || !slices.Contains(got, "attachments") {
		t.Errorf("entities: %v", got)
	}
	if got := complete("download", "zendesk-support", ""); !slices.Equal(got, []string{"attachments", "article_attachments"}) {
		t.Errorf("download entities: %v", got)
	}
	if got := complete("exec", "zendesk-support", "tickets", ""); !slices.Equal(got, []string{"list", "get", "search"}) {
		t.Errorf("actions: %v", got)
	}
	if got := complete("exec", "zendesk-support", "tickets", "list", "-p", "per"); !slices.Equal(got, []string{"per_page="}) {
		t.Errorf("-p: %v", got)
	}
	if got := complete("exec", "gong", "calls_extensive", "list", "-p", "filter.from"); !slices.Equal(got, []string{"filter.fromDateTime="}) {
		t.Errorf("-p nested: %v", got)
	}
}

func TestSandboxCoversEveryKind(t *testing.T) {
	// The sandbox the commands use opens every kind the command lists.
	sb := sandbox.New()
	defer sb.Close()
	if !slices.Equal(sb.Types(), kinds.Types()) {
		t.Errorf("sandbox types %v, kinds %v", sb.Types(), kinds.Types())
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestExecAllStreams: records reach stdout while the walk still waits for
// the next page.
func TestExecAllStreams(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	gotOutput := make(chan struct{})
	var once sync.Once
	var held atomic.Bool
	target, _ := url.Parse(zd.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page[after]") != "" && !held.Swap(true) {
			select { // the second page waits for the first page's records
			case <-gotOutput:
			case <-time.After(10 * time.Second):
				t.Error("no record reached stdout while the walk waited for the second page")
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	var out syncBuffer
	w := writerFunc(func(b []byte) (int, error) {
		once.Do(func() { close(gotOutput) })
		return out.Write(b)
	})
	env := map[string]string{"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme", "TRIBUTARY_ZENDESK_SUPPORT_EMAIL": zendesktest.DefaultEmail,
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": zendesktest.DefaultAPIToken}
	r := invocation{env: env, stdout: w}.run(t, "exec", "zendesk-support", "tickets", "list", "--base-url", proxy.URL, "--all", "-p", "page[size]=5")
	r.want(t, 0)
	if !held.Load() {
		t.Fatal("the walk did not ask for a second page in cursor mode")
	}
	if n := len(lines(t, out.String())); n != zendesktest.DefaultTickets {
		t.Errorf("%d records", n)
	}
}
