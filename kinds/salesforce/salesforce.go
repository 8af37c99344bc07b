// Package salesforce is the sales-CRM connector (connector_type
// "salesforce"): the Salesforce REST API, read-only.
//
// Open it with New (typed credentials) or Open (the contract's credentials
// object). Every entity of the catalogue is reachable through the generic
// tributary.Connector methods; the typed handles (Accounts, Contacts, ...)
// decode records into the structs of this package.
//
//	c, err := salesforce.New(salesforce.Credentials{
//		ClientID: id, ClientSecret: secret, RefreshToken: refresh,
//	})
//	q := salesforce.QueryParams{Q: "SELECT Id, Name, Industry FROM Account"}
//	for a, err := range c.Accounts().All(ctx, q) { ... }
//
// Lists run a SOQL query (param q) against GET /query: a page holds up to
// 200 records (Sforce-Query-Options: batchSize=200) unless the query has
// its own LIMIT; Meta carries totalSize, done and nextRecordsUrl, and Next
// the param next_records_url, which fetches the following page (a GET of
// that URL on the instance; URLs of other hosts are refused). All follows
// nextRecordsUrl until done. The list of an entity must read that entity's
// object (accounts: FROM Account); the query entity runs any query. get
// reads GET /sobjects/{Object}/{id}, optionally with fields; api_search runs
// a SOSL query (GET /search, records under searchRecords) whose RETURNING
// clause names the entity's object; content_versions and attachments
// download their VersionData and Body, with range_header and resumption
// after a dropped connection (If-Range on Last-Modified).
//
// Before anything is sent, ids are checked against the key prefix of their
// object (001 account, 003 contact, 00Q lead, 006 opportunity, 00T task,
// 00U event, 701 campaign, 500 case, 002 note, 068 content version, 00P
// attachment); 18-character ids and the case-sensitive 15-character form
// are both accepted.
//
// Authentication is OAuth 2.0 with a refresh token: the connector refreshes
// at the login host (https://login.salesforce.com, or
// https://test.salesforce.com for sandboxes, or a My Domain login URL; see
// Credentials and WithSandbox) and sends requests to the instance_url of the
// token response. Salesforce tokens carry no expiry: when the API answers
// 401 INVALID_SESSION_ID the token is refreshed and the request retried
// once (within the retry policy). The exhausted daily API allocation (403
// REQUEST_LIMIT_EXCEEDED) is tributary.ErrRateLimited and is not retried.
// Error bodies, a JSON array [{message, errorCode, fields}], become
// *tributary.Error with Code = errorCode.
package salesforce

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Login hosts of Salesforce's OAuth token endpoint.
const (
	// ProductionLoginURL is the login host of production and developer orgs.
	ProductionLoginURL = "https://login.salesforce.com"
	// SandboxLoginURL is the login host of sandboxes.
	SandboxLoginURL = "https://test.salesforce.com"
)

// tokenPath is the token endpoint under a login host.
const tokenPath = "/services/oauth2/token"

// Settings keys of this kind (see tributary.WithSetting).
const (
	settingAPIVersion = "salesforce.api_version"
	settingLoginURL   = "salesforce.login_url"
)

// WithAPIVersion selects the REST API version, "v66.0" or "66.0" (default
// DefaultAPIVersion).
func WithAPIVersion(v string) tributary.Option { return tributary.WithSetting(settingAPIVersion, v) }

// WithSandbox refreshes tokens at the sandbox login host,
// https://test.salesforce.com. The credentials' login_url or sandbox field,
// when given, wins.
func WithSandbox() tributary.Option { return tributary.WithSetting(settingLoginURL, SandboxLoginURL) }

// WithLoginURL refreshes tokens at another login host, such as the org's My
// Domain (https://acme.my.salesforce.com). The credentials' login_url or
// sandbox field, when given, wins; tributary.WithTokenURL (the full token
// endpoint URL) wins over both.
func WithLoginURL(u string) tributary.Option { return tributary.WithSetting(settingLoginURL, u) }

