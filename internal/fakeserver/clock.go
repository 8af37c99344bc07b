package fakeserver

import (
	"sync"
	"time"
)

// Clock is a clock a test moves by hand, for fakes whose behaviour depends
// on time (a scroll that expires when idle, a token's lifetime, a change
// feed's minimum age). A fake given c.Now sees time pass only when the test
// calls Advance, or by a fixed step at every reading (SetStep), so that its
// windows are counted in requests, not in how fast the machine is. It is
// safe for concurrent use.
type Clock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
	real bool // now is an offset from the real time
}

// NewClock returns a clock that reads start until advanced.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// NewRealClock returns a clock that follows the real time, plus whatever
// Advance adds: for a fake whose windows must pass as the client's do (a
// rate limit a client paces itself to).
func NewRealClock() *Clock { return &Clock{real: true} }

// Now returns the clock's time, then moves it on by the step.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real {
		t := time.Now().Add(c.now.Sub(time.Time{})) // c.now holds the offset
		c.now = c.now.Add(c.step)
		return t
	}
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// SetStep makes every later reading move the clock on by d (0: only
// Advance moves it).
func (c *Clock) SetStep(d time.Duration) {
	c.mu.Lock()
	c.step = d
	c.mu.Unlock()
}
