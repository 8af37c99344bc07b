// Package github is the code-hosting connector (connector_type "github"):
// GitHub's REST API (version 2022-11-28), read-only.
//
// Open it with New (typed credentials) or kinds.Open("github",
// map[string]any{"token": pat}). A personal access token (fine-grained or
// classic, credential "token") and an OAuth access token ("access_token")
// are both sent as "Authorization: Bearer ...". Every entity of the
// catalogue is reachable through the generic tributary.Connector methods;
// the typed handles (Issues, PullRequests, Repositories, ...) decode
// records into the structs of this package.
//
//	c, err := github.New(github.Credentials{Token: pat})
//	for is, err := range c.Issues().All(ctx, github.IssueListParams{Owner: "octo", Repo: "hello", State: "all"}) { ... }
//
// GitHub Enterprise Server is reached with
// tributary.WithBaseURL("https://HOST/api/v3"): the path prefix is kept.
//
// Lists page by page number (params per_page, 1 to 100, default 30, and
// page); Meta holds next_page and last_page from GitHub's Link header, and
// a search adds total_count and incomplete_results. A full walk (All) asks
// for 100 records a page unless per_page or page is given. GitHub's issues
// endpoint returns pull requests too: issues.list drops them, so a page may
// hold fewer records than per_page (and, rarely, none) while Next still
// leads on. issues.api_search and pull_requests.api_search add is:issue and
// is:pr to q. GitHub's search delivers at most 1,000 results per query:
// Client.SearchAll walks a search and ends with an error matching
// tributary.ErrPaging when the cap cut the results short.
//
// Rate limits: a 403 or 429 with x-ratelimit-remaining 0 is waited out
// until x-ratelimit-reset when that fits the context's deadline and the
// retry policy's MaxRateLimitWait, and otherwise returned as
// tributary.ErrRateLimited with RetryAfter; secondary limits honour
// retry-after the same way. Release assets are downloaded through GitHub's
// redirect to its object store, without credentials on the other host.
package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// DefaultBaseURL is GitHub's REST API origin.
const DefaultBaseURL = "https://api.github.com"

// DefaultAPIVersion is the X-GitHub-Api-Version sent unless WithAPIVersion
// says otherwise; the typed records follow it.
const DefaultAPIVersion = "2022-11-28"

// SearchResultCap is how many results GitHub's search lets a client reach
// for one query; total_count may be larger.
const SearchResultCap = 1000

// SettingAPIVersion is the tributary.WithSetting key of WithAPIVersion.
const SettingAPIVersion = "github.api_version"

// WithAPIVersion sets the X-GitHub-Api-Version header (DefaultAPIVersion
// unless set), a calendar version such as "2026-03-10".
func WithAPIVersion(v string) tributary.Option { return tributary.WithSetting(SettingAPIVersion, v) }

// SettingBudgetPacing is the tributary.WithSetting key of WithBudgetPacing.
const SettingBudgetPacing = "github.budget_pacing"

// WithBudgetPacing turns off (or on, the default) keeping to the budget
// GitHub announces on every answer. The primary limit of the core
// resource (5,000 requests an hour for a token, 15,000 for some GitHub
// App installations, 1,000 for GITHUB_TOKEN in Actions) is too large to
// pace every request to without slowing ordinary use for nothing, so the
// connector reads x-ratelimit-remaining and x-ratelimit-reset instead: it
// sends freely while plenty is left, spreads the last tenth of the budget
// over the time to the reset, and waits for the reset when none is left
// (at most the retry policy's MaxRateLimitWait; a longer wait is left to
// GitHub's own answer, tributary.ErrRateLimited with RetryAfter).
func WithBudgetPacing(on bool) tributary.Option {
	return engine.BudgetSetting(SettingBudgetPacing, on)
}

// coreBudget reads the budget of the core resource from an answer (the
// search resource has a budget of its own, a minute long, that the
// connector does not pace to).
func coreBudget(resp *http.Response) (transport.Budget, bool) {
	if r := resp.Header.Get("X-RateLimit-Resource"); r != "" && r != "core" {
		return transport.Budget{}, false
	}
	return engine.HeaderBudget("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")(resp)
}

var versionRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// Credentials of a GitHub account: a personal access token (Token,
// fine-grained or classic) or an OAuth access token (AccessToken); exactly
// one. Printing Credentials never shows the token.
type Credentials struct {
	// Token is a personal access token, sent as "Authorization: Bearer".
	Token string
	// AccessToken is an OAuth access token, sent the same way.
	AccessToken string
}

// Format prints the credentials with the tokens redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "github.Credentials{Token: %s, AccessToken: %s}", red(c.Token), red(c.AccessToken))
}

