package salesforcetest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Defaults of the credentials the fake accepts.
const (
	DefaultAccessToken  = "TEST_ACCESS_TOKEN"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
)

// Defaults of the fake's behaviour.
const (
	// DefaultBatchSize is the number of records in a query page when the
	// request carries no Sforce-Query-Options batchSize. (Salesforce's own
	// default is 2,000; 200 keeps paging visible with small data sets.)
	DefaultBatchSize = 200
	// DefaultDailyAPILimit is the org's daily API request allocation shown in
	// Sforce-Limit-Info.
	DefaultDailyAPILimit = 15000
	// DefaultMaxOpenCursors is how many query locators stay open at once;
	// opening one more releases the oldest, as Salesforce does per user.
	DefaultMaxOpenCursors = 10
)

// Credentials are the OAuth values the fake accepts: AccessToken on the data
// API (Authorization: Bearer), the others on the token endpoint.
type Credentials struct {
	AccessToken  string
	RefreshToken string
	ClientID     string
	// ClientSecret, when empty, is not required by the token endpoint (a
	// connected app that does not require the secret for refresh).
	ClientSecret string
}

// Faults is fakeserver.Faults, so that code outside this module can name it.
// The fake's rate-limit fault is Salesforce's 403 REQUEST_LIMIT_EXCEEDED
// (no Retry-After); its server error is a 500 UNKNOWN_EXCEPTION.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

type config struct {
	data         dataset
	faults       Faults
	creds        Credentials
	batchSize    int
	maxCursors   int
	dailyLimit   int
	usage        int
	fileCutEvery int
	clock        *fakeserver.Clock
}

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithCredentials replaces the credentials the fake accepts.
func WithCredentials(cr Credentials) Option { return func(c *config) { c.creds = cr } }

func withCount(obj int, n int) Option {
	return func(c *config) { c.data.counts[obj] = max(n, 0) }
}

// WithAccounts sets the number of Account records (default 250).
func WithAccounts(n int) Option { return withCount(objAccount, n) }

// WithContacts sets the number of Contact records (default 500).
func WithContacts(n int) Option { return withCount(objContact, n) }

// WithLeads sets the number of Lead records (default 300).
func WithLeads(n int) Option { return withCount(objLead, n) }

// WithOpportunities sets the number of Opportunity records (default 250).
func WithOpportunities(n int) Option { return withCount(objOpportunity, n) }

// WithTasks sets the number of Task records (default 400).
func WithTasks(n int) Option { return withCount(objTask, n) }

// WithEvents sets the number of Event records (default 200).
func WithEvents(n int) Option { return withCount(objEvent, n) }

// WithCampaigns sets the number of Campaign records (default 25).
func WithCampaigns(n int) Option { return withCount(objCampaign, n) }

// WithCases sets the number of Case records (default 150).
func WithCases(n int) Option { return withCount(objCase, n) }

// WithNotes sets the number of Note records (default 100).
func WithNotes(n int) Option { return withCount(objNote, n) }

// WithContentVersions sets the number of ContentVersion records (default 50).
func WithContentVersions(n int) Option { return withCount(objContentVersion, n) }

// WithAttachments sets the number of Attachment records (default 50).
func WithAttachments(n int) Option { return withCount(objAttachment, n) }

// WithFileSize makes every ContentVersion and Attachment file exactly n
// bytes (ContentSize and BodyLength follow). By default sizes vary between
// 512 bytes and 33 KiB.
func WithFileSize(n int) Option { return func(c *config) { c.data.fileSize = max(n, 0) } }

// WithFileCutEvery drops the connection after every n bytes of a file body
// (VersionData, Body), so that clients must resume with ranged requests.
func WithFileCutEvery(n int) Option { return func(c *config) { c.fileCutEvery = max(n, 0) } }

// WithClock sets the clock that stamps the records Create, Update and
// Delete change (fakeserver.Mutable). By default the clock starts at the
// current time, truncated to the second (or just after the newest
// generated record, when that is later) and moves only when the test
// advances it.
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithBatchSize sets the default number of records per query page
// (clamped to Salesforce's 200..2000). A request's
// Sforce-Query-Options: batchSize=n still overrides it.
func WithBatchSize(n int) Option { return func(c *config) { c.batchSize = min(max(n, 200), 2000) } }

// WithMaxOpenCursors sets how many query locators stay open at once.
func WithMaxOpenCursors(n int) Option { return func(c *config) { c.maxCursors = max(n, 1) } }

// WithDailyAPILimit sets the org's daily API request allocation.
func WithDailyAPILimit(n int) Option { return func(c *config) { c.dailyLimit = max(n, 0) } }