// Credentials of a Salesforce org: a connected app's ClientID and
// ClientSecret and a user's RefreshToken, optionally with a current
// AccessToken and the InstanceURL it belongs to. Printing Credentials never
// shows the secrets.
type Credentials struct {
	// ClientID and ClientSecret are the connected app's consumer key and
	// secret.
	ClientID     string
	ClientSecret string
	// RefreshToken obtains access tokens. Salesforce rotates it only when
	// the connected app is set up so; register tributary.WithTokenRefresh
	// to save new ones.
	RefreshToken string
	// AccessToken, optional, is used until Salesforce rejects it.
	AccessToken string
	// InstanceURL, optional, is the org's instance
	// (https://acme.my.salesforce.com). Without it the connector refreshes
	// first and uses the instance_url of the token response; the token
	// response's instance_url always wins.
	InstanceURL string
	// LoginURL, optional, is the login host that refreshes tokens
	// (default ProductionLoginURL); Sandbox selects SandboxLoginURL. Give
	// at most one of them.
	LoginURL string
	Sandbox  bool
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "salesforce.Credentials{ClientID: %q, ClientSecret: %s, RefreshToken: %s, AccessToken: %s, InstanceURL: %q, LoginURL: %q, Sandbox: %t}",
		c.ClientID, red(c.ClientSecret), red(c.RefreshToken), red(c.AccessToken), c.InstanceURL, c.LoginURL, c.Sandbox)
}

// CredentialsFromMap reads the contract's credentials object: client_id,
// client_secret and refresh_token (required), access_token and instance_url
// (optional), and at most one of login_url (a login host such as
// https://test.salesforce.com or the org's My Domain) and sandbox (boolean,
// true for https://test.salesforce.com).
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "instance_url", Dst: &c.InstanceURL},
		engine.CredentialField{Name: "login_url", Dst: &c.LoginURL},
		engine.CredentialField{Name: "sandbox", Dst: &c.Sandbox},
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
	case c.ClientID == "":
		return credErr("client_id is required (the connected app's consumer key)")
	case c.ClientSecret == "":
		return credErr("client_secret is required (the connected app's consumer secret)")
	case c.RefreshToken == "":
		return credErr("refresh_token is required")
	case c.Sandbox && c.LoginURL != "":
		return credErr("give either login_url or sandbox, not both")
	}
	for name, v := range map[string]string{"instance_url": c.InstanceURL, "login_url": c.LoginURL} {
		if v == "" {
			continue
		}
		if err := checkOrigin(v); err != nil {
			return credErr("%s: %v", name, err)
		}
	}
	return nil
}

// checkOrigin accepts an absolute http(s) URL with no path beyond "/".
func checkOrigin(raw string) error {
	u, err := engine.ParseBaseURL(raw)
	if err != nil {
		return err
	}
	if u.Path != "" {
		return fmt.Errorf("%q must be an origin such as https://acme.my.salesforce.com, without a path", raw)
	}
	return nil
}

var versionRE = regexp.MustCompile(`^v?([0-9]{2,3})\.0$`)

// apiVersion normalizes a version setting to "vNN.0".
func apiVersion(v string) (string, error) {
	if v == "" {
		return DefaultAPIVersion, nil
	}
	m := versionRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return "", &tributary.Error{Kind: Type, Param: settingAPIVersion, Err: tributary.ErrInvalidParams,
			Message: fmt.Sprintf("API version %q is not of the form v67.0", v)}
	}
	return "v" + m[1] + ".0", nil
}

// Client is a direct-mode Salesforce connector. It implements
// tributary.Connector and tributary.Walker and is safe for concurrent use.
//
// What the catalogue's parameter types cannot check (id prefixes, the
// object a list's query or a search's RETURNING reads, the shape of
// next_records_url) is checked by the catalogue's rules before anything is
// sent, in direct and hosted mode alike.
type Client struct {
	*engine.Connector
	version string
}

// New opens a Salesforce connector. Options: tributary.WithBaseURL (the
// instance, e.g. a fake or a proxy: it replaces the instance_url, and
// tokens are then refreshed at that URL too unless a login host is given),
// WithTokenURL, WithHTTPClient, WithLogger, WithRetry, WithRateLimit,
// WithTokenRefresh, and this package's WithAPIVersion, WithSandbox and
// WithLoginURL.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	version, err := apiVersion(o.Settings[settingAPIVersion])
	if err != nil {
		return nil, err
	}
	login := creds.LoginURL
	if creds.Sandbox {
		login = SandboxLoginURL
	}
	if login == "" {
		if v := o.Settings[settingLoginURL]; v != "" {
			if err := checkOrigin(v); err != nil {
				return nil, &tributary.Error{Kind: Type, Param: settingLoginURL, Err: tributary.ErrInvalidParams, Message: "login URL: " + err.Error()}
			}
			login = v
		}
	}
	tokenURL := o.TokenURL
	switch {
	case tokenURL != "":
	case login != "":
		tokenURL = strings.TrimRight(login, "/") + tokenPath
	case o.BaseURL != "":
		tokenURL = strings.TrimRight(o.BaseURL, "/") + tokenPath
	default:
		tokenURL = ProductionLoginURL + tokenPath
	}
	// A given access token is used where it belongs: on its instance, or on
	// the base URL that replaces the instance. Without either, the first
	// refresh says where the instance is.
	given := ""
	if creds.AccessToken != "" && (creds.InstanceURL != "" || o.BaseURL != "") {
		given = creds.AccessToken
	}
	auth, ts := transport.OAuth(transport.OAuthConfig{
		TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams,
		ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
		AccessToken: given, RefreshToken: creds.RefreshToken,
		HTTPClient: o.HTTPClient, Timeouts: engine.Timeouts(o), OnRefresh: o.OnTokenRefresh, Store: o.TokenStore,
	})
	s := &session{ts: ts, instanceURL: strings.TrimRight(creds.InstanceURL, "/"), httpsOnly: strings.HasPrefix(tokenURL, "https://")}
	base := s.instanceURL
	if base == "" {
		base = strings.TrimSuffix(tokenURL, tokenPath)
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(version),
			ParseError: parseError, Classify: classify,
			Check: &engine.Route{Path: "/services/data/" + version + "/limits"}, // the org's limits
		},
		Options:        o,
		DefaultBaseURL: base,
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.ClientSecret, creds.RefreshToken, creds.AccessToken},
		ResolveBaseURL: s.instance,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn, version: version}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "salesforce".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// APIVersion returns the REST API version of the connector's paths, e.g.
