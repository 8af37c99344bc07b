package server

import (
	"context"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// UseFlushEvery is the default of Config.UseFlushEvery: how often Run writes the connectors' last uses it
// gathered to the store (store.RecordUse), in one transaction: a use
// shows in the list and the console at most this late, and a process
// killed loses at most this much of them.
const UseFlushEvery = 10 * time.Second

// used notes that a tenant's call used connector id now (an operation,
// a search, a download, a change feed read, through the API or /mcp). It
// costs a map write: Run writes the uses to the store every
// UseFlushEvery.
func (s *Server) used(id string) {
	s.useMu.Lock()
	s.noteUse(id, time.Now())
	s.useMu.Unlock()
}

// noteUse keeps at as id's use unless a later one is kept (s.useMu held).
func (s *Server) noteUse(id string, at time.Time) {
	if s.uses == nil {
		s.uses = map[string]time.Time{}
	}
	if at.After(s.uses[id]) {
		s.uses[id] = at
	}
}

// flushUse writes the uses gathered since the last flush; on failure they
// are kept for the next one (a later use of the same connector wins).
func (s *Server) flushUse(ctx context.Context) {
	s.useMu.Lock()
	batch := s.uses
	s.uses = nil
	s.useMu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := s.st.RecordUse(ctx, batch); err != nil {
		s.log.Warn("recording the connectors' last use failed; retrying at the next flush", "connectors", len(batch), "err", err)
		s.useMu.Lock()
		for id, at := range batch {
			s.noteUse(id, at)
		}
		s.useMu.Unlock()
	}
}

// recordUse flushes the uses every Config.UseFlushEvery until ctx ends,
// and once more then.
func (s *Server) recordUse(ctx context.Context) {
	every := s.cfg.UseFlushEvery
	if every <= 0 {
		every = UseFlushEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.flushUse(ctx)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			s.flushUse(fctx)
			cancel()
			return
		}
	}
}

// migrate finishes an upgrade of the store from before schema version 8:
// the connectors whose sealed credentials hold the old mark get the
// column's.
func (s *Server) migrate(ctx context.Context) {
	n, err := s.st.MigrateNeedsReconnect(ctx, func(c *store.Connector) (bool, error) {
		sl, err := s.unseal(c)
		if err != nil {
			return false, nil // credentials this process cannot open: left unmarked
		}
		return sl.LegacyNeedsReconnect, nil
	})
	if err != nil {
		s.log.Warn("copying the connectors' reconnection marks into the store failed; the next start tries again", "err", err)
		return
	}
	if n > 0 {
		s.log.Info("the store's connectors were upgraded", "needs_reconnect", n)
	}
}
