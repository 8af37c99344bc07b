// Package server is the connector execution service of the platform
// contract, the one `tributary serve` runs: it holds each external user's
// credentials (sealed with AES-256-GCM at rest), runs operations on them
// with the kinds of this module, answers `search` from a durable copy
// (package store) that it keeps current in the background, and speaks the
// contract's HTTP endpoints as package hosted expects them.
//
//	st, _ := store.OpenSQLite(ctx, "serve.db")
//	srv, err := server.New(server.Config{Store: st, Keys: os.Getenv("TRIBUTARY_KEYS"),
//		Clients: []server.Client{{ID: "app", Secret: os.Getenv("APP_SECRET")}}})
//	ln, _ := net.Listen("tcp", ":8080")
//	err = srv.Serve(ctx, ln) // until ctx ends, then a graceful shutdown
//
// Several processes may serve one PostgreSQL database behind any load
// balancer: tokens are verified with the shared keys, connectors and their
// credentials live in the database, OAuth refreshes are serialized through
// it, and the background sync is shared with the store's leases.
package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// Client is an API client of the service: its id and secret are exchanged
// for bearer tokens at the token endpoint. The id is the tenant every
// connector the client creates belongs to.
type Client struct {
	ID     string
	Secret string
	// Webhooks are the endpoints the client's events are sent to (see
	// package webhook); more than one may be given.
	Webhooks []Webhook
}

// Format prints the client without its secret nor its webhooks' secrets.
func (c Client) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "server.Client{ID: %q, Secret: [REDACTED], Webhooks: %d}", c.ID, len(c.Webhooks))
}

// StaticToken is a long-lived bearer token for a trusted caller (a test, an
// internal job), accepted like an issued token with the same scope rules.
type StaticToken struct {
	Token string
	// Client is the tenant the token acts for.
	Client string
	// ExternalUserID, when set, limits the token to that user's connectors.
	ExternalUserID string
}

// Format prints the static token without the token.
func (t StaticToken) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "server.StaticToken{Client: %q, ExternalUserID: %q, Token: [REDACTED]}", t.Client, t.ExternalUserID)
}

// Config configures a Server.
type Config struct {
	// Store holds the connectors, their sealed credentials and the copies
	// that search answers from. Required. The server does not close it.
	Store *store.Store
	// Keys are the key-encryption keys, one per line,
	// "<id>:<base64 of 32 random bytes>" (`tributary serve keygen` makes
	// one). The first seals new credentials and signs tokens; every key
	// opens. Required.
	Keys string
	// Clients may exchange their id and secret for tokens.
	Clients []Client
	// Tokens are static bearer tokens (optional).
	Tokens []StaticToken
	// TokenTTL is the lifetime of issued tokens (default one hour).
	TokenTTL time.Duration
	// ConnectorOptions are passed to kinds.Open for every connector of the
	// kind named by the key (tributary.WithBaseURL of a fake, a rate limit).
	ConnectorOptions map[string][]tributary.Option
	// UseFlushEvery is how often Run writes when each connector was last
	// used to the store (default UseFlushEvery).
	UseFlushEvery time.Duration
	// SyncEvery is how stale a copy may grow before the background sync
	// updates it (default five minutes). Negative: no background sync; an
	// entity is then synchronized only on its first search.
	SyncEvery time.Duration
	// SyncWorkers is how many copies this process synchronizes at once, at
	// most (default DefaultSyncWorkers): a sync mostly waits for its
	// vendor, so many run at once on few cores; each is of a different
	// connector, and one waiting for a vendor's rate limit gives its place
	// to another (replica.WithConcurrency).
	SyncWorkers int
	// Owner names this process in the store's leases (default: host name
	// and process id).
	Owner string
	// LeaseTTL is how long a sync's claim on a copy lasts unless renewed
	// (default one minute): the time before another process takes over
	// the copy of a process that died.
	LeaseTTL time.Duration
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout bound what Serve
	// waits for a client (defaults: the constants of the same names).
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// MaxBody caps a request body in bytes (default 1 MiB); a larger one is
	// answered 413.
	MaxBody int64
	// Logger receives one line per request and the background sync's
	// events (default: discarded). No secret is ever logged.
	Logger *slog.Logger
	// Registry receives the service's metrics; nil makes a new one, served
	// at /metrics either way.
	Registry *prometheus.Registry
	// Delivery tunes the delivery of the clients' webhooks.
	Delivery DeliveryConfig
	// OAuthApps are the service's OAuth applications, by kind: connect
	// sessions (POST /v1/connect/sessions) offer these kinds to the end
	// users. Each app's redirect URL at the vendor is PublicURL +
	// CallbackPath.
	OAuthApps map[string]OAuthApp
	// PublicURL is the service's base URL as browsers reach it
	// (https://tributary.example.com): the connect page's links and the
	// OAuth redirect URL are under it. Required with OAuthApps.
	PublicURL string
	// AppName is the name of the application that sends end users to
	// the connect page ("Acme CRM"), which the page names as the one
	// asking for their data; empty: "the application that sent you
	// here". At most 256 printable characters.
	AppName string
	// ConnectSessionTTL is how long a connect session may be used
	// (DefaultConnectSessionTTL when zero).
	ConnectSessionTTL time.Duration
	// PruneEvery is how often Run deletes what the service no longer
	// needs: events kept longer than EventRetention once each of their
	// deliveries is done (delivered or given up), and connect sessions
	// expired for longer than ConnectSessionRetention. Run prunes once at
	// start, then at this interval (DefaultPruneEvery when zero; negative:
	// never, for a deployment that prunes on its own with
	// store.PruneEvents and store.PruneConnectSessions).
	PruneEvery time.Duration
	// EventRetention is how long an event is kept after it was written,
	// once every delivery of it is done (DefaultEventRetention when zero):
	// until then a replay can send it again, and the console's sync
	// history shows it. An event with a pending delivery is never pruned.
	EventRetention time.Duration
	// ConnectSessionRetention is how long a connect session is kept after
	// it expired (store.ConnectSessionRetention when zero).
	ConnectSessionRetention time.Duration
	// Admin is the operator's password of the console at /console
	// (docs/console.md), at least MinAdminPassword characters, separate
	// from the API clients' secrets; empty: no console. Never printed.
	Admin string
}

