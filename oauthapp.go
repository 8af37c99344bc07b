package tributary

import "slices"

// OAuthApp describes, as data, a vendor's OAuth 2.0 authorization-code
// flow as this library runs it for one connector kind: where the user
// consents, where the code is exchanged, what is asked for, and which
// fields of the kind's credentials object the exchange produces. The
// package connect runs it; each kind publishes its own (github.OAuthApp,
// ...; kinds.OAuthApp looks one up by connector_type).
//
// AuthURL, TokenURL and MetadataURL may hold placeholders written
// {name}, filled from the flow's inputs (Inputs): {subdomain} for
// Zendesk, {login_url} for Salesforce.
type OAuthApp struct {
	// Kind is the connector_type the credentials open.
	Kind string
	// AuthURL is the vendor's consent page (the authorization endpoint).
	AuthURL string
	// TokenURL is the endpoint that exchanges the code for tokens.
	TokenURL string
	// MetadataURL, when set, is called after the exchange with
	// "Authorization: OAuth <access token>"; fields of its JSON answer
	// are OAuthFromMetadata sources (Mailchimp's data centre).
	MetadataURL string
	// Scopes are the read-only scopes the kind's catalogue needs; empty
	// when the vendor takes none in the request (they are set on the
	// app).
	Scopes []string
	// PKCE reports whether the vendor supports PKCE (RFC 7636, S256); the
	// flow then always sends a code challenge.
	PKCE bool
	// ClientAuth says how the client id and secret travel to TokenURL.
	ClientAuth OAuthClientAuth
	// Inputs are the values the flow needs besides the client and the
	// redirect URL (a Zendesk subdomain), in the order a form asks them.
	Inputs []OAuthInput
	// Credentials are the fields of the credentials object the exchange
	// produces, in order, with where each value comes from.
	Credentials []OAuthField
	// Expires reports whether the access token expires (a refresh token
	// then comes with it); false for GitHub OAuth apps, Intercom and
	// Mailchimp, whose tokens live until revoked.
	Expires bool
}

// Clone returns a deep copy of a, so that changing it changes no one
// else's.
func (a OAuthApp) Clone() OAuthApp {
	a.Scopes = slices.Clone(a.Scopes)
	a.Inputs = slices.Clone(a.Inputs)
	a.Credentials = slices.Clone(a.Credentials)
	return a
}

// OAuthClientAuth is how an OAuth client authenticates at the token
// endpoint.
type OAuthClientAuth int

const (
	// OAuthClientInBody sends client_id and client_secret in the form
	// body.
	OAuthClientInBody OAuthClientAuth = iota
	// OAuthClientInBasic sends them as HTTP Basic credentials.
	OAuthClientInBasic
)

// OAuthInput is a value the flow needs from its caller besides the
// client: a Zendesk account's subdomain, a Salesforce login host.
type OAuthInput struct {
	// Name is the placeholder name in the app's URLs and the key a
	// credentials field reads with OAuthFromInput.
	Name string
	// Required reports whether the flow cannot run without it.
	Required bool
	// Default is used when the caller gives none.
	Default string
	// Doc says what the value is, for a form or a flag.
	Doc string
}

// OAuthSource is where the value of a produced credentials field comes
// from.
type OAuthSource int

const (
	// OAuthFromAccessToken is the access token the exchange returned.
	OAuthFromAccessToken OAuthSource = iota
	// OAuthFromRefreshToken is the refresh token the exchange returned.
	OAuthFromRefreshToken
	// OAuthFromClientID is the OAuth client's id.
	OAuthFromClientID
	// OAuthFromClientSecret is the OAuth client's secret (kinds that
	// refresh tokens by themselves need it).
	OAuthFromClientSecret
	// OAuthFromToken is the field Key of the token response
	// (Salesforce's instance_url, Gong's api_base_url_for_customer).
	OAuthFromToken
	// OAuthFromMetadata is the field Key of MetadataURL's answer.
	OAuthFromMetadata
	// OAuthFromInput is the flow input Key, as given (a caller's value,
	// not a default).
	OAuthFromInput
)

// OAuthField is one field of the credentials object an exchange produces.
type OAuthField struct {
	// Name is the field's key in the credentials object.
	Name string
	// From and Key say where its value comes from.
	From OAuthSource
	Key  string
	// Optional fields are left out when the source has no value;
	// a required one missing fails the exchange.
	Optional bool
}
