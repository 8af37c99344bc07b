package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/mcp"
	"github.com/tributary-dev/tributary/search"
)

// MCPPath is where the service speaks MCP (streamable HTTP): the tools of
// `tributary mcp` over the connectors of the bearer token's tenant (and
// external user, when the token names one), each named by its id.
const MCPPath = "/mcp"

// MCPMode is the mode list_connectors gives the service's connectors.
const MCPMode = "service"

// mcpHandler is the /mcp endpoint: the bearer token is checked as for the
// API (a missing or wrong one is a 401 with WWW-Authenticate), the body
// is bounded by Config.MaxBody, and package mcp answers with the tools
// over the token's connectors.
func (s *Server) mcpHandler() func(http.ResponseWriter, *http.Request) {
	h := mcp.NewHandler(&s.mcp, mcp.Options{Logger: s.log}, func(w http.ResponseWriter, r *http.Request, err error) {
		s.storeFailed(w, r, "listing the connectors", err)
	})
	authed := s.authenticated(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Del("WWW-Authenticate") // authenticated: no challenge
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
		h.ServeHTTP(w, r)
	})
	return func(w http.ResponseWriter, r *http.Request) {
		// The challenge of a 401 (RFC 6750), which MCP clients read.
		w.Header().Set("WWW-Authenticate", `Bearer realm="tributary"`)
		authed(w, r)
	}
}

// mcpListTTL is how long /mcp reuses a scope's list of connectors: it
// spares the store a query per call. A connector created or deleted
// through this process drops its tenant's lists at once (forgetTenant);
// one created through another process sharing the store is offered
// within mcpListTTL (a deleted one is not found at once, when a call
// opens it).
const mcpListTTL = 2 * time.Second

// maxListings bounds the scopes whose lists are kept.
const maxListings = 10_000

// mcpBackend lists the connectors the request's token may use. Its zero
// value with s set is ready.
type mcpBackend struct {
	s *Server

	mu    sync.Mutex
	lists map[scope]mcpListing

	catalogues sync.Map // kind → []tributary.Entity, each built once: the tools only read it
}

// forgetTenant drops the lists of tenant's scopes: a connector of the
// tenant was created or deleted.
func (b *mcpBackend) forgetTenant(tenant string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sc := range b.lists {
		if sc.client == tenant {
			delete(b.lists, sc)
		}
	}
}

// mcpListing is a scope's list of connectors, as read at a time.
type mcpListing struct {
	sources []mcp.Source
	at      time.Time
}

// Sources implements mcp.Backend: the connectors of the scope's tenant
// (and user), by id, in the order they were created.
func (b *mcpBackend) Sources(ctx context.Context) ([]mcp.Source, error) {
	sc, ok := scopeOf(ctx)
	if !ok {
		return nil, errors.New("server: an MCP request without a scope")
	}
	now := time.Now()
	b.mu.Lock()
	l, ok := b.lists[sc]
	b.mu.Unlock()
	if ok && now.Sub(l.at) < mcpListTTL {
		return l.sources, nil
	}
	rows, err := b.s.st.ListConnectors(ctx, sc.client)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Source, 0, len(rows))
	for _, row := range rows {
		if !sc.allows(row.Tenant, row.ExternalUserID) {
			continue
		}
		ents, ok := b.catalogue(row.Kind)
		if !ok { // a kind this build no longer has
			continue
		}
		out = append(out, mcp.Source{Name: row.ID, Conn: &mcpConn{s: b.s, id: row.ID, kind: row.Kind, entities: ents}, Mode: MCPMode,
			Title: row.Name, ExternalUserID: row.ExternalUserID})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lists == nil {
		b.lists = map[scope]mcpListing{}
	}
	if len(b.lists) >= maxListings {
		for k := range b.lists { // an arbitrary one
			delete(b.lists, k)
			break
		}
	}
	b.lists[sc] = mcpListing{sources: out, at: now}
	return out, nil
}

// catalogue returns the catalogue of kind.
func (b *mcpBackend) catalogue(kind string) ([]tributary.Entity, bool) {
	if ents, ok := b.catalogues.Load(kind); ok {
		return ents.([]tributary.Entity), true
	}
	ents, err := kinds.Catalogue(kind)
	if err != nil {
		return nil, false
	}
	b.catalogues.Store(kind, ents)
	return ents, true
}

// mcpConn is a connector of the service as the MCP tools run it: opened
// (or found open) when a call runs, search answered from its copy as the
// execute endpoint does (syncingSearcher), the vendor's usage counted.
type mcpConn struct {
	s        *Server
	id, kind string
	entities []tributary.Entity
}

// Type implements tributary.Connector.
func (c *mcpConn) Type() string { return c.kind }

// Entities implements tributary.Connector: the kind's catalogue.
func (c *mcpConn) Entities() []tributary.Entity { return c.entities }

// open returns the opened connector. The listing that named it was
// scoped to the caller; one deleted since is not found.
func (c *mcpConn) open(ctx context.Context, entity string) (*live, error) {
	l, err := c.s.connectorAny(ctx, c.id)
	if errors.Is(err, errNoConnector) {
		return nil, &tributary.Error{Kind: c.kind, Entity: entity, Err: tributary.ErrNotFound, Message: "no connector \"" + c.id + "\": it was deleted"}
	}
	if err != nil {
		c.s.log.Error("mcp: opening a connector", "connector", c.id, "err", err)
		return nil, errors.New("the connector could not be opened: the service's storage is unavailable")
	}
	c.s.used(c.id)
	return l, nil
}

// metered runs op on the opened connector and counts its vendor usage.
func metered[T any](ctx context.Context, c *mcpConn, entity string, op func(tributary.Connector) (T, error)) (T, error) {
	l, err := c.open(ctx, entity)
	if err != nil {
		var zero T
		return zero, err
	}
	u0 := usageOf(l.conn)
	defer func() { c.s.metrics.vendor(c.kind, usageOf(l.conn).Sub(u0)) }()
	return op(l.conn)
}

// List implements tributary.Connector.
func (c *mcpConn) List(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	return metered(ctx, c, entity, func(conn tributary.Connector) (*tributary.Page, error) { return conn.List(ctx, entity, p) })
}

// Get implements tributary.Connector.
func (c *mcpConn) Get(ctx context.Context, entity string, p tributary.Params) (tributary.Record, error) {
	return metered(ctx, c, entity, func(conn tributary.Connector) (tributary.Record, error) { return conn.Get(ctx, entity, p) })
}

// APISearch implements tributary.Connector.
func (c *mcpConn) APISearch(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	return metered(ctx, c, entity, func(conn tributary.Connector) (*tributary.Page, error) { return conn.APISearch(ctx, entity, p) })
}

// Download implements tributary.Connector.
func (c *mcpConn) Download(ctx context.Context, entity string, p tributary.Params) (*download.Stream, error) {
	return metered(ctx, c, entity, func(conn tributary.Connector) (*download.Stream, error) { return conn.Download(ctx, entity, p) })
}

// Search implements tributary.Searcher: from the connector's copy, as the
// execute endpoint answers search.
func (c *mcpConn) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	l, err := c.open(ctx, entity)
	if err != nil {
		return nil, err
	}
	rep, err := c.s.replicaOf(ctx, l)
	if err != nil {
		c.s.log.Error("mcp: opening a copy", "connector", c.id, "err", err)
		return nil, errors.New("the connector's copy could not be opened: the service's storage is unavailable")
	}
	return (&syncingSearcher{s: c.s, l: l, rep: rep}).Search(ctx, entity, q)
}
