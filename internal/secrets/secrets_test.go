package secrets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/zendesk"
)

// secret is the placeholder value of one credential field of one kind:
// letters, digits, '-' and '_' only, so that it travels unchanged in a
// form body or a query and shows up verbatim wherever it is echoed.
func secret(typ, field string) string {
	v := "S3cr3t-" + strings.ReplaceAll(typ, "-", "") + "-" + field + "-Zq7"
	if typ == mailchimp.Type && field == "api_key" {
		v += "-us6" // Mailchimp reads the data centre from the key's suffix
	}
	return v
}

// issued is what the hostile token endpoint issues: secrets too.
func issued(typ, what string) string {
	return "S3cr3t-issued-" + strings.ReplaceAll(typ, "-", "") + "-" + what + "-Wk4"
}

// op is one operation of the contract.
type op struct {
	entity string
	params tributary.Params
}

// credSet is one way of authenticating to a kind.
type credSet struct {
	name string
	// plain are the fields that are not secret (subdomain, client_id, ...).
	plain map[string]any
	// secret names the secret fields; their values come from secret().
	secret []string
	// refresh: the connector obtains tokens at the token URL.
	refresh bool
}

func (s credSet) credentials(typ string) map[string]any {
	m := map[string]any{}
	for k, v := range s.plain {
		m[k] = v
	}
	for _, f := range s.secret {
		m[f] = secret(typ, f)
	}
	return m
}

// kindCase describes a kind to the hostile server: its credential sets,
// one list and one get with the bodies that answer them, and how the
// vendor shapes an error (code, message and request id placed by the test).
type kindCase struct {
	typ      string
	sets     []credSet
	list     op
	listBody string
	get      op
	getBody  string
	// errBody renders the vendor's error body.
	errBody func(code, msg, reqID string) any
	// contentType of error bodies.
	contentType string
	// reqIDHeader is the vendor's request id header, "" when none.
	reqIDHeader string
	// typed returns the kind's typed Credentials for printing.
	typed func(map[string]any) (any, error)
}