// WithAPIUsage sets the number of API requests already used today.
func WithAPIUsage(n int) Option { return func(c *config) { c.usage = max(n, 0) } }

// WithQuotaExhausted starts the fake with the daily allocation used up:
// every data request is answered 403 REQUEST_LIMIT_EXCEEDED.
func WithQuotaExhausted() Option { return func(c *config) { c.usage = -1 } }

// Server is a running fake of the Salesforce REST API (one org, one
// instance). URL is the instance URL; the token endpoint is served there
// too, at /services/oauth2/token.
type Server struct {
	*fakeserver.Server

	cfg    config
	schema *schema

	mu          sync.Mutex
	usage       int
	cursors     map[string]*cursor
	cursorOrder []string
	cursorSeq   int
	tokens      map[string]bool // access tokens valid now
	tokenGen    int
	ov          *overlay // what Create, Update and Delete changed
	updates     int      // updates so far, numbering the rewritten values
	clock       *fakeserver.Clock
}

// New starts a fake on loopback. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{
		creds: Credentials{
			AccessToken: DefaultAccessToken, RefreshToken: DefaultRefreshToken,
			ClientID: DefaultClientID, ClientSecret: DefaultClientSecret,
		},
		batchSize:  DefaultBatchSize,
		maxCursors: DefaultMaxOpenCursors,
		dailyLimit: DefaultDailyAPILimit,
	}
	cfg.data.counts = [numObjects]int{
		objAccount: 250, objContact: 500, objLead: 300, objOpportunity: 250, objTask: 400,
		objEvent: 200, objCampaign: 25, objCase: 150, objNote: 100, objContentVersion: 50, objAttachment: 50,
	}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.data.counts[objUser] = userCount
	if cfg.usage < 0 {
		cfg.usage = cfg.dailyLimit
	}
	s := &Server{
		cfg:     cfg,
		schema:  newSchema(),
		usage:   cfg.usage,
		cursors: map[string]*cursor{},
		tokens:  map[string]bool{},
		ov:      &overlay{},
		clock:   cfg.clock,
	}
	if s.clock == nil {
		start := time.Now().UTC().Truncate(time.Second)
		if latest := latestGenerated(&cfg.data); latest.After(start) {
			start = latest
		}
		s.clock = fakeserver.NewClock(start)
	}
	if cfg.creds.AccessToken != "" {
		s.tokens[cfg.creds.AccessToken] = true
	}
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Salesforce", AuthorizePath: "/services/oauth2/authorize", TokenPath: "/services/oauth2/token",
		ClientID: cfg.creds.ClientID, ClientSecret: cfg.creds.ClientSecret, PKCE: true, Now: s.clock.Now,
		Issue: func(r *http.Request, _ fakeserver.Grant) map[string]any {
			var m map[string]any
			_ = json.Unmarshal(s.tokenAnswer(r, s.cfg.creds.RefreshToken), &m)
			return m
		},
	})
	s.Server = fakeserver.New(oauth.Wrap(http.HandlerFunc(s.serveAPI)), nil, cfg.faults, fakeserver.Vendor{
		RateLimited: s.rateLimited,
		ServerError: s.serverError,
	})
	return s
}

// TokenURL returns the URL of the fake's OAuth token endpoint (what a
// client passes as its token URL; Salesforce's is
// https://login.salesforce.com/services/oauth2/token).
func (s *Server) TokenURL() string { return s.URL + "/services/oauth2/token" }

// AccessToken returns an access token the data API accepts now.
func (s *Server) AccessToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.tokens {
		return t
	}
	return ""
}

// ExpireAccessToken ends the current session: every access token issued so
// far is refused with 401 INVALID_SESSION_ID, and the next refresh at the
// token endpoint issues a new one.
func (s *Server) ExpireAccessToken() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
	s.tokenGen++
}

// APIUsage returns the number of API requests counted today.
func (s *Server) APIUsage() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// SetAPIUsage sets the number of API requests counted today; at or above
// the daily limit every data request gets 403 REQUEST_LIMIT_EXCEEDED.
func (s *Server) SetAPIUsage(n int) {
	s.mu.Lock()
	s.usage = max(n, 0)
	s.mu.Unlock()
}

// RecordID returns the id of record i (0-based) of the given sObject
// ("Account", "Contact", ...), as the fake issues it, or "" for an object
// the fake does not serve.
func RecordID(sobject string, i int) string {
	for _, p := range []struct{ name, prefix string }{
		{"Account", "001"}, {"Contact", "003"}, {"Lead", "00Q"}, {"Opportunity", "006"},
		{"Task", "00T"}, {"Event", "00U"}, {"Campaign", "701"}, {"Case", "500"},
		{"Note", "002"}, {"ContentVersion", "068"}, {"Attachment", "00P"}, {"User", "005"},
	} {
		if strings.EqualFold(p.name, sobject) {
			return makeID(p.prefix, i)
		}
	}
	return ""
}