// "v67.0".
func (c *Client) APIVersion() string { return c.version }

// rules are the checks of o's operations beyond each parameter's own type
// (the catalogue's Entity.Rules, run by tributary.Validate in direct and
// hosted mode, before anything is sent): a record id's key prefix, a list's
// query reading o's object, a next-page URL's shape, a search returning
// only o's records.
func rules(o sobject) map[tributary.Action]func(tributary.Params) (string, string) {
	r := map[tributary.Action]func(tributary.Params) (string, string){
		list: func(p tributary.Params) (string, string) {
			if raw, ok := p[nextRecordsURLParam].(string); ok {
				if msg := checkNextRecordsURL(raw); msg != "" {
					return nextRecordsURLParam, msg
				}
			}
			if q, ok := p["q"].(string); ok && o.name != "" {
				if msg := checkQuery(o, q); msg != "" {
					return "q", msg
				}
			}
			return "", ""
		},
	}
	if o.name == "" {
		return r
	}
	byID := func(p tributary.Params) (string, string) {
		if id, ok := p["id"].(string); ok {
			if msg := checkID(o, id); msg != "" {
				return "id", msg
			}
		}
		return "", ""
	}
	r[get], r[downloadAction] = byID, byID
	r[apiSearch] = func(p tributary.Params) (string, string) {
		if q, ok := p["q"].(string); ok {
			if msg := checkSearch(o, q); msg != "" {
				return "q", msg
			}
		}
		return "", ""
	}
	return r
}

// apiError is one element of Salesforce's error body.
type apiError struct {
	Message   string   `json:"message"`
	ErrorCode string   `json:"errorCode"`
	Fields    []string `json:"fields"`
}

// parseError reads Salesforce's error bodies: a JSON array
// [{"message", "errorCode", "fields"?}] (several errors are joined), a
// single such object, and OAuth's {"error", "error_description"}.
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	var list []apiError
	if err := json.Unmarshal(body, &list); err != nil {
		var one apiError
		if json.Unmarshal(body, &one) == nil && (one.ErrorCode != "" || one.Message != "") {
			list = []apiError{one}
		} else if m, err := jsonx.Members(body); err == nil {
			code, _ := jsonx.String(m["error"])
			desc, _ := jsonx.String(m["error_description"])
			e.Code, e.Message = code, desc
			if e.Message == "" {
				e.Message = code
			}
			return
		}
	}
	var msgs []string
	for _, x := range list {
		if e.Code == "" {
			e.Code = x.ErrorCode
		}
		m := x.Message
		if len(x.Fields) > 0 {
			m += " (fields: " + strings.Join(x.Fields, ", ") + ")"
		}
		if m != "" {
			msgs = append(msgs, m)
		}
	}
	e.Message = strings.Join(msgs, "; ")
	if e.Message == "" {
		e.Message = e.Code
	}
}

// classify makes the exhausted API allocation a rate limit: Salesforce
// answers 403 REQUEST_LIMIT_EXCEEDED (for the rolling 24-hour allocation
// and for too many concurrent long-running requests), with no Retry-After.
func classify(status int, h http.Header, body []byte, e *tributary.Error) {
	if status == http.StatusForbidden && e.Code == "REQUEST_LIMIT_EXCEEDED" {
		e.Err = tributary.ErrRateLimited
	}
}
