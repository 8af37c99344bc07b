// Package kinds opens direct-mode connectors by connector_type, from the
// same credentials object the hosted create call takes.
package kinds

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk"
)

// OpenFunc builds a connector of one kind from its credentials object.
type OpenFunc func(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error)

// registry lists the kinds this build knows.
func registry() map[string]OpenFunc {
	return map[string]OpenFunc{
		zendesk.Type: zendesk.Open,
	}
}

// Types lists the connector types this build can open, sorted.
func Types() []string {
	r := registry()
	out := make([]string, 0, len(r))
	for t := range r {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Open builds a direct-mode connector of connectorType. An unknown type matches
// tributary.ErrUnknownKind; missing, unknown or conflicting credential fields are errors matching
// tributary.ErrInvalidCredentials, before anything is sent.
func Open(connectorType string, credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	open, ok := registry()[connectorType]
	if !ok {
		return nil, &tributary.Error{Kind: connectorType, Err: tributary.ErrUnknownKind,
			Message: fmt.Sprintf("unknown connector_type %q (known: %s)", connectorType, strings.Join(Types(), ", "))}
	}
	return open(credentials, opts...)
}
