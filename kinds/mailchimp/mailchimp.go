// Package mailchimp is the email-marketing connector (connector_type
// "mailchimp"): the Mailchimp Marketing API 3.0, read-only.
//
// Open it with New (typed credentials) or kinds.Open("mailchimp",
// map[string]any{...}). Every entity of the catalogue is reachable through
// the generic tributary.Connector methods; the typed handles (Campaigns,
// Lists, ListMembers, ...) decode records into the structs of this package.
//
//	c, err := mailchimp.New(mailchimp.Credentials{APIKey: key}) // key "…-us6" → https://us6.api.mailchimp.com
//	for m, err := range c.ListMembers().All(ctx, mailchimp.ListMemberListParams{ListID: id, Paging: mailchimp.Paging{Count: 1000}}) { ... }
//
// Credentials are an API key (sent with HTTP Basic, user name "tributary",
// the key as password) or an OAuth access token (sent as Bearer) with the
// account's data centre. The data centre of an API key is its suffix after
// the last "-"; an explicit DataCenter wins.
//
// Lists page with count (default 10, at most 1000) and offset; Meta holds
// total_items, and Next the params of the following page until offset +
// records reaches total_items. A count above 1000 is a parameter error,
// raised before anything is sent.
//
// Members are addressed by their subscriber hash, the MD5 of the lower-cased
// email address (SubscriberHash). list_members.get also accepts the email
// address itself as subscriber_hash: it is hashed before sending, so the
// address never travels in a URL.
//
// Mailchimp allows 10 simultaneous connections per account and answers
// the eleventh with 429. A Client therefore never has more than 10
// requests in flight (tributary.WithMaxConcurrency can lower the cap, not
// raise it) and retries a 429 with backoff, as Mailchimp sends no
// Retry-After. The cap is per Client: open one Client per account and
// share it; it is safe for concurrent use.
package mailchimp

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// MaxConcurrency is Mailchimp's limit of simultaneous connections per
// account, and the most requests a Client has in flight.
const MaxConcurrency = 10

// BasicUser is the user name sent with an API key; Mailchimp accepts any.
const BasicUser = "tributary"

// Credentials of a Mailchimp account: an API key, or an OAuth access token
// with the account's data centre. Printing Credentials never shows the
// secrets.
type Credentials struct {
	// APIKey is a Marketing API key, e.g. "0123…cdef-us6". Its suffix after
	// the last "-" is the data centre.
	APIKey string
	// AccessToken is an OAuth access token (Mailchimp's never expire and
	// have no refresh token).
	AccessToken string
	// DataCenter is the account's data centre, e.g. "us6": required with
	// AccessToken, optional with APIKey (it then wins over the key's
	// suffix). The API lives at https://<data centre>.api.mailchimp.com.
	DataCenter string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "mailchimp.Credentials{APIKey: %s, AccessToken: %s, DataCenter: %q}", red(c.APIKey), red(c.AccessToken), c.DataCenter)
}

var dataCenterRE = regexp.MustCompile(`^[a-z]{2,8}[0-9]{1,4}$`)

// dataCenter returns the data centre the credentials designate.
func (c Credentials) dataCenter() string {
	if c.DataCenter != "" {
		return c.DataCenter
	}
	if i := strings.LastIndexByte(c.APIKey, '-'); i >= 0 {
		return c.APIKey[i+1:]
	}
	return ""
}

// CredentialsFromMap reads the credentials object of the contract:
// api_key (optionally with data_center), or access_token with
// data_center.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "api_key", Dst: &c.APIKey},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "data_center", Dst: &c.DataCenter},
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
	case c.APIKey != "" && c.AccessToken != "":
		return credErr("give either api_key or access_token, not both")
	case c.APIKey == "" && c.AccessToken == "":
		return credErr("give api_key, or access_token with data_center")
	case c.AccessToken != "" && c.DataCenter == "":
		return credErr("an OAuth access_token needs data_center (e.g. us6; see https://login.mailchimp.com/oauth2/metadata)")
	}
	dc := c.dataCenter()
	if dc == "" {
		return credErr("the API key has no data centre suffix (…-us6): give data_center")
	}
	if !dataCenterRE.MatchString(dc) {
		if c.DataCenter != "" {
			return credErr("data_center %q is not a Mailchimp data centre (e.g. us6)", dc)
		}
		return credErr("the API key's suffix is not a Mailchimp data centre (e.g. …-us6): give data_center")
	}
	return nil
}

