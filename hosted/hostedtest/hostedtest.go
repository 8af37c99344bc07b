// Package hostedtest runs the hosted connector execution service (package
// server, the service `tributary serve` runs) in-process on loopback, over
// a throwaway SQLite store or a PostgreSQL database, for tests and examples
// that must run offline. The hosted client's own tests run against it, so
// they test the real service, not a double.
//
//	zd := zendesktest.New()
//	srv := hostedtest.New(hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL)))
//	defer srv.Close()
//	c, _ := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID,
//		ClientSecret: hostedtest.DefaultClientSecret, ExternalUserID: "u1"})
//
// It answers at both path sets of package hosted (DefaultPaths and
// IntegrationsPaths). An entity is synchronized on its first search (and
// in the background too with WithBackgroundSync).
package hostedtest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// The credentials the service accepts unless options say otherwise.
// DefaultToken is a static token of the DefaultClientID tenant.
const (
	DefaultToken        = "HOSTED_TEST_TOKEN"
	DefaultClientID     = "hosted_test_client"
	DefaultClientSecret = "HOSTED_TEST_SECRET"
)

// Server is a running service.
type Server struct {
	// URL is the service's base URL.
	URL string
	// Service is the service itself (to issue tokens, rotate keys, ...).
	Service *server.Server
	// Store is the store it runs on.
	Store *store.Store

	srv    *httptest.Server
	dir    string
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closeStore bool
	closeOnce  sync.Once

	mu       sync.Mutex
	requests map[string]int
}

type config struct {
	cfg      server.Config
	postgres string
	st       *store.Store
	every    time.Duration
}

// Option configures the server.
type Option func(*config)

// WithToken replaces the static bearer token of the DefaultClientID tenant.
func WithToken(token string) Option {
	return func(c *config) { c.cfg.Tokens = []server.StaticToken{{Token: token, Client: DefaultClientID}} }
}

// WithClient replaces the API client the token endpoint accepts.
func WithClient(id, secret string) Option {
	return func(c *config) { c.cfg.Clients = []server.Client{{ID: id, Secret: secret}} }
}

// WithClients adds API clients (other tenants).
func WithClients(clients ...server.Client) Option {
	return func(c *config) { c.cfg.Clients = append(c.cfg.Clients, clients...) }
}

// WithTokenTTL sets the lifetime of issued tokens (default one hour).
func WithTokenTTL(d time.Duration) Option { return func(c *config) { c.cfg.TokenTTL = d } }

// WithConnectorOptions passes opts to kinds.Open for connectors of kind
// connectorType (for example tributary.WithBaseURL of that kind's fake).
func WithConnectorOptions(connectorType string, opts ...tributary.Option) Option {
	return func(c *config) {
		c.cfg.ConnectorOptions[connectorType] = append(c.cfg.ConnectorOptions[connectorType], opts...)
	}
}

// WithPostgres runs the service on the PostgreSQL database at dsn instead
// of a throwaway SQLite file.
func WithPostgres(dsn string) Option { return func(c *config) { c.postgres = dsn } }

// WithStore runs the service on st, which the caller opened and closes.
func WithStore(st *store.Store) Option { return func(c *config) { c.st = st } }

// WithBackgroundSync keeps every searchable entity current in the
// background, as `tributary serve` does (default: only on first search).
func WithBackgroundSync(every time.Duration) Option { return func(c *config) { c.every = every } }

// WithLogger receives the service's log lines.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.cfg.Logger = l } }

// New starts the service on loopback. It panics when the service cannot
// start (a test helper: the store could not be created). Close it when
// done.
func New(opts ...Option) *Server {
	c := config{every: -1, cfg: server.Config{
		Clients:          []server.Client{{ID: DefaultClientID, Secret: DefaultClientSecret}},
		Tokens:           []server.StaticToken{{Token: DefaultToken, Client: DefaultClientID}},
		ConnectorOptions: map[string][]tributary.Option{},
	}}
	for _, o := range opts {
		o(&c)
	}
	s := &Server{requests: map[string]int{}}
	ctx := context.Background()
	var err error
	switch {
	case c.st != nil:
		s.Store = c.st
	case c.postgres != "":
		s.Store, err = store.OpenPostgres(ctx, c.postgres)
	default:
		if s.dir, err = os.MkdirTemp("", "hostedtest-"); err == nil {
			s.Store, err = store.OpenSQLite(ctx, filepath.Join(s.dir, "service.db"))
		}
	}
	if err != nil {
		s.cleanup(c)
		panic(fmt.Sprintf("hostedtest: opening the store: %v", err))
	}
	if c.cfg.Keys, err = keyring.NewKey("hostedtest"); err != nil {
		s.cleanup(c)
		panic(fmt.Sprintf("hostedtest: %v", err))
	}
	c.cfg.Store, c.cfg.SyncEvery = s.Store, c.every
	if s.Service, err = server.New(c.cfg); err != nil {
		s.cleanup(c)
		panic(fmt.Sprintf("hostedtest: %v", err))
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count(endpoint(r.URL.Path))
		s.Service.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if c.every >= 0 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.Service.Run(runCtx)
		}()
	}
	s.closeStore = c.st == nil
	return s
}

func (s *Server) cleanup(c config) {
	if s.Store != nil && c.st == nil {
		s.Store.Close()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// endpoint names the endpoint of a path, as Requests counts them.
func endpoint(p string) string {
	switch {
	case p == hosted.DefaultPaths.Token:
		return "token"
	case strings.HasSuffix(p, "/execute"):
		return "execute"
	case strings.HasSuffix(p, "/connectors"):
		return "create"
	}
	return "other"
}

// Close stops the service and removes its throwaway store. Closing twice
// does nothing more.
func (s *Server) Close() { s.closeOnce.Do(s.close) }

func (s *Server) close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.cancel()
	s.wg.Wait()
	s.Service.Close()
	if s.closeStore {
		s.Store.Close()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Requests returns how many requests each endpoint ("token", "create",
// "execute") received.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

func (s *Server) count(endpoint string) {
	s.mu.Lock()
	s.requests[endpoint]++
	s.mu.Unlock()
}
