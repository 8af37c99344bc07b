// Package sandbox runs the in-process fakes of every connector kind on
// loopback and opens connectors against them, with no credentials at all:
// for examples, the command-line tool and benchmarks.
//
//	sb := sandbox.New()
//	defer sb.Close()
//	c, err := sb.Open("salesforce")
//	for rec, err := range tributary.All(ctx, c, "accounts", tributary.Params{"q": "SELECT Id, Name FROM Account"}) { ... }
//
// Each fake starts the first time its kind is opened. WithChanges makes the
// fakes change their records as time passes.
package sandbox

import (
	"context"
	"slices"
	"sync"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
)

// fake is what the sandbox needs of a running fake.
type fake interface{ Close() }

// spec starts one kind's fake and says how to reach it.
type spec struct {
	start func() (fake, string)
	creds map[string]any
	probe fakeserver.Probe
}

// specs are the fakes of every kind (internal/fakes), each with its
// default data.
func specs() map[string]spec {
	out := map[string]spec{}
	for _, k := range fakes.All() {
		out[k.Type] = spec{func() (fake, string) { f := k.Start(0); return f, f.BaseURL() }, k.Credentials, k.Probe}
	}
	return out
}

// Sandbox holds the running fakes. It is safe for concurrent use.
type Sandbox struct {
	mu      sync.Mutex
	specs   map[string]spec
	running map[string]fake
	urls    map[string]string

	changes  Changes
	changers map[string]*changer // by kind, of the running fakes that change
	stop     map[string]func()   // stops a running fake's changes
	wg       sync.WaitGroup      // the changes' goroutines
}

// New returns a sandbox; nothing runs until a kind is opened.
func New(opts ...Option) *Sandbox {
	s := &Sandbox{specs: specs(), running: map[string]fake{}, urls: map[string]string{}, changers: map[string]*changer{}, stop: map[string]func(){}}
	for _, o := range opts {
		o(s)
	}
	return s
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
	if c := s.newChanger(connectorType, f); c != nil {
		s.changers[connectorType] = c
		if s.changes.Every > 0 {
			ctx, cancel := context.WithCancel(context.Background())
			s.stop[connectorType] = cancel
			s.wg.Go(func() { s.run(ctx, c) })
		}
	}
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

// Probe returns one cheap read of connectorType that shows credentials
// work (an entity to list and its params), ok false for a kind the sandbox
// does not have.
func (s *Sandbox) Probe(connectorType string) (entity string, params tributary.Params, ok bool) {
	sp, ok := s.specs[connectorType]
	if !ok {
		return "", nil, false
	}
	if sp.probe.Params != nil {
		params = tributary.Params{}
		for k, v := range sp.probe.Params {
			params[k] = v
		}
	}
	return sp.probe.Entity, params, true
}

// Options starts the fake of connectorType if needed and returns the
// options that point a connector of that kind at it: its base URL, and no
// pacing to the vendors' documented rate limits, which the fakes do not
// enforce.
// `tributary serve --sandbox` gives them to every connector it opens.
func (s *Sandbox) Options(connectorType string) ([]tributary.Option, error) {
	u, err := s.URL(connectorType)
	if err != nil {
		return nil, err
	}
	// The fakes do not enforce the vendors' documented limits: no
	// pacing to them.
	own := []tributary.Option{tributary.WithBaseURL(u), tributary.WithoutPacing()}
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

// Close stops the changes, then every fake that was started.
func (s *Sandbox) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, stop := range s.stop {
		stop()
		delete(s.stop, t)
	}
	s.wg.Wait() // the changes never take s.mu
	for t, f := range s.running {
		f.Close()
		delete(s.running, t)
		delete(s.urls, t)
		delete(s.changers, t)
	}
}
