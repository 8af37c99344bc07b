package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Leases let many processes share the work of keeping a store's copies
// current (on PostgreSQL; on SQLite they work the same within one file):
// a worker claims one copy at a time for a while (ClaimNext), renews the
// claim while it synchronizes, and releases it. A worker that dies stops
// renewing; once its claim expires, another takes the copy over. Each
// claim carries a token that grows with every claim of that copy, and a
// load made under a claim (Fenced) writes and commits only while its token
// is the copy's current one: a worker that stalled past its claim cannot
// overwrite the work of the one that took over. Times are the database
// server's clock, so the workers' clocks need not agree.
//
// One vendor account, one rate budget: no two copies of one connector are
// claimed at once. A claim (Claim, ClaimNext) is refused while another
// copy of the same connector has a live claim (held and not expired), and
// renewing a lapsed claim is refused once another copy of its connector
// has been claimed. So however many workers and processes share a store,
// one connector's syncs run one after the other, through one pacer at a
// time, and together keep to the vendor's limit that pacer keeps to; a
// worker's other connectors stay free for it. On PostgreSQL, the
// transactions that take or renew a claim take turns on a
// transaction-level advisory lock, so that each sees every claim
// committed before it (SKIP LOCKED alone does not: two workers would
// claim two copies of one connector, each not seeing the other's row
// lock); on SQLite they take turns on the database's write lock.

// ErrLeaseHeld: another worker holds the copy's claim.
var ErrLeaseHeld = errors.New("lease held")

// Claim is a worker's exclusive right to synchronize one copy until
// Expires.
type Claim struct {
	s *Store
	// Connector and Entity name the copy; Owner the worker.
	Connector, Entity, Owner string
	// Token grows with every claim of the copy.
	Token int64
	// Expires is when the claim lapses unless renewed (the database's
	// clock).
	Expires time.Time
	// Failing is true when the copy's last synchronization had failed
	// when it was claimed (a failure stands, see RecordFailure): a
	// success then has a failure to clear (ClearFailure), and only then.
	Failing bool
}

// failingSelect is the column a claim's Failing is read from.
func (s *Store) failingSelect() string {
	if s.schema < 3 {
		return "0 = 1"
	}
	return "failure_class IS NOT NULL"
}

// Register makes copies known to workers (ClaimNext) before their first
// synchronization. Registering a known copy changes nothing.
func (s *Store) Register(ctx context.Context, connector string, entities ...string) error {
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return s.d.wrap("register", err)
	}
	defer tx.Rollback()
	for _, e := range entities {
		if connector == "" || e == "" {
			return &Error{Op: "register", Err: ErrInvalid, Message: "a copy needs a connector and an entity name"}
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_entities (connector, entity) VALUES ("+placeholders(s.d, 1, 2)+") ON CONFLICT DO NOTHING", connector, e); err != nil {
			return s.d.wrap("register", err)
		}
	}
	return s.d.wrap("register", tx.Commit())
}

// Claim takes the claim of one copy for ttl when no other worker holds
// it (or its claim has expired) and no other copy of its connector is
// claimed (see the rate budget above); ErrLeaseHeld otherwise. The copy
// is registered if it was not. Unlike ClaimNext, it takes a copy whose
// last synchronization failed however long that failure asks it to wait:
// an explicit request to synchronize one copy tries it.
func (s *Store) Claim(ctx context.Context, connector, entity, owner string, ttl time.Duration) (*Claim, error) {
	if err := s.Register(ctx, connector, entity); err != nil {
		return nil, err
	}
	d := s.d
	c, err := s.claim(ctx, owner, ttl, "connector = "+d.ph(3)+" AND entity = "+d.ph(4)+" AND (lease_owner IS NULL OR lease_expires < "+d.now()+")"+
		" AND "+noOtherClaim(d), connector, entity)
	if err == nil && c == nil {
		return nil, &Error{Op: "claim", Connector: connector, Entity: entity, Err: ErrLeaseHeld, Message: "another worker is synchronizing this copy or another copy of its connector"}
	}
	return c, err
}

// ClaimNext claims, for ttl, the registered copy synchronized longest ago
// (never synchronized first) that no worker holds, that was not
// synchronized within fresh, and whose connector has no other copy
// claimed: one sync per connector at a time, across every worker and
// process of the store, so that one vendor account's rate budget is spent
// by one pacer at a time (see the rate budget above). It passes over a
// copy whose last failure (RecordFailure) asks it to wait: a transient one
// until its RetryAt, a permanent one (config, auth) until ResetFailures.
// It returns nil, nil when there is none. Concurrent workers each get a
// different copy, of a different connector.
func (s *Store) ClaimNext(ctx context.Context, owner string, ttl, fresh time.Duration) (*Claim, error) {
	cs, err := s.ClaimDue(ctx, owner, ttl, fresh, 1)
	if len(cs) == 0 {
		return nil, err
	}
	return cs[0], err
}

