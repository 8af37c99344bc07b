// Package intercomtest is an in-process fake of Intercom's REST API 2.11, for
// testing code that reads Intercom without a network or an account.
//
// It serves Intercom's documented paths under its own loopback origin, so a
// client whose base URL is Server.URL sends exactly the requests it would
// send to https://api.intercom.io (or a regional host):
//
//	GET  /contacts               {"type":"list","data":[...],"total_count","pages"}
//	GET  /contacts/{id}
//	POST /contacts/search        query, sort, pagination; the list's envelope
//	GET  /conversations          {"type":"conversation.list","conversations":[...],...}
//	GET  /conversations/{id}     with conversation_parts; display_as=plaintext
//	POST /conversations/search   query, sort, pagination; the list's envelope
//	GET  /companies              {"type":"list","data":[...],"pages","total_count"}
//	POST /companies/list         the same list, page/per_page/order in the query
//	GET  /companies/scroll       scroll_param paging over every company
//	GET  /companies/{id}
//	GET  /teams, /teams/{id}     {"type":"team.list","teams":[...]}
//	GET  /admins, /admins/{id}   {"type":"admin.list","admins":[...]}
//	GET  /tags, /tags/{id}       {"type":"list","data":[...]}
//	GET  /segments, /segments/{id} {"type":"segment.list","segments":[...]}
//
// What it reproduces:
//
//   - Authentication with "Authorization: Bearer <token>" (DefaultAccessToken
//     unless WithCredentials says otherwise); anything else gets Intercom's
//     401 error.list {"code":"unauthorized","message":"Access Token Invalid"}.
//   - The Intercom-Version header: echoed on the response; a missing header
//     means the app's version (WithAppVersion, default "2.11"); an unknown
//     version is a 400 intercom_version_invalid. Bodies always have the
//     2.11 shapes.
//   - Cursor paging for contacts, conversations and companies: per_page
//     (1..150, more is a 400 parameter_invalid) and starting_after in the
//     query; pages.next = {"page","per_page","starting_after"} while more
//     records follow. Default page sizes: contacts 50, conversations 20,
//     companies 15. contacts and companies also take page.
//   - The company list's cap: GET /companies and POST /companies/list stop
//     after 10,000 companies (total_count still counts all of them); only
//     GET /companies/scroll reaches the rest. One scroll may be open at a
//     time (another open is a 400 scroll_exists); it expires after one idle
//     minute (WithScrollIdleTimeout shortens that for tests); the first
//     response with empty data ends it; an injected 500 ends it too, while
//     a cut connection leaves it open, the page lost, as Intercom would.
//   - X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on
//     every response, counted in 10-second windows; WithRateLimit enforces
//     the limit with Intercom's 429.
//   - error.list bodies for 401, 404 (with each endpoint's own code:
//     not_found, company_not_found, team_not_found, admin_not_found), 400,
//     429 and 500, each with a request_id.
//   - Search (contacts, conversations): filters with Intercom's operators,
//     AND/OR groups (at most 15 filters, two levels), timestamps matched by
//     calendar day in the workspace's time zone (UTC here): = the day, >
//     from the next day's start, < before the day's start; other operators
//     on timestamps are a 400. Records render as the lists render them.
//   - Mutations (Create, Update, Delete on contacts, conversations and
//     companies, at the fake's Clock) that every list, get, scroll and
//     search shows.
//   - Conversation attachments whose url is on Intercom's file host,
//     https://downloads.intercomcdn.com (AttachmentOrigin), whatever port
//     the fake listens on, so a record reads the same from every fake;
//     FilesURL serves their paths with byte ranges and without credentials.
//
// Data is synthetic and deterministic: record i is a pure function of i, so
// WithContacts(1_000_000) costs no start-up time or memory.
//
// OAuth consent: GET /oauth is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /auth/eagle/token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with DefaultClientID and DefaultClientSecret; the answer carries the access token the fake accepts (token and access_token; it does not expire).
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package intercomtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Defaults and limits of the fake, matching Intercom's where Intercom
// documents them.
const (
	// DefaultAccessToken is the access token the fake accepts unless
	// WithCredentials sets another.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID and DefaultClientSecret are the OAuth app the
	// consent page (/oauth) and the token endpoint (/auth/eagle/token)
	// know; the exchange issues the access token the fake accepts.
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	// DefaultVersion is the app's API version, used when a request has no
	// Intercom-Version header.
	DefaultVersion = "2.11"
	// WorkspaceID is the id of the fake workspace (workspace_id, app_id).
	WorkspaceID = "tq3fk9zx"

	// MaxPerPage is the largest per_page Intercom accepts.
	MaxPerPage = 150
	// DefaultContactsPerPage, DefaultConversationsPerPage and
	// DefaultCompaniesPerPage are the page sizes without per_page.
	DefaultContactsPerPage      = 50
	DefaultConversationsPerPage = 20
	DefaultCompaniesPerPage     = 15
	// CompanyListLimit is how many companies the plain company list reaches.
	CompanyListLimit = 10_000
	// ScrollPageSize is the number of companies per scroll page.
	ScrollPageSize = 50
	// ScrollIdleTimeout is how long an unused scroll stays open (unless
	// WithScrollIdleTimeout says otherwise).
	ScrollIdleTimeout = time.Minute

	// RateLimitWindow is the length of a rate-limit window.
	RateLimitWindow = 10 * time.Second
	// DefaultRateLimit is the number of requests per window the headers
	// announce: a private app's 10,000 a minute, enforced per 10 seconds.
	DefaultRateLimit = 1666

	// Default volumes of the main entities.
	DefaultContacts      = 250
	DefaultConversations = 45
	DefaultCompanies     = 40
)