// Client is a direct-mode Mailchimp connector. It implements
// tributary.Connector and is safe for concurrent use.
type Client struct {
	*engine.Connector
}

// New opens a Mailchimp connector. Options: tributary.WithBaseURL (a fake
// or proxy: it replaces https://<dc>.api.mailchimp.com and the /3.0/...
// paths are kept), WithHTTPClient, WithLogger, WithRetry, WithRateLimit,
// WithMaxConcurrency (at most MaxConcurrency), WithUserAgent.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	if o.MaxConcurrency <= 0 || o.MaxConcurrency > MaxConcurrency {
		o.MaxConcurrency = MaxConcurrency
	}
	var auth transport.Auth
	if creds.APIKey != "" {
		auth = transport.Basic(BasicUser, creds.APIKey)
	} else {
		auth = transport.Bearer(creds.AccessToken)
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), ParseError: parseError, Classify: classify, Retryable: retryable,
			Check: &engine.Route{Path: "/3.0/ping"}, // the API's health check, authenticated
		},
		Options:        o,
		DefaultBaseURL: "https://" + creds.dataCenter() + ".api.mailchimp.com",
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.APIKey, creds.AccessToken},
		MaxConcurrency: MaxConcurrency,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "mailchimp".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// SubscriberHash returns Mailchimp's id of a list member: the MD5 hex digest
// of the lower-cased email address. list_members.get takes it as
// subscriber_hash.
func SubscriberHash(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return hex.EncodeToString(sum[:])
}

// FormatTime formats t the way Mailchimp writes times in its time filters
// (since_send_time, before_last_changed, ...): 2015-10-21T15:41:36+00:00.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05+00:00")
}

// parseError reads Mailchimp's problem documents, application/problem+json
// {type, title, status, detail, instance}: Message is detail, Code is
// title, RequestID is instance (or the X-Request-Id header).
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("X-Request-Id")
	m, err := jsonx.Members(body)
	if err != nil {
		return
	}
	if s, ok := jsonx.String(m["title"]); ok {
		e.Code = s
	}
	if s, ok := jsonx.String(m["detail"]); ok && s != "" {
		e.Message = s
	} else if e.Code != "" {
		e.Message = e.Code
	}
	if s, ok := jsonx.String(m["instance"]); ok && s != "" {
		e.RequestID = s
	}
}

// isProblem reports whether a response is one of Mailchimp's own problem
// documents (or at least JSON), as opposed to a page from the edge.
func isProblem(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/problem+json" || mt == "application/json"
}

// blocked reports a 403 that does not come from the API but from
// Mailchimp's edge firewall, which answers very busy clients with a bare
// HTML "Request Blocked" page: that is throttling, not a lack of access.
func blocked(status int, h http.Header) bool {
	return status == http.StatusForbidden && !isProblem(h)
}

// classify turns the edge's HTML 403 into a rate-limit error.
func classify(status int, h http.Header, _ []byte, e *tributary.Error) {
	if blocked(status, h) {
		e.Err = tributary.ErrRateLimited
		e.Message = "the request was blocked by Mailchimp's edge (too many requests): " + e.Message
	}
}

// retryable retries the edge's HTML 403 like a 429; everything else
// follows the default rules (429 and 5xx are retried).
func retryable(resp *http.Response) (retry, decided bool) {
	if blocked(resp.StatusCode, resp.Header) {
		return true, true
	}
	return false, false
}
