// Package lineartest is an in-process fake of Linear's GraphQL API, for
// testing code that reads Linear offline.
//
// It serves, under its origin (Server.URL):
//
//	POST /graphql           queries, checked against Linear's own schema
//	GET  /oauth/authorize   the consent page (Approve, Deny)
//	POST /oauth/token       authorization_code (PKCE S256) and refresh_token grants
//
// Every request is parsed and validated with Linear's schema
// (packages/sdk/src/schema.graphql of linear/linear, embedded): a query
// that does not parse or validate, or variables of the wrong type, get
// Linear's 400 with errors[] and code GRAPHQL_VALIDATION_FAILED. A valid
// query is answered with exactly the fields it selects (aliases and
// fragments included), from the fake's records, for the root fields
// issues, issue (by id or identifier, ENG-12), projects, project, teams,
// team, users, user, comments, comment, workflowStates, workflowState,
// cycles, cycle, issueLabels, issueLabel, attachments, attachment,
// searchIssues and viewer; another root field, or a mutation, is an error.
//
// Lists are Relay connections: first (default 50, at most 250) and after,
// nodes, edges and pageInfo, with opaque cursors that hold the position
// (records changed during a walk are neither skipped nor repeated);
// newest first by createdAt, or by updatedAt (orderBy); archived records
// (and trashed issues) only with includeArchived; filter with the
// comparators eq, neq, gt, gte, lt, lte, in, nin, null, contains,
// containsIgnoreCase and startsWith on the records' fields and related
// records (team: {key: {eq: "ENG"}}), and and/or. A missing record is
// Linear's "Entity not found: Issue" (code INPUT_ERROR) in a 200.
//
// Authentication is Linear's: a personal API key as the whole
// Authorization header (with "Bearer " it is refused), or an OAuth access
// token as Bearer; anything else gets a 401 with AUTHENTICATION_ERROR.
// Every answer carries X-Complexity and the X-RateLimit-Requests-* and
// X-RateLimit-Complexity-* headers (resets in epoch milliseconds); with
// WithRateLimit the fake enforces the budgets on its clock and answers the
// request over them with a 400 RATELIMITED, as Linear does. Faults
// (WithFaults) inject the same RATELIMITED answer, and 500s.
//
// Records change while a test runs (Server implements fakeserver.Mutable):
// Create, Update and Delete at the fake's clock (WithClock). Delete does
// what Linear's delete mutations do: an issue or a project is trashed
// (trashed true, archivedAt set) and a team, cycle or workflow state
// archived, all of them still listed with includeArchived, which is how a
// change feed sees them; a user is suspended (active false, listed with
// includeDisabled); a comment, an attachment or a label is deleted
// outright, gone from every answer.
//
// Simplifications: lists page forward only (last and before are refused);
// searchIssues matches its term as a substring of titles and descriptions
// (and comment bodies with includeComments) in list order, its teamId
// ranking that team's issues first; the complexity of a query is estimated
// (an object 1 point, a scalar 0.1, a connection's nodes times first), and
// neither the per-query complexity ceiling nor searchIssues' own rate
// limit is enforced; a related record's own connections are empty.
package lineartest

