// Package googledrive is the files connector (connector_type
// "google-drive"): Google Drive's API v3, read-only.
//
// Open it with New (typed credentials) or kinds.Open("google-drive",
// map[string]any{...}) with an OAuth access token (access_token), with a
// refresh token and its client to refresh it (refresh_token, client_id,
// client_secret), or with a service account's JSON key
// (service_account_json, and subject, the user it acts as when the domain
// delegates to it). Every entity of the catalogue is reachable through the
// generic tributary.Connector methods; the typed handles (Files, Drives,
// ...) decode records into the structs of this package.
//
//	c, err := googledrive.New(googledrive.Credentials{AccessToken: tok})
//	for f, err := range c.Files().All(ctx, googledrive.FileParams{Q: "name contains 'plan'"}) { ... }
//
// Lists page with pageToken and pageSize until nextPageToken is absent.
// A copy of files is kept current by Drive's changes feed: a start token,
// then changes.list from it, one token for My Drive and what is shared
// with the user and one per shared drive; removed and trashed files are
// deletions, and a token Drive refuses walks the copy in full again.
// Binary files download with Range (files' download, alt=media); Google
// Docs, Sheets, Slides and Drawings are converted by file_exports.
package googledrive

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Credentials of a Google account: an OAuth AccessToken, with
// RefreshToken, ClientID and ClientSecret to refresh it; or a service
// account's JSON key (ServiceAccountJSON), acting as Subject when the
// domain delegates to it. Printing Credentials never shows the secrets.
type Credentials struct {
	// AccessToken is an OAuth access token, sent as Bearer.
	AccessToken string
	// RefreshToken, ClientID and ClientSecret refresh it at
	// https://oauth2.googleapis.com/token.
	RefreshToken, ClientID, ClientSecret string
	// ServiceAccountJSON is a service account's key file, as Google
	// Cloud's console downloads it ({"type": "service_account",
	// "client_email", "private_key", ...}); the connector signs a JWT with
	// it for each access token (drive.readonly).
	ServiceAccountJSON string
	// Subject is the user a service account acts as (domain-wide
	// delegation); without it the service account reads its own files and
	// those shared with it.
	Subject string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "googledrive.Credentials{AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s, ServiceAccountJSON: %s, Subject: %q}",
		red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret), red(c.ServiceAccountJSON), c.Subject)
}

// CredentialsFromMap reads the credentials object of the contract:
// access_token (with refresh_token, client_id and client_secret), or
// service_account_json (with subject). Unknown, missing and conflicting
// fields are errors matching tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
		engine.CredentialField{Name: "service_account_json", Dst: &c.ServiceAccountJSON},
		engine.CredentialField{Name: "subject", Dst: &c.Subject},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

// serviceAccount is the part of a service account's key the JWT flow
// needs.
type serviceAccount struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// GoogleTokenURL is Google's token endpoint: OAuth refreshes and service
// accounts' JWTs are exchanged there.
const GoogleTokenURL = "https://oauth2.googleapis.com/token"

func (c Credentials) serviceAccount() (serviceAccount, error) {
	var sa serviceAccount
	if err := json.Unmarshal([]byte(c.ServiceAccountJSON), &sa); err != nil {
		return sa, fmt.Errorf("service_account_json is not a service account's JSON key")
	}
	switch {
	case sa.Type != "service_account":
		return sa, fmt.Errorf("service_account_json is a key of type %q, not a service account's (type service_account)", sa.Type)
	case sa.ClientEmail == "" || sa.PrivateKey == "":
		return sa, fmt.Errorf("service_account_json has no client_email or private_key")
	case sa.TokenURI != "" && sa.TokenURI != GoogleTokenURL && sa.TokenURI != "https://accounts.google.com/o/oauth2/token":
		// The signed assertion goes nowhere but Google.
		return sa, fmt.Errorf("service_account_json names a token_uri that is not Google's (%s)", GoogleTokenURL)
	}
	block, _ := pem.Decode([]byte(sa.PrivateKey))
	if block == nil {
		return sa, fmt.Errorf("service_account_json's private_key is not a PEM key")
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
			return sa, fmt.Errorf("service_account_json's private_key is not an RSA key in PKCS #8 or PKCS #1")
		}
	}
	return sa, nil
}

