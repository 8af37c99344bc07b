package server

import "time"

// AdvanceClock moves the service's clock of s (its connect sessions',
// Server.now) forward by d, so that a test expires a session or ages the
// events without waiting.
func AdvanceClock(s *Server, d time.Duration) { s.connect.skew.Add(int64(d)) }
