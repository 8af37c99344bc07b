package main

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// activity samples what PostgreSQL's client backends are doing: a sample
// counts each active statement, by its kind (statementKind). Over a run,
// a kind's share of the samples is its share of the database's busy
// backends: where the database's time goes, without an extension.
type activity struct {
	mu      sync.Mutex
	counts  map[string]int
	samples int // active statements seen
}

// activityShare is a kind of statement's share of the busy backends.
type activityShare struct {
	Statement string  `json:"statement"`
	Share     float64 `json:"share"`
}

// watch samples db every interval until ctx ends. A failed sample is
// skipped: the measure is statistical.
func (a *activity) watch(ctx context.Context, db *pgxpool.Pool, every time.Duration) {
	for waitCtx(ctx, every) {
		rows, err := db.Query(ctx, `SELECT query, coalesce(wait_event_type, '') FROM pg_stat_activity
			WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if err != nil {
			continue
		}
		var kinds []string
		for rows.Next() {
			var q, wait string
			if rows.Scan(&q, &wait) == nil {
				kinds = append(kinds, statementKind(q, wait))
			}
		}
		rows.Close()
		a.mu.Lock()
		if a.counts == nil {
			a.counts = map[string]int{}
		}
		for _, k := range kinds {
			a.counts[k]++
		}
		a.samples += len(kinds)
		a.mu.Unlock()
	}
}

// top is the n kinds of statement seen most, with their shares.
func (a *activity) top(n int) []activityShare {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []activityShare
	for k, c := range a.counts {
		out = append(out, activityShare{Statement: k, Share: float64(c) / float64(a.samples)})
	}
	slices.SortFunc(out, func(x, y activityShare) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Statement, y.Statement))
	})
	return out[:min(n, len(out))]
}

var (
	copyTable   = regexp.MustCompile(`tributary_t[0-9]+`)
	indexColumn = regexp.MustCompile(`(_|\b)k[0-9]+\b`)
	placeholder = regexp.MustCompile(`\$[0-9]+`)
	spaces      = regexp.MustCompile(`\s+`)
)

// statementKind names a statement by its first words, with the copies'
// table numbers, index columns and placeholders made alike; one waiting
// for a lock says so.
func statementKind(q, wait string) string {
	q = copyTable.ReplaceAllString(q, "tributary_tN")
	q = indexColumn.ReplaceAllString(q, "${1}kN")
	q = placeholder.ReplaceAllString(q, "$")
	q = strings.TrimSpace(spaces.ReplaceAllString(strings.ReplaceAll(q, `"`, ""), " "))
	if len(q) > 80 {
		q = strings.ToValidUTF8(q[:80], "") + "…"
	}
	if wait == "Lock" {
		q = "(waiting for a lock) " + q
	}
	return q
}
