package mcp

import (
	"context"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/replica"
)

// Store gives direct-mode connectors the `search` action over a
// synchronized copy of their data. It is the seam where a durable store
// (a replica over SQLite or PostgreSQL) replaces the in-memory one:
// openStore is the one place that maps the configuration to a Store.
type Store interface {
	// Attach returns conn with search added (the result implements
	// tributary.Searcher). name is the connector's name in the
	// configuration, unique within the server; entities are the list
	// params each entity's copy is walked with (an entity not named is
	// walked with none).
	Attach(ctx context.Context, name string, conn tributary.Connector, entities map[string]tributary.Params) (tributary.Connector, error)
	// Close releases the store once the server is done with it.
	Close() error
}

// openStore returns the store a configuration names, nil for none.
func openStore(_ context.Context, c *StoreConfig) (Store, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "memory":
		return MemoryStore{}, nil
	}
	return nil, configErr("store type %q: the store available is memory", c.Type)
}

// MemoryStore keeps each searched entity in memory (package replica),
// synchronized on its first search and kept for the life of the server.
type MemoryStore struct{}

// Attach implements Store with a replica of conn.
func (MemoryStore) Attach(_ context.Context, _ string, conn tributary.Connector, entities map[string]tributary.Params) (tributary.Connector, error) {
	opts := []replica.Option{replica.WithAutoSync()}
	for e, p := range entities {
		opts = append(opts, replica.WithParams(e, p))
	}
	return replica.New(conn, opts...).Connector(), nil
}

// Close implements Store; memory needs no release.
func (MemoryStore) Close() error { return nil }