// CredentialsFromMap reads the contract's credentials object: token (a
// personal access token) or access_token (an OAuth access token).
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "token", Dst: &c.Token},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func credErr(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
}

func (c Credentials) validate() error {
	switch {
	case c.Token != "" && c.AccessToken != "":
		return credErr("give either token (personal access token) or access_token (OAuth), not both")
	case c.Token == "" && c.AccessToken == "":
		return credErr("token (personal access token) or access_token (OAuth) is required")
	}
	tok := c.Token + c.AccessToken
	if strings.ContainsAny(tok, " \t\r\n") {
		return credErr("the token must not contain spaces or line breaks")
	}
	return nil
}

// Client is a direct-mode GitHub connector. It implements
// tributary.Connector and tributary.Walker and is safe for concurrent use.
type Client struct {
	*engine.Connector

	// repoLists: the repositories the copy scopes listed, reused by the
	// copies of one sync (scopeRepositories).
	repoLists *repoLists
}

// New opens a GitHub connector. Options: WithAPIVersion, and
// tributary.WithBaseURL (GitHub Enterprise Server's https://HOST/api/v3, a
// fake or a proxy), WithHTTPClient, WithLogger, WithRetry (its
// MaxRateLimitWait bounds waiting for x-ratelimit-reset), WithRateLimit,
// WithMaxConcurrency, WithUserAgent, and this package's WithBudgetPacing.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	version := DefaultAPIVersion
	for k, v := range o.Settings {
		switch {
		case k == SettingAPIVersion:
			if !versionRE.MatchString(v) {
				return nil, credErr("X-GitHub-Api-Version %q is not a calendar version such as %s", v, DefaultAPIVersion)
			}
			version = v
		case k == SettingBudgetPacing:
		case strings.HasPrefix(k, "github."):
			return nil, credErr("unknown setting %q", k)
		}
	}
	budget, err := engine.BudgetFrom(Type, SettingBudgetPacing, o.Settings, coreBudget)
	if err != nil {
		return nil, err
	}
	token := creds.Token
	if token == "" {
		token = creds.AccessToken
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type:       Type,
			Entities:   catalogue(),
			ParseError: parseError,
			Classify:   classify,
			EmptyList:  emptyRepository,
			RetryAfter: retryAfter,
			Retryable:  retryable,
			Check:      &engine.Route{Path: "/user"}, // the token's user
		},
		Options:        o,
		DefaultBaseURL: DefaultBaseURL,
		Auth:           transport.Bearer(token),
		Header:         http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {version}},
		Secrets:        []string{token},
		Budget:         budget,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn, repoLists: &repoLists{}}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "github".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// APISearch implements tributary.Connector. The Next params of a page carry
// the caller's q as given (without the is:issue or is:pr this kind adds).
func (c *Client) APISearch(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	page, err := c.Connector.APISearch(ctx, entity, p)
	if err != nil || page.Next == nil {
		return page, err
	}
	if qv, ok := p["q"]; ok {
		page.Next["q"] = qv
	}
	return page, nil
}

// SearchAll runs entity's api_search from p and yields every result GitHub
// lets a client reach, page after page (100 a page unless p sets per_page
// or page). GitHub's search stops at SearchResultCap results even when
// total_count is larger: then, after the last reachable result, SearchAll
// yields an error matching tributary.ErrPaging that says the cap cut the
// results short (narrow the query, for example with created: ranges, to
// read the rest). An error is yielded once, last; breaking out of the loop
// stops fetching.
func (c *Client) SearchAll(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	return func(yield func(tributary.Record, error) bool) {
		start := walkPerPage(p)
		reached := firstOffset(start)
		total := int64(-1)
		pager := pagination.New(map[string]any(start), func(ctx context.Context, params map[string]any) (*pagination.Page[tributary.Record], error) {
			page, err := c.APISearch(ctx, entity, tributary.Params(params))
			if err != nil {
				return nil, err
			}
			return &pagination.Page[tributary.Record]{Items: page.Records, Meta: page.Meta, Next: page.Next}, nil
		})
		for pager.More() {
			page, err := pager.Next(ctx)
			if err != nil {
				if pastCap(err) {
					err = capError(entity, reached, total, err)
				}
				yield(tributary.Record{}, err)
				return
			}
			if page == nil {
				break
			}
			if t, ok := page.Meta["total_count"].(int64); ok {
				total = t
			}
			for _, r := range page.Items {
				reached++
				if !yield(r, nil) {
					return
				}
			}
		}
		if reached >= SearchResultCap && total > int64(reached) {
			yield(tributary.Record{}, capError(entity, reached, total, nil))
		}
	}
}