// Faults configures injected faults (latency, 429, 5xx, cut bodies).
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

type config struct {
	faults        Faults
	token         string
	appVersion    string
	contacts      int
	conversations int
	companies     int
	rateLimit     int
	window        time.Duration
	fileCutEvery  int
	scrollIdle    time.Duration
	now           func() time.Time
	scrollNow     func() time.Time
	clock         *fakeserver.Clock
}

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithCredentials sets the access token the fake accepts.
func WithCredentials(accessToken string) Option { return func(c *config) { c.token = accessToken } }

// WithAppVersion sets the API version used for requests without an
// Intercom-Version header (the version configured on the app).
func WithAppVersion(v string) Option { return func(c *config) { c.appVersion = v } }

// WithContacts sets the number of contacts.
func WithContacts(n int) Option { return func(c *config) { c.contacts = max(n, 0) } }

// WithConversations sets the number of conversations.
func WithConversations(n int) Option { return func(c *config) { c.conversations = max(n, 0) } }

// WithCompanies sets the number of companies.
func WithCompanies(n int) Option { return func(c *config) { c.companies = max(n, 0) } }

// WithRateLimit enforces a limit of n requests per RateLimitWindow: the
// request after the n-th in a window gets Intercom's 429. Without it the
// headers announce DefaultRateLimit and nothing is refused.
func WithRateLimit(n int) Option { return func(c *config) { c.rateLimit = max(n, 0) } }

// WithRateLimitWindow sets the length of a rate-limit window
// (RateLimitWindow by default): a test scales Intercom's 10 seconds down
// to one. Windows start at multiples of d on the wall clock; keep d a
// whole number of seconds, as X-RateLimit-Reset is.
func WithRateLimitWindow(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.window = d
		}
	}
}

// WithFileCutEvery drops the connection after every n bytes of attachment
// content, so that downloads must resume with ranged requests.
func WithFileCutEvery(n int) Option { return func(c *config) { c.fileCutEvery = max(n, 0) } }

// WithScrollIdleTimeout sets how long an unused company scroll stays open
// (Intercom's minute by default), so that tests of clients that wait for
// an abandoned scroll to expire need not wait a minute.
func WithScrollIdleTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.scrollIdle = d
		}
	}
}

// WithScrollClock sets the clock the fake reads to expire idle scrolls
// (time.Now by default). A test that passes a clock it moves by hand
// decides when an idle scroll expires, whatever the speed of the machine.
// Rate-limit windows and X-RateLimit-Reset stay on the wall clock, which
// clients compare them with.
func WithScrollClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.scrollNow = now
		}
	}
}

// Server is a running fake of Intercom's API.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock // mutations' time
	ov    overlay           // what Create, Update and Delete did

	searchMu    sync.Mutex
	searchCache map[string]*searchRows // by entity: records decoded once per version
	hitsVersion int64                  // the version of the records hitsCache holds matches of
	hitsCache   map[string][]hit       // by entity, order and query: matches sorted once per version

	mu          sync.Mutex
	windowStart time.Time
	windowCount int
	requestSeq  uint64
	scroll      *scrollState
	scrollSeq   uint64
}

