package server

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/store"
)

// The connect page and the error page: server-rendered HTML, no script.
//
//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// vendors are the kinds' names and a line on what connecting one reads,
// for the connect page.
var vendors = map[string][2]string{
	"github":          {"GitHub", "Repositories, issues, pull requests and organizations."},
	"gong":            {"Gong", "Calls, transcripts and users."},
	"hubspot":         {"HubSpot", "Contacts, companies, deals and tickets."},
	"intercom":        {"Intercom", "Conversations, contacts and companies."},
	"mailchimp":       {"Mailchimp", "Audiences, campaigns and reports."},
	"salesforce":      {"Salesforce", "Accounts, contacts, opportunities and other records."},
	"zendesk-support": {"Zendesk Support", "Tickets, users, organizations and help center articles."},
}

// vendorName is kind's display name.
func vendorName(kind string) string {
	if v, ok := vendors[kind]; ok {
		return v[0]
	}
	return kind
}

// inputLabels are the labels of the kinds' inputs.
var inputLabels = map[string]string{"subdomain": "Zendesk subdomain", "login_url": "Salesforce login URL", "region": "Intercom region"}

type inputView struct {
	ID, Field, Label, Doc, Value string
	Required                     bool
	// Choices are the values a select offers (none: a text field).
	Choices []string
	// ErrID is the id of the error message about this input, if any.
	ErrID string
}

type kindView struct {
	ID, Kind, Name, About string
	Inputs                []inputView
	Error                 string
	// Scopes are what the vendor's consent page will ask the person to
	// allow (the service's app's scopes, or the kind's), each with the
	// kind's note on it; ConsentNote, when the request names none.
	Scopes      []scopeView
	ConsentNote string
}

// scopeView is one scope the connect page lists, and what it allows
// beyond reading ("": nothing the person must know).
type scopeView struct{ Name, Note string }

// appLabel is how the connect and error pages name the application that
// sent the user.
func (s *Server) appLabel() string {
	if s.connect.appName != "" {
		return s.connect.appName
	}
	return "the application that sent you here"
}

// formError is a refused start, shown next to its kind's form.
type formError struct {
	kind, msg string
	values    map[string]string
}

// pageHeaders are the headers of every connect page and redirect: never
// cached, never framed, no referrer (the page's URL holds the session's
// token), no script.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'")
}

// render writes the page template name with data.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		s.log.Error("rendering a page", "request_id", info(r).id, "page", name, "err", err)
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString("<!doctype html><html lang=\"en\"><title>Error</title><h1>Something went wrong</h1></html>")
	}
	pageHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorPage answers with the error page: what happened, in words for the
// end user, the error code, and the way back to the application when the
// session is known.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, code, title, msg, back string) {
	info(r).errType = code
	s.render(w, r, status, "error", map[string]any{"Title": title, "Message": msg, "Code": code, "Return": back, "App": s.connect.appName})
}

// usedPage answers for a session that was used already.
func (s *Server) usedPage(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusGone, "session_used", "This link was already used",
		"Each connect link works once. Ask "+s.appLabel()+" for a new one.", "")
}

// connectPage is GET /connect/{token}: the kinds the session allows, a
// form each.
func (s *Server) connectPage(w http.ResponseWriter, r *http.Request) {
	cs, ok := s.sessionByToken(w, r)
	if !ok {
		return
	}
	s.renderConnect(w, r, http.StatusOK, cs, nil)
}

// renderConnect renders the connect page of cs, with fe's error next to
// its kind's form.
func (s *Server) renderConnect(w http.ResponseWriter, r *http.Request, status int, cs *store.ConnectSession, fe *formError) {
	var views []kindView
	for i, kind := range cs.AllowedKinds {
		app, err := kinds.OAuthApp(kind)
		if err != nil {
			continue
		}
		kv := kindView{ID: "k" + strconv.Itoa(i), Kind: kind, Name: vendorName(kind), About: vendors[kind][1], ConsentNote: app.ConsentNote}
		scopes := app.Scopes
		if own := s.connect.apps[kind].Scopes; own != nil {
			scopes = own
		}
		for _, sc := range scopes {
			kv.Scopes = append(kv.Scopes, scopeView{Name: sc, Note: app.ScopeNotes[sc]})
		}
		if len(scopes) > 0 {
			kv.ConsentNote = ""
		}
		if fe != nil && fe.kind == kind {
			kv.Error = fe.msg
		}
		for _, in := range app.Inputs {
			iv := inputView{ID: kv.ID + "-" + in.Name, Field: inputField(kind, in.Name), Label: inputLabels[in.Name], Doc: in.Doc,
				Required: in.Required, Value: s.connect.apps[kind].Inputs[in.Name], Choices: in.ChoiceValues()}
			if iv.Label == "" {
				iv.Label = strings.ReplaceAll(in.Name, "_", " ")
			}
			if fe != nil && fe.kind == kind {
				iv.Value = fe.values[in.Name]
				iv.ErrID = "err-" + kv.ID
			}
			if iv.Value == "" && len(iv.Choices) > 0 {
				iv.Value = in.Default
			}
			kv.Inputs = append(kv.Inputs, iv)
		}
		views = append(views, kv)
	}
	title := "Connect an account"
	if fe != nil {
		title = "Error: " + title
	}
	s.render(w, r, status, "connect", map[string]any{"Title": title, "Kinds": views, "CSRF": s.csrfToken(cs.ID),
		"App": s.connect.appName, "AppLabel": s.appLabel(),
		"Action": s.connect.public.Path + "/connect/" + r.PathValue("token"), "Reconnect": cs.ConnectorID != "",
		"Expires": cs.Expires.UTC().Format(time.RFC1123)})
}