func (c Credentials) validate() error {
	bad := func(msg string) error {
		return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: msg}
	}
	oauth := c.AccessToken != "" || c.RefreshToken != "" || c.ClientID != "" || c.ClientSecret != ""
	sa := c.ServiceAccountJSON != "" || c.Subject != ""
	switch {
	case oauth && sa:
		return bad("give either OAuth tokens (access_token, refresh_token, client_id, client_secret) or a service account (service_account_json, subject), not both")
	case !oauth && !sa:
		return bad("give access_token (and refresh_token, client_id, client_secret to refresh it), or service_account_json")
	case sa && c.ServiceAccountJSON == "":
		return bad("subject needs service_account_json, the key of the service account that acts as it")
	case sa:
		if _, err := c.serviceAccount(); err != nil {
			return bad(err.Error())
		}
	case c.AccessToken == "" && c.RefreshToken == "":
		return bad("OAuth needs access_token, or refresh_token to obtain one")
	case c.RefreshToken != "" && (c.ClientID == "" || c.ClientSecret == ""):
		return bad("refreshing an OAuth token needs client_id and client_secret")
	}
	return nil
}

// Client is a direct-mode Google Drive connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// ReadOnlyScope is the scope the connector asks for: every file's
// metadata and content, read-only.
const ReadOnlyScope = "https://www.googleapis.com/auth/drive.readonly"

// New opens a Google Drive connector. Options: tributary.WithBaseURL (a
// fake or proxy; the token endpoint follows it), WithHTTPClient,
// WithLogger, WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh and
// WithTokenStore.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	auth := engine.RefreshAuth(o, OAuthApp(), engine.Tokens{ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
		AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken})
	var key string
	if creds.ServiceAccountJSON != "" {
		sa, _ := creds.serviceAccount() // validated
		key = sa.PrivateKey
		cfg := &jwt.Config{Email: sa.ClientEmail, PrivateKey: []byte(sa.PrivateKey), PrivateKeyID: sa.PrivateKeyID,
			Scopes: []string{ReadOnlyScope}, TokenURL: engine.TokenURL(o, GoogleTokenURL), Subject: creds.Subject}
		auth, _ = transport.OAuth(transport.OAuthConfig{TokenURL: cfg.TokenURL, HTTPClient: o.HTTPClient, Timeouts: engine.Timeouts(o),
			Grant: func(ctx context.Context) oauth2.TokenSource { return cfg.TokenSource(ctx) }})
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), Errors: errorRule(), Classify: classify,
			Check: &engine.Route{Path: "/changes/startPageToken"}, // cheap, and needs no fields
		},
		Options:        o,
		DefaultBaseURL: "https://www.googleapis.com/drive/v3",
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.AccessToken, creds.RefreshToken, creds.ClientSecret, key},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "google-drive".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// errorRule reads Google's error body, {"error": {"code", "message",
// "errors": [{"domain", "reason", "message"}]}}: its reasons say what a
// status does not (a 403 that is a rate limit, waited for with
// exponential back-off, not a permission refused).
func errorRule() *engine.ErrorRule {
	return &engine.ErrorRule{List: "error.errors", Code: "reason", Message: "message", Codes: map[string]error{
		"userRateLimitExceeded": tributary.ErrRateLimited, "rateLimitExceeded": tributary.ErrRateLimited,
		"sharingRateLimitExceeded": tributary.ErrRateLimited, "backendError": tributary.ErrServer, "internalError": tributary.ErrServer,
		"notFound": tributary.ErrNotFound, "authError": tributary.ErrUnauthorized,
		"insufficientPermissions": tributary.ErrForbidden, "insufficientFilePermissions": tributary.ErrForbidden,
		"domainPolicy": tributary.ErrForbidden, "appNotAuthorizedToFile": tributary.ErrForbidden,
		"fileNotDownloadable": tributary.ErrInvalidParams, "fileNotExportable": tributary.ErrInvalidParams,
		"exportSizeLimitExceeded": tributary.ErrInvalidParams, "cannotDownloadAbusiveFile": tributary.ErrForbidden,
	}}
}

// classify names what to do instead when Drive refuses to send bytes: a
// Google Doc is exported, a binary file downloaded.
func classify(_ int, _ http.Header, _ []byte, e *tributary.Error) {
	switch e.Code {
	case "fileNotDownloadable":
		e.Message = strings.TrimSuffix(e.Message, ".") + ". A Google Doc, Sheet, Slides or Drawing has no bytes of its own: download it with file_exports and a mimeType (application/pdf, text/plain, text/csv, an Office format)"
	case "fileNotExportable":
		e.Message = strings.TrimSuffix(e.Message, ".") + ". Only Google Docs, Sheets, Slides and Drawings export: download a binary file with files' download"
	}
}