type scrollState struct {
	param    string
	next     int
	lastUsed time.Time
}

// New starts a fake on loopback. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{
		token:         DefaultAccessToken,
		appVersion:    DefaultVersion,
		contacts:      DefaultContacts,
		conversations: DefaultConversations,
		companies:     DefaultCompanies,
		scrollIdle:    ScrollIdleTimeout,
		now:           time.Now,
		window:        RateLimitWindow,
		scrollNow:     time.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		start := time.Now().UTC().Truncate(time.Second)
		if last := latestGenerated(cfg); start.Before(last) {
			start = last
		}
		cfg.clock = fakeserver.NewClock(start)
	}
	s := &Server{cfg: cfg, clock: cfg.clock,
		ov: overlay{extra: map[string]int{}, dead: map[string]int{}, recs: map[string]map[int]change{}}}
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Intercom", AuthorizePath: "/oauth", TokenPath: "/auth/eagle/token",
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Now: cfg.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any {
			// Intercom's tokens do not expire and have no refresh token.
			return map[string]any{"token_type": "Bearer", "token": cfg.token, "access_token": cfg.token}
		},
	})
	s.Server = fakeserver.New(oauth.Wrap(s.apiHandler()), http.HandlerFunc(s.serveFile), cfg.faults, fakeserver.Vendor{
		RateLimited: s.faultRateLimited,
		ServerError: s.faultServerError,
	})
	return s
}

// knownVersions are the values Intercom accepts in Intercom-Version.
var knownVersions = map[string]bool{
	"1.0": true, "1.1": true, "1.2": true, "1.3": true, "1.4": true,
	"2.0": true, "2.1": true, "2.2": true, "2.3": true, "2.4": true, "2.5": true,
	"2.6": true, "2.7": true, "2.8": true, "2.9": true, "2.10": true, "2.11": true,
	"2.12": true, "2.13": true, "2.14": true, "2.15": true, "2.16": true,
	"Unstable": true, "Preview": true,
}

func (s *Server) apiHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /contacts", s.listContacts)
	mux.HandleFunc("GET /contacts/{id}", s.getContact)
	mux.HandleFunc("POST /contacts/search", s.search(contactsEntity))
	mux.HandleFunc("POST /conversations/search", s.search(conversationsEntity))
	mux.HandleFunc("GET /conversations", s.listConversations)
	mux.HandleFunc("GET /conversations/{id}", s.getConversation)
	mux.HandleFunc("GET /companies", s.listCompanies)
	mux.HandleFunc("POST /companies/list", s.listCompanies)
	mux.HandleFunc("GET /companies/scroll", s.scrollCompanies)
	mux.HandleFunc("GET /companies/{id}", s.getCompany)
	mux.HandleFunc("GET /teams", s.listTeams)
	mux.HandleFunc("GET /teams/{id}", s.getTeam)
	mux.HandleFunc("GET /me", s.me)
	mux.HandleFunc("GET /admins", s.listAdmins)
	mux.HandleFunc("GET /admins/{id}", s.getAdmin)
	mux.HandleFunc("GET /tags", s.listTags)
	mux.HandleFunc("GET /tags/{id}", s.getTag)
	mux.HandleFunc("GET /segments", s.listSegments)
	mux.HandleFunc("GET /segments/{id}", s.getSegment)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, http.StatusNotFound, "not_found", "The requested resource does not exist; check your path and try again", "")
	})

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limited := s.countRequest(w)
		version := r.Header.Get("Intercom-Version")
		if version == "" {
			version = s.cfg.appVersion
		}
		w.Header().Set("Intercom-Version", version)
		if limited {
			s.writeRateLimited(w)
			return
		}
		if !s.authorized(r) {
			s.writeError(w, http.StatusUnauthorized, "unauthorized", "Access Token Invalid", "")
			return
		}
		if !knownVersions[version] {
			s.writeError(w, http.StatusBadRequest, "intercom_version_invalid", "The requested version could not be found", "")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && token != "" && token == s.cfg.token
}

// ---------------------------------------------------------------- rate limit

