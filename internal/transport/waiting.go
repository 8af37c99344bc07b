package transport

import (
	"context"
	"sync"
	"time"
)

// LongWait is the shortest wait for a rate limit that a WaitNotifier is
// told of: a budget's hold, or the Retry-After or reset a rate-limit answer
// asks for before the request is sent again. Shorter waits (the pacer's
// spacing of requests) are the request's own work.
const LongWait = time.Second

// WaitNotifier is told when a request under its context starts (true) and
// ends (false) a wait for a rate limit of LongWait or more. Whoever runs
// many calls at once (replica's Worker) uses it to give the waiting call's
// place to another while the vendor makes this one wait. It is called from
// the request's goroutine; each true is followed by exactly one false.
type WaitNotifier func(waiting bool)

type waitKey struct{}

// WithWaitNotifier returns ctx with f told of its requests' long waits.
func WithWaitNotifier(ctx context.Context, f WaitNotifier) context.Context {
	return context.WithValue(ctx, waitKey{}, f)
}

// longWait tells ctx's WaitNotifier, if it has one and d is long, that a
// wait of d begins, and returns what ends it (safe to call more than
// once; it does nothing for a short wait).
func longWait(ctx context.Context, d time.Duration) func() {
	f, _ := ctx.Value(waitKey{}).(WaitNotifier)
	if f == nil || d < LongWait {
		return func() {}
	}
	f(true)
	var once sync.Once
	return func() { once.Do(func() { f(false) }) }
}
