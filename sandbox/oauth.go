package sandbox

import (
	"maps"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
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

var oauthClients = map[string]OAuthClient{
	"github":          {ClientID: githubtest.DefaultClientID, ClientSecret: githubtest.DefaultClientSecret},
	"gong":            {ClientID: gongtest.DefaultClientID, ClientSecret: gongtest.DefaultClientSecret},
	"hubspot":         {ClientID: hubspottest.DefaultClientID, ClientSecret: hubspottest.DefaultClientSecret},
	"intercom":        {ClientID: intercomtest.DefaultClientID, ClientSecret: intercomtest.DefaultClientSecret},
	"mailchimp":       {ClientID: mailchimptest.DefaultClientID, ClientSecret: mailchimptest.DefaultClientSecret},
	"salesforce":      {ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret},
	"zendesk-support": {ClientID: zendesktest.DefaultClientID, ClientSecret: zendesktest.DefaultClientSecret, Inputs: map[string]string{"subdomain": zendesktest.DefaultSubdomain}},
}

// OAuthClient returns the OAuth app the fake of connectorType accepts, for
// running the kind's authorization-code flow (package connect) against the
// fake: its consent page is served at the origin URL returns.
func (s *Sandbox) OAuthClient(connectorType string) (OAuthClient, error) {
	c, ok := oauthClients[connectorType]
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