// countRequest counts r in the current window, writes the X-RateLimit-*
// headers and reports whether an enforced limit is exceeded.
func (s *Server) countRequest(w http.ResponseWriter) bool {
	s.mu.Lock()
	now := s.cfg.now()
	start := now.Truncate(s.cfg.window)
	if !start.Equal(s.windowStart) {
		s.windowStart, s.windowCount = start, 0
	}
	s.windowCount++
	count := s.windowCount
	s.mu.Unlock()

	limit := s.limit()
	s.setRateHeaders(w, max(limit-count, 0), start.Add(s.cfg.window))
	return s.cfg.rateLimit > 0 && count > s.cfg.rateLimit
}

func (s *Server) limit() int {
	if s.cfg.rateLimit > 0 {
		return s.cfg.rateLimit
	}
	return DefaultRateLimit
}

func (s *Server) setRateHeaders(w http.ResponseWriter, remaining int, reset time.Time) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.limit()))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	secs := reset.Unix()
	if reset.Nanosecond() > 0 {
		secs++
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(secs, 10))
}

func (s *Server) writeRateLimited(w http.ResponseWriter) {
	s.writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "You have exceeded the rate limit. Please try again later.", "")
}

// faultRateLimited is the injected 429: X-RateLimit-Remaining 0 and a reset
// retryAfter from now. Intercom sends no Retry-After.
func (s *Server) faultRateLimited(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	s.setRateHeaders(w, 0, s.cfg.now().Add(retryAfter))
	s.writeRateLimited(w)
}

// faultServerError is the injected 500. On the scroll endpoint it ends the
// open scroll, as Intercom does: the client must start again.
func (s *Server) faultServerError(w http.ResponseWriter, r *http.Request) {
	s.countRequest(w)
	if r.URL.Path == "/companies/scroll" {
		s.mu.Lock()
		s.scroll = nil
		s.mu.Unlock()
		s.writeError(w, http.StatusInternalServerError, "server_error", "Request failed due to an internal network error. Please restart the scroll operation.", "")
		return
	}
	s.writeError(w, http.StatusInternalServerError, "server_error", "Server Error", "")
}

// ---------------------------------------------------------------- errors

type errorItem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

type errorList struct {
	Type      string      `json:"type"`
	RequestID string      `json:"request_id"`
	Errors    []errorItem `json:"errors"`
}

