// Package mailchimptest is an in-process fake of the Mailchimp Marketing API
// 3.0, for testing code that reads Mailchimp without a network or an account.
//
// The fake serves the vendor's documented paths under /3.0 on a loopback
// origin (Server.URL), whatever the host, so a client whose base URL is
// Server.URL sends exactly the requests it would send to
// https://<dc>.api.mailchimp.com. It reproduces what a client must handle:
//
//   - authentication: HTTP Basic with any user name and the API key as the
//     password, or an OAuth access token as "Authorization: Bearer <token>";
//     anything else gets Mailchimp's 401 problem document;
//   - named envelopes ("campaigns", "lists", "members", "reports", "emails",
//     "automations", "tags", "categories", "interests", "segments",
//     "unsubscribes") with total_items and HATEOAS _links on
//     https://us6.api.mailchimp.com, whatever port the fake listens on;
//   - offset paging with count (default 10, at most 1000: a larger count gets
//     a 400 "Invalid Resource") and offset;
//   - errors as application/problem+json {type, title, status, detail,
//     instance} with X-Request-Id and a Link describedBy header;
//   - Mailchimp's only rate limit, a cap on simultaneous connections per API
//     key (10 by default): a request beyond the cap gets 429 "Too Many
//     Requests". A request counts from the moment the fake starts on it
//     until its response starts, so a client that keeps at most 10 requests
//     open never sees this 429; MaxInFlight and TooManyRequests tell a test
//     what the fake saw. Like Mailchimp, the fake sends no rate-limit
//     headers and no Retry-After, not even on injected 429s;
//   - subscriber hashes: members are addressed by the MD5 hex digest of the
//     lower-cased email address, or by the raw address.
//
// Data is synthetic and deterministic: record i of every entity is a pure
// function of i and the options, generated on demand, so a fake with a
// million members starts instantly. Filters are honoured where Mailchimp
// documents them (status, type, list_id, date ranges, vip_only, interests,
// tag name prefix, include_* on segment members, sort_dir); fields and
// exclude_fields are accepted and ignored, as are unknown parameters.
// Mailchimp has no file downloads in this scope, so FilesURL serves nothing.
//
// The fake is read-only over HTTP: every method other than GET (and HEAD)
// gets 405. Tests change its records through fakeserver.Mutable instead
// (Create, Update, Delete and IDs of lists, campaigns and the first list's
// members, at the fake's Clock), and every list, get and filter shows the
// change.
//
// OAuth consent: GET /oauth2/authorize is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /oauth2/token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with DefaultClientID and DefaultClientSecret; the answer carries the access token the fake accepts (expires_in 0), and GET /oauth2/metadata with "Authorization: OAuth <token>" names the data centre (dc) and api_endpoint.
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package mailchimptest

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless WithCredentials says otherwise. They are
// the placeholders the Mailchimp fixtures use.
const (
	// DefaultAPIKey is the API key accepted as the Basic password. Its suffix
	// after the last "-" is the data centre (us6).
	DefaultAPIKey = "TESTKEY0123456789abcdef-us6"
	// DefaultAccessToken is the OAuth access token accepted as a Bearer token.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID and DefaultClientSecret are the OAuth app the
	// consent page (/oauth2/authorize) and the token endpoint
	// (/oauth2/token) know; the exchange issues the access token the fake
	// accepts, and /oauth2/metadata names the data centre of the API key.
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
)

// Limits of the API that the fake enforces.
const (
	// MaxCount is the largest page size (count) Mailchimp accepts.
	MaxCount = 1000
	// DefaultCount is the page size when the request gives no count.
	DefaultCount = 10
	// DefaultConcurrencyLimit is Mailchimp's cap on simultaneous connections
	// per API key.
	DefaultConcurrencyLimit = 10
)

// Default synthetic volumes.
const (
	defaultCampaigns          = 25
	defaultLists              = 3
	defaultListMembers        = 50
	defaultAutomations        = 3
	defaultInterestCategories = 2
	defaultInterests          = 3
	defaultSegments           = 3
	defaultTags               = 5
	defaultEmailActivity      = 20
	defaultUnsubscribes       = 3
)

