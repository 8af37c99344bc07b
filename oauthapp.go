package tributary

import (
	"maps"
	"slices"
)

// OAuthApp describes, as data, a vendor's OAuth 2.0 authorization-code
// flow as this library runs it for one connector kind: where the user
// consents, where the code is exchanged, what is asked for, and which
// fields of the kind's credentials object the exchange produces. The
// package connect runs it; each kind publishes its own (github.OAuthApp,
// ...; kinds.OAuthApp looks one up by connector_type).
//
// AuthURL, TokenURL and MetadataURL may hold placeholders written
// {name}, filled from the flow's inputs (Inputs): {subdomain} for
// Zendesk, {login_url} for Salesforce, or by the choice an input takes
// (OAuthChoice.Fill: an Intercom region's hosts).
type OAuthApp struct {
	// Kind is the connector_type the credentials open.
	Kind string
	// AuthURL is the vendor's consent page (the authorization endpoint).
	AuthURL string
	// TokenURL is the endpoint that exchanges the code for tokens.
	TokenURL string
	// MetadataURL, when set, is called after the exchange with
	// "Authorization: OAuth <access token>"; fields of its JSON answer
	// are OAuthFromMetadata sources (Mailchimp's data centre). It is a
	// Lookup with that scheme; Lookup, when set, wins.
	MetadataURL string
	// Lookup, when set, is a request the flow sends after the exchange,
	// with the new access token, to learn what the token answer does not
	// say: Atlassian's cloud id of the site the user chose, from which the
	// API's base URL follows. Fields of the object it answers (or of the
	// element Pick chooses from an array) are OAuthFromMetadata sources.
	Lookup *OAuthLookup
	// AuthParams are sent as they are on the consent URL, besides the
	// standard ones: Atlassian's audience=api.atlassian.com and
	// prompt=consent, Google's access_type=offline.
	AuthParams map[string]string
	// ScopeSeparator joins Scopes in the consent URL; "" means a space
	// (RFC 6749). Linear and Slack take commas.
	ScopeSeparator string
	// Scopes are the scopes the kind's catalogue needs, read-only where
	// the vendor has such a scope; empty when the vendor takes none in
	// the request (they are set on the app).
	Scopes []string
	// ScopeNotes say, for the person about to consent, what a scope of
	// Scopes allows beyond reading, keyed by scope, for the scopes that
	// do: GitHub's "repo" also writes, for want of a read-only scope.
	// A connect page shows them next to the scopes.
	ScopeNotes map[string]string
	// ConsentNote says what the consent grants when the request names
	// no scope (Scopes empty): the vendor decides, from the app's
	// settings or for the whole account.
	ConsentNote string
	// PKCE reports whether the vendor supports PKCE (RFC 7636, S256); the
	// flow then always sends a code challenge.
	PKCE bool
	// ClientAuth says how the client id and secret travel to TokenURL.
	ClientAuth OAuthClientAuth
	// TokenJSON says that TokenURL takes its requests (the exchange and
	// every refresh) as a JSON object rather than a form (Notion's).
	TokenJSON bool
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
	a.ScopeNotes = maps.Clone(a.ScopeNotes)
	a.Inputs = slices.Clone(a.Inputs)
	for i, in := range a.Inputs {
		a.Inputs[i].Choices = slices.Clone(in.Choices)
		for j, c := range a.Inputs[i].Choices {
			a.Inputs[i].Choices[j].Fill = maps.Clone(c.Fill)
		}
	}
	a.Credentials = slices.Clone(a.Credentials)
	a.AuthParams = maps.Clone(a.AuthParams)
	if a.Lookup != nil {
		l := *a.Lookup
		if l.Pick != nil {
			p := *l.Pick
			p.Match = slices.Clone(p.Match)
			l.Pick = &p
		}
		a.Lookup = &l
	}
	return a
}

// OAuthLookup is a request sent after the exchange with the new access
// token (OAuthApp.Lookup).
type OAuthLookup struct {
	// URL is the endpoint (placeholders as in AuthURL).
	URL string
	// Scheme is the Authorization scheme the token is sent with: "Bearer"
	// (the default) or Mailchimp's "OAuth".
	Scheme string
	// Pick, when the answer is an array, chooses its element; nil means
	// the answer must be an object.
	Pick *OAuthPick
}

// OAuthPick chooses one element of a lookup's array answer: Atlassian's
// accessible resources list every site the user granted, and the flow
// keeps one.
type OAuthPick struct {
	// Input names the flow input that says which element to keep (a
	// site's name); when the caller gives none, the only element is kept,
	// and several are an error that lists them.
	Input string
	// Match are the element's fields compared with the input: equal to it,
	// or a URL whose host is it or starts with it and a dot
	// ("https://acme.atlassian.net" matches "acme").
	Match []string
	// Label is the field that names an element in errors ("url").
	Label string
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
	// Choices, when set, are the only values the input takes (a form
	// offers them to pick from), each filling placeholders of the app's
	// URLs: an Intercom workspace's region picks its consent and token
	// hosts.
	Choices []OAuthChoice
}

// OAuthChoice is one value an OAuthInput with choices takes.
type OAuthChoice struct {
	// Value is the input's value ("eu"), as a credentials field that
	// reads the input (OAuthFromInput) gets it.
	Value string
	// Fill are the placeholders of AuthURL, TokenURL and MetadataURL this
	// value fills, by name ("app_origin": "https://app.eu.intercom.com").
	Fill map[string]string
}

// ChoiceValues returns the values the input takes, in order (none: any).
func (in OAuthInput) ChoiceValues() []string {
	out := make([]string, len(in.Choices))
	for i, c := range in.Choices {
		out[i] = c.Value
	}
	return out
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
	// (Salesforce's instance_url, Gong's api_base_url_for_customer); a dot
	// path reads a nested one (Slack's team.id).
	OAuthFromToken
	// OAuthFromMetadata is the field Key (a dot path) of the answer of
	// MetadataURL or Lookup.
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
