package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/suggest"
)

// CredentialField is one field of a kind's credentials object: its name and
// where it goes, a *string or a *bool.
type CredentialField struct {
	Name string
	Dst  any
}

// ReadCredentials fills fields from the contract's credentials object m,
// for the kinds' CredentialsFromMap: a field that is not listed, or of the
// wrong JSON type, is an error matching tributary.ErrInvalidCredentials
// that names it. The values never appear in the error.
func ReadCredentials(kind string, m map[string]any, fields ...CredentialField) error {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same error for the same input
	for _, k := range keys {
		v := m[k]
		var dst any
		for _, f := range fields {
			if f.Name == k {
				dst = f.Dst
				break
			}
		}
		bad := func(format string, args ...any) error {
			return &tributary.Error{Kind: kind, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
		}
		switch d := dst.(type) {
		case nil:
			return bad("unknown credential field %q%s (accepted: %s)", k, suggest.Hint(k, names), strings.Join(names, ", "))
		case *string:
			s, ok := v.(string)
			if !ok {
				return bad("credential field %q must be a string", k)
			}
			*d = s
		case *bool:
			b, ok := v.(bool)
			if !ok {
				return bad("credential field %q must be a boolean", k)
			}
			*d = b
		default:
			return bad("credential field %q has an unsupported destination", k)
		}
	}
	return nil
}

// Redacted is how a kind's Credentials.Format prints a secret: `""` when
// it is empty (so that a missing field shows), [REDACTED] otherwise.
func Redacted(secret string) string {
	if secret == "" {
		return `""`
	}
	return "[REDACTED]"
}

// KeyOrOAuth checks the credentials of a kind that takes either one key
// (a personal token or API key, named key and described by keyDoc: "token",
// "a personal access token") or OAuth tokens, refreshed with the client's
// id and secret: the one or the other, not both, and a refresh token only
// with its client. Each failure is an error matching
// tributary.ErrInvalidCredentials that says what to give; no value
// appears in it.
func KeyOrOAuth(kind, key, keyDoc, keyValue string, t Tokens) error {
	bad := func(msg string) error {
		return &tributary.Error{Kind: kind, Err: tributary.ErrInvalidCredentials, Message: msg}
	}
	oauth := t.AccessToken != "" || t.RefreshToken != "" || t.ClientID != "" || t.ClientSecret != ""
	switch {
	case keyValue != "" && oauth:
		return bad("give either " + key + " or the OAuth fields (access_token, refresh_token, client_id, client_secret), not both")
	case keyValue != "":
		return nil
	case !oauth:
		return bad("give " + key + " (" + keyDoc + "), or an OAuth access_token (with refresh_token, client_id and client_secret to refresh it)")
	case t.AccessToken == "" && t.RefreshToken == "":
		return bad("OAuth needs access_token, or refresh_token with client_id and client_secret")
	case t.RefreshToken != "" && (t.ClientID == "" || t.ClientSecret == ""):
		return bad("refreshing an OAuth token needs client_id and client_secret")
	}
	return nil
}
