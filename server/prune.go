package server

import (
	"context"
	"time"
)

// pruneEvery prunes at once, then every Config.PruneEvery, until ctx
// ends. Every process of a deployment prunes: the deletions are
// idempotent.
func (s *Server) pruneEvery(ctx context.Context) {
	t := time.NewTicker(s.cfg.PruneEvery)
	defer t.Stop()
	for {
		s.prune(ctx)
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// prune deletes the events older than Config.EventRetention whose
// deliveries are all done, and the connect sessions expired for longer
// than Config.ConnectSessionRetention, on the service's clock.
func (s *Server) prune(ctx context.Context) {
	now := s.now()
	events, err := s.st.PruneEvents(ctx, now.Add(-s.cfg.EventRetention))
	if err != nil && ctx.Err() == nil {
		s.log.Warn("pruning events", "err", err)
	}
	sessions, err := s.st.PruneConnectSessions(ctx, now.Add(-s.cfg.ConnectSessionRetention))
	if err != nil && ctx.Err() == nil {
		s.log.Warn("pruning connect sessions", "err", err)
	}
	if events > 0 || sessions > 0 {
		s.log.Info("pruned", "events", events, "connect_sessions", sessions,
			"event_retention", s.cfg.EventRetention.String(), "connect_session_retention", s.cfg.ConnectSessionRetention.String())
	}
}

// now is the service's clock: the connect sessions' (which tests move).
func (s *Server) now() time.Time { return s.connect.now() }
