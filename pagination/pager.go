// Package pagination turns every vendor's paging scheme into one pager and
// one Go iterator.
//
// A Style reads the paging information of one response (its headers and the
// top-level members of its body) and builds the params of the next request.
// There is one Style per vendor scheme, written once and used by every
// entity of every kind that pages that way. A Pager walks pages through a
// fetch function, one page in memory at a time, and stops with ErrStalled
// rather than loop when the next params repeat.
package pagination

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
)

// ErrStalled is returned when a source's paging does not advance: the next
// page would be fetched with params (a cursor, a URL, a page number) already
// used in this walk.
var ErrStalled = errors.New("paging did not advance")

// Page is one page of items with its paging information.
type Page[T any] struct {
	Items []T
	// Meta is the paging information under the kind's names.
	Meta map[string]any
	// Next holds the params of the following page; nil on the last page.
	Next map[string]any
}

// FetchFunc fetches the page that params designate.
type FetchFunc[T any] func(ctx context.Context, params map[string]any) (*Page[T], error)

// Pager fetches pages one at a time. It is not safe for concurrent use.
type Pager[T any] struct {
	fetch  FetchFunc[T]
	params map[string]any
	done   bool
	seed   maphash.Seed
	seen   map[uint64]struct{}
	recent []uint64 // the last rememberPages params, oldest first, in seen
}

// rememberPages bounds how many pages back a repeat is detected, so that
// walking a million records keeps the pager's memory flat; a source that
// repeats itself does so within a few pages.
const rememberPages = 1024

// New returns a pager whose first page is fetched with params.
func New[T any](params map[string]any, fetch FetchFunc[T]) *Pager[T] {
	return &Pager[T]{fetch: fetch, params: params, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// More reports whether another page may follow.
func (p *Pager[T]) More() bool { return !p.done }

// Next fetches the next page. After the last page it returns nil, nil.
func (p *Pager[T]) Next(ctx context.Context) (*Page[T], error) {
	if p.done {
		return nil, nil
	}
	if err := p.remember(p.params); err != nil {
		p.done = true
		return nil, err
	}
	page, err := p.fetch(ctx, p.params)
	if err != nil {
		p.done = true
		return nil, err
	}
	if page == nil || page.Next == nil {
		p.done = true
		return page, nil
	}
	p.params = page.Next
	return page, nil
}

func (p *Pager[T]) remember(params map[string]any) error {
	b, err := json.Marshal(params) // map keys come out sorted: a canonical form
	if err != nil {
		return fmt.Errorf("pagination: params cannot be encoded: %w", err)
	}
	h := maphash.Bytes(p.seed, b)
	if _, dup := p.seen[h]; dup {
		return fmt.Errorf("%w: the source asked again for %s", ErrStalled, b)
	}
	p.seen[h] = struct{}{}
	p.recent = append(p.recent, h)
	if len(p.recent) > rememberPages {
		delete(p.seen, p.recent[0])
		p.recent = p.recent[1:]
	}
	return nil
}

// All yields every item of every remaining page, in order. While the
// caller works through one page, the next one is fetched in the
// background (one request at a time, never more than one page ahead), so
// the caller's work and the network wait overlap. An error is yielded
// once, as the last pair, after the items of the pages before it.
// Breaking out of the loop or cancelling ctx stops fetching, and All
// returns only when its background fetch has ended: no goroutine outlives
// the loop.
func (p *Pager[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type fetched struct {
			page *Page[T]
			err  error
		}
		var ahead chan fetched
		fetch := func() {
			ch := make(chan fetched, 1)
			go func() {
				pg, err := p.Next(ctx)
				ch <- fetched{pg, err}
			}()
			ahead = ch
		}
		defer func() {
			if ahead != nil {
				cancel()
				<-ahead // the fetch in flight ends before All returns
			}
		}()
		if !p.More() {
			return
		}
		fetch()
		for ahead != nil {
			f := <-ahead
			ahead = nil
			if f.err != nil {
				yield(zero, f.err)
				return
			}
			if f.page == nil {
				return
			}
			if p.More() {
				fetch()
			}
			for _, it := range f.page.Items {
				// A cancelled walk stops at once, also in the middle of a
				// page already in memory.
				if err := ctx.Err(); err != nil {
					yield(zero, err)
					return
				}
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}
