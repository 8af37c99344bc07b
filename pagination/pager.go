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
	"slices"
	"sync"
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
	// Later holds the params of pages after Next that this page already
	// names, in order (page numbers up to a last page, offsets up to a
	// total; see Planner). The pager may fetch them at once; each is used
	// only if the walk reaches it through the Next of the page before.
	Later []map[string]any
}

// FetchFunc fetches the page that params designate. A pager with a window
// above one calls it from several goroutines at once.
type FetchFunc[T any] func(ctx context.Context, params map[string]any) (*Page[T], error)

// Pager fetches pages in order. It is not safe for concurrent use.
//
// Pager is a typed shell over pager, which does the walking with the
// pages' items out of sight: every kind instantiates Pager for each of
// its record types, and only what touches T is compiled again for each.
type Pager[T any] struct {
	pager
}

// pager is the walk state of a Pager, whatever its item type.
type pager struct {
	fetch  func(ctx context.Context, params map[string]any) (fetched, error)
	params map[string]any
	done   bool
	window int
	seed   maphash.Seed
	seen   map[uint64]struct{}
	recent []uint64 // the last rememberPages params, oldest first, in seen
}

// fetched is a fetched page with its items out of sight: page holds the
// *Page[T], nil for no page.
type fetched struct {
	page  any
	next  map[string]any
	later []map[string]any
}

// rememberPages bounds how many pages back a repeat is detected, so that
// walking a million records keeps the pager's memory flat; a source that
// repeats itself does so within a few pages.
const rememberPages = 1024

// New returns a pager whose first page is fetched with params.
func New[T any](params map[string]any, fetch FetchFunc[T]) *Pager[T] {
	return &Pager[T]{pager{
		fetch: func(ctx context.Context, params map[string]any) (fetched, error) {
			pg, err := fetch(ctx, params)
			if pg == nil {
				return fetched{}, err
			}
			return fetched{page: pg, next: pg.Next, later: pg.Later}, err
		},
		params: params, window: 1, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{},
	}}
}

// Window sets how many pages All may have in flight at once when pages name
// the pages after them (Page.Later); n below one means one. With one, All
// fetches only the next page while the caller works on the current one.
// It returns p.
func (p *Pager[T]) Window(n int) *Pager[T] {
	p.window = max(n, 1)
	return p
}

// More reports whether another page may follow.
func (p *Pager[T]) More() bool { return !p.done }

// Next fetches the next page. After the last page it returns nil, nil.
func (p *Pager[T]) Next(ctx context.Context) (*Page[T], error) {
	f, err := p.next(ctx)
	pg, _ := f.page.(*Page[T])
	return pg, err
}

func (p *pager) next(ctx context.Context) (fetched, error) {
	if p.done {
		return fetched{}, nil
	}
	if err := p.remember(p.params); err != nil {
		p.done = true
		return fetched{}, err
	}
	f, err := p.fetch(ctx, p.params)
	if err != nil {
		p.done = true
		return fetched{}, err
	}
	if f.page == nil || f.next == nil {
		p.done = true
		return f, nil
	}
	p.params = f.next
	return f, nil
}