// Format prints the configuration without its secrets: the keys, the
// clients' secrets and the static tokens are left out.
func (c Config) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "server.Config{Store: %v, Keys: [REDACTED], Clients: %d, Tokens: %d, TokenTTL: %v, SyncEvery: %v, SyncWorkers: %d, Owner: %q, OAuthApps: %d, PublicURL: %q}",
		c.Store, len(c.Clients), len(c.Tokens), c.TokenTTL, c.SyncEvery, c.SyncWorkers, c.Owner, len(c.OAuthApps), c.PublicURL)
}

// Defaults of Config's zero fields.
const (
	DefaultTokenTTL       = time.Hour
	DefaultSyncEvery      = 5 * time.Minute
	DefaultSyncWorkers    = 16
	DefaultMaxBody        = 1 << 20
	DefaultPruneEvery     = time.Hour
	DefaultEventRetention = 7 * 24 * time.Hour
)

// Server is the service: an http.Handler with the contract's endpoints and
// /healthz, /readyz and /metrics. It is safe for concurrent use.
type Server struct {
	cfg     Config
	st      *store.Store
	keys    *keyring.Keyring
	clients map[string][32]byte // client id → sha256 of its secret
	static  map[[32]byte]scope  // sha256 of a static token → its scope
	log     *slog.Logger
	metrics *metrics
	mux     *http.ServeMux
	// kindLabel holds the kinds that may label a metric.
	kindLabel map[string]struct{}
	owner     string

	mu    sync.Mutex
	conns map[string]*live // opened connectors by id

	mcp mcpBackend // /mcp's listings (mcp.go)

	useMu sync.Mutex
	uses  map[string]time.Time // connectors used since the last flush (usage.go)

	syncMu  sync.Mutex
	syncing map[string]chan struct{} // on-demand syncs in progress, by connector/entity

	workersMu sync.Mutex
	workers   map[*replica.Worker]struct{} // the background workers Run runs

	endpoints []webhook.Endpoint // every client's webhook endpoints
	deliverer *webhook.Deliverer // nil without endpoints
	dmetrics  *deliveryMetrics

	connect *connectState // the connect sessions' apps and clock
}

