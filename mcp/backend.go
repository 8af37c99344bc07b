package mcp

import (
	"context"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
)

// Backend lists the connectors one caller may use: a fixed list for
// `tributary mcp` (Fixed), the connectors of a token's tenant and external
// user for the service (package server). The tools are those of New over
// the listed sources whatever the backend: a Source's Conn runs list, get,
// api_search and download, and search when it is a tributary.Searcher, so
// the names, schemas, answers and errors are the same everywhere.
type Backend interface {
	// Sources lists the caller's connectors, in a stable order; ctx is
	// the request's (it carries the caller's identity). Sources of the
	// same name, type, mode, title and external user must be
	// interchangeable from one call to the next: a Handler keeps the tools built over the first ones.
	Sources(ctx context.Context) ([]Source, error)
}

// Fixed is the Backend of a fixed list of connectors.
type Fixed []Source

// Sources implements Backend.
func (f Fixed) Sources(context.Context) ([]Source, error) { return f, nil }

// maxServers bounds the tool sets a Handler keeps; past it, one is
// dropped (and built again when next used).
const maxServers = 256

// Handler serves MCP's streamable HTTP over a Backend, statelessly: each
// request lists its caller's connectors and is answered by the tools of
// exactly those (a connector created or deleted since the last request is
// seen at once). The tool set of a list of connectors is built once and
// kept, so that a request costs the listing and the call, not the
// schemas.
//
// A Handler does not authenticate: mount it behind a bearer-token check
// (no ambient credential such as a cookie), which is also why it accepts
// any Host header (DNS rebinding cannot forge a bearer token).
type Handler struct {
	backend Backend
	opts    Options
	fail    func(http.ResponseWriter, *http.Request, error)
	sdk     http.Handler

	mu      sync.Mutex
	servers map[string]*Server // by serverKey of their sources
}

type serverCtxKey struct{}

// NewHandler returns a Handler over b; fail answers a request whose
// listing failed (nil: 503 with a plain message, the error unsaid).
func NewHandler(b Backend, opts Options, fail func(http.ResponseWriter, *http.Request, error)) *Handler {
	if fail == nil {
		fail = func(w http.ResponseWriter, _ *http.Request, _ error) {
			http.Error(w, "the connectors could not be listed", http.StatusServiceUnavailable)
		}
	}
	h := &Handler{backend: b, opts: opts.withDefaults(), fail: fail, servers: map[string]*Server{}}
	h.sdk = sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		s, _ := r.Context().Value(serverCtxKey{}).(*Server)
		if s == nil {
			return nil
		}
		return s.mcp
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: h.opts.Logger, DisableLocalhostProtection: true})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sources, err := h.backend.Sources(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	s, err := h.server(sources)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), serverCtxKey{}, s)))
}

// server returns the tool set of sources, built on first use.
func (h *Handler) server(sources []Source) (*Server, error) {
	key := serverKey(sources)
	h.mu.Lock()
	s, ok := h.servers[key]
	h.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := newServer(sources, h.opts, true)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if other, ok := h.servers[key]; ok { // built meanwhile
		return other, nil
	}
	if len(h.servers) >= maxServers {
		for k := range h.servers { // an arbitrary one
			delete(h.servers, k)
			break
		}
	}
	h.servers[key] = s
	return s, nil
}

// serverKey identifies what the tools of sources depend on: each
// connector's name, type, mode, title and external user, and whether it
// searches.
func serverKey(sources []Source) string {
	var b strings.Builder
	for _, src := range sources {
		_, searches := src.Conn.(tributary.Searcher)
		for _, s := range []string{src.Name, src.Conn.Type(), src.Mode, src.Title} {
			b.WriteString(s)
			b.WriteByte(0)
		}
		b.WriteString(src.ExternalUserID)
		if searches {
			b.WriteString("\x00s")
		}
		b.WriteByte(1)
	}
	return b.String()
}