func (s *Server) nextRequestID() string {
	s.mu.Lock()
	s.requestSeq++
	n := s.requestSeq
	s.mu.Unlock()
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

func (s *Server) writeError(w http.ResponseWriter, status int, code, message, field string) {
	fakeserver.WriteJSON(w, status, mustJSON(errorList{
		Type:      "error.list",
		RequestID: s.nextRequestID(),
		Errors:    []errorItem{{Code: code, Message: message, Field: field}},
	}))
}

func writeOK(w http.ResponseWriter, v any) { fakeserver.WriteJSON(w, http.StatusOK, mustJSON(v)) }

// ---------------------------------------------------------------- paging

// view is an ordered selection of records: count of them, at(pos) the
// index of the record at position pos, posOf the inverse. indexOf maps a
// record id to its index (set by the list handler).
type view struct {
	count   int
	at      func(pos int) int
	posOf   func(index int) (int, bool)
	indexOf func(id string) (int, bool)
}

func (v view) position(id string) (int, bool) {
	if v.indexOf == nil {
		return 0, false
	}
	i, ok := v.indexOf(id)
	if !ok {
		return 0, false
	}
	return v.posOf(i)
}

func ascending(n int) view {
	return view{
		count: n,
		at:    func(p int) int { return p },
		posOf: func(i int) (int, bool) { return i, i >= 0 && i < n },
	}
}

// descendingEvery selects the indices i < n with i%m == k, largest first.
func descendingEvery(n, m, k int) view {
	c := membersOf(n, m, k)
	return view{
		count: c,
		at:    func(p int) int { return k + (c-1-p)*m },
		posOf: func(i int) (int, bool) {
			if i < 0 || i >= n || i%m != k {
				return 0, false
			}
			return c - 1 - (i-k)/m, true
		},
	}
}

type nextPage struct {
	Page          int    `json:"page"`
	PerPage       int    `json:"per_page"`
	StartingAfter string `json:"starting_after"`
}

// pages is Intercom's cursor_pages object. Next is omitted on the last page
// of contacts and conversations and null on the last page of companies,
// as Intercom's own examples show.
type pages struct {
	Type       string `json:"type"`
	Next       any    `json:"next,omitempty"`
	Page       int    `json:"page"`
	PerPage    int    `json:"per_page"`
	TotalPages int    `json:"total_pages"`
}

type window struct {
	offset, end, page, perPage int
}

// parsePaging reads per_page, starting_after and (when allowPage) page for
// a list over v; it writes the 400 itself and returns ok=false on bad input.
func (s *Server) parsePaging(w http.ResponseWriter, r *http.Request, v view, defaultPer int, allowPage bool) (window, bool) {
	q := r.URL.Query()
	win := window{perPage: defaultPer, page: 1}
	if raw := q.Get("per_page"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > MaxPerPage {
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", "per_page must be between 1 and 150", "per_page")
			return win, false
		}
		win.perPage = n
	}
	switch after := q.Get("starting_after"); {
	case after != "":
		id, page, ok := decodeCursor(after)
		pos, found := 0, false
		if ok {
			pos, found = v.position(id)
		}
		if !found {
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", "starting_after is invalid", "starting_after")
			return win, false
		}
		win.offset, win.page = pos+1, page
	case allowPage && q.Get("page") != "":
		p, err := strconv.Atoi(q.Get("page"))
		if err != nil || p < 1 {
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", "page must be a positive integer", "page")
			return win, false
		}
		win.page = p
		win.offset = v.count
		if p-1 <= v.count { // no overflow: per_page is at most 150
			win.offset = min((p-1)*win.perPage, v.count)
		}
	}
	win.end = min(win.offset+win.perPage, v.count)
	if win.offset > win.end {
		win.offset = win.end
	}
	return win, true
}

// A cursor is, like Intercom's, base64 of a JSON array: the sort key in
// milliseconds, the id of the last record served and the next page number.
func encodeCursor(sortKeySeconds int, id string, nextPage int) string {
	b, _ := json.Marshal([]any{int64(sortKeySeconds) * 1000, id, nextPage})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCursor(c string) (id string, page int, ok bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return "", 0, false
	}
	var parts []json.RawMessage
	if json.Unmarshal(b, &parts) != nil || len(parts) != 3 {
		return "", 0, false
	}
	if json.Unmarshal(parts[1], &id) != nil || json.Unmarshal(parts[2], &page) != nil || page < 1 {
		return "", 0, false
	}
	return id, page, true
}

func totalPages(total, per int) int { return (total + per - 1) / per }

// ---------------------------------------------------------------- contacts

type contactList struct {
	Type       string    `json:"type"`
	Data       []contact `json:"data"`
	TotalCount int       `json:"total_count"`
	Pages      pages     `json:"pages"`
}

func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) {
	v := ascending(s.total(contactsEntity))
	v.indexOf = func(id string) (int, bool) { return hexIndex(contactIDPrefix, id) }
	v = s.live(contactsEntity, v)
	win, ok := s.parsePaging(w, r, v, DefaultContactsPerPage, true)
	if !ok {
		return
	}
	out := contactList{Type: "list", Data: make([]contact, 0, win.end-win.offset), TotalCount: v.count,
		Pages: pages{Type: "pages", Page: win.page, PerPage: win.perPage, TotalPages: totalPages(v.count, win.perPage)}}
	for p := win.offset; p < win.end; p++ {
		out.Data = append(out.Data, s.contact(v.at(p)))
	}
	if win.end < v.count && len(out.Data) > 0 {
		last := out.Data[len(out.Data)-1]
		out.Pages.Next = nextPage{Page: win.page + 1, PerPage: win.perPage, StartingAfter: encodeCursor(last.CreatedAt, last.ID, win.page+1)}
	}
	writeOK(w, out)
}

func (s *Server) getContact(w http.ResponseWriter, r *http.Request) {
	i, ok := hexIndex(contactIDPrefix, r.PathValue("id"))
	if !ok || !s.exists(contactsEntity, i) {
		s.writeError(w, http.StatusNotFound, "not_found", "User Not Found", "")
		return
	}
	writeOK(w, s.contact(i))
}

// ---------------------------------------------------------------- conversations

