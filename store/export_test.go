package store

// SetBroadFilter sets the number of matches past which s takes a filter
// as broad (20,000 otherwise), so that tests of a few hundred records
// reach both plans of a sorted search.
func SetBroadFilter(s *Store, n int) { s.broad = n }