// firstOffset is the number of results before the first page of p.
func firstOffset(p tributary.Params) int {
	pg, size := int64(1), int64(30)
	if v, ok := asInt(p["page"]); ok && v > 1 {
		pg = v
	}
	if v, ok := asInt(p["per_page"]); ok && v > 0 {
		size = v
	}
	return int((pg - 1) * size)
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), n == float64(int64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// pastCap reports whether err is GitHub's 422 for a search page beyond the
// reachable results.
func pastCap(err error) bool {
	var te *tributary.Error
	return errors.As(err, &te) && te.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(te.Message), "only the first 1000 search results")
}

func capError(entity string, reached int, total int64, cause error) error {
	msg := fmt.Sprintf("GitHub's search returns at most %d results per query and the cap cut the results short", SearchResultCap)
	if total >= 0 {
		msg = fmt.Sprintf("GitHub's search returns at most %d results per query: %d of %d matches were reachable and the cap cut the rest", SearchResultCap, reached, total)
	}
	msg += "; narrow the query (for example with created: or updated: ranges) to read them"
	e := &tributary.Error{Kind: Type, Entity: entity, Action: apiSearch, Err: tributary.ErrPaging, Message: msg, Cause: cause}
	var te *tributary.Error
	if errors.As(cause, &te) {
		e.StatusCode, e.RequestID = te.StatusCode, te.RequestID
	}
	return e
}

// ---- errors and rate limits

// parseError reads GitHub's error bodies: {"message", "documentation_url",
// "status"} and, for validation failures, an "errors" array of objects
// {resource, field, code, message} (or plain strings).
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("X-GitHub-Request-Id")
	var b struct {
		Message string            `json:"message"`
		Errors  []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &b) != nil {
		return
	}
	e.Message = b.Message
	var details []string
	for _, raw := range b.Errors {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			details = append(details, s)
			continue
		}
		var fe struct {
			Resource, Field, Code, Message string
		}
		if json.Unmarshal(raw, &fe) != nil {
			continue
		}
		if e.Code == "" {
			e.Code = fe.Code
		}
		switch {
		case fe.Message != "":
			details = append(details, fe.Message)
		case fe.Field != "" || fe.Code != "":
			what := fe.Field
			if fe.Resource != "" {
				what = fe.Resource + "." + fe.Field
			}
			details = append(details, strings.TrimSpace(what+" "+fe.Code))
		}
	}
	if len(details) > 0 {
		if e.Message != "" {
			e.Message += ": "
		}
		e.Message += strings.Join(details, "; ")
	}
}

// secondaryWait is how long GitHub asks clients to wait after a secondary
// rate limit that names no retry-after ("at least one minute").
const secondaryWait = time.Minute

// classify turns GitHub's rate-limit answers into ErrRateLimited: a 403 or
// 429 with x-ratelimit-remaining 0 (primary limit), with retry-after, or
// whose message names a rate limit or GitHub's older "abuse detection
// mechanism" (a secondary limit without retry-after, which is not retried
// automatically and says to wait a minute).
func classify(status int, h http.Header, body []byte, e *tributary.Error) {
	if status != http.StatusForbidden && status != http.StatusTooManyRequests {
		return
	}
	primary := h.Get("X-RateLimit-Remaining") == "0"
	hasRetryAfter := h.Get("Retry-After") != ""
	msg := strings.ToLower(e.Message)
	if !primary && !hasRetryAfter && !strings.Contains(msg, "rate limit") && !strings.Contains(msg, "abuse detection") {
		return
	}
	e.Err = tributary.ErrRateLimited
	if !primary && !hasRetryAfter {
		e.RetryAfter = secondaryWait
	}
}

// retryable retries a 403 or 429 that is a rate limit with a signal to wait
// for (x-ratelimit-remaining 0, or retry-after); other statuses follow the
// default rules.
func retryable(resp *http.Response) (retry, decided bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return false, false
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != "" {
		return true, true
	}
	return false, false
}

// retryAfter reads x-ratelimit-reset on a primary rate limit. A
// retry-after header wins, as GitHub documents; the transport reads it.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	if resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return 0, false
	}
	return transport.ResetAt(resp.Header.Get("X-RateLimit-Reset"), now)
}

// emptyRepository reports GitHub's 409 "Git Repository is empty." (the
// commits of a repository without commits): an empty list.
func emptyRepository(e *tributary.Error) bool {
	return e.StatusCode == http.StatusConflict && strings.Contains(strings.ToLower(e.Message), "repository is empty")
}
