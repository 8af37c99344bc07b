package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
)

// The defaults of Options.
const (
	// DefaultRecords is how many records one execute answer holds unless
	// the call asks for another limit.
	DefaultRecords = 25
	// MaxRecords is the largest limit a call may ask for.
	MaxRecords = 1000
	// DefaultBytes caps the JSON of one answer's records: about 8,000
	// tokens, a fair share of a model's context.
	DefaultBytes = 32 << 10
	// DefaultMaxDownload is the largest file the download tool writes.
	DefaultMaxDownload = 100 << 20
	// DefaultInlineBytes is the largest text file download also returns
	// inline.
	DefaultInlineBytes = 16 << 10
	// DefaultSchemaBytes bounds the per-parameter part of the tools' input
	// schemas; beyond it the schemas name entities and actions only, and
	// describe gives the parameters.
	DefaultSchemaBytes = 96 << 10
	// DefaultTimeout bounds one tool call.
	DefaultTimeout = 5 * time.Minute
)

// Source is one connector the server offers under a name.
type Source struct {
	// Name is what agents pass as "connector".
	Name string
	// Conn is the connector; it runs `search` when it is a
	// tributary.Searcher.
	Conn tributary.Connector
	// Mode says how it is reached: "direct", "hosted" or "sandbox".
	Mode string
	// Title is the connector's name for people, when Name is not (the
	// service names its connectors by id and gives their display name
	// here); empty: Name.
	Title string
	// ExternalUserID is the end user the connector belongs to, when it
	// has one (the service's connectors).
	ExternalUserID string
}

// Options configure a Server. Zero fields take the defaults.
type Options struct {
	// Limits sizes execute's answers (Limits.SchemaBytes is read from a
	// configuration file into SchemaBytes by FromConfig).
	Limits Limits
	// Downloads configures the download tool.
	Downloads Downloads
	// SchemaBytes bounds the generated per-parameter schemas
	// (DefaultSchemaBytes; negative: never include them).
	SchemaBytes int
	// Timeout bounds one tool call (DefaultTimeout).
	Timeout time.Duration
	// Logger receives one line per failed tool call (no params, no
	// secrets); nil discards.
	Logger *slog.Logger
	// Version is the version the server reports to clients.
	Version string
}

func (o Options) withDefaults() Options {
	if o.Limits.Records <= 0 {
		o.Limits.Records = DefaultRecords
	}
	o.Limits.Records = min(o.Limits.Records, MaxRecords)
	if o.Limits.Bytes <= 0 {
		o.Limits.Bytes = DefaultBytes
	}
	if o.Downloads.MaxBytes <= 0 {
		o.Downloads.MaxBytes = DefaultMaxDownload
	}
	if o.Downloads.InlineBytes == 0 {
		o.Downloads.InlineBytes = DefaultInlineBytes
	}
	if o.SchemaBytes == 0 {
		o.SchemaBytes = DefaultSchemaBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "(devel)"
	}
	return o
}

// Server is an MCP server over named connectors: the tools list_connectors,
// describe, validate, execute and download, and each connector's catalogue
// as a resource. It is safe for concurrent use.
type Server struct {
	sources []Source
	byName  map[string]Source
	opts    Options
	mcp     *sdk.Server
	closers []func()
}

// New returns a server over sources. Names must be unique and non-empty.
func New(sources []Source, opts Options) (*Server, error) { return newServer(sources, opts, false) }

// newServer builds the server's tools over sources; with allowEmpty, over
// none (a tenant of the service without connectors yet).
func newServer(sources []Source, opts Options, allowEmpty bool) (*Server, error) {
	s := &Server{byName: map[string]Source{}, opts: opts.withDefaults()}
	for _, src := range sources {
		if src.Conn == nil || !validName(src.Name) {
			return nil, configErr("source %q: a name of letters, digits, '-' and '_', and a connector, are required", src.Name)
		}
		if _, dup := s.byName[src.Name]; dup {
			return nil, configErr("source %q is given twice", src.Name)
		}
		if src.Mode == "" {
			src.Mode = "direct"
		}
		s.byName[src.Name] = src
		s.sources = append(s.sources, src)
	}
	if len(s.sources) == 0 && !allowEmpty {
		return nil, configErr("no connectors")
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "tributary", Title: "Tributary", Version: s.opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: s.opts.Logger})
	s.addTools()
	s.addResources()
	return s, nil
}

// instructions tell the model how to use the tools, once per session.
const instructions = `Tributary reads business systems (helpdesk, CRM, email marketing, call analytics, code hosting) through one contract: every read is an operation {connector, entity, action, params}.
Start with list_connectors, then describe a connector (its entities) and an entity (its actions and parameters). validate checks an operation without sending anything. execute runs list, get, api_search and search; answers are cut to a record limit and a byte cap: when "truncated" is true, call execute again with the arguments in "next" (which also pages on). Use "fields" to keep only the fields you need. download writes a file and returns its path.
Errors come back as tool results with isError and an "error" object naming the kind of mistake, the parameter and the allowed values.`

// MCPServer returns the underlying MCP server, to run on any transport of
// the SDK (Run, Connect, NewStreamableHTTPHandler).
func (s *Server) MCPServer() *sdk.Server { return s.mcp }

// Sources returns the connectors the server offers, in order.
func (s *Server) Sources() []Source { return slices.Clone(s.sources) }

// Run serves one session on t until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error { return s.mcp.Run(ctx, t) }

// Close releases what the server started (the sandbox's fakes, the
// store).
func (s *Server) Close() {
	for _, c := range slices.Backward(s.closers) {
		c()
	}
	s.closers = nil
}