// Faults configures injected faults; see fakeserver.Faults. Injected 429s
// carry no Retry-After (Mailchimp sends none), so Faults.RetryAfter has no
// effect on this fake.
type Faults = fakeserver.Faults

// Server is a running fake of Mailchimp's Marketing API.
type Server struct {
	*fakeserver.Server // URL (API origin), FilesURL, Requests(), SetFaults(), Close()

	cfg config

	reqSeq atomic.Uint64 // request ids

	mu          sync.Mutex
	inFlight    map[string]int // per credential
	maxInFlight int            // the most requests of one credential in flight at once
	tooMany     int            // requests refused for exceeding the concurrency limit

	hashOnce  sync.Once
	hashIndex map[[md5.Size]byte]int // subscriber hash -> member index (small fakes)

	m *mutations // created, updated and archived members of the first list
}

var _ fakeserver.Mutable = (*Server)(nil)

type config struct {
	apiKey      string
	accessToken string
	faults      Faults

	campaigns          int
	lists              int
	members            int
	automations        int
	interestCategories int
	interests          int
	segments           int
	tags               int
	emailActivity      int
	unsubscribes       int

	concurrency int
	work        time.Duration
	clock       *fakeserver.Clock
}

// Option configures a Server.
type Option func(*config)

// WithFaults injects faults (latency, 429, 5xx, connections cut mid-body)
// into API responses. Server.SetFaults changes them later.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithCredentials sets the API key (Basic password, any user name) and the
// OAuth access token (Bearer) the fake accepts. An empty value disables that
// method. The defaults are DefaultAPIKey and DefaultAccessToken.
func WithCredentials(apiKey, accessToken string) Option {
	return func(c *config) { c.apiKey, c.accessToken = apiKey, accessToken }
}

// WithCampaigns sets the number of campaigns (default 25). Seven in ten are
// sent and have a report, email activity and unsubscribes.
func WithCampaigns(n int) Option { return func(c *config) { c.campaigns = max(n, 0) } }

// WithLists sets the number of lists, Mailchimp's audiences (default 3).
func WithLists(n int) Option { return func(c *config) { c.lists = max(n, 0) } }

// WithListMembers sets the number of members of each list (default 50).
// Every list holds the same addresses, member0@example.com and up.
func WithListMembers(n int) Option { return func(c *config) { c.members = max(n, 0) } }

// WithAutomations sets the number of classic automations (default 3).
func WithAutomations(n int) Option { return func(c *config) { c.automations = max(n, 0) } }

// WithInterestCategories sets the number of interest categories of each list
// (default 2).
func WithInterestCategories(n int) Option {
	return func(c *config) { c.interestCategories = max(n, 0) }
}

// WithInterests sets the number of interests of each interest category
// (default 3).
func WithInterests(n int) Option { return func(c *config) { c.interests = max(n, 0) } }

// WithSegments sets the number of segments of each list (default 3). Member m
// belongs to segment m mod n.
func WithSegments(n int) Option { return func(c *config) { c.segments = max(n, 0) } }

// WithTags sets the number of tags of each list (default 5).
func WithTags(n int) Option { return func(c *config) { c.tags = max(n, 0) } }

// WithEmailActivity sets the number of recipients in the email activity of
// each sent campaign (default 20, at most the members per list).
func WithEmailActivity(n int) Option { return func(c *config) { c.emailActivity = max(n, 0) } }

// WithUnsubscribes sets the most unsubscribes reported for each sent campaign
// (default 3); only members whose status is unsubscribed are reported.
func WithUnsubscribes(n int) Option { return func(c *config) { c.unsubscribes = max(n, 0) } }

// WithConcurrencyLimit sets the number of simultaneous requests per
// credential beyond which the fake answers 429 (default 10, Mailchimp's
// limit). Zero or less disables the limit.
func WithConcurrencyLimit(n int) Option { return func(c *config) { c.concurrency = n } }

