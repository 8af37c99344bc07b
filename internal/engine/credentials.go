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