type conversationList struct {
	Type          string         `json:"type"`
	Pages         pages          `json:"pages"`
	TotalCount    int            `json:"total_count"`
	Conversations []conversation `json:"conversations"`
}

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request) {
	n := s.total(conversationsEntity)
	v := ascending(n)
	v.indexOf = func(id string) (int, bool) { return numIndex(conversationIDBase, id, n) }
	v = s.live(conversationsEntity, v)
	win, ok := s.parsePaging(w, r, v, DefaultConversationsPerPage, false)
	if !ok {
		return
	}
	out := conversationList{Type: "conversation.list", TotalCount: v.count, Conversations: make([]conversation, 0, win.end-win.offset),
		Pages: pages{Type: "pages", Page: win.page, PerPage: win.perPage, TotalPages: totalPages(v.count, win.perPage)}}
	for p := win.offset; p < win.end; p++ {
		out.Conversations = append(out.Conversations, s.conversation(v.at(p), false, false))
	}
	if win.end < v.count && len(out.Conversations) > 0 {
		last := out.Conversations[len(out.Conversations)-1]
		out.Pages.Next = nextPage{Page: win.page + 1, PerPage: win.perPage, StartingAfter: encodeCursor(last.CreatedAt, last.ID, win.page+1)}
	}
	writeOK(w, out)
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) {
	i, ok := numIndex(conversationIDBase, r.PathValue("id"), s.total(conversationsEntity))
	if !ok || !s.exists(conversationsEntity, i) {
		s.writeError(w, http.StatusNotFound, "not_found", "Resource Not Found", "")
		return
	}
	plain := r.URL.Query().Get("display_as") == "plaintext"
	writeOK(w, s.conversation(i, true, plain))
}

// ---------------------------------------------------------------- companies

type companyList struct {
	Type       string    `json:"type"`
	Data       []company `json:"data"`
	Pages      pages     `json:"pages"`
	TotalCount int       `json:"total_count"`
}

// listCompanies serves GET /companies (filters company_id, name, tag_id,
// segment_id) and POST /companies/list (order). Both list the companies
// most recently requested first, stop after CompanyListLimit and page with
// page/per_page or starting_after.
func (s *Server) listCompanies(w http.ResponseWriter, r *http.Request) {
	n := s.total(companiesEntity)
	q := r.URL.Query()
	v := descendingEvery(n, 1, 0)
	if r.Method == http.MethodGet {
		if id, name := q.Get("company_id"), q.Get("name"); id != "" || name != "" {
			s.findCompany(w, id, name)
			return
		}
		if t := q.Get("tag_id"); t != "" {
			k, ok := numIndex(tagIDBase, t, len(tagNames))
			if !ok {
				v = view{count: 0, posOf: func(int) (int, bool) { return 0, false }}
			} else {
				v = descendingEvery(n, len(tagNames), k)
			}
		} else if sg := q.Get("segment_id"); sg != "" {
			k, ok := hexIndex(segmentIDPrefix, sg)
			if !ok || k >= len(segmentDef) {
				v = view{count: 0, posOf: func(int) (int, bool) { return 0, false }}
			} else {
				v = descendingEvery(n, len(segmentDef), k)
			}
		}
	} else {
		switch q.Get("order") {
		case "", "desc":
		case "asc":
			v = ascending(n)
		default:
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", "order must be asc or desc", "order")
			return
		}
	}
	v.indexOf = func(id string) (int, bool) { return hexIndex(companyIDPrefix, id) }
	v = s.live(companiesEntity, v)
	total := v.count
	reachable := v
	reachable.count = min(v.count, CompanyListLimit)
	win, ok := s.parsePaging(w, r, reachable, DefaultCompaniesPerPage, true)
	if !ok {
		return
	}
	out := companyList{Type: "list", Data: make([]company, 0, win.end-win.offset), TotalCount: total,
		Pages: pages{Type: "pages", Next: json.RawMessage("null"), Page: win.page, PerPage: win.perPage, TotalPages: totalPages(total, win.perPage)}}
	for p := win.offset; p < win.end; p++ {
		out.Data = append(out.Data, s.company(reachable.at(p)))
	}
	if win.end < reachable.count && len(out.Data) > 0 {
		last := out.Data[len(out.Data)-1]
		out.Pages.Next = nextPage{Page: win.page + 1, PerPage: win.perPage, StartingAfter: encodeCursor(last.LastRequestAt, last.ID, win.page+1)}
	}
	writeOK(w, out)
}