// ---- responses ----

func (s *Server) writeJSON(w http.ResponseWriter, status int, body []byte) {
	fakeserver.WriteJSON(w, status, body)
}

// writeError writes Salesforce's error body: a JSON array of
// {message, errorCode}.
func (s *Server) writeError(w http.ResponseWriter, e *apiError) {
	b := []byte(`[{"message":`)
	b = appendString(b, e.msg)
	b = append(b, `,"errorCode":`...)
	b = appendString(b, e.code)
	b = append(b, "}]"...)
	s.writeJSON(w, e.status, b)
}

var (
	errNotFound     = &apiError{404, "NOT_FOUND", "The requested resource does not exist"}
	errSession      = &apiError{401, "INVALID_SESSION_ID", "Session expired or invalid"}
	errRequestLimit = &apiError{403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded."}
	errUnknown      = &apiError{500, "UNKNOWN_EXCEPTION", "An unexpected error occurred. Please include this ErrorId if you contact support: 1850467713-52331 (-1270275219)"}
)

const oauthPathPrefix = "/services/oauth2/"

func (s *Server) limitInfo(w http.ResponseWriter) {
	s.mu.Lock()
	used, limit := s.usage, s.cfg.dailyLimit
	s.mu.Unlock()
	w.Header().Set("Sforce-Limit-Info", "api-usage="+strconv.Itoa(used)+"/"+strconv.Itoa(limit))
}

func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, _ time.Duration) {
	s.limitInfo(w)
	s.writeError(w, errRequestLimit)
}

func (s *Server) serverError(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, oauthPathPrefix) {
		s.writeJSON(w, http.StatusInternalServerError, []byte(`{"error":"unknown_error","error_description":"retry your request"}`))
		return
	}
	s.limitInfo(w)
	s.writeError(w, errUnknown)
}

// ---- routing ----

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/services/oauth2/token":
		s.handleToken(w, r)
	case p == "/services/data" || p == "/services/data/":
		s.handleVersions(w, r)
	case strings.HasPrefix(p, "/services/data/v"):
		s.serveData(w, r, strings.TrimPrefix(p, "/services/data/v"))
	default:
		s.writeError(w, errNotFound)
	}
}

func validVersion(v string) bool {
	major, minor, ok := strings.Cut(v, ".")
	if !ok || minor != "0" || major == "" || len(major) > 3 {
		return false
	}
	for i := 0; i < len(major); i++ {
		if !isDigit(major[i]) {
			return false
		}
	}
	return true
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "OAuth") {
		return false
	}
	tok = strings.TrimSpace(tok)
	s.mu.Lock()
	defer s.mu.Unlock()
	return tok != "" && s.tokens[tok]
}

// serveData serves /services/data/v{version}/{rest}.
func (s *Server) serveData(w http.ResponseWriter, r *http.Request, rest string) {
	version, sub, _ := strings.Cut(rest, "/")
	if !validVersion(version) {
		s.writeError(w, errNotFound)
		return
	}
	if !s.authorized(r) {
		s.writeError(w, errSession)
		return
	}
	s.mu.Lock()
	over := s.usage >= s.cfg.dailyLimit
	if !over {
		s.usage++
	}
	s.mu.Unlock()
	s.limitInfo(w)
	if over {
		s.writeError(w, errRequestLimit)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.writeError(w, &apiError{405, "METHOD_NOT_ALLOWED", "HTTP Method '" + r.Method + "' not allowed. Allowed are GET,HEAD"})
		return
	}
	sub = strings.TrimSuffix(sub, "/")
	parts := strings.Split(sub, "/")
	switch {
	case sub == "":
		s.handleResources(w, version)
	case parts[0] == "query" || parts[0] == "queryAll":
		switch len(parts) {
		case 1:
			s.handleQuery(w, r, version, parts[0] == "queryAll")
		case 2:
			s.handleQueryMore(w, r, version, parts[1])
		default:
			s.writeError(w, errNotFound)
		}
	case sub == "search":
		s.handleSearch(w, r, version)
	case sub == "limits":
		s.handleLimits(w)
	case parts[0] == "sobjects" && len(parts) == 3:
		s.handleGet(w, r, version, parts[1], parts[2])
	case parts[0] == "sobjects" && len(parts) == 4:
		s.handleBlob(w, r, version, parts[1], parts[2], parts[3])
	default:
		s.writeError(w, errNotFound)
	}
}

