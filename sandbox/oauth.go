package sandbox

import (
	"maps"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/kinds"
)

// OAuthClient is the OAuth app a kind's fake knows: the only client its
// token endpoint accepts, and the inputs of the kind's flow (see
// connect.Config) that name the fake's account. The values are fixed and
// public: they open nothing but the fake.
type OAuthClient struct {
	ClientID, ClientSecret string
	// Inputs are the flow's inputs the fake expects (Zendesk's subdomain);
	// nil when the kind takes none.
	Inputs map[string]string
}

// OAuthClient returns the OAuth app the fake of connectorType accepts, for
// running the kind's authorization-code flow (package connect) against the
// fake: its consent page is served at the origin URL returns.
func (s *Sandbox) OAuthClient(connectorType string) (OAuthClient, error) {
	k, ok := fakes.Of(connectorType)
	c := OAuthClient{ClientID: k.OAuth.ClientID, ClientSecret: k.OAuth.ClientSecret, Inputs: k.OAuth.Inputs}
	if !ok {
		_, err := kinds.Catalogue(connectorType)
		if err == nil {
			err = &tributary.Error{Kind: connectorType, Err: tributary.ErrUnknownKind, Message: "the sandbox has no OAuth app for " + connectorType}
		}
		return OAuthClient{}, err
	}
	c.Inputs = maps.Clone(c.Inputs)
	return c, nil
}