import (
	_ "embed"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts by default.
const (
	// DefaultAPIKey is the personal API key, sent as "Authorization:
	// lin_api_TEST_API_KEY".
	DefaultAPIKey = "lin_api_TEST_API_KEY"
	// DefaultAccessToken is an OAuth access token that never expires.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID and DefaultClientSecret are the OAuth app;
	// DefaultRefreshToken is a refresh token it accepts (once: Linear
	// rotates refresh tokens).
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	// DefaultTokenLifetime is the expires_in of issued access tokens.
	DefaultTokenLifetime = 24 * time.Hour
)

// Linear's limits, as the fake announces them.
const (
	// RequestsLimit and ComplexityLimit are the budgets per hour of an API
	// key (X-RateLimit-Requests-Limit, X-RateLimit-Complexity-Limit).
	RequestsLimit   = 5000
	ComplexityLimit = 3_000_000
	// MaxFirst is the largest page.
	MaxFirst = 250
)

//go:embed schema.graphql
var schemaText string

// Schema is Linear's schema, parsed once per process (it is only read).
var Schema = sync.OnceValue(func() *ast.Schema {
	return gqlparser.MustLoadSchema(&ast.Source{Name: "schema.graphql", Input: schemaText})
})

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Credentials are what the fake accepts; an empty field accepts nothing.
type Credentials struct {
	APIKey, AccessToken                  string
	ClientID, ClientSecret, RefreshToken string
}

// Option configures a Server.
type Option func(*config)

type config struct {
	counts   map[string]int
	creds    Credentials
	faults   Faults
	clock    *fakeserver.Clock
	tokenTTL time.Duration
	limits   [2]*fakeserver.Window // requests, complexity; nil: not enforced
}

// WithIssues sets how many issues the workspace holds (default 120).
func WithIssues(n int) Option { return func(c *config) { c.counts["issues"] = max(n, 0) } }

// WithComments sets how many comments it holds (default 200).
func WithComments(n int) Option { return func(c *config) { c.counts["comments"] = max(n, 0) } }

// WithCount sets how many records any entity holds ("projects",
// "attachments", ...; teams at least 1).
func WithCount(entity string, n int) Option { return func(c *config) { c.counts[entity] = max(n, 0) } }

// WithCredentials replaces the accepted credentials.
func WithCredentials(cr Credentials) Option { return func(c *config) { c.creds = cr } }

// WithFaults injects faults (latency, RATELIMITED, 500, cut connections).
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithClock sets the fake's clock: the records' times, mutations, token
// expiry and rate-limit windows follow it (default: a clock stopped at the
// start, moved by Clock().Advance).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithTokenLifetime sets the expires_in of issued access tokens.
func WithTokenLifetime(d time.Duration) Option { return func(c *config) { c.tokenTTL = d } }

// WithRateLimit enforces Linear's budgets: requests and complexity points
// per window of length per, on the fake's clock (a
// fakeserver.NewRealClock for a client that paces itself). The request
// that does not fit gets a 400 RATELIMITED with the exhausted budget's
// remaining at what is left and its reset. Without it the counts roll
// over and never run out.
func WithRateLimit(requests, complexity int, per time.Duration) Option {
	return func(c *config) {
		c.limits = [2]*fakeserver.Window{{Limit: requests, Per: per}, {Limit: complexity, Per: per}}
	}
}

// Server is a running fake of Linear's API.
type Server struct {
	*fakeserver.Server

	clock  *fakeserver.Clock
	creds  Credentials
	limits [2]*fakeserver.Window
	gql    *fakeserver.GraphQL
	d      *data
	tokens fakeserver.Tokens // what the token endpoint issued, and the default refresh token

	mu       sync.Mutex
	counters [2]int // roll-over counts when no budget is enforced
}

// New starts a fake on loopback. Close it when done.
func New(opts ...Option) *Server {
	c := &config{counts: map[string]int{}, tokenTTL: DefaultTokenLifetime, creds: Credentials{
		APIKey: DefaultAPIKey, AccessToken: DefaultAccessToken,
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, RefreshToken: DefaultRefreshToken}}
	for _, o := range opts {
		o(c)
	}
	if c.clock == nil {
		c.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{clock: c.clock, creds: c.creds, limits: c.limits,
		gql: &fakeserver.GraphQL{Schema: Schema(), Code: "GRAPHQL_VALIDATION_FAILED"},
		tokens: fakeserver.Tokens{Now: c.clock.Now, TTL: c.tokenTTL,
			AccessFormat: "lin_oauth_fake_access_%d", RefreshFormat: "lin_refresh_fake_%d"}}
	// The default access token is checked apart (authorized): it never
	// expires, not even by ExpireAccessTokens.
	s.tokens.Accept("", c.creds.RefreshToken)
	s.d = newData(c.counts, c.clock.Now())
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Linear", AuthorizePath: "/oauth/authorize", TokenPath: "/oauth/token",
		ClientID: c.creds.ClientID, ClientSecret: c.creds.ClientSecret, PKCE: true, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.mint() },
	})
	s.Server = fakeserver.New(oauth.Wrap(http.HandlerFunc(s.serve)), nil, c.faults, fakeserver.Vendor{
		RateLimited: func(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration) {
			now := s.clock.Now()
			s.budgetHeaders(w.Header(), [2]int{0, ComplexityLimit}, [2]time.Time{now.Add(retryAfter), now.Add(time.Hour)}, 0)
			writeErrors(w, http.StatusBadRequest, rateLimited())
		},
		ServerError: func(w http.ResponseWriter, _ *http.Request) {
			writeErrors(w, http.StatusInternalServerError, lerr("INTERNAL_SERVER_ERROR", "internal error", "Internal server error", 500))
		},
	})
	return s
}

