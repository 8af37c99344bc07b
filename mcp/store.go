package mcp

import (
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/replica"
)

// Store gives direct-mode connectors the `search` action over a
// synchronized copy of their data. It is the seam where a durable store
// replaces the in-memory one.
type Store interface {
	// Attach returns conn with search added (the result implements
	// tributary.Searcher). entities are the list params each entity's
	// copy is walked with; an entity not named is walked with none.
	Attach(name string, conn tributary.Connector, entities map[string]tributary.Params) (tributary.Connector, error)
}

// MemoryStore keeps each searched entity in memory (package replica),
// synchronized on its first search and kept for the life of the server.
type MemoryStore struct{}

// Attach implements Store with a replica of conn.
func (MemoryStore) Attach(_ string, conn tributary.Connector, entities map[string]tributary.Params) (tributary.Connector, error) {
	opts := []replica.Option{replica.WithAutoSync()}
	for e, p := range entities {
		opts = append(opts, replica.WithParams(e, p))
	}
	return replica.New(conn, opts...).Connector(), nil
}
