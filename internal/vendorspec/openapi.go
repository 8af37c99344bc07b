package vendorspec

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/tributary-dev/tributary/internal/fixture"
)

// Description is a vendor's OpenAPI 3 or Swagger 2.0 description. Its
// file is read whole once; the operations are made ready for validation
// (with kin-openapi) as exchanges need them, each with only the components
// it reaches, since kin-openapi takes seconds to read all of GitHub's.
// It is safe for concurrent use.
type Description struct {
	name    string
	v       vendor
	tree    map[string]any // the file as read, patched
	swagger bool           // Swagger 2.0
	router  *router
	allow   *allowList
	applied []string // the patches applied, with their reasons

	mu     sync.Mutex
	loaded map[string]*openapi3.T // path template -> the partial description holding it
	took   time.Duration          // time spent making operations ready
}

func loadOpenAPI(name string, v vendor, path string) (*Description, error) {
	tree, err := readTree(path)
	if err != nil {
		return nil, err
	}
	d := &Description{name: name, v: v, tree: tree, loaded: map[string]*openapi3.T{}}
	_, d.swagger = tree["swagger"]
	for _, p := range v.patches {
		if err := p.apply(tree); err != nil {
			return nil, fmt.Errorf("vendorspec: %s: patch %q: %w (was the file updated? SOURCES.md)", name, p.why, err)
		}
		d.applied = append(d.applied, p.why)
	}
	bases := v.bases
	if len(bases) == 0 {
		bases = d.servers()
	}
	paths, _ := tree["paths"].(map[string]any)
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	if d.router, err = newRouter(bases, names, v.slashTails); err != nil {
		return nil, fmt.Errorf("vendorspec: %s: %w", name, err)
	}
	if d.allow, err = readAllowList(filepath.Join(filepath.Dir(filepath.Dir(path)), "allow-"+name+".txt")); err != nil {
		return nil, fmt.Errorf("vendorspec: %s: %w", name, err)
	}
	return d, nil
}