// Clock is the fake's clock (fakeserver.Mutable).
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// ExpireAccessTokens makes every access token the token endpoint has
// issued expired; refresh tokens stay valid.
func (s *Server) ExpireAccessTokens() { s.tokens.ExpireAll() }

// lerr is an error of Linear's errors[], with its extensions.
func lerr(code, typ, msg string, status int) *fakeserver.GraphQLError {
	return &fakeserver.GraphQLError{Message: msg, Extensions: map[string]any{
		"code": code, "type": typ, "statusCode": status, "userError": status < 500, "userPresentableMessage": msg}}
}

func rateLimited() *fakeserver.GraphQLError {
	return lerr("RATELIMITED", "ratelimited", "Rate limit exceeded. Please retry after the reset time.", 400)
}

// notFound is Linear's answer to a record that does not exist.
func notFound(typeName string) *fakeserver.GraphQLError {
	e := lerr("INPUT_ERROR", "invalid input", "Entity not found: "+typeName, 400)
	e.Extensions["userPresentableMessage"] = "Could not find referenced " + typeName + "."
	return e
}

func writeErrors(w http.ResponseWriter, status int, errs ...*fakeserver.GraphQLError) {
	fakeserver.JSON(w, status, map[string]any{"errors": errs})
}

// serve answers the API origin (the OAuth server took its own paths).
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/oauth/token":
		s.serveToken(w, r)
		return
	case r.URL.Path != "/graphql":
		http.NotFound(w, r)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		writeErrors(w, http.StatusMethodNotAllowed, lerr("GRAPHQL_VALIDATION_FAILED", "graphql error", "POST your query to /graphql", 405))
		return
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		writeErrors(w, http.StatusUnauthorized, lerr("AUTHENTICATION_ERROR", "authentication error", "Authentication required, not authenticated", 401))
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	call, errs := s.gql.Parse(body)
	if errs != nil {
		for _, e := range errs {
			e.Extensions["type"], e.Extensions["statusCode"] = "graphql error", 400
		}
		writeErrors(w, http.StatusBadRequest, errs...)
		return
	}
	cost := complexity(call, call.Op.SelectionSet, 1)
	if !s.take(w.Header(), cost) {
		writeErrors(w, http.StatusBadRequest, rateLimited())
		return
	}
	if call.Op.Operation != ast.Query {
		writeErrors(w, http.StatusBadRequest, lerr("INPUT_ERROR", "invalid input", "lineartest serves queries only, not "+string(call.Op.Operation)+"s", 400))
		return
	}
	out, _ := call.Answer(func(f *ast.Field, args map[string]any) (any, error) { return s.resolve(call, f, args) })
	fakeserver.WriteJSON(w, http.StatusOK, out)
}

