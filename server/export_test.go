package server

import "time"

// AdvanceConnectClock moves the connect sessions' clock of s forward by d,
// so that a test expires a session without waiting.
func AdvanceConnectClock(s *Server, d time.Duration) { s.connect.skew.Add(int64(d)) }