// findCompany answers GET /companies?company_id= or ?name= with a list of
// the one matching company, or Intercom's 404.
func (s *Server) findCompany(w http.ResponseWriter, id, name string) {
	i := -1
	if id != "" {
		var n int
		if _, err := fmt.Sscanf(id, "cmp-%d", &n); err == nil && fmt.Sprintf("cmp-%07d", n) == id && s.exists(companiesEntity, n) {
			i = n
		}
	}
	if i < 0 && name != "" {
		if at := strings.LastIndexByte(name, ' '); at > 0 {
			if n, err := strconv.Atoi(name[at+1:]); err == nil && s.exists(companiesEntity, n) && s.company(n).Name == name {
				i = n
			}
		}
	}
	if i < 0 {
		s.writeError(w, http.StatusNotFound, "company_not_found", "Company Not Found", "")
		return
	}
	writeOK(w, companyList{Type: "list", Data: []company{s.company(i)}, TotalCount: 1,
		Pages: pages{Type: "pages", Next: json.RawMessage("null"), Page: 1, PerPage: DefaultCompaniesPerPage, TotalPages: 1}})
}

func (s *Server) getCompany(w http.ResponseWriter, r *http.Request) {
	i, ok := hexIndex(companyIDPrefix, r.PathValue("id"))
	if !ok || !s.exists(companiesEntity, i) {
		s.writeError(w, http.StatusNotFound, "company_not_found", "Company Not Found", "")
		return
	}
	writeOK(w, s.company(i))
}

// companyScroll is Intercom's company_scroll body; pages and total_count
// are null, as in Intercom's example.
type companyScroll struct {
	Type        string    `json:"type"`
	Data        []company `json:"data"`
	Pages       *pages    `json:"pages"`
	TotalCount  *int      `json:"total_count"`
	ScrollParam string    `json:"scroll_param"`
}

func (s *Server) scrollCompanies(w http.ResponseWriter, r *http.Request) {
	param := r.URL.Query().Get("scroll_param")
	now := s.cfg.scrollNow()

	s.mu.Lock()
	sc := s.scroll
	if sc != nil && now.Sub(sc.lastUsed) > s.cfg.scrollIdle {
		s.scroll, sc = nil, nil
	}
	var errCode, errMsg string
	switch {
	case param == "" && sc != nil:
		errCode, errMsg = "scroll_exists", "scroll already exists for this app"
	case param == "":
		s.scrollSeq++
		sc = &scrollState{param: fmt.Sprintf("5c7011a0-0000-4000-8000-%012x", s.scrollSeq)}
		s.scroll = sc
	case sc == nil || sc.param != param:
		errCode, errMsg = "parameter_invalid", "scroll_param is invalid or has expired"
	}
	var from, to int
	if errCode == "" {
		from = sc.next
		to = min(from+ScrollPageSize, s.total(companiesEntity))
		sc.next, sc.lastUsed = to, now
		if from >= to {
			s.scroll = nil // the end: this scroll_param expires
		}
		param = sc.param
	}
	s.mu.Unlock()

	if errCode != "" {
		s.writeError(w, http.StatusBadRequest, errCode, errMsg, "")
		return
	}
	out := companyScroll{Type: "list", Data: make([]company, 0, to-from), ScrollParam: param}
	for i := from; i < to; i++ {
		if !s.deleted(companiesEntity, i) {
			out.Data = append(out.Data, s.company(i))
		}
	}
	writeOK(w, out)
}

// ---------------------------------------------------------------- teams, admins, tags, segments

func (s *Server) listTeams(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Type  string `json:"type"`
		Teams []team `json:"teams"`
	}{Type: "team.list", Teams: make([]team, 0, len(teamNames))}
	for t := range teamNames {
		out.Teams = append(out.Teams, teamAt(t))
	}
	writeOK(w, out)
}

func (s *Server) getTeam(w http.ResponseWriter, r *http.Request) {
	t, ok := numIndex(teamIDBase, r.PathValue("id"), len(teamNames))
	if !ok {
		s.writeError(w, http.StatusNotFound, "team_not_found", "Team not found", "")
		return
	}
	writeOK(w, teamAt(t))
}

func (s *Server) listAdmins(w http.ResponseWriter, r *http.Request) {
	withAvatar := r.URL.Query().Get("display_avatar") == "true"
	out := struct {
		Type   string  `json:"type"`
		Admins []admin `json:"admins"`
	}{Type: "admin.list", Admins: make([]admin, 0, numAdmins)}
	for k := range numAdmins {
		out.Admins = append(out.Admins, adminAt(k, withAvatar))
	}
	writeOK(w, out)
}

