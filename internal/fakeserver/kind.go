package fakeserver

import (
	"net/http"
	"time"
)

// Kind describes one kind's fake to the code that runs every kind's: the
// sandbox, and the tests that cover every kind without a line of their own
// (convergence, kills, incremental cost, rate budgets, search in every
// mode, connect, verify). Each <kind>test package states its own
// (Kind()); internal/fakes lists them.
type Kind struct {
	// Type is the connector_type.
	Type string
	// Main is the entity Start sizes: the kind's most used, largest one.
	Main string
	// Probe is one cheap read that shows credentials work: an entity the
	// kind lists, and its params (nil when it needs none). connect
	// --sandbox reads one page of it with the new credentials.
	Probe Probe
	// Start starts a fake whose Main entity holds n records (0: the
	// fake's default data).
	Start func(n int) Fake
	// PageSize is the most records of Main one page of the fake holds when
	// a copy walks it, when that is more than 100 (Linear's 250): the
	// suites that need a walk of many requests (rate budgets, incremental
	// cost) size the fake by it. 0: 100 or fewer.
	PageSize int
	// Credentials are the credentials object the fake accepts.
	Credentials map[string]any
	// OAuth is the OAuth app the fake's token endpoint accepts.
	OAuth OAuthClient
	// RateLimitStatus is the status of the fake's rate-limit answer (the
	// vendor's, the one Faults inject) when it is not 429: Linear answers
	// RATELIMITED in errors[] with a 400.
	RateLimitStatus int
	// Limited, when set, starts a fake whose Main entity holds n records
	// and which enforces the vendor's rate limit, scaled to limit requests
	// per per, on clock c, announcing its budget as the vendor does: a
	// client that keeps to the vendor's documented limits on its own
	// (from the announced budget) is never throttled by it.
	Limited func(c *Clock, n, limit int, per time.Duration) Fake
	// Download, when set, starts a fake that serves a file of size bytes
	// whose connection it cuts every cut bytes (0: never), and says how to
	// download it: the entity and params of the download action, and the
	// file's bytes.
	Download func(size, cut int) (f Fake, entity string, params map[string]any, content []byte)
	// DownloadOrigin is the fake's origin that serves Download's bytes
	// ("api", or "files" for a file host apart from the API).
	DownloadOrigin string
}

// Probe is a list of one page: an entity and its params.
type Probe struct {
	Entity string
	Params map[string]any
}

// OAuthClient is the one OAuth client a fake's token endpoint accepts,
// with the inputs of the kind's flow that name the fake's account. The
// values are fixed and public: they open nothing but the fake.
type OAuthClient struct {
	ClientID, ClientSecret string
	// Inputs are the flow's inputs the fake expects (Zendesk's
	// subdomain); nil when the kind takes none.
	Inputs map[string]string
}

// Fake is a running fake of any kind.
type Fake interface {
	Mutable
	// BaseURL is the origin of the fake's API (the connector's base URL).
	BaseURL() string
	// Transport reaches the fake in-process.
	Transport() http.RoundTripper
	// SetFaults changes the faults the fake injects.
	SetFaults(Faults)
	// Close stops it.
	Close()
	// Core is the machinery every fake shares: its request log, faults
	// and origins.
	Core() *Server
}

// Core returns s (Fake.Core), for fakes that embed a *Server.
func (s *Server) Core() *Server { return s }

// BaseURL returns s.URL (Fake.BaseURL).
func (s *Server) BaseURL() string { return s.URL }