// authorized checks the Authorization header as Linear does: an API key
// alone, an OAuth token after Bearer.
func (s *Server) authorized(h string) bool {
	if h == "" {
		return false
	}
	if h == s.creds.APIKey {
		return true
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || token == "" || token == s.creds.APIKey {
		return false
	}
	return token == s.creds.AccessToken || s.tokens.Valid(token)
}

// take counts a request of cost points against the budgets and sets the
// rate-limit headers; false when the request is over one of them.
func (s *Server) take(h http.Header, cost int) bool {
	now := s.clock.Now()
	var left [2]int
	var reset [2]time.Time
	ok := true
	for i, n := range []int{1, cost} {
		if w := s.limits[i]; w != nil {
			var fits bool
			left[i], reset[i], fits = w.TakeN(now, n)
			ok = ok && fits
			continue
		}
		limit := []int{RequestsLimit, ComplexityLimit}[i]
		s.mu.Lock()
		s.counters[i] = (s.counters[i] + n) % (limit / 2)
		left[i] = limit - s.counters[i]
		s.mu.Unlock()
		reset[i] = now.Truncate(time.Hour).Add(time.Hour)
	}
	s.budgetHeaders(h, left, reset, cost)
	return ok
}

func (s *Server) budgetHeaders(h http.Header, left [2]int, reset [2]time.Time, cost int) {
	for i, name := range []string{"Requests", "Complexity"} {
		limit := []int{RequestsLimit, ComplexityLimit}[i]
		if w := s.limits[i]; w != nil {
			limit = w.Limit
		}
		h.Set("X-RateLimit-"+name+"-Limit", strconv.Itoa(limit))
		h.Set("X-RateLimit-"+name+"-Remaining", strconv.Itoa(left[i]))
		h.Set("X-RateLimit-"+name+"-Reset", strconv.FormatInt(reset[i].UnixMilli(), 10))
	}
	h.Set("X-Complexity", strconv.Itoa(cost))
}

// complexity estimates a selection's cost as Linear counts it: an object
// 1 point, a scalar 0.1, a connection's selection times its first (50 by
// default), rounded up.
func complexity(call *fakeserver.GraphQLCall, set ast.SelectionSet, times float64) int {
	var pts float64
	var walk func(set ast.SelectionSet, times float64)
	walk = func(set ast.SelectionSet, times float64) {
		for _, sel := range set {
			switch x := sel.(type) {
			case *ast.Field:
				if len(x.SelectionSet) == 0 {
					pts += 0.1 * times
					continue
				}
				pts += times
				m := times
				if x.Definition != nil && strings.HasSuffix(x.Definition.Type.Name(), "Connection") {
					first := int64(50)
					if n, ok := call.Args(x)["first"].(int64); ok {
						first = n
					}
					m *= float64(first)
				}
				walk(x.SelectionSet, m)
			case *ast.InlineFragment:
				walk(x.SelectionSet, times)
			case *ast.FragmentSpread:
				if x.Definition != nil {
					walk(x.Definition.SelectionSet, times)
				}
			}
		}
	}
	walk(set, times)
	return int(pts + 0.999)
}

// serveToken takes the refresh_token grant (the OAuth server took the
// authorization_code one): Linear rotates refresh tokens, so the one used
// stops working.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code, desc string) {
		fakeserver.JSON(w, status, map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fail(http.StatusBadRequest, "invalid_request", "POST a form")
		return
	}
	f := r.PostForm
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	switch {
	case f.Get("grant_type") != "refresh_token":
		fail(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	case s.creds.ClientID == "" || id != s.creds.ClientID || secret != s.creds.ClientSecret:
		fail(http.StatusUnauthorized, "invalid_client", "Invalid client credentials")
	case !s.tokens.Redeem(f.Get("refresh_token")):
		fail(http.StatusBadRequest, "invalid_grant", "Invalid refresh token")
	default:
		fakeserver.JSON(w, http.StatusOK, s.mint())
	}
}

// mint issues an access token and a new refresh token: Linear's token
// answer.
func (s *Server) mint() map[string]any {
	access, refresh := s.tokens.Mint()
	return map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.tokens.TTL / time.Second),
		"scope": "read", "refresh_token": refresh}
}