// WithProcessingTime makes every authenticated request take at least d while
// it counts against the concurrency limit. (Faults.Latency is added before the
// request reaches the fake's handler, so it does not count.)
func WithProcessingTime(d time.Duration) Option { return func(c *config) { c.work = d } }

// New starts a fake on loopback. The caller must Close it.
func New(opts ...Option) *Server {
	cfg := config{
		apiKey:             DefaultAPIKey,
		accessToken:        DefaultAccessToken,
		campaigns:          defaultCampaigns,
		lists:              defaultLists,
		members:            defaultListMembers,
		automations:        defaultAutomations,
		interestCategories: defaultInterestCategories,
		interests:          defaultInterests,
		segments:           defaultSegments,
		tags:               defaultTags,
		emailActivity:      defaultEmailActivity,
		unsubscribes:       defaultUnsubscribes,
		concurrency:        DefaultConcurrencyLimit,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, inFlight: make(map[string]int), m: newMutations(cfg.clock)}
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Mailchimp", AuthorizePath: "/oauth2/authorize", TokenPath: "/oauth2/token",
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Now: cfg.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any {
			// Mailchimp's tokens never expire: expires_in 0, no scope.
			return map[string]any{"access_token": cfg.accessToken, "expires_in": 0, "scope": nil}
		},
	})
	s.Server = fakeserver.New(oauth.Wrap(http.HandlerFunc(s.serveMetadataOr(s.serveAPI))), nil, cfg.faults, fakeserver.Vendor{
		RateLimited: func(w http.ResponseWriter, r *http.Request, _ time.Duration) {
			s.problem(w, r, http.StatusTooManyRequests, "Too Many Requests", detailTooMany, nil)
		},
		ServerError: func(w http.ResponseWriter, r *http.Request) {
			s.problem(w, r, http.StatusInternalServerError, "Internal Server Error",
				"An unexpected internal error has occurred. Please contact Support for more information.", nil)
		},
	})
	return s
}

// SubscriberHash returns Mailchimp's id of a list member: the MD5 hex digest
// of the lower-cased email address.
func SubscriberHash(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return hex.EncodeToString(sum[:])
}

const (
	problemType   = "https://mailchimp.com/developer/marketing/docs/errors/"
	detailTooMany = "You have exceeded the limit of 10 simultaneous connections."
	detailInvalid = "The resource submitted could not be validated. For field-specific details, see the 'errors' array."
	detailMissing = "The requested resource could not be found."
)

// fieldError is one entry of the errors array of a 400 "Invalid Resource".
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type problemDoc struct {
	Type     string       `json:"type"`
	Title    string       `json:"title"`
	Status   int          `json:"status"`
	Detail   string       `json:"detail"`
	Instance string       `json:"instance"`
	Errors   []fieldError `json:"errors,omitempty"`
}