// ConfigError is New's error for a field of Config that is missing or
// invalid: a program maps Field to where the value came from (a flag, an
// environment variable) to tell its user. It never holds a secret.
type ConfigError struct {
	// Field is the Config field: "Store", "Keys", "Admin", "PublicURL",
	// "OAuthApps".
	Field string
	// Reason says what is wrong with it.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *ConfigError) Error() string {
	s := "server: Config." + e.Field + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// New checks cfg and builds a Server. It does not listen: use Serve, or
// mount the Server as a handler and call Run for the background sync.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, &ConfigError{Field: "Store", Reason: "a store is required"}
	}
	keys, err := keyring.Parse(cfg.Keys)
	if err != nil {
		return nil, &ConfigError{Field: "Keys", Reason: "the key-encryption keys are not valid", Err: err}
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = DefaultSyncEvery
	}
	if cfg.SyncWorkers <= 0 {
		cfg.SyncWorkers = DefaultSyncWorkers
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = time.Minute
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&cfg.ReadHeaderTimeout, ReadHeaderTimeout}, {&cfg.ReadTimeout, ReadTimeout}, {&cfg.IdleTimeout, IdleTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if cfg.Admin != "" && len(cfg.Admin) < MinAdminPassword {
		return nil, &ConfigError{Field: "Admin", Reason: fmt.Sprintf("the console's password needs at least %d characters", MinAdminPassword)}
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&cfg.PruneEvery, DefaultPruneEvery}, {&cfg.EventRetention, DefaultEventRetention}, {&cfg.ConnectSessionRetention, store.ConnectSessionRetention}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if cfg.EventRetention < 0 || cfg.ConnectSessionRetention < 0 {
		return nil, errors.New("server: Config.EventRetention and Config.ConnectSessionRetention must not be negative")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		cfg.Owner = host + ":" + strconv.Itoa(os.Getpid()) + ":" + randomID(4)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	s := &Server{cfg: cfg, st: cfg.Store, keys: keys, log: cfg.Logger, owner: cfg.Owner,
		clients: map[string][32]byte{}, static: map[[32]byte]scope{},
		conns: map[string]*live{}, syncing: map[string]chan struct{}{}, workers: map[*replica.Worker]struct{}{}, kindLabel: map[string]struct{}{"none": {}}}
	s.mcp.s = s
	for _, k := range kinds.Types() {
		s.kindLabel[k] = struct{}{}
	}
	for _, c := range cfg.Clients {
		if c.ID == "" || len(c.Secret) < 16 {
			return nil, fmt.Errorf("server: client %q: an id and a secret of at least 16 characters are required", c.ID)
		}
		s.clients[c.ID] = sha256.Sum256([]byte(c.Secret))
	}
	for i, t := range cfg.Tokens {
		if len(t.Token) < 16 || t.Client == "" {
			return nil, fmt.Errorf("server: static token %d: a token of at least 16 characters and a client are required", i)
		}
		s.static[sha256.Sum256([]byte(t.Token))] = scope{client: t.Client, user: t.ExternalUserID}
	}
	s.metrics, err = newMetrics(cfg.Registry, s)
	if err != nil {
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	if s.endpoints, err = endpointsOf(cfg.Clients); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if s.dmetrics, err = newDeliveryMetrics(cfg.Registry, s); err != nil {
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	if len(s.endpoints) > 0 {
		dc := cfg.Delivery
		s.deliverer, err = webhook.NewDeliverer(webhook.DelivererConfig{Store: cfg.Store, Endpoints: s.endpoints, Owner: cfg.Owner + "/webhooks",
			RetryFor: dc.RetryFor, Backoff: dc.Backoff, MaxBackoff: dc.MaxBackoff, Timeout: dc.Timeout, Poll: dc.Poll, Transport: dc.Transport,
			Observe: s.dmetrics.observe, Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if err := s.initConnect(cfg); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// GenerateKey returns a new key-encryption key line for Config.Keys: the id
// given, and 32 random bytes.
func GenerateKey(id string) (string, error) { return keyring.NewKey(id) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Default timeouts of the HTTP server Serve runs. A client that sends its
// headers or body slower than these is disconnected; an idle keep-alive
// connection is closed after IdleTimeout.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 60 * time.Second
	IdleTimeout       = 2 * time.Minute
	// WriteStall is the longest a response may wait for the client to read
	// it; downloads renew it at every chunk.
	WriteStall = 60 * time.Second
	// ShutdownGrace is how long Serve waits for in-flight requests once its
	// context ends.
	ShutdownGrace = 30 * time.Second
)

// Serve answers on ln and runs the background sync until ctx ends; then it
// stops accepting connections, lets in-flight requests finish (at most
// ShutdownGrace), lets the sync commit or roll back its transaction, and
// returns nil. Any other failure to serve is returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	syncCtx, stopSync := context.WithCancel(ctx)
	defer stopSync()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.Run(syncCtx)
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "owner", s.owner)
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		s.log.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		err = hs.Shutdown(sctx)
		cancel()
		<-served
	}
	stopSync()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Run keeps every connector's searchable entities current (nothing when
// Config.SyncEvery is negative), delivers the clients' webhooks, records
// when each connector was last used (every UseFlushEvery) and prunes old
// events and connect sessions (every Config.PruneEvery) until ctx ends. First it finishes an upgrade of the store from before schema
// version 8 (store.MigrateNeedsReconnect). Serve calls it; call it yourself when you mount the Server in
// your own http.Server.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	s.migrate(ctx)
	s.reportSeals(ctx)
	wg.Go(func() { s.recordUse(ctx) })
	if s.cfg.PruneEvery > 0 {
		wg.Go(func() { s.pruneEvery(ctx) })
	}
	if s.deliverer != nil {
		wg.Go(func() { _ = s.deliverer.Run(ctx) })
	}
	if s.cfg.SyncEvery < 0 {
		return
	}
	w := replica.NewWorker(s.st, s.openForSync,
		replica.WithOwner(s.owner+"/sync"),
		replica.WithConcurrency(s.cfg.SyncWorkers),
		replica.WithEvery(s.cfg.SyncEvery),
		replica.WithLeaseTTL(s.cfg.LeaseTTL),
		replica.WithWorkerLogger(s.log),
		replica.WithReport(s.synced),
		replica.WithLoadOptions(s.syncEventOptions),
		replica.WithFailureEvents(s.syncFailedEvents),
		replica.WithReplicaOptionsFor(s.replicaOptions))
	s.addWorker(w)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s.removeWorker(w)
		if err := w.Run(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("sync worker stopped", "err", err)
		}
	}()
	wg.Wait()
}

// Close releases the connectors the server opened. It does not close the
// store.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.conns)
	return nil
}