// me answers GET /me: the admin the token acts as (the workspace's first)
// with its app, as Intercom's admin_with_app.
func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	type app struct {
		Type                 string `json:"type"`
		IDCode               string `json:"id_code"`
		Name                 string `json:"name"`
		CreatedAt            int64  `json:"created_at"`
		Secure               bool   `json:"secure"`
		IdentityVerification bool   `json:"identity_verification"`
		Timezone             string `json:"timezone"`
		Region               string `json:"region"`
	}
	out := struct {
		admin
		App app `json:"app"`
	}{admin: adminAt(0, true), App: app{Type: "app", IDCode: "tributaryfakeapp", Name: "Tributary Fake",
		CreatedAt: 1719492696, Timezone: "America/Los_Angeles", Region: "US"}}
	writeOK(w, out)
}

func (s *Server) getAdmin(w http.ResponseWriter, r *http.Request) {
	k, ok := numIndex(adminIDBase, r.PathValue("id"), numAdmins)
	if !ok {
		s.writeError(w, http.StatusNotFound, "admin_not_found", "Admin not found", "")
		return
	}
	writeOK(w, adminAt(k, true))
}

func (s *Server) listTags(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Type string    `json:"type"`
		Data []tagFull `json:"data"`
	}{Type: "list", Data: make([]tagFull, 0, len(tagNames))}
	for k := range tagNames {
		out.Data = append(out.Data, tagAt(k))
	}
	writeOK(w, out)
}

func (s *Server) getTag(w http.ResponseWriter, r *http.Request) {
	k, ok := numIndex(tagIDBase, r.PathValue("id"), len(tagNames))
	if !ok {
		s.writeError(w, http.StatusNotFound, "not_found", "Resource Not Found", "")
		return
	}
	writeOK(w, tagBasic{Type: "tag", ID: strconv.Itoa(tagIDBase + k), Name: tagNames[k]})
}

func (s *Server) listSegments(w http.ResponseWriter, r *http.Request) {
	withCount := r.URL.Query().Get("include_count") == "true"
	out := struct {
		Type     string    `json:"type"`
		Segments []segment `json:"segments"`
	}{Type: "segment.list", Segments: make([]segment, 0, len(segmentDef))}
	for k := range segmentDef {
		count := -1
		if withCount {
			count = membersOf(s.cfg.contacts, len(segmentDef), k)
		}
		out.Segments = append(out.Segments, segmentAt(k, count))
	}
	writeOK(w, out)
}

func (s *Server) getSegment(w http.ResponseWriter, r *http.Request) {
	k, ok := hexIndex(segmentIDPrefix, r.PathValue("id"))
	if !ok || k >= len(segmentDef) {
		s.writeError(w, http.StatusNotFound, "not_found", "Resource Not Found", "")
		return
	}
	writeOK(w, segmentAt(k, -1))
}

// ---------------------------------------------------------------- files

// serveFile serves conversation attachments at
// /attachments/{conversation id}/{name}, without credentials.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/attachments/")
	convID, name, ok2 := strings.Cut(rest, "/")
	var i int
	if ok && ok2 {
		i, ok = numIndex(conversationIDBase, convID, s.total(conversationsEntity))
	}
	a, has := attachmentOf(i, AttachmentOrigin)
	if !ok || !ok2 || !has || a.Name != name || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{
		Name:        a.Name,
		ContentType: a.ContentType,
		ETag:        fmt.Sprintf(`"att-%s-v1"`, convID),
		ModTime:     time.Unix(int64(baseTime+i*1800), 0).UTC(),
		Content:     AttachmentContent(i),
		CutEvery:    s.cfg.fileCutEvery,
	})
}

// AttachmentContent returns the bytes of the attachment of conversation
// index i (every tenth conversation has one), for tests that compare a
// download with what the fake served.
func AttachmentContent(i int) []byte {
	n := attachmentSize(i)
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	x := uint32(i)*2654435761 + 1
	for k := 8; k < n; k++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[k] = byte(x)
	}
	return b
}

// ContactID returns the id of contact index i (0-based, in list order), for
// tests that address records directly.
func ContactID(i int) string { return contactID(i) }

// ConversationID returns the id of conversation index i (0-based, in list
// order).
func ConversationID(i int) string { return conversationID(i) }

// CompanyID returns the Intercom id of company index i. The company list
// serves the highest index first (most recently requested); the scroll
// serves index 0 first.
func CompanyID(i int) string { return companyID(i) }