func (s *Server) handleVersions(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, []byte(`[{"label":"Summer '25","url":"/services/data/v64.0","version":"64.0"},`+
		`{"label":"Winter '26","url":"/services/data/v65.0","version":"65.0"},`+
		`{"label":"Spring '26","url":"/services/data/v66.0","version":"66.0"},`+
		`{"label":"Summer '26","url":"/services/data/v67.0","version":"67.0"}]`))
}

func (s *Server) handleResources(w http.ResponseWriter, version string) {
	base := "/services/data/v" + version
	b := []byte(`{`)
	for k, name := range []string{"limits", "query", "queryAll", "search", "sobjects"} {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		b = appendString(b, base+"/"+name)
	}
	b = append(b, '}')
	s.writeJSON(w, http.StatusOK, b)
}

func (s *Server) handleLimits(w http.ResponseWriter) {
	s.mu.Lock()
	used, limit := s.usage, s.cfg.dailyLimit
	s.mu.Unlock()
	b := []byte(`{"DailyApiRequests":{"Max":`)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"Remaining":`...)
	b = strconv.AppendInt(b, int64(max(limit-used, 0)), 10)
	b = append(b, "}}"...)
	s.writeJSON(w, http.StatusOK, b)
}

// record resolves /sobjects/{object}/{id} to a record index.
func (s *Server) record(c *gctx, objName, id string) (*object, int, *apiError) {
	o, ok := s.schema.byName[strings.ToLower(objName)]
	if !ok {
		return nil, 0, errNotFound
	}
	if !validIDFormat(id) {
		return nil, 0, &apiError{404, "NOT_FOUND", "Provided external ID field does not exist or is not accessible: " + id}
	}
	i, ok := parseID(o.prefix, id)
	if !ok || !c.live(o.idx, i) {
		return nil, 0, errNotFound
	}
	return o, i, nil
}

// handleGet serves GET /sobjects/{object}/{id}[?fields=a,b].
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, version, objName, id string) {
	c := s.ctx(version)
	o, i, err := s.record(c, objName, id)
	if err != nil {
		s.writeError(w, err)
		return
	}
	var fields []int
	if list := strings.TrimSpace(r.URL.Query().Get("fields")); list != "" {
		seen := map[int]bool{}
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			k, ok := o.field(name)
			if !ok {
				s.writeError(w, &apiError{400, "INVALID_FIELD", "No such column '" + name + "' on sobject of type " + o.name})
				return
			}
			if !seen[k] {
				seen[k] = true
				fields = append(fields, k)
			}
		}
		// The record always carries its Id.
		if k, _ := o.field("Id"); !seen[k] {
			fields = append(fields, k)
		}
	} else {
		fields = make([]int, len(o.fields))
		for k := range fields {
			fields[k] = k
		}
	}
	s.writeJSON(w, http.StatusOK, appendRecord(nil, c, o, i, direct(fields)))
}

// handleBlob serves GET /sobjects/ContentVersion/{id}/VersionData and
// /sobjects/Attachment/{id}/Body, honouring Range.
func (s *Server) handleBlob(w http.ResponseWriter, r *http.Request, version, objName, id, blob string) {
	c := s.ctx(version)
	o, i, err := s.record(c, objName, id)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if o.blob == "" || !strings.EqualFold(o.blob, blob) {
		s.writeError(w, errNotFound)
		return
	}
	fk := fileKindOf(o.idx, i)
	size := fileSize(c, o.idx, i)
	rid := makeID(o.prefix, i)
	fakeserver.ServeFile(w, r, fakeserver.File{
		Name:        rid + "." + fk.ext,
		ContentType: fk.mime,
		ModTime:     modifiedAt(o.idx, i).Truncate(time.Second),
		Content:     fileContent(size, rid, fk),
		CutEvery:    s.cfg.fileCutEvery,
	})
}

// FileContent returns the bytes of the file of a ContentVersion or
// Attachment record, exactly as VersionData or Body serves them, and
// whether the fake has such a record.
func (s *Server) FileContent(id string) ([]byte, bool) {
	if len(id) < 3 {
		return nil, false
	}
	o, ok := s.schema.byPrefix[id[:3]]
	if !ok || o.blob == "" {
		return nil, false
	}
	c := s.ctx("")
	o, i, err := s.record(c, o.name, id)
	if err != nil {
		return nil, false
	}
	return fileContent(fileSize(c, o.idx, i), makeID(o.prefix, i), fileKindOf(o.idx, i)), true
}