// requestID returns a fresh, deterministic request id in UUID form.
func (s *Server) requestID() string {
	n := s.reqSeq.Add(1)
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

// problem writes Mailchimp's problem+json error document.
func (s *Server) problem(w http.ResponseWriter, r *http.Request, status int, title, detail string, errs []fieldError) {
	id := w.Header().Get("X-Request-Id")
	if id == "" {
		id = s.requestID()
		w.Header().Set("X-Request-Id", id)
	}
	body, _ := json.Marshal(problemDoc{Type: problemType, Title: title, Status: status, Detail: detail, Instance: id, Errors: errs})
	w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
	w.Header().Set("Link", "<"+fakeserver.BaseURL(r)+"/schema/3.0/Definitions/ProblemDetailDocument.json>; rel=\"describedBy\"")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.problem(w, r, http.StatusNotFound, "Resource Not Found", detailMissing, nil)
}

func (s *Server) invalid(w http.ResponseWriter, r *http.Request, errs ...fieldError) {
	s.problem(w, r, http.StatusBadRequest, "Invalid Resource", detailInvalid, errs)
}

// writeJSON writes a 200 with body encoded as JSON. Like Mailchimp it does
// not escape &, < and > in strings.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, body any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		s.problem(w, r, http.StatusInternalServerError, "Internal Server Error", err.Error(), nil)
		return
	}
	fakeserver.WriteJSON(w, http.StatusOK, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// DataCenter returns the data centre the fake plays: the suffix of its API
// key ("us6" by default), as the metadata endpoint names it.
func (s *Server) DataCenter() string {
	if i := strings.LastIndexByte(s.cfg.apiKey, '-'); i >= 0 {
		return s.cfg.apiKey[i+1:]
	}
	return "us6"
}

// serveMetadataOr serves GET /oauth2/metadata (login.mailchimp.com's), which
// takes "Authorization: OAuth <access token>" and names the account's data
// centre and API endpoint (the fake's own origin), and passes every other
// request to api.
func (s *Server) serveMetadataOr(api http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oauth2/metadata" {
			api(w, r)
			return
		}
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "OAuth") || tok == "" || tok != s.cfg.accessToken {
			b, _ := json.Marshal(map[string]string{"error": "invalid_token", "error_description": "Invalid or missing OAuth token."})
			fakeserver.WriteJSON(w, http.StatusUnauthorized, b)
			return
		}
		base := fakeserver.BaseURL(r)
		b, _ := json.Marshal(map[string]any{
			"dc": s.DataCenter(), "role": "owner", "accountname": "Fake Chimp Co.", "user_id": 4242,
			"login":     map[string]any{"email": "owner@example.com", "login_id": 4242, "login_name": "owner"},
			"login_url": base, "api_endpoint": base,
		})
		fakeserver.WriteJSON(w, http.StatusOK, b)
	}
}

// authenticate returns the credential the request carries if the fake
// accepts it; otherwise it writes the 401 and returns "".
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) string {
	h := r.Header.Get("Authorization")
	if h == "" {
		s.problem(w, r, http.StatusUnauthorized, "API Key Missing", "Your request did not include an API key.", nil)
		return ""
	}
	scheme, value, _ := strings.Cut(h, " ")
	value = strings.TrimSpace(value)
	switch {
	case strings.EqualFold(scheme, "Basic") && s.cfg.apiKey != "":
		raw, err := base64.StdEncoding.DecodeString(value)
		if err == nil {
			if _, pass, ok := strings.Cut(string(raw), ":"); ok && pass == s.cfg.apiKey {
				return "key:" + pass
			}
		}
	case strings.EqualFold(scheme, "Bearer") && s.cfg.accessToken != "":
		if value == s.cfg.accessToken {
			return "token:" + value
		}
	}
	s.problem(w, r, http.StatusUnauthorized, "API Key Invalid",
		"Your API key may be invalid, or you've attempted to access the wrong datacenter.", nil)
	return ""
}

// acquire counts a request against the concurrency limit of its credential.
// It reports false, and counts nothing, when the limit is already reached.
func (s *Server) acquire(cred string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.concurrency > 0 && s.inFlight[cred] >= s.cfg.concurrency {
		s.tooMany++
		return false
	}
	s.inFlight[cred]++
	s.maxInFlight = max(s.maxInFlight, s.inFlight[cred])
	return true
}

// MaxInFlight returns the most requests of one credential the fake has
// processed at the same time since it started.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// TooManyRequests returns how many requests the fake has refused with 429
// for exceeding the concurrency limit (injected faults are not counted).
func (s *Server) TooManyRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tooMany
}

// releasingWriter releases a request's concurrency slot when its response
// starts, before any byte of it can reach the client. (Releasing when the
// handler returns would be too late: the last bytes may already have been
// flushed, so a client that waits for each response before sending the next
// request could be refused for a request that, as far as it can tell, has
// finished.)
type releasingWriter struct {
	http.ResponseWriter
	release func()
	done    bool
}

func (w *releasingWriter) free() {
	if !w.done {
		w.done = true
		w.release()
	}
}

func (w *releasingWriter) WriteHeader(status int) {
	w.free()
	w.ResponseWriter.WriteHeader(status)
}

