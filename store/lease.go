package store

import (
	"context"
	"database/sql"
	"errors"
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
// it (or its claim has expired); ErrLeaseHeld otherwise. The copy is
// registered if it was not. Unlike ClaimNext, it takes a copy whose last
// synchronization failed however long that failure asks it to wait: an
// explicit request to synchronize one copy tries it.
func (s *Store) Claim(ctx context.Context, connector, entity, owner string, ttl time.Duration) (*Claim, error) {
	if err := s.Register(ctx, connector, entity); err != nil {
		return nil, err
	}
	d := s.d
	c, err := s.claim(ctx, owner, ttl, "connector = "+d.ph(3)+" AND entity = "+d.ph(4)+" AND (lease_owner IS NULL OR lease_expires < "+d.now()+")", connector, entity)
	if err == nil && c == nil {
		return nil, &Error{Op: "claim", Connector: connector, Entity: entity, Err: ErrLeaseHeld, Message: "another worker is synchronizing this copy"}
	}
	return c, err
}

// ClaimNext claims, for ttl, the registered copy synchronized longest ago
// (never synchronized first) that no worker holds and that was not
// synchronized within fresh. It passes over a copy whose last failure
// (RecordFailure) asks it to wait: a transient one until its RetryAt, a
// permanent one (config, auth) until ResetFailures. It returns nil, nil
// when there is none. Concurrent workers each get a different copy.
func (s *Store) ClaimNext(ctx context.Context, owner string, ttl, fresh time.Duration) (*Claim, error) {
	d := s.d
	failed := ""
	if s.schema >= 3 {
		failed = " AND (failure_class IS NULL OR failure_class = '" + string(FailureTransient) + "')" +
			" AND (retry_at IS NULL OR retry_at <= " + d.now() + ")"
	}
	pick := "SELECT connector, entity FROM tributary_entities WHERE (lease_owner IS NULL OR lease_expires < " + d.now() + ")" +
		" AND (synced_at IS NULL OR synced_at < " + d.now() + " - " + d.ph(3) + ")" + failed +
		" ORDER BY synced_at IS NOT NULL, synced_at, connector, entity LIMIT 1" + d.skipLocked()
	return s.claim(ctx, owner, ttl, "(connector, entity) IN ("+pick+")", fresh.Milliseconds())
}

// claim sets the claim on the copy that where selects (its bound values
// after owner and ttl), if any.
func (s *Store) claim(ctx context.Context, owner string, ttl time.Duration, where string, args ...any) (*Claim, error) {
	if owner == "" || ttl <= 0 {
		return nil, &Error{Op: "claim", Err: ErrInvalid, Message: "a claim needs an owner and a positive duration"}
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap("claim", err)
	}
	defer tx.Rollback()
	c := &Claim{s: s, Owner: owner}
	var expires int64
	err = tx.QueryRowContext(ctx, "UPDATE tributary_entities SET lease_owner = "+d.ph(1)+", lease_expires = "+d.now()+" + "+d.ph(2)+
		", lease_token = COALESCE(lease_token, 0) + 1 WHERE "+where+" RETURNING connector, entity, lease_token, lease_expires",
		append([]any{owner, ttl.Milliseconds()}, args...)...).Scan(&c.Connector, &c.Entity, &c.Token, &expires)
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
// expired and another worker took the copy.
func (c *Claim) Renew(ctx context.Context, ttl time.Duration) error {
	d := c.s.d
	var expires int64
	err := c.s.w.QueryRowContext(ctx, "UPDATE tributary_entities SET lease_expires = "+d.now()+" + "+d.ph(1)+
		" WHERE connector = "+d.ph(2)+" AND entity = "+d.ph(3)+" AND lease_token = "+d.ph(4)+" AND lease_owner = "+d.ph(5)+" RETURNING lease_expires",
		ttl.Milliseconds(), c.Connector, c.Entity, c.Token, c.Owner).Scan(&expires)
	if errors.Is(err, sql.ErrNoRows) {
		return c.lost("renew")
	}
	if err != nil {
		return d.wrap("renew", err)
	}
	c.Expires = time.UnixMilli(expires)
	return nil
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