// ClaimDue claims, for ttl and in one transaction, up to n copies as
// ClaimNext would claim them one after the other: the due copies
// synchronized longest ago, each of a different connector, none of a
// connector another worker holds a copy of. It returns them most overdue
// first, and none (no error) when no copy is due. A worker that runs
// several syncs at once claims what it has room for with one statement
// rather than one transaction each: at a fleet's size the claims are most
// of the store's write transactions.
//
// The due copies are found by an index on their synchronization time
// (schema version 10), not by a scan of every copy: the candidates are
// read in that order and the first of each connector kept.
func (s *Store) ClaimDue(ctx context.Context, owner string, ttl, fresh time.Duration, n int) ([]*Claim, error) {
	if owner == "" || ttl <= 0 || n < 1 {
		return nil, &Error{Op: "claim", Err: ErrInvalid, Message: "a claim needs an owner, a positive duration and a positive number of copies"}
	}
	d := s.d
	// Copies of one connector are neighbours in the first round (never
	// synchronized: by connector, then entity): read enough candidates to
	// find n connectors among them most of the time. Fewer is no harm: the
	// worker claims again when it has room.
	pick := s.duePick(min(n*16, 4096))
	tx, err := s.claimTx(ctx)
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, pick, fresh.Milliseconds())
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	var keys []any
	seen := map[string]bool{}
	for rows.Next() {
		var c, e string
		if err := rows.Scan(&c, &e); err != nil {
			rows.Close()
			return nil, d.wrap("claim", err)
		}
		if !seen[c] && len(seen) < n {
			seen[c] = true
			keys = append(keys, c, e)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, d.wrap("claim", err)
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap("claim", err)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	in := make([]string, 0, len(keys)/2)
	for i := 0; i < len(keys); i += 2 {
		in = append(in, "("+d.ph(3+i)+", "+d.ph(4+i)+")")
	}
	rows, err = tx.QueryContext(ctx, "UPDATE tributary_entities SET lease_owner = "+d.ph(1)+", lease_expires = "+d.now()+" + "+d.ph(2)+
		", lease_token = COALESCE(lease_token, 0) + 1 WHERE (connector, entity) IN ("+strings.Join(in, ", ")+")"+
		" RETURNING connector, entity, lease_token, lease_expires, "+s.failingSelect()+", "+dueKey,
		append([]any{owner, ttl.Milliseconds()}, keys...)...)
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	type claimed struct {
		c   *Claim
		due int64
	}
	var out []claimed
	for rows.Next() {
		c := &Claim{s: s, Owner: owner}
		var expires, due int64
		if err := rows.Scan(&c.Connector, &c.Entity, &c.Token, &expires, &c.Failing, &due); err != nil {
			rows.Close()
			return nil, d.wrap("claim", err)
		}
		c.Expires = time.UnixMilli(expires)
		out = append(out, claimed{c, due})
	}
	if err := rows.Close(); err != nil {
		return nil, d.wrap("claim", err)
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap("claim", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap("claim", err)
	}
	slices.SortFunc(out, func(a, b claimed) int {
		return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.c.Connector, b.c.Connector), cmp.Compare(a.c.Entity, b.c.Entity))
	})
	cs := make([]*Claim, len(out))
	for i, o := range out {
		cs[i] = o.c
	}
	return cs, nil
}

// duePick selects, in order, up to m copies ClaimDue may claim; its one
// bound value is the freshness in milliseconds.
func (s *Store) duePick(m int) string {
	d := s.d
	failed := ""
	if s.schema >= 3 {
		failed = " AND (failure_class IS NULL OR failure_class = '" + string(FailureTransient) + "')" +
			" AND (retry_at IS NULL OR retry_at <= " + d.now() + ")"
	}
	// The bound is a subquery, evaluated once: PostgreSQL bounds an index
	// scan by it, where it would filter every row by a volatile clock.
	return "SELECT connector, entity FROM tributary_entities WHERE " + dueKey + " < (SELECT " + d.now() + " - " + d.ph(1) + ")" +
		" AND (lease_owner IS NULL OR lease_expires < " + d.now() + ")" + failed +
		" AND " + noOtherClaim(d) +
		" ORDER BY " + dueKey + ", connector, entity LIMIT " + strconv.Itoa(m) + d.skipLocked()
}

// dueKey orders copies by how overdue they are: never synchronized first
// (synchronization times are never negative), then by the time of the
// last synchronization. The due index (schemaV10) is on it, so that a
// claim reads the due copies in order and stops, where "synced_at IS NULL
// OR synced_at < …" would read every copy.
const dueKey = "COALESCE(synced_at, -1)"

// schemaV10 is what version 10 added: the index claims find due copies
// by.
func (s *Store) schemaV10() []string {
	return []string{"CREATE INDEX tributary_entities_due ON tributary_entities ((" + dueKey + "), connector, entity)"}
}