func (w *releasingWriter) Write(b []byte) (int, error) {
	w.free()
	return w.ResponseWriter.Write(b)
}

func (s *Server) release(cred string) {
	s.mu.Lock()
	if s.inFlight[cred]--; s.inFlight[cred] <= 0 {
		delete(s.inFlight, cred)
	}
	s.mu.Unlock()
}

// serveAPI authenticates, applies the concurrency limit and routes.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Request-Id", s.requestID())
	cred := s.authenticate(w, r)
	if cred == "" {
		return
	}
	if !s.acquire(cred) {
		s.problem(w, r, http.StatusTooManyRequests, "Too Many Requests", detailTooMany, nil)
		return
	}
	rw := &releasingWriter{ResponseWriter: w, release: func() { s.release(cred) }}
	defer rw.free()
	w = rw
	if s.cfg.work > 0 {
		if !sleep(r.Context(), s.cfg.work) {
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		s.problem(w, r, http.StatusMethodNotAllowed, "Method Not Allowed",
			"The requested method and resource are not compatible. See the Allow header for this resource's available methods.", nil)
		return
	}
	s.route(w, r)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// route dispatches on the path below /3.0.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/3.0/")
	if !ok {
		s.notFound(w, r)
		return
	}
	seg := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	switch seg[0] {
	case "ping":
		if len(seg) == 1 {
			s.writeJSON(w, r, map[string]string{"health_status": "Everything's Chimpy!"})
			return
		}
	case "campaigns":
		switch len(seg) {
		case 1:
			s.listCampaigns(w, r)
			return
		case 2:
			s.getCampaign(w, r, seg[1])
			return
		}
	case "automations":
		if len(seg) == 1 {
			s.listAutomations(w, r)
			return
		}
	case "reports":
		switch {
		case len(seg) == 1:
			s.listReports(w, r)
			return
		case len(seg) == 2:
			s.getReport(w, r, seg[1])
			return
		case len(seg) == 3 && seg[2] == "email-activity":
			s.listEmailActivity(w, r, seg[1])
			return
		case len(seg) == 3 && seg[2] == "unsubscribed":
			s.listUnsubscribes(w, r, seg[1])
			return
		}
	case "lists":
		if len(seg) == 1 {
			s.listLists(w, r)
			return
		}
		s.routeList(w, r, seg[1], seg[2:])
		return
	}
	s.notFound(w, r)
}

// routeList dispatches /3.0/lists/{list_id}/...
func (s *Server) routeList(w http.ResponseWriter, r *http.Request, listID string, seg []string) {
	l, ok := s.listIndex(listID)
	if !ok {
		s.notFound(w, r)
		return
	}
	if len(seg) == 0 {
		s.getList(w, r, l)
		return
	}
	switch {
	case seg[0] == "members" && len(seg) == 1:
		s.listMembers(w, r, l)
	case seg[0] == "members" && len(seg) == 2:
		s.getMember(w, r, l, seg[1])
	case seg[0] == "tag-search" && len(seg) == 1:
		s.listTags(w, r, l)
	case seg[0] == "interest-categories" && len(seg) == 1:
		s.listInterestCategories(w, r, l)
	case seg[0] == "interest-categories" && len(seg) == 2:
		s.getInterestCategory(w, r, l, seg[1])
	case seg[0] == "interest-categories" && len(seg) == 3 && seg[2] == "interests":
		s.listInterests(w, r, l, seg[1])
	case seg[0] == "interest-categories" && len(seg) == 4 && seg[2] == "interests":
		s.getInterest(w, r, l, seg[1], seg[3])
	case seg[0] == "segments" && len(seg) == 1:
		s.listSegments(w, r, l)
	case seg[0] == "segments" && len(seg) == 2:
		s.getSegment(w, r, l, seg[1])
	case seg[0] == "segments" && len(seg) == 3 && seg[2] == "members":
		s.listSegmentMembers(w, r, l, seg[1])
	default:
		s.notFound(w, r)
	}
}