func (p *pager) remember(params map[string]any) error {
	h, err := hashParams(p.seed, params)
	if err != nil {
		return fmt.Errorf("pagination: params cannot be encoded: %w", err)
	}
	if _, dup := p.seen[h]; dup {
		b, _ := json.Marshal(params) // map keys come out sorted
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

// forget undoes remember for params fetched ahead that the walk did not
// reach, so that asking for them later is not taken for a repeat.
func (p *pager) forget(params map[string]any) {
	h, err := hashParams(p.seed, params)
	if err != nil {
		return
	}
	if i := slices.Index(p.recent, h); i >= 0 {
		delete(p.seen, h)
		p.recent = slices.Delete(p.recent, i, i+1)
	}
}

// All yields every item of every remaining page, in order. While the
// caller works through one page, the next one is fetched in the
// background, so the caller's work and the network wait overlap. Where a
// page names the pages after it (Page.Later) and the window allows, up to
// window pages are fetched at once; a page fetched ahead is used only when
// the walk reaches it through the Next of the page before, so the records
// and their order are those of a page-by-page walk, and a prediction that
// turns out wrong (a total that shrank) costs a request, never a record.
//
// An error is yielded once, as the last pair, after the items of the
// pages before it. Breaking out of the loop or cancelling ctx stops
// fetching, and All returns only when every fetch it started has ended: no
// goroutine outlives the loop.
func (p *Pager[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		p.walk(ctx, func(page any, err error) bool {
			if err != nil {
				yield(zero, err)
				return false
			}
			for _, it := range page.(*Page[T]).Items {
				// A cancelled walk stops at once, also in the middle of a
				// page already in memory.
				if err := ctx.Err(); err != nil {
					yield(zero, err)
					return false
				}
				if !yield(it, nil) {
					return false
				}
			}
			return true
		})
	}
}

// walk calls each with every remaining page in order (a *Page[T]), or
// with the walk's error, once, as the last call; it stops when each
// returns false. Every fetch it started has ended when it returns.
func (p *pager) walk(ctx context.Context, each func(page any, err error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := walk{p: p, jobs: make(chan func())}
	defer w.end()
	defer w.stop(0) // every fetch in flight ends before the walk returns
	if !p.done {
		w.start(ctx, p.params)
	}
	for len(w.slots) > 0 {
		head := w.slots[0]
		r := <-head.done
		head.cancel()
		w.slots = w.slots[1:]
		if r.err != nil {
			p.done = true
			each(nil, r.err)
			return
		}
		if r.page == nil || r.next == nil {
			p.done = true
			w.stop(0)
		} else {
			p.params = r.next
			w.follow(ctx, r.fetched)
		}
		if r.page == nil || !each(r.page, nil) {
			return
		}
	}
}

// walk is the queue of pages All has asked for, in walk order, and the
// goroutines that fetch them.
type walk struct {
	p     *pager
	slots []*slot
	// jobs hands a fetch to an idle worker; workers counts the workers,
	// which end when jobs is closed.
	jobs    chan func()
	workers sync.WaitGroup
}

type slot struct {
	params map[string]any
	done   chan result
	cancel context.CancelFunc
	seen   bool // params were remembered for this slot
}

type result struct {
	fetched
	err error
}

// start fetches the page of params in the background, at the queue's end.
// Params the walk has already asked for are not fetched again: the slot
// holds ErrStalled, which the walk meets after the pages before it.
func (w *walk) start(ctx context.Context, params map[string]any) {
	ctx, cancel := context.WithCancel(ctx)
	s := &slot{params: params, done: make(chan result, 1), cancel: cancel}
	w.slots = append(w.slots, s)
	if err := w.p.remember(params); err != nil {
		s.done <- result{err: err}
		return
	}
	s.seen = true
	job := func() {
		f, err := w.p.fetch(ctx, params)
		s.done <- result{f, err}
	}
	select {
	case w.jobs <- job: // a worker that has fetched a page before takes it
	default:
		w.workers.Add(1)
		go w.work(job)
	}
}

// work runs job, then each job handed to it while it is idle, until the
// walk ends. A fetch grows its goroutine's stack (an HTTP request and the
// split of its page run deep); a goroutine per page grew and copied a
// new stack for every page.
func (w *walk) work(job func()) {
	defer w.workers.Done()
	for ; job != nil; job = <-w.jobs {
		job()
	}
}

// end stops the idle workers and waits for them, once every fetch has
// ended (stop): no goroutine outlives the walk.
func (w *walk) end() {
	close(w.jobs)
	w.workers.Wait()
}

// stop cancels the fetches queued from index i on and waits for them; their
// params are forgotten, since the walk did not reach them.
func (w *walk) stop(i int) {
	for _, s := range w.slots[i:] {
		s.cancel()
	}
	for _, s := range w.slots[i:] {
		<-s.done
		if s.seen {
			w.p.forget(s.params)
		}
	}
	w.slots = w.slots[:i]
}

// follow lines the queue up with what page names next: the queued fetches
// that match page.Next and page.Later are kept, the first that does not
// and all after it are cancelled, and new fetches fill the window.
func (w *walk) follow(ctx context.Context, page fetched) {
	want := func(i int) map[string]any {
		if i == 0 {
			return page.next
		}
		if i-1 < len(page.later) {
			return page.later[i-1]
		}
		return nil
	}
	i := 0
	for i < len(w.slots) && want(i) != nil && sameParams(w.slots[i].params, want(i)) {
		i++
	}
	if i < len(w.slots) {
		w.stop(i)
	}
	for len(w.slots) < w.p.window {
		next := want(len(w.slots))
		if next == nil {
			break
		}
		w.start(ctx, next)
	}
}