// servers are the description's own API roots.
func (d *Description) servers() []string {
	if d.swagger {
		host, _ := d.tree["host"].(string)
		base, _ := d.tree["basePath"].(string)
		return []string{"https://" + host + strings.TrimSuffix(base, "/")}
	}
	var out []string
	list, _ := d.tree["servers"].([]any)
	for _, s := range list {
		if m, ok := s.(map[string]any); ok {
			if u, ok := m["url"].(string); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// Patches lists the in-memory fixes applied to the description, each with
// its reason (the file itself is never edited).
func (d *Description) Patches() []string { return append([]string(nil), d.applied...) }

// prepare makes the operations of the given path templates ready, in one
// partial description (the components they share are read once).
func (d *Description) prepare(templates []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var need []string
	seen := map[string]bool{}
	for _, t := range templates {
		if d.loaded[t] == nil && !seen[t] {
			need = append(need, t)
			seen[t] = true
		}
	}
	if len(need) == 0 {
		return nil
	}
	sort.Strings(need)
	start := time.Now()
	defer func() { d.took += time.Since(start) }()
	var roots []string
	if d.v.errorSchema != "" {
		roots = append(roots, d.v.errorSchema)
	}
	keep := []string{"openapi", "info", "servers", "security", "swagger", "host", "basePath", "schemes", "consumes", "produces"}
	sub, err := partial(d.tree, need, roots, keep)
	if err != nil {
		return fmt.Errorf("%s's description: %w", d.name, err)
	}
	// Security schemes are small and named by operations' requirements.
	for _, p := range [][]string{{"components", "securitySchemes"}, {"securityDefinitions"}} {
		if v, ok := lookup(d.tree, p); ok {
			put(sub, p, v)
		}
	}
	b, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	var doc *openapi3.T
	if d.swagger {
		var v2 openapi2.T
		if err := json.Unmarshal(b, &v2); err != nil {
			return fmt.Errorf("%s's description: %w", d.name, err)
		}
		if doc, err = openapi2conv.ToV3(&v2); err != nil {
			return fmt.Errorf("%s's description: converting Swagger 2.0: %w", d.name, err)
		}
		if bytes.Contains(b, []byte(anyOfExt)) { // alternatives kept through the conversion
			if doc, err = reload(doc, anyOfFromExt); err != nil {
				return fmt.Errorf("%s's description: %w", d.name, err)
			}
		}
	} else {
		doc = &openapi3.T{}
		if err := json.Unmarshal(b, doc); err != nil {
			return fmt.Errorf("%s's description: %w", d.name, err)
		}
		if err := openapi3.NewLoader().ResolveRefsIn(doc, nil); err != nil {
			return fmt.Errorf("%s's description: %w", d.name, err)
		}
	}
	for _, t := range need {
		d.loaded[t] = doc
	}
	return nil
}

// reload passes doc through its JSON form, changed by fix, and resolves
// its references again.
func reload(doc *openapi3.T, fix func(any)) (*openapi3.T, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	fix(tree)
	if b, err = json.Marshal(tree); err != nil {
		return nil, err
	}
	out := &openapi3.T{}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	return out, openapi3.NewLoader().ResolveRefsIn(out, nil)
}

// exchange is one request and its response.
type exchange struct {
	method       string
	url          *url.URL // with the query
	reqHeader    http.Header
	reqBody      []byte // nil: none
	status       int
	respHeader   http.Header
	respBody     []byte
	respBodyJSON bool
}

// fromFixture turns a fixture's exchange into what is checked: the
// request as the fixture says the library sends it, the response as the
// replay answers it.
func fromFixture(ex fixture.Exchange) (exchange, error) {
	u, err := url.Parse(ex.Request.URL)
	if err != nil {
		return exchange{}, fmt.Errorf("request URL: %w", err)
	}
	q := url.Values{}
	for k, v := range ex.Request.Query {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				q.Add(k, fmt.Sprint(e))
			}
		default:
			q.Add(k, fmt.Sprint(x))
		}
	}
	u.RawQuery = q.Encode()
	e := exchange{method: ex.Request.Method, url: u, reqHeader: http.Header{}, status: ex.Response.Status, respHeader: http.Header{}}
	for k, v := range ex.Request.Headers {
		e.reqHeader.Set(k, v)
	}
	if b := bytes.TrimSpace(ex.Request.Body); len(b) > 0 && string(b) != "null" {
		e.reqBody = b
		if e.reqHeader.Get("Content-Type") == "" {
			e.reqHeader.Set("Content-Type", "application/json")
		}
	}
	for k, v := range ex.Response.Headers {
		e.respHeader.Set(k, v)
	}
	switch r := ex.Response; {
	case r.BodyText != nil:
		e.respBody = []byte(*r.BodyText)
	case r.BodyBase64 != nil:
		if e.respBody, err = base64.StdEncoding.DecodeString(*r.BodyBase64); err != nil {
			return exchange{}, fmt.Errorf("response body_base64: %w", err)
		}
	case len(bytes.TrimSpace(r.Body)) > 0:
		e.respBody, e.respBodyJSON = r.Body, true
	}
	return e, nil
}

// route finds the path templates of e's URL (an error when the
// description has none).
func (d *Description) route(e exchange) ([]match, error) {
	ms, err := d.router.route(e.url)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", e.method, e.url.Redacted(), err)
	}
	return ms, nil
}

