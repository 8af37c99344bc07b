package fakeserver

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Table holds one entity's records as a vendor keeps them: by id, in the
// order they were created, each with its last-modified time on the fake's
// clock; a deleted record stays as a tombstone (a vendor whose feed shows
// deletions serves it; one whose lists forget it skips it). It is the
// store under a fake's lists, gets, feeds and mutations (Mutable), so that
// each fake keeps only its data generation and its vendor's quirks. It is
// safe for concurrent use.
type Table[T any] struct {
	mu   sync.RWMutex
	rows []Row[T]
	byID map[string]int
}

// Row is one record of a Table.
type Row[T any] struct {
	// ID is the record's id as the vendor renders it.
	ID string
	// Rec is the record.
	Rec T
	// Created and Modified are on the fake's clock.
	Created, Modified time.Time
	// Deleted marks a tombstone.
	Deleted bool
	// Seq is the row's place in creation order, from 0.
	Seq int
}

// Put adds a record, or replaces the one with its id (keeping its place
// and creation time), modified at.
func (t *Table[T]) Put(id string, rec T, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = map[string]int{}
	}
	if i, ok := t.byID[id]; ok {
		r := &t.rows[i]
		r.Rec, r.Modified, r.Deleted = rec, at, false
		return
	}
	t.byID[id] = len(t.rows)
	t.rows = append(t.rows, Row[T]{ID: id, Rec: rec, Created: at, Modified: at, Seq: len(t.rows)})
}

// Update changes the live record id in place with fn, modified at; false
// when there is none.
func (t *Table[T]) Update(id string, at time.Time, fn func(*T)) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.byID[id]
	if !ok || t.rows[i].Deleted {
		return false
	}
	fn(&t.rows[i].Rec)
	t.rows[i].Modified = at
	return true
}

// Delete makes the live record id a tombstone, modified at; false when
// there is none.
func (t *Table[T]) Delete(id string, at time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.byID[id]
	if !ok || t.rows[i].Deleted {
		return false
	}
	t.rows[i].Deleted, t.rows[i].Modified = true, at
	return true
}

// Get returns the row of id, tombstones included.
func (t *Table[T]) Get(id string) (Row[T], bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	i, ok := t.byID[id]
	if !ok {
		return Row[T]{}, false
	}
	return t.rows[i], true
}

// Live returns the record of id when it is not deleted.
func (t *Table[T]) Live(id string) (T, bool) {
	r, ok := t.Get(id)
	if !ok || r.Deleted {
		var zero T
		return zero, false
	}
	return r.Rec, true
}

// Rows returns a snapshot of the rows keep accepts (nil: every live row),
// in creation order.
func (t *Table[T]) Rows(keep func(Row[T]) bool) []Row[T] {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]Row[T], 0, len(t.rows))
	for _, r := range t.rows {
		if (keep == nil && !r.Deleted) || (keep != nil && keep(r)) {
			out = append(out, r)
		}
	}
	return out
}

// ByModified sorts rows oldest change first, ties in creation order: the
// order of a vendor's "updated since, ascending" feed.
func ByModified[T any](rows []Row[T]) {
	slices.SortStableFunc(rows, func(a, b Row[T]) int {
		if c := a.Modified.Compare(b.Modified); c != 0 {
			return c
		}
		return a.Seq - b.Seq
	})
}

// IDs returns the ids of the live rows, in creation order (Mutable.IDs).
func (t *Table[T]) IDs() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, 0, len(t.rows))
	for _, r := range t.rows {
		if !r.Deleted {
			out = append(out, r.ID)
		}
	}
	return out
}

// Len returns the number of live rows.
func (t *Table[T]) Len() int { return len(t.IDs()) }

// PageOf returns the part of items a page of size n starting at offset
// holds, and the offset of the next page (-1 on the last page). A size
// below 1 is 1.
func PageOf[T any](items []T, offset, n int) ([]T, int) {
	n = max(n, 1)
	offset = min(max(offset, 0), len(items))
	end := min(offset+n, len(items))
	next := end
	if end >= len(items) {
		next = -1
	}
	return items[offset:end], next
}

// Cursor encodes an offset into an opaque token, as vendors' cursors are
// opaque to clients: prefix names what it pages ("issues"), so that a
// token of one list given to another is refused.
func Cursor(prefix string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(prefix + ":" + strconv.Itoa(offset)))
}

// FromCursor decodes a token Cursor made for prefix; false when it is not
// one (a forged, foreign or corrupted token).
func FromCursor(prefix, token string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, false
	}
	p, n, ok := strings.Cut(string(b), ":")
	if !ok || p != prefix {
		return 0, false
	}
	off, err := strconv.Atoi(n)
	if err != nil || off < 0 {
		return 0, false
	}
	return off, true
}