var kindCases = []kindCase{
	{
		typ: zendesk.Type,
		sets: []credSet{
			{name: "api_token", plain: map[string]any{"subdomain": "acme", "email": "agent@example.com"}, secret: []string{"api_token"}},
			{name: "access_token", plain: map[string]any{"subdomain": "acme"}, secret: []string{"access_token"}},
			{name: "oauth_refresh", plain: map[string]any{"subdomain": "acme", "client_id": "zd-client"},
				secret: []string{"access_token", "refresh_token", "client_secret"}, refresh: true},
		},
		list: op{"tickets", nil}, listBody: `{"tickets":[{"id":1,"subject":"s"}],"next_page":null,"previous_page":null,"count":1}`,
		get: op{"tickets", tributary.Params{"ticket_id": 1}}, getBody: `{"ticket":{"id":1,"subject":"s"}}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"error": code, "description": msg}
		},
		contentType: "application/json; charset=utf-8", reqIDHeader: "X-Zendesk-Request-Id",
		typed: func(m map[string]any) (any, error) { return zendesk.CredentialsFromMap(m) },
	},
	{
		typ: mailchimp.Type,
		sets: []credSet{
			{name: "api_key", secret: []string{"api_key"}},
			{name: "access_token", plain: map[string]any{"data_center": "us6"}, secret: []string{"access_token"}},
		},
		list: op{"campaigns", nil}, listBody: `{"campaigns":[{"id":"c1"}],"total_items":1}`,
		get: op{"campaigns", tributary.Params{"campaign_id": "c1"}}, getBody: `{"id":"c1"}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"type": "https://mailchimp.com/developer/marketing/docs/errors/", "title": code, "status": 400, "detail": msg, "instance": reqID}
		},
		contentType: "application/problem+json; charset=utf-8", reqIDHeader: "X-Request-Id",
		typed: func(m map[string]any) (any, error) { return mailchimp.CredentialsFromMap(m) },
	},
	{
		typ: gong.Type,
		sets: []credSet{
			{name: "access_key", plain: map[string]any{"access_key": "gong-access-key-id"}, secret: []string{"access_key_secret"}},
			{name: "access_token", secret: []string{"access_token"}},
			{name: "oauth_refresh", plain: map[string]any{"client_id": "gong-client"},
				secret: []string{"access_token", "refresh_token", "client_secret"}, refresh: true},
		},
		list: op{"users", nil}, listBody: `{"requestId":"r1","records":{"totalRecords":1,"currentPageSize":1,"currentPageNumber":0},"users":[{"id":"1"}]}`,
		get: op{"users", tributary.Params{"id": "1"}}, getBody: `{"requestId":"r1","user":{"id":"1"}}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"requestId": reqID, "errors": []string{msg}, "error": code}
		},
		contentType: "application/json", reqIDHeader: "",
		typed: func(m map[string]any) (any, error) { return gong.CredentialsFromMap(m) },
	},
	{
		typ:  intercom.Type,
		sets: []credSet{{name: "access_token", secret: []string{"access_token"}}},
		list: op{"contacts", nil}, listBody: `{"type":"list","data":[{"type":"contact","id":"1"}],"total_count":1,"pages":{"type":"pages","page":1,"per_page":50,"total_pages":1}}`,
		get: op{"contacts", tributary.Params{"id": "1"}}, getBody: `{"type":"contact","id":"1"}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"type": "error.list", "request_id": reqID, "errors": []any{map[string]any{"code": code, "message": msg, "field": code}}}
		},
		contentType: "application/json; charset=utf-8", reqIDHeader: "X-Request-Id",
		typed: func(m map[string]any) (any, error) { return intercom.CredentialsFromMap(m) },
	},
	{
		typ: salesforce.Type,
		sets: []credSet{
			{name: "oauth_refresh", plain: map[string]any{"client_id": "sf-client"},
				secret: []string{"client_secret", "refresh_token"}, refresh: true},
			{name: "oauth_access_token", plain: map[string]any{"client_id": "sf-client"},
				secret: []string{"client_secret", "refresh_token", "access_token"}, refresh: true},
		},
		list: op{"accounts", tributary.Params{"q": "SELECT Id FROM Account"}}, listBody: `{"totalSize":1,"done":true,"records":[{"attributes":{"type":"Account"},"Id":"001000000000001AAA"}]}`,
		get: op{"accounts", tributary.Params{"id": "001000000000001AAA"}}, getBody: `{"attributes":{"type":"Account"},"Id":"001000000000001AAA"}`,
		errBody: func(code, msg, reqID string) any {
			return []any{map[string]any{"errorCode": code, "message": msg}}
		},
		contentType: "application/json;charset=UTF-8",
		typed:       func(m map[string]any) (any, error) { return salesforce.CredentialsFromMap(m) },
	},
	{
		typ: github.Type,
		sets: []credSet{
			{name: "token", secret: []string{"token"}},
			{name: "access_token", secret: []string{"access_token"}},
		},
		list: op{"issues", tributary.Params{"owner": "octo", "repo": "hello"}}, listBody: `[{"id":1,"number":1,"title":"t"}]`,
		get: op{"issues", tributary.Params{"owner": "octo", "repo": "hello", "issue_number": 1}}, getBody: `{"id":1,"number":1,"title":"t"}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"message": msg, "errors": []any{map[string]any{"resource": "Issue", "field": "title", "code": code}},
				"documentation_url": "https://docs.github.com/rest"}
		},
		contentType: "application/json; charset=utf-8", reqIDHeader: "X-GitHub-Request-Id",
		typed: func(m map[string]any) (any, error) { return github.CredentialsFromMap(m) },
	},
	{
		typ: hubspot.Type,
		sets: []credSet{
			{name: "private_app_token", secret: []string{"private_app_token"}},
			{name: "oauth_refresh", plain: map[string]any{"client_id": "hs-client"},
				secret: []string{"client_secret", "refresh_token"}, refresh: true},
			{name: "oauth_access_token", plain: map[string]any{"client_id": "hs-client"},
				secret: []string{"client_secret", "refresh_token", "access_token"}, refresh: true},
		},
		list: op{"contacts", nil}, listBody: `{"results":[{"id":"1","properties":{}}]}`,
		get: op{"contacts", tributary.Params{"contactId": "1"}}, getBody: `{"id":"1","properties":{}}`,
		errBody: func(code, msg, reqID string) any {
			return map[string]any{"status": "error", "message": msg, "correlationId": reqID, "category": code}
		},
		contentType: "application/json;charset=utf-8", reqIDHeader: "X-HubSpot-Correlation-Id",
		typed: func(m map[string]any) (any, error) { return hubspot.CredentialsFromMap(m) },
	},
}

// echoOf is everything a hostile server received that could carry a
// credential: the Authorization header (and its Basic pair decoded), every
// other header, the query and the body.
func echoOf(r *http.Request) string {
	var b strings.Builder
	auth := r.Header.Get("Authorization")
	fmt.Fprintf(&b, "authorization=[%s]", auth)
	if user, pass, ok := r.BasicAuth(); ok {
		fmt.Fprintf(&b, " basic=[%s:%s]", user, pass)
	}
	for k, vs := range r.Header {
		if k != "Authorization" {
			fmt.Fprintf(&b, " %s=%s", k, strings.Join(vs, ","))
		}
	}
	fmt.Fprintf(&b, " query=[%s]", r.URL.RawQuery)
	if r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(&b, " body=[%s]", body)
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(b.String())
}

// Paths of the matrix: what the hostile API answers.
const (
	path401       = "401"
	path403       = "403"
	path429       = "429"
	path500       = "500"
	path503       = "503"
	pathMalformed = "malformed"
	pathOK        = "ok"
	pathRefresh   = "refresh_failure"
)

// Placements: where the hostile API echoes what it received.
const (
	// inMessage echoes into the fields the vendor uses for its message.
	inMessage = "message"
	// inCodeAndRequestID echoes into the vendor's error code field and its
	// request id (body member or header).
	inCodeAndRequestID = "code_and_request_id"
)

// hostile is a vendor API that echoes credentials back.
type hostile struct {
	kc        *kindCase
	path      string
	placement string

	mu   sync.Mutex
	body string // the success body of the next request
}

func (h *hostile) setBody(s string) {
	h.mu.Lock()
	h.body = s
	h.mu.Unlock()
}

func (h *hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	echo := echoOf(r)
	h.mu.Lock()
	okBody := h.body
	h.mu.Unlock()
	switch h.path {
	case pathOK:
		fakeserver.WriteJSON(w, http.StatusOK, []byte(okBody))
		return
	case pathMalformed:
		// Cut off in the middle, with the echo inside.
		fakeserver.WriteJSON(w, http.StatusOK, []byte(okBody[:len(okBody)/2]+`"`+strings.ReplaceAll(echo, `"`, `'`)))
		return
	}
	status := http.StatusUnauthorized
	if n, err := strconv.Atoi(h.path); err == nil {
		status = n
	}
	code, msg, reqID := "hostile_error", "the hostile server refused the request", "req-0001"
	if h.placement == inMessage {
		msg = echo
	} else {
		code, reqID = echo, echo
	}
	body, _ := json.Marshal(h.kc.errBody(code, msg, reqID))
	if status == http.StatusTooManyRequests || status >= 500 {
		w.Header().Set("Retry-After", "0")
	}
	if h.kc.reqIDHeader != "" {
		w.Header().Set(h.kc.reqIDHeader, reqID)
	}
	w.Header().Set("Content-Type", h.kc.contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// tokenEndpoint issues tokens, or refuses every refresh with 400
// invalid_grant and the echo of the request in error_description.
type tokenEndpoint struct {
	typ    string
	fail   bool
	apiURL string
}

func (te *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	echo := echoOf(r)
	if te.fail {
		body, _ := json.Marshal(map[string]any{"error": "invalid_grant", "error_description": echo})
		fakeserver.WriteJSON(w, http.StatusBadRequest, body)
		return
	}
	body, _ := json.Marshal(map[string]any{
		"access_token": issued(te.typ, "access"), "refresh_token": issued(te.typ, "refresh"),
		"token_type": "Bearer", "expires_in": 3600,
		"instance_url": te.apiURL, gong.CustomerBaseURLKey: te.apiURL,
	})
	fakeserver.WriteJSON(w, http.StatusOK, body)
}

// form is one shape a secret may take in output.
type form struct {
	what  string // "api_token", "Authorization header sent", ...
	value string
	class string // leakRaw, leakTransmitted, leakIssued
}

const (
	// leakRaw: a credential field's value as given.
	leakRaw = "raw"
	// leakTransmitted: a credential as it travelled, when that is not its
	// raw value (the Basic header's base64 pair).
	leakTransmitted = "transmitted"
	// leakIssued: a token the token endpoint issued.
	leakIssued = "issued"
)

// leak is one secret found in one output.
type leak struct {
	form  form
	where string
}

// findLeaks returns every form found in every output.
func findLeaks(outputs map[string]string, forms []form) []leak {
	var out []leak
	for where, text := range outputs {
		for _, f := range forms {
			if f.value != "" && strings.Contains(text, f.value) {
				out = append(out, leak{f, where})
			}
		}
	}
	return out
}

// printAll renders v with every verb a caller might log it with.
func printAll(outputs map[string]string, name string, v any) {
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		outputs[name+" "+verb] = fmt.Sprintf(verb, v)
	}
}