// check validates e, returning its differences from the description and
// notes on what it could not check.
func (d *Description) check(e exchange) (problems, notes []string) {
	ms, err := d.route(e)
	if err != nil {
		return []string{err.Error()}, nil
	}
	tmpls := make([]string, len(ms))
	for i, m := range ms {
		tmpls[i] = m.tmpl
	}
	if err := d.prepare(tmpls); err != nil {
		return []string{err.Error()}, nil
	}
	pick := ms[0] // the most specific with the method
	d.mu.Lock()
	for _, m := range ms {
		if d.loaded[m.tmpl].Paths.Value(m.tmpl).GetOperation(e.method) != nil {
			pick = m
			break
		}
	}
	doc := d.loaded[pick.tmpl]
	d.mu.Unlock()
	tmpl, params := pick.tmpl, pick.params
	item := doc.Paths.Value(tmpl)
	op := item.GetOperation(e.method)
	name := e.method + " " + tmpl
	if op == nil {
		var have []string
		for m := range item.Operations() {
			have = append(have, m)
		}
		sort.Strings(have)
		return []string{fmt.Sprintf("%s: the description has no such operation (%s has %s)", name, tmpl, strings.Join(have, ", "))}, nil
	}
	bad := func(format string, args ...any) {
		problems = append(problems, name+": "+fmt.Sprintf(format, args...))
	}

	// The request.
	req := &http.Request{Method: e.method, URL: e.url, Header: e.reqHeader, Host: e.url.Host}
	if e.reqBody != nil {
		req.Body = io.NopCloser(bytes.NewReader(e.reqBody))
		req.ContentLength = int64(len(e.reqBody))
	}
	route := &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: e.method, Operation: op}
	opts := &openapi3filter.Options{
		MultiError:                        true,
		IncludeResponseStatus:             true,
		RejectWhenRequestBodyNotSpecified: true,
		SkipSettingDefaults:               true,
		AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		problems = append(problems, explain(name, err)...)
	}
	declared := map[string]bool{}
	var deep []string
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
				if p.Value.Style == openapi3.SerializationDeepObject {
					deep = append(deep, p.Value.Name+"[")
				}
			}
		}
	}
	var unknown []string
	for k := range e.url.Query() {
		if declared[k] || hasAnyPrefix(k, deep) {
			continue
		}
		unknown = append(unknown, k)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		have := make([]string, 0, len(declared))
		for k := range declared {
			have = append(have, k)
		}
		sort.Strings(have)
		bad("request query: %s not declared (the operation declares: %s)", strings.Join(unknown, ", "), strings.Join(have, ", "))
	}

	// The response.
	rname := name + ": response " + strconv.Itoa(e.status)
	resp := op.Responses.Status(e.status)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil {
		var codes []string
		for c := range op.Responses.Map() {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		if e.status < 400 {
			return append(problems, fmt.Sprintf("%s: not declared (the operation declares %s)", rname, strings.Join(codes, ", "))), notes
		}
		if d.v.errorSchema == "" {
			return problems, append(notes, fmt.Sprintf("%s: not declared (the operation declares %s); its body is not checked", rname, strings.Join(codes, ", ")))
		}
		notes = append(notes, fmt.Sprintf("%s: not declared (the operation declares %s); its body is checked against %s", rname, strings.Join(codes, ", "), d.v.errorSchema))
		return append(problems, d.checkErrorBody(doc, rname, e)...), notes
	}
	if e.status >= 400 && len(resp.Value.Content) == 0 && d.v.errorSchema != "" && len(e.respBody) > 0 {
		notes = append(notes, fmt.Sprintf("%s: declared without a body; its body is checked against %s", rname, d.v.errorSchema))
		problems = append(problems, d.checkErrorBody(doc, rname, e)...)
	}
	body := e.respBody
	rin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: e.status, Header: e.respHeader,
		Body: io.NopCloser(bytes.NewReader(body)), Options: opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), rin); err != nil {
		problems = append(problems, explain(rname, err)...)
	}
	return problems, notes
}

// checkErrorBody checks an undeclared error answer's body against the
// vendor's error schema.
func (d *Description) checkErrorBody(doc *openapi3.T, rname string, e exchange) []string {
	segs, _ := pointer(d.v.errorSchema)
	if len(segs) != 3 || segs[0] != "components" || segs[1] != "schemas" || doc.Components == nil {
		return []string{rname + ": the vendor's error schema " + d.v.errorSchema + " is not a component schema"}
	}
	ref := doc.Components.Schemas[segs[2]]
	if ref == nil || ref.Value == nil {
		return []string{rname + ": the description has no " + d.v.errorSchema}
	}
	if !e.respBodyJSON {
		return []string{rname + " body: not JSON, but the vendor's errors are " + d.v.errorSchema}
	}
	var v any
	if err := json.Unmarshal(e.respBody, &v); err != nil {
		return []string{rname + " body: " + err.Error()}
	}
	if err := ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.VisitAsResponse()); err != nil {
		return explain(rname+" body", err)
	}
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