// names lists the sources' names.
func (s *Server) names() []string {
	out := make([]string, len(s.sources))
	for i, src := range s.sources {
		out[i] = src.Name
	}
	return out
}

// FromConfig opens the connectors of cfg (and its store) and returns a
// server over them; ctx bounds the opening. getenv resolves {env: NAME}
// values (os.LookupEnv in the command); connOpts are added to every
// connector (a logger, an HTTP client). Close releases the store.
func FromConfig(ctx context.Context, cfg *Config, getenv func(string) (string, bool), opts Options, connOpts ...tributary.Option) (_ *Server, err error) {
	if cfg == nil {
		return nil, configErr("no configuration")
	}
	if getenv == nil {
		getenv = func(string) (string, bool) { return "", false }
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	store, err := openStore(ctx, cfg.Store, getenv)
	if err != nil {
		return nil, err
	}
	if store != nil {
		defer func() {
			if err != nil {
				_ = store.Close()
			}
		}()
	}
	sources := make([]Source, 0, len(cfg.Connectors))
	for _, cc := range cfg.Connectors {
		src, err := openConnector(ctx, cc, getenv, store, connOpts)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = cfg.Limits
	}
	if opts.SchemaBytes == 0 {
		opts.SchemaBytes = cfg.Limits.SchemaBytes
	}
	if opts.Downloads == (Downloads{}) {
		opts.Downloads = cfg.Downloads
	}
	srv, err := New(sources, opts)
	if err != nil {
		return nil, err
	}
	if store != nil {
		srv.closers = append(srv.closers, func() { _ = store.Close() })
	}
	return srv, nil
}

func openConnector(ctx context.Context, cc ConnectorConfig, getenv func(string) (string, bool), store Store, connOpts []tributary.Option) (Source, error) {
	if _, err := kinds.Catalogue(cc.Type); err != nil {
		return Source{}, configErr("connector %q: unknown type %q (types: %s)", cc.Name, cc.Type, strings.Join(kinds.Types(), ", "))
	}
	if h := cc.Hosted; h != nil {
		cfg := hosted.Config{BaseURL: h.BaseURL}
		for _, f := range []struct {
			name string
			v    Value
			dst  *string
		}{{"token", h.Token, &cfg.Token}, {"client_id", h.ClientID, &cfg.ClientID}, {"client_secret", h.ClientSecret, &cfg.ClientSecret}} {
			s, err := f.v.resolveString(getenv)
			if err != nil {
				return Source{}, configErr("connector %q: hosted.%s: %v", cc.Name, f.name, err)
			}
			*f.dst = s
		}
		switch h.Paths {
		case "", "default":
		case "integrations":
			cfg.Paths = hosted.IntegrationsPaths
		default:
			return Source{}, configErr("connector %q: hosted.paths must be default or integrations", cc.Name)
		}
		client, err := hosted.New(cfg, connOpts...)
		if err != nil {
			return Source{}, configErr("connector %q: %v", cc.Name, err)
		}
		conn, err := client.Connector(h.ConnectorID, cc.Type)
		if err != nil {
			return Source{}, configErr("connector %q: %v", cc.Name, err)
		}
		return Source{Name: cc.Name, Conn: conn, Mode: "hosted"}, nil
	}
	creds := make(map[string]any, len(cc.Credentials))
	for k, v := range cc.Credentials {
		x, err := v.Resolve(getenv)
		if err != nil {
			return Source{}, configErr("connector %q: credentials.%s: %v", cc.Name, k, err)
		}
		creds[k] = x
	}
	if cc.BaseURL != "" {
		connOpts = append(slices.Clone(connOpts), tributary.WithBaseURL(cc.BaseURL))
	}
	conn, err := kinds.Open(cc.Type, creds, connOpts...)
	if err != nil {
		return Source{}, configErr("connector %q: %v", cc.Name, err)
	}
	if store != nil {
		if conn, err = store.Attach(ctx, cc.Name, conn, Copies{Params: cc.Search, Config: cc.replication}); err != nil {
			return Source{}, configErr("connector %q: store: %v", cc.Name, err)
		}
	}
	return Source{Name: cc.Name, Conn: conn, Mode: "direct"}, nil
}

// Sandbox returns a server over every kind's built-in fake (package
// sandbox), each named by its connector_type, with `search` over an
// in-memory store: offline, with no configuration. Close stops the fakes.
func Sandbox(opts Options, connOpts ...tributary.Option) (*Server, error) {
	sb := sandbox.New()
	var sources []Source
	for _, t := range sb.Types() {
		conn, err := sb.Open(t, connOpts...)
		if err != nil {
			sb.Close()
			return nil, err
		}
		conn, _ = MemoryStore{}.Attach(context.Background(), t, conn, Copies{})
		sources = append(sources, Source{Name: t, Conn: conn, Mode: "sandbox"})
	}
	s, err := New(sources, opts)
	if err != nil {
		sb.Close()
		return nil, err
	}
	s.closers = append(s.closers, sb.Close)
	return s, nil
}

// HTTPToken resolves the bearer token of the HTTP transport from the
// configuration ("" when it gives none).
func (c *Config) HTTPToken(getenv func(string) (string, bool)) (string, error) {
	t, err := c.HTTP.Token.resolveString(getenv)
	if err != nil {
		return "", configErr("http.token: %v", err)
	}
	return t, nil
}

// errorf is a shorthand for tool errors of this package's own kinds.
func errorf(kind, format string, args ...any) *toolError {
	return &toolError{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
