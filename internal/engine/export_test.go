package engine

// StreamCached returns how many pages and events c keeps of the event
// stream whose entity is stream, to share them between its copies.
func StreamCached(c *Connector, stream string) (pages, events int) {
	c.streamMu.Lock()
	defer c.streamMu.Unlock()
	r := c.streams[stream]
	if r == nil {
		return 0, 0
	}
	for _, p := range r.pages {
		events += len(p)
	}
	return len(r.pages), events
}
