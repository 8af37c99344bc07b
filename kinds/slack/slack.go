// Package slack is the chat connector (connector_type "slack"): Slack's
// Web API, read-only.
//
// Open it with New (typed credentials) or kinds.Open("slack",
// map[string]any{"token": "xoxb-…"}): a bot token (xoxb-) or a user token
// (xoxp-), and optionally a user token beside a bot token (user_token)
// for the one method that needs one, search.messages (api_search on
// channel_messages). OAuthApp describes Slack's OAuth v2 install, which
// yields both. Every entity of the catalogue is reachable through the
// generic tributary.Connector methods; the typed handles (Users,
// Channels, Messages, ...) decode records into the structs of this
// package.
//
//	c, err := slack.New(slack.Credentials{Token: tok})
//	for m, err := range c.Messages().All(ctx, slack.MessageParams{Channel: "C0123456789"}) { ... }
//
// Every method answers HTTP 200, a failure as {"ok": false, "error":
// "channel_not_found"}: the kind declares the codes once
// (engine.ErrorRule) and they become the shared sentinels. Lists page
// with cursor and limit until response_metadata.next_cursor is empty;
// files.list and search.messages by page number. Each method has a rate
// tier, paced per connector (that is, per token): an app outside the Slack
// Marketplace gets 1 request a minute and 15 messages a page on
// conversations.history and conversations.replies (WithMarketplace says
// the app is in it). A copy of messages reads each channel's history
// after the last ts it holds; edits and deletions of messages are not
// visible to polling (only to the Events API).
package slack

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Credentials of a Slack workspace: Token, a bot token (xoxb-) or a user
// token (xoxp-); UserToken, a user token beside a bot token, for
// search.messages; TeamID, the workspace (as the OAuth install names it).
// Printing Credentials never shows the tokens.
type Credentials struct {
	Token, UserToken, TeamID string
}

// Format prints the credentials with every token redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "slack.Credentials{Token: %s, UserToken: %s, TeamID: %q}", engine.Redacted(c.Token), engine.Redacted(c.UserToken), c.TeamID)
}

// CredentialsFromMap reads the credentials object of the contract: token,
// with user_token and team_id optional. Unknown, missing and malformed
// fields are errors matching tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "token", Dst: &c.Token},
		engine.CredentialField{Name: "user_token", Dst: &c.UserToken},
		engine.CredentialField{Name: "team_id", Dst: &c.TeamID},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c Credentials) validate() error {
	bad := func(format string, args ...any) error {
		return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
	}
	if c.Token == "" {
		return bad("give token: a bot token (xoxb-…) or a user token (xoxp-…)")
	}
	return nil
}

// isUser reports whether tok is a user token (xoxp-, or a rotating one,
// xoxe.xoxp-).
func isUser(tok string) bool {
	return strings.HasPrefix(strings.TrimPrefix(tok, "xoxe."), "xoxp-")
}

// userToken is the token search.messages is sent with: UserToken, or
// Token when it is a user token; "" when there is none. (Tokens are not
// checked further: Slack answers invalid_auth for one it does not know.)
func (c Credentials) userToken() string {
	if c.UserToken != "" {
		return c.UserToken
	}
	if isUser(c.Token) {
		return c.Token
	}
	return ""
}

// SettingMarketplace is the setting that says the app is in the Slack
// Marketplace (WithMarketplace).
const SettingMarketplace = Type + ".marketplace"

// WithMarketplace says whether the app is in the Slack Marketplace (the
// default: no). An app that is not gets 1 request a minute and 15
// messages a page on conversations.history and conversations.replies
// (Slack's terms since 2025); one that is gets Tier 3, 50 requests a
// minute, and pages of up to 999 messages.
func WithMarketplace(on bool) tributary.Option {
	return tributary.WithSetting(SettingMarketplace, strconv.FormatBool(on))
}