// claim sets the claim on the copy that where selects (its bound values
// after owner and ttl), if any.
func (s *Store) claim(ctx context.Context, owner string, ttl time.Duration, where string, args ...any) (*Claim, error) {
	if owner == "" || ttl <= 0 {
		return nil, &Error{Op: "claim", Err: ErrInvalid, Message: "a claim needs an owner and a positive duration"}
	}
	d := s.d
	tx, err := s.claimTx(ctx)
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	defer tx.Rollback()
	c := &Claim{s: s, Owner: owner}
	var expires int64
	err = tx.QueryRowContext(ctx, "UPDATE tributary_entities SET lease_owner = "+d.ph(1)+", lease_expires = "+d.now()+" + "+d.ph(2)+
		", lease_token = COALESCE(lease_token, 0) + 1 WHERE "+where+" RETURNING connector, entity, lease_token, lease_expires, "+s.failingSelect(),
		append([]any{owner, ttl.Milliseconds()}, args...)...).Scan(&c.Connector, &c.Entity, &c.Token, &expires, &c.Failing)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap("claim", err)
	}
	c.Expires = time.UnixMilli(expires)
	return c, nil
}

// Renew extends the claim to ttl from now. ErrLeaseLost when the claim
// expired and another worker took the copy, or (the claim had expired)
// another copy of the connector is claimed now.
func (c *Claim) Renew(ctx context.Context, ttl time.Duration) error {
	d := c.s.d
	tx, err := c.s.claimTx(ctx)
	if err != nil {
		return d.wrap("renew", err)
	}
	defer tx.Rollback()
	var expires int64
	err = tx.QueryRowContext(ctx, "UPDATE tributary_entities SET lease_expires = "+d.now()+" + "+d.ph(1)+
		" WHERE connector = "+d.ph(2)+" AND entity = "+d.ph(3)+" AND lease_token = "+d.ph(4)+" AND lease_owner = "+d.ph(5)+
		" AND (lease_expires >= "+d.now()+" OR "+noOtherClaim(d)+") RETURNING lease_expires",
		ttl.Milliseconds(), c.Connector, c.Entity, c.Token, c.Owner).Scan(&expires)
	if errors.Is(err, sql.ErrNoRows) {
		return c.lost("renew")
	}
	if err != nil {
		return d.wrap("renew", err)
	}
	if err := tx.Commit(); err != nil {
		return d.wrap("renew", err)
	}
	c.Expires = time.UnixMilli(expires)
	return nil
}

// claimTx begins a transaction that takes or renews claims: on
// PostgreSQL, after the claims' advisory lock (see the rate budget above).
func (s *Store) claimTx(ctx context.Context) (*sql.Tx, error) {
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return nil, err
	}
	if lock := s.d.claimLock(); lock != "" {
		if _, err := tx.ExecContext(ctx, lock); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	return tx, nil
}

// noOtherClaim is a condition on a row of tributary_entities (named by
// the table's name) that holds while no other copy of its connector has a
// live claim.
func noOtherClaim(d dialect) string {
	return "NOT EXISTS (SELECT 1 FROM tributary_entities o WHERE o.connector = tributary_entities.connector" +
		" AND o.entity <> tributary_entities.entity AND o.lease_owner IS NOT NULL AND o.lease_expires >= " + d.now() + ")"
}

// Release gives the claim up (the copy is free for another worker). A
// claim already lost is no error.
func (c *Claim) Release(ctx context.Context) error {
	d := c.s.d
	_, err := c.s.w.ExecContext(ctx, "UPDATE tributary_entities SET lease_owner = NULL, lease_expires = NULL WHERE connector = "+d.ph(1)+
		" AND entity = "+d.ph(2)+" AND lease_token = "+d.ph(3), c.Connector, c.Entity, c.Token)
	return d.wrap("release", err)
}

func (c *Claim) lost(op string) error {
	return &Error{Op: op, Connector: c.Connector, Entity: c.Entity, Err: ErrLeaseLost,
		Message: "the claim expired and another worker took the copy over; this synchronization is abandoned"}
}

// LoadOption changes how a load is made.
type LoadOption func(*Load)

// Fenced makes a load write and commit only while c is the copy's current
// claim: once another worker has claimed the copy, Write and Commit fail
// with ErrLeaseLost and change nothing.
func Fenced(c *Claim) LoadOption { return func(l *Load) { l.claim = c } }

// fence returns the condition (on tributary_entities) and values that hold
// while the load's claim is current; none for a load without a claim.
// first is the number of the first placeholder.
func (l *Load) fence(first int) (string, []any) {
	if l.claim == nil {
		return "", nil
	}
	d := l.s.d
	return " AND lease_token = " + d.ph(first) + " AND lease_owner = " + d.ph(first+1), []any{l.claim.Token, l.claim.Owner}
}
