// Package sandbox runs the in-process fakes of every connector kind on
// loopback and opens connectors against them, with no credentials at all:
// for examples, the command-line tool and benchmarks.
//
//	sb := sandbox.New()
//	defer sb.Close()
//	c, err := sb.Open("salesforce")
//	for rec, err := range tributary.All(ctx, c, "accounts", tributary.Params{"q": "SELECT Id, Name FROM Account"}) { ... }
//
// Each fake starts the first time its kind is opened.
package sandbox

import (
	"slices"
	"sync"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// fake is what the sandbox needs of a running fake.
type fake interface{ Close() }

// spec starts one kind's fake and says how to reach it.
type spec struct {
	start func() (fake, string)
	creds map[string]any
}

func specs() map[string]spec {
	return map[string]spec{
		"github": {func() (fake, string) { s := githubtest.New(); return s, s.URL },
			map[string]any{"token": githubtest.DefaultToken}},
		"gong": {func() (fake, string) { s := gongtest.New(); return s, s.URL },
			map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret}},
		"hubspot": {func() (fake, string) { s := hubspottest.New(); return s, s.URL },
			map[string]any{"private_app_token": hubspottest.DefaultPrivateAppToken}},
		"intercom": {func() (fake, string) { s := intercomtest.New(); return s, s.URL },
			map[string]any{"access_token": intercomtest.DefaultAccessToken}},
		"mailchimp": {func() (fake, string) { s := mailchimptest.New(); return s, s.URL },
			map[string]any{"api_key": mailchimptest.DefaultAPIKey}},
		"salesforce": {func() (fake, string) { s := salesforcetest.New(salesforcetest.WithAccounts(1000)); return s, s.URL },
			map[string]any{"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret, "refresh_token": salesforcetest.DefaultRefreshToken}},
		"zendesk-support": {func() (fake, string) { s := zendesktest.New(); return s, s.URL },
			map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}},
	}
}

// Sandbox holds the running fakes. It is safe for concurrent use.
type Sandbox struct {
	mu      sync.Mutex
	specs   map[string]spec
	running map[string]fake
	urls    map[string]string
}

// New returns a sandbox; nothing runs until a kind is opened.
func New() *Sandbox {
	return &Sandbox{specs: specs(), running: map[string]fake{}, urls: map[string]string{}}
}

// Types lists the kinds the sandbox can open.
func (s *Sandbox) Types() []string {
	out := make([]string, 0, len(s.specs))
	for t := range s.specs {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// URL starts the fake of connectorType if needed and returns its origin.
func (s *Sandbox) URL(connectorType string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.urls[connectorType]; ok {
		return u, nil
	}
	sp, ok := s.specs[connectorType]
	if !ok {
		_, err := kinds.Catalogue(connectorType)
		if err == nil {
			err = &tributary.Error{Kind: connectorType, Err: tributary.ErrUnknownKind, Message: "the sandbox has no fake for " + connectorType}
		}
		return "", err
	}
	f, u := sp.start()
	s.running[connectorType], s.urls[connectorType] = f, u
	return u, nil
}

// Credentials returns the credentials object the fake of connectorType
// accepts.
func (s *Sandbox) Credentials(connectorType string) map[string]any {
	out := map[string]any{}
	for k, v := range s.specs[connectorType].creds {
		out[k] = v
	}
	return out
}

// Options starts the fake of connectorType if needed and returns the
// options that point a connector of that kind at it: its base URL, and no
// pacing to the vendor's rate limits, which the fakes do not enforce.
// `tributary serve --sandbox` gives them to every connector it opens.
func (s *Sandbox) Options(connectorType string) ([]tributary.Option, error) {
	u, err := s.URL(connectorType)
	if err != nil {
		return nil, err
	}
	own := []tributary.Option{tributary.WithBaseURL(u)}
	switch connectorType {
	case zendesk.Type:
		own = append(own, zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0))
	case hubspot.Type:
		own = append(own, hubspot.WithAPIRateLimit(0, 0))
	case gong.Type:
		own = append(own, gong.WithAPIRateLimit(0, 0))
	}
	return own, nil
}

// Open starts the fake of connectorType if needed and opens a direct-mode
// connector against it; opts are added after the sandbox's own.
func (s *Sandbox) Open(connectorType string, opts ...tributary.Option) (tributary.Connector, error) {
	own, err := s.Options(connectorType)
	if err != nil {
		return nil, err
	}
	return kinds.Open(connectorType, s.Credentials(connectorType), append(own, opts...)...)
}

// Close stops every fake that was started.
func (s *Sandbox) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, f := range s.running {
		f.Close()
		delete(s.running, t)
		delete(s.urls, t)
	}
}
