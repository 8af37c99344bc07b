package mcp

import (
	"context"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// Store gives direct-mode connectors the `search` action over a
// synchronized copy of their data. It is the seam where a durable store
// (a replica over SQLite or PostgreSQL) replaces the in-memory one:
// openStore is the one place that maps the configuration to a Store.
type Store interface {
	// Attach returns conn with search added (the result implements
	// tributary.Searcher). name is the connector's name in the
	// configuration, unique within the server; copies says how its
	// entities' copies are read.
	Attach(ctx context.Context, name string, conn tributary.Connector, copies Copies) (tributary.Connector, error)
	// Close releases the store once the server is done with it.
	Close() error
}

// Copies says how a connector's copies are read.
type Copies struct {
	// Params are the list params each entity's copy is walked with; an
	// entity not named is read with its catalogue's copy scope, or with
	// none.
	Params map[string]tributary.Params
	// Config is the connector's replication_config, which the copy
	// scopes read (GitHub's repositories, a start date), in normal form
	// (kinds.NormalizeReplicationConfig).
	Config map[string]any
}

// options are the replica options copies stand for.
func (c Copies) options() []replica.Option {
	var opts []replica.Option
	for e, p := range c.Params {
		opts = append(opts, replica.WithParams(e, p))
	}
	if c.Config != nil {
		opts = append(opts, replica.WithConfig(c.Config))
	}
	return opts
}

// openStore returns the store a configuration names, nil for none.
func openStore(ctx context.Context, c *StoreConfig, getenv func(string) (string, bool)) (Store, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "memory":
		return MemoryStore{}, nil
	case "sqlite":
		if c.Path == "" {
			return nil, configErr("store type sqlite: path is required (the database file)")
		}
		st, err := store.OpenSQLite(ctx, c.Path)
		if err != nil {
			return nil, configErr("store: %v", err)
		}
		return &DurableStore{st: st}, nil
	case "postgres":
		if !c.DSN.IsSet() {
			return nil, configErr("store type postgres: dsn is required ({env: NAME} or {file: PATH} keeps the password out of the file)")
		}
		dsn, err := c.DSN.resolveString(getenv)
		if err != nil {
			return nil, configErr("store dsn: %v", err)
		}
		st, err := store.OpenPostgres(ctx, dsn)
		if err != nil {
			return nil, configErr("store: %v", err)
		}
		return &DurableStore{st: st}, nil
	}
	return nil, configErr("store type %q: the types are memory, sqlite and postgres", c.Type)
}

// DurableStore keeps each searched entity in a durable store (SQLite or
// PostgreSQL, package store): a copy synchronized on its first search, or
// beforehand with `tributary sync`, which survives restarts.
type DurableStore struct {
	st *store.Store
}

// Attach implements Store with a durable replica of conn, named name in
// the store.
func (d *DurableStore) Attach(ctx context.Context, name string, conn tributary.Connector, copies Copies) (tributary.Connector, error) {
	opts := append([]replica.Option{replica.WithAutoSync(), replica.WithName(name)}, copies.options()...)
	r, err := replica.Open(ctx, conn, replica.Store(d.st), opts...)
	if err != nil {
		return nil, err
	}
	return r.Connector(), nil
}

// Close implements Store.
func (d *DurableStore) Close() error { return d.st.Close() }

// MemoryStore keeps each searched entity in memory (package replica),
// synchronized on its first search and kept for the life of the server.
type MemoryStore struct{}

// Attach implements Store with a replica of conn.
func (MemoryStore) Attach(_ context.Context, _ string, conn tributary.Connector, copies Copies) (tributary.Connector, error) {
	opts := append([]replica.Option{replica.WithAutoSync()}, copies.options()...)
	return replica.New(conn, opts...).Connector(), nil
}

// Close implements Store; memory needs no release.
func (MemoryStore) Close() error { return nil }