var fastRetry = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRateLimitWait: time.Second})

// TestSecretsNeverLeak drives every kind, every credential set and every
// error path against a hostile API that echoes the Authorization header
// (decoded too), every other header, the query and the body into its
// answers, with debug logging on, and a token endpoint that echoes the
// refresh request into its invalid_grant. No credential may appear in the
// error's text or any %v/%+v/%#v of it, of the connector, of the typed
// Credentials, of the page or record returned, or in the log.
func TestSecretsNeverLeak(t *testing.T) {
	for i := range kindCases {
		kc := &kindCases[i]
		for _, set := range kc.sets {
			paths := []string{path401, path403, path429, path500, path503, pathMalformed, pathOK}
			if set.refresh {
				paths = append(paths, pathRefresh)
			}
			for _, path := range paths {
				placements := []string{inMessage, inCodeAndRequestID}
				if path == pathOK || path == pathMalformed || path == pathRefresh {
					placements = placements[:1]
				}
				for _, placement := range placements {
					t.Run(kc.typ+"/"+set.name+"/"+path+"/"+placement, func(t *testing.T) {
						t.Parallel()
						runSecretCase(t, kc, set, path, placement)
					})
				}
			}
		}
	}
}

func runSecretCase(t *testing.T, kc *kindCase, set credSet, path, placement string) {
	api := &hostile{kc: kc, path: path, placement: placement}
	apiSrv := fakeserver.New(api, nil, fakeserver.Faults{}, fakeserver.Vendor{})
	defer apiSrv.Close()
	tokens := &tokenEndpoint{typ: kc.typ, fail: path == pathRefresh, apiURL: apiSrv.URL}
	tokenSrv := fakeserver.New(tokens, nil, fakeserver.Faults{}, fakeserver.Vendor{})
	defer tokenSrv.Close()

	var logBuf syncBuffer
	logger := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	creds := set.credentials(kc.typ)
	opts := []tributary.Option{
		tributary.WithBaseURL(apiSrv.URL), tributary.WithLogger(logger), fastRetry,
		tributary.WithSetting(hubspot.SettingSearchRate, "0"),
		tributary.WithSetting(hubspot.SettingAPIRate, "0"), tributary.WithSetting(gong.SettingAPIRate, "0"), tributary.WithSetting(zendesk.SettingAPIRate, "0"),
	}
	if set.refresh {
		opts = append(opts, tributary.WithTokenURL(tokenSrv.URL+"/oauth/token"))
	}
	conn, err := kinds.Open(kc.typ, creds, opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	typed, err := kc.typed(creds)
	if err != nil {
		t.Fatalf("typed credentials: %v", err)
	}

	outputs := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	api.setBody(kc.listBody)
	page, listErr := conn.List(ctx, kc.list.entity, kc.list.params)
	api.setBody(kc.getBody)
	rec, getErr := conn.Get(ctx, kc.get.entity, kc.get.params)

	for name, err := range map[string]error{"list error": listErr, "get error": getErr} {
		if err != nil {
			outputs[name+" Error()"] = err.Error()
			printAll(outputs, name, err)
		}
	}
	if path == pathOK {
		if listErr != nil || getErr != nil {
			t.Fatalf("the success path failed: list %v, get %v", listErr, getErr)
		}
		printAll(outputs, "page", page)
		printAll(outputs, "page.Records", page.Records)
		printAll(outputs, "page.Meta", page.Meta)
		printAll(outputs, "page.Next", page.Next)
		printAll(outputs, "record", rec)
	} else {
		want := map[string]error{path401: tributary.ErrUnauthorized, path403: tributary.ErrForbidden, path429: tributary.ErrRateLimited,
			path500: tributary.ErrServer, path503: tributary.ErrServer, pathMalformed: tributary.ErrUnexpectedResponse,
			pathRefresh: tributary.ErrUnauthorized}[path]
		if !errors.Is(listErr, want) || !errors.Is(getErr, want) {
			t.Fatalf("the %s path: want errors matching %v, got list %v, get %v", path, want, listErr, getErr)
		}
	}
	switch {
	case path == pathRefresh:
		if len(tokenSrv.Requests()) == 0 {
			t.Fatal("the token endpoint was never asked")
		}
	case !hasAuthorization(apiSrv.Requests()):
		t.Fatal("the API never received credentials to echo")
	}
	printAll(outputs, "connector", conn)
	printAll(outputs, "credentials", typed)
	printAll(outputs, "credentials pointer", &typed)
	outputs["log"] = logBuf.String()
	if !strings.Contains(outputs["log"], "tributary http") && len(apiSrv.Requests()) > 0 {
		t.Fatalf("debug logging is on but nothing was logged:\n%s", outputs["log"])
	}

	// The forms each secret may take.
	var forms []form
	for _, f := range set.secret {
		forms = append(forms, form{f, secret(kc.typ, f), leakRaw})
	}
	var issuedForms []form
	if set.refresh {
		issuedForms = []form{{"issued access token", issued(kc.typ, "access"), leakIssued},
			{"issued refresh token", issued(kc.typ, "refresh"), leakIssued}}
		forms = append(forms, issuedForms...)
	}
	// What travelled in Authorization headers and is not already one of
	// the forms above (a Bearer token is): Basic base64(user:secret).
	sent := map[string]bool{}
	for _, srv := range []*fakeserver.Server{apiSrv, tokenSrv} {
		for _, r := range srv.Requests() {
			scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if cred == "" || sent[cred] || containsAny(cred, forms) {
				continue
			}
			sent[cred] = true
			forms = append(forms, form{scheme + " credentials sent", cred, leakTransmitted})
		}
	}

	// Every form of every secret: as configured, as transmitted (Basic
	// encoding, form bodies) and as issued by a refresh.
	reportLeaks(t, outputs, findLeaks(outputs, forms))
}

// reportLeaks fails the test once per class and form of secret found,
// naming every output it was found in.
func reportLeaks(t *testing.T, outputs map[string]string, leaks []leak) {
	t.Helper()
	type key struct{ class, what, value string }
	where := map[key][]string{}
	var order []key
	for _, l := range leaks {
		k := key{l.form.class, l.form.what, l.form.value}
		if where[k] == nil {
			order = append(order, k)
		}
		where[k] = append(where[k], l.where)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].class != order[j].class {
			return order[i].class < order[j].class
		}
		return order[i].what < order[j].what
	})
	for _, k := range order {
		ws := where[k]
		sort.Strings(ws)
		t.Errorf("%s leak: %s %q appears in %s, e.g. %s", k.class, k.what, k.value, strings.Join(ws, ", "), excerpt(outputs[ws[0]], k.value))
	}
}

// containsAny reports whether s contains the value of one of forms.
func containsAny(s string, forms []form) bool {
	for _, f := range forms {
		if strings.Contains(s, f.value) {
			return true
		}
	}
	return false
}

// hasAuthorization reports whether any request carried credentials.
func hasAuthorization(reqs []fakeserver.Request) bool {
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "" {
			return true
		}
	}
	return false
}

// excerpt shows where needle sits in s.
func excerpt(s, needle string) string {
	i := strings.Index(s, needle)
	if i < 0 {
		return ""
	}
	from, to := max(i-120, 0), min(i+len(needle)+60, len(s))
	return "…" + s[from:to] + "…"
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
