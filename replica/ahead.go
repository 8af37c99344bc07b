package replica

import (
	"context"
	"iter"
)

// ahead runs the sequence that open returns in a goroutine of its own, one
// element ahead of the caller: while a full synchronization writes a page
// into the store, the next page is fetched and decoded (on a 2-core
// machine the two halves of a load then overlap instead of taking turns).
// The elements come in the sequence's order, errors included. When the
// caller stops early, the context open received is cancelled and ahead
// returns only once the goroutine has ended, so no request outlives the
// loop; at most one element read ahead is dropped.
//
// Only full synchronizations read ahead: what they commit does not depend
// on how far the source was read, while an incremental one must not read
// the page after the one an interrupt stopped it at.
func ahead[T any](ctx context.Context, open func(ctx context.Context) iter.Seq2[T, error]) iter.Seq2[T, error] {
	type item struct {
		v   T
		err error
	}
	return func(yield func(T, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		ch := make(chan item, 1)
		// stop, not ctx.Done: when the caller's context ends, the error
		// the sequence yields for it must still reach the caller (a walk
		// that ended early must not look complete).
		stop := make(chan struct{})
		go func() {
			defer close(ch)
			for v, err := range open(ctx) {
				select {
				case ch <- item{v, err}:
				case <-stop:
					return
				}
			}
		}()
		defer func() {
			close(stop)
			cancel()
			for range ch { // until the goroutine ends
			}
		}()
		for it := range ch {
			if !yield(it.v, it.err) {
				return
			}
		}
	}
}