// Tiers are Slack's rate tiers as the connector paces them, per method and
// per connector; marketplace says whether the app is in the Marketplace
// (TierHistory). A setting "slack.tier.<name>" ("n/period", "0": none)
// replaces one.
func Tiers(marketplace bool) map[string]engine.Rate {
	t := map[string]engine.Rate{
		Tier2: {N: 20, Per: time.Minute}, Tier3: {N: 50, Per: time.Minute}, Tier4: {N: 100, Per: time.Minute},
		TierHistory: {N: 1, Per: time.Minute},
	}
	if marketplace {
		t[TierHistory] = t[Tier3]
	}
	return t
}

// errorCodes are the sentinels of Slack's error codes (ok: false).
var errorCodes = map[string]error{
	"not_authed": tributary.ErrUnauthorized, "invalid_auth": tributary.ErrUnauthorized, "account_inactive": tributary.ErrUnauthorized,
	"token_revoked": tributary.ErrUnauthorized, "token_expired": tributary.ErrUnauthorized, "no_permission": tributary.ErrForbidden,
	"missing_scope": tributary.ErrForbidden, "not_allowed_token_type": tributary.ErrForbidden, "not_in_channel": tributary.ErrForbidden,
	"team_access_not_granted": tributary.ErrForbidden, "access_denied": tributary.ErrForbidden, "ekm_access_denied": tributary.ErrForbidden,
	"channel_not_found": tributary.ErrNotFound, "user_not_found": tributary.ErrNotFound, "file_not_found": tributary.ErrNotFound,
	"file_deleted": tributary.ErrNotFound, "thread_not_found": tributary.ErrNotFound, "team_not_found": tributary.ErrNotFound,
	"ratelimited": tributary.ErrRateLimited, "invalid_cursor": tributary.ErrCursorExpired, "invalid_arguments": tributary.ErrInvalidParams,
	"invalid_ts_latest": tributary.ErrInvalidParams, "invalid_ts_oldest": tributary.ErrInvalidParams, "invalid_limit": tributary.ErrInvalidParams,
	"fatal_error": tributary.ErrServer, "internal_error": tributary.ErrServer, "service_unavailable": tributary.ErrServer, "request_timeout": tributary.ErrServer,
}

// Client is a direct-mode Slack connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
	creds Credentials
}

// New opens a Slack connector. Options: tributary.WithBaseURL (a fake or
// proxy), WithHTTPClient, WithLogger, WithRetry, WithRateLimit,
// WithoutPacing (no tier pacing), and WithMarketplace.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	market := false
	if v, ok := o.Settings[SettingMarketplace]; ok {
		var err error
		if market, err = strconv.ParseBool(v); err != nil {
			return nil, &tributary.Error{Kind: Type, Err: tributary.ErrInvalidParams, Param: SettingMarketplace, Message: fmt.Sprintf("%q is not true or false", v)}
		}
	}
	user := creds.userToken()
	auth := transport.AuthFunc(func(req *http.Request) error {
		tok := creds.Token
		if strings.HasSuffix(req.URL.Path, "/search.messages") {
			if tok = user; tok == "" {
				return errNeedsUser
			}
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		return nil
	})
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), Tiers: Tiers(market),
			Errors:          &engine.ErrorRule{OK: "ok", Code: "error", Message: "error", Detail: "needed", Codes: errorCodes},
			CredentialHosts: []string{"files.slack.com"},
			Check:           &engine.Route{Path: "/auth.test"},
		},
		Options:        o,
		DefaultBaseURL: "https://slack.com/api",
		Auth:           auth,
		Secrets:        []string{creds.Token, creds.UserToken},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn, creds: creds}, nil
}

// errNeedsUser is why search.messages is not sent with a bot token.
var errNeedsUser = fmt.Errorf("search.messages needs a user token (xoxp-…), not a bot token (xoxb-…): give user_token, or install the app with the user scope search:read")

// APISearch implements tributary.Connector: search.messages, which Slack
// answers only for a user token, is refused before any request when the
// credentials hold none.
func (c *Client) APISearch(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	if entity == "channel_messages" && c.creds.userToken() == "" {
		return nil, &tributary.Error{Kind: Type, Entity: entity, Action: apiSearch, Param: "user_token", Err: tributary.ErrInvalidCredentials, Message: errNeedsUser.Error()}
	}
	return c.Connector.APISearch(ctx, entity, p)
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "slack".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}
