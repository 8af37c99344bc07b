package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// The outbox (schema version 5) keeps the service's events and their
// deliveries to webhook endpoints. An event is written in the transaction
// of its cause (CreateConnector, DeleteConnector, a synchronization's last
// write through WithEvent, RecordFailure, LockConnectorEvents), so that
// it exists if and only if its cause committed; each endpoint the event
// goes to gets a delivery in the same transaction. Deliverers, in any
// number of processes, claim deliveries (ClaimDeliveries) as workers claim
// copies, send them and record how it went (Delivered, DeliveryFailed).
//
// Deliveries of one connector to one endpoint form a chain, in the order
// their events committed: only the oldest pending delivery of a chain is
// given out, so an endpoint receives a connector's events in order, each
// once it has the previous one (or the previous one was given up). On
// PostgreSQL, the transactions that write events of one connector take
// turns on an advisory lock from the event's insertion to their commit,
// so the deliveries' numbers follow the commit order.

// Event is one event of the service, as it is delivered.
type Event struct {
	// ID is the event's unique id, the deliveries' idempotency key
	// (webhook-id). Required.
	ID string
	// Type is the event's type ("sync.completed", ...). Required.
	Type string
	// Tenant is the API client the event belongs to; Connector the
	// connector it is about.
	Tenant, Connector string
	// Body is the payload as sent, JSON, byte for byte at every attempt.
	Body []byte
	// Endpoints are the ids of the endpoints to deliver it to (none: the
	// event is kept, for replays, and sent nowhere).
	Endpoints []string
	// Created is when the event was written (the database's clock); the
	// store sets it.
	Created time.Time
}

// check validates an event before it is written.
func (ev *Event) check(op string) error {
	switch {
	case ev == nil:
		return &Error{Op: op, Err: ErrInvalid, Message: "no event"}
	case ev.ID == "" || ev.Type == "" || !validText(ev.ID) || !validText(ev.Type) || !validText(ev.Tenant) || !validText(ev.Connector):
		return &Error{Op: op, Err: ErrInvalid, Message: "an event needs an id and a type, in UTF-8 text"}
	case !json.Valid(ev.Body):
		return &Error{Op: op, Err: ErrInvalid, Message: fmt.Sprintf("event %s: the body is not JSON", ev.ID)}
	}
	for _, e := range ev.Endpoints {
		if e == "" || !validText(e) {
			return &Error{Op: op, Err: ErrInvalid, Message: fmt.Sprintf("event %s: an endpoint id is empty or not text", ev.ID)}
		}
	}
	return nil
}

// schemaV5 is what version 5 added: the outbox. (Version 4 is the change
// feed's, on another branch; the numbering is reconciled when they merge.)
func (s *Store) schemaV5() []string {
	return []string{
		`CREATE TABLE tributary_events (seq ` + s.d.serial() + `, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
			tenant TEXT NOT NULL, connector TEXT NOT NULL, created_at BIGINT NOT NULL, body ` + s.d.blob() + ` NOT NULL)`,
		"CREATE INDEX tributary_events_tenant ON tributary_events (tenant, created_at)",
		`CREATE TABLE tributary_deliveries (id ` + s.d.serial() + `, event_id TEXT NOT NULL, endpoint TEXT NOT NULL,
			connector TEXT NOT NULL, state TEXT NOT NULL, attempts BIGINT NOT NULL, created_at BIGINT NOT NULL,
			next_at BIGINT NOT NULL, lease_owner TEXT, lease_expires BIGINT, done_at BIGINT,
			last_status BIGINT, last_error TEXT)`,
		"CREATE INDEX tributary_deliveries_due ON tributary_deliveries (next_at) WHERE state = 'pending'",
		"CREATE INDEX tributary_deliveries_chain ON tributary_deliveries (endpoint, connector, id) WHERE state = 'pending'",
		"CREATE INDEX tributary_deliveries_event ON tributary_deliveries (event_id)",
		`CREATE TABLE tributary_webhook_endpoints (endpoint TEXT PRIMARY KEY, failures BIGINT NOT NULL,
			last_status BIGINT, last_error TEXT, failed_at BIGINT, retry_at BIGINT, succeeded_at BIGINT)`,
	}
}

// schemaV11 is what version 11 added: the index a claim of deliveries
// reads each endpoint's due deliveries by (claimStmts).
func (s *Store) schemaV11() []string {
	return []string{"CREATE INDEX tributary_deliveries_next ON tributary_deliveries (endpoint, next_at, id) WHERE state = 'pending'"}
}

// outboxReady fails when the store's tables are of a version without the
// outbox (an older store opened read-only).
func (s *Store) outboxReady(op string) error {
	if s.schema < 5 {
		return &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which has no outbox, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)}
	}
	return nil
}

// connectorLock returns a statement that makes the transactions writing
// events of connector take turns until they commit (PostgreSQL), so that
// deliveries are numbered in commit order; "" where writers take turns
// anyway (SQLite).
func (s *Store) connectorLock(connector string) (string, []any) {
	if s.d.name() != "postgres" {
		return "", nil
	}
	h := fnv.New64a()
	h.Write([]byte("tributary/events/" + connector))
	return "SELECT pg_advisory_xact_lock(" + s.d.ph(1) + ")", []any{int64(h.Sum64())}
}

// insertEvents writes evs and their deliveries in tx.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, op string, evs []*Event) error {
	if len(evs) == 0 {
		return nil
	}
	if err := s.outboxReady(op); err != nil {
		return err
	}
	d := s.d
	for _, ev := range evs {
		if err := ev.check(op); err != nil {
			return err
		}
		if lock, args := s.connectorLock(ev.Connector); lock != "" {
			if _, err := tx.ExecContext(ctx, lock, args...); err != nil {
				return d.wrap(op, err)
			}
		}
		var created int64
		if err := tx.QueryRowContext(ctx, "INSERT INTO tributary_events (id, type, tenant, connector, created_at, body) VALUES ("+placeholders(d, 1, 4)+", "+d.now()+", "+d.ph(5)+") ON CONFLICT (id) DO NOTHING RETURNING created_at",
			ev.ID, ev.Type, ev.Tenant, ev.Connector, ev.Body).Scan(&created); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return &Error{Op: op, Err: ErrExists, Message: fmt.Sprintf("an event has the id %q already", ev.ID)}
			}
			return d.wrap(op, err)
		}
		ev.Created = time.UnixMilli(created).UTC()
		for _, e := range ev.Endpoints {
			if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_deliveries (event_id, endpoint, connector, state, attempts, created_at, next_at) VALUES ("+
				placeholders(d, 1, 3)+", 'pending', 0, "+d.ph(4)+", "+d.ph(5)+")", ev.ID, e, ev.Connector, created, created); err != nil {
				return d.wrap(op, err)
			}
		}
	}
	return nil
}

// AddEvent writes an event whose cause is not a write of the store (or
// was committed before), and its deliveries, in one transaction. It sets
// ev.Created. ErrExists when an event has its id.
func (s *Store) AddEvent(ctx context.Context, ev *Event) error {
	const op = "add event"
	if err := s.outboxReady(op); err != nil {
		return err
	}
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return s.d.wrap(op, err)
	}
	defer tx.Rollback()
	if err := s.insertEvents(ctx, tx, op, []*Event{ev}); err != nil {
		return err
	}
	return s.d.wrap(op, tx.Commit())
}

// EventOption adds events to a write of the store, in its transaction:
// CreateConnector, DeleteConnector, RecordFailure.
type EventOption func(*eventOpts)

type eventOpts struct {
	events []*Event
	finish *sessionEnd // FinishingSession
}

// sessionEnd is a connect session to finish with a write.
type sessionEnd struct{ id, status, result string }

// FinishingSession finishes connect session id (status ConnectCompleted or
// ConnectFailed, with result, as FinishConnectSession does) in the
// transaction of the write it is given to (CreateConnector,
// UpdateConnector): the connector a connect flow made and the session's end,
// with its event (Emit), commit together or not at all. The write fails
// with ErrSessionState, and changes nothing, when the session was finished
// meanwhile.
func FinishingSession(id, status, result string) EventOption {
	return func(o *eventOpts) { o.finish = &sessionEnd{id: id, status: status, result: result} }
}

// Emit writes evs (non-nil ones) with the write it is given to, in its
// transaction: they exist if and only if the write commits.
func Emit(evs ...*Event) EventOption {
	return func(o *eventOpts) {
		for _, ev := range evs {
			if ev != nil {
				o.events = append(o.events, ev)
			}
		}
	}
}

func eventsOf(opts []EventOption) []*Event {
	return optsOf(opts).events
}

func optsOf(opts []EventOption) eventOpts {
	var o eventOpts
	for _, f := range opts {
		f(&o)
	}
	return o
}

// writeWith writes, in tx, what opts add to a write: its events, and the
// end of a connect session.
func (s *Store) writeWith(ctx context.Context, tx *sql.Tx, op string, opts []EventOption) error {
	o := optsOf(opts)
	if o.finish != nil {
		if err := s.finishSession(ctx, tx, op, o.finish.id, o.finish.status, o.finish.result); err != nil {
			return err
		}
	}
	return s.insertEvents(ctx, tx, op, o.events)
}

// SyncDone describes a synchronization as its last write commits.
type SyncDone struct {
	// Connector and Entity name the copy.
	Connector, Entity string
	// Full is true for a full synchronization (Commit), false for an
	// incremental one (Finish).
	Full bool
	// Counts is what the synchronization changed.
	Counts Counts
	// Cursor is the copy's change feed position once the synchronization
	// committed (Changes from any earlier cursor read its changes); 0 in
	// a store without feeds.
	Cursor int64
}

// WithEvent makes a load's last write (Load.Commit's swap, Update.Finish)
// write the event f returns in its transaction: the event exists if and
// only if the synchronization committed. f runs inside the transaction,
// with the synchronization's final counts; it must not write to the
// store (nil: no event).
func WithEvent(f func(SyncDone) (*Event, error)) LoadOption {
	return func(l *Load) { l.event = f }
}

// syncEvent writes the load's event, if it has one, in tx.
func (l *Load) syncEvent(ctx context.Context, tx *sql.Tx, full bool) error {
	if l.event == nil {
		return nil
	}
	var cursor int64
	f, err := l.s.feed(ctx, tx, l.spec.Connector, l.spec.Entity)
	if err != nil {
		return l.wrap(err)
	}
	if f != nil {
		cursor = f.last
	}
	ev, err := l.event(SyncDone{Connector: l.spec.Connector, Entity: l.spec.Entity, Full: full, Counts: l.counts, Cursor: cursor})
	if err != nil {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid, Message: "building the synchronization's event: " + err.Error(), Cause: err}
	}
	if ev == nil {
		return nil
	}
	return l.s.insertEvents(ctx, tx, "sync", []*Event{ev})
}

// Delivery is one event to send to one endpoint, as a deliverer claimed
// it.
type Delivery struct {
	// ID numbers the delivery.
	ID int64
	// Event is the event to send (its Endpoints empty).
	Event Event
	// Endpoint is the endpoint's id.
	Endpoint string
	// Attempts is how many attempts were made before this one.
	Attempts int
	// Created is when the delivery was made (its event committed, or a
	// replay asked for it): the retries' window starts then.
	Created time.Time
}

// DeliveryState is where a delivery stands.
type DeliveryState string

// The states of a delivery.
const (
	// DeliveryPending: not yet delivered, to be tried (again).
	DeliveryPending DeliveryState = "pending"
	// DeliveryDelivered: the endpoint answered 2xx.
	DeliveryDelivered DeliveryState = "delivered"
	// DeliveryFailed: given up on (its retries' window passed).
	DeliveryFailed DeliveryState = "failed"
)

// ClaimDeliveries claims, for ttl, up to max due deliveries to the
// endpoints named (the ids of the endpoints this deliverer knows; others'
// deliveries wait for a deliverer that knows them): each the oldest
// pending delivery of its connector's chain to its endpoint, due (its
// back-off passed), unclaimed (or its claim lapsed), to an endpoint not
// backing off. Concurrent deliverers, in any process, get different
// deliveries, and never two of one chain. Oldest due first.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, ttl time.Duration, max int, endpoints []string) ([]Delivery, error) {
	return s.DeliveredAndClaim(ctx, owner, nil, ttl, max, endpoints)
}

// DeliveredAndClaim records the successes done, as DeliveredAll does, then
// claims deliveries, as ClaimDeliveries does, in one transaction: a
// deliverer's round costs one commit, and the chains of the deliveries
// it marks can give their next at once. On an error nothing is marked
// and nothing claimed.
func (s *Store) DeliveredAndClaim(ctx context.Context, owner string, done []Success, ttl time.Duration, max int, endpoints []string) ([]Delivery, error) {
	const op = "claim deliveries"
	if err := s.outboxReady(op); err != nil {
		return nil, err
	}
	if owner == "" || ttl <= 0 || max <= 0 {
		return nil, &Error{Op: op, Err: ErrInvalid, Message: "a claim needs an owner, a positive duration and a positive number"}
	}
	if len(endpoints) == 0 && len(done) == 0 {
		return nil, nil
	}
	d := s.d
	var mk markStmts
	if len(done) > 0 {
		mk = s.markStmts()
	}
	var cl claimStmts
	if len(endpoints) > 0 {
		cl = s.claimStmts(owner, ttl, max, endpoints)
	}
	s.wstmts.ready(ctx, mk.mark, mk.reset, cl.claim, cl.events)
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer tx.Rollback()
	if d.name() == "postgres" && len(endpoints) > 0 {
		// Claims take turns, so that each sees the others' (as leases do);
		// taken before the marks lock their rows, so that a claim holding
		// it never waits for this transaction's rows.
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7350120093710464013)"); err != nil {
			return nil, d.wrap(op, err)
		}
	}
	if err := s.markIn(ctx, tx, mk, owner, done); err != nil {
		return nil, err
	}
	var out []Delivery
	if len(endpoints) > 0 {
		if out, err = s.claimIn(ctx, tx, cl); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap(op, err)
	}
	// Oldest first, whatever order RETURNING gave.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID < out[j-1].ID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// claimStmts is a claim's statements and the claim statement's arguments.
type claimStmts struct {
	claim, events string
	args          []any
	chunk         int // the events statement's number of ids
}

// claimStmts returns the statements of a claim of up to max deliveries to
// endpoints (at least one) for owner.
func (s *Store) claimStmts(owner string, ttl time.Duration, max int, endpoints []string) claimStmts {
	d := s.d
	// The values in the statement's order (SQLite's placeholders are
	// positional).
	args := []any{owner, ttl.Milliseconds()}
	ph := func(v any) string {
		args = append(args, v)
		return d.ph(len(args))
	}
	now := d.now()
	// Each endpoint's due deliveries, oldest due first, through the
	// endpoint's index (schemaV11), keeping those at the head of their
	// chain (no older pending delivery of the endpoint and connector: the
	// chain index): a claim reads about max rows an endpoint, whatever the
	// number of chains or the backlog behind their heads. (Enumerating
	// every chain's head cost 3.8 s a claim at 10,000 connectors with a
	// backlog, and claims take turns.) An endpoint that backs off is
	// skipped whole, and its backlog is never read.
	var per []string
	for _, e := range endpoints {
		// Placeholders in the order of the text, each its own value.
		q := "SELECT * FROM (SELECT x.id, x.next_at FROM tributary_deliveries x WHERE x.state = 'pending' AND x.endpoint = " + ph(e) +
			" AND x.next_at <= " + now + " AND (x.lease_expires IS NULL OR x.lease_expires < " + now + ")" +
			" AND NOT EXISTS (SELECT 1 FROM tributary_deliveries c WHERE c.state = 'pending' AND c.endpoint = x.endpoint AND c.connector = x.connector AND c.id < x.id)"
		q += " AND NOT EXISTS (SELECT 1 FROM tributary_webhook_endpoints e WHERE e.endpoint = " + ph(e) + " AND e.retry_at > " + now + ")"
		q += " ORDER BY x.next_at, x.id LIMIT " + ph(max) + ") AS p"
		per = append(per, q)
	}
	pick := "SELECT h.id FROM (" + strings.Join(per, " UNION ALL ") + ") AS h ORDER BY h.next_at, h.id LIMIT " + ph(max)
	claim := "UPDATE tributary_deliveries SET lease_owner = " + d.ph(1) + ", lease_expires = " + now + " + " + d.ph(2) +
		" WHERE id IN (" + pick + ") RETURNING id, event_id, endpoint, attempts, created_at"
	// The claimed deliveries' events, read up to 64 at once: the list of
	// ids always has as many (the last one repeated), so that its
	// statement is the same whatever the number claimed, and prepared once.
	chunk := min(max, 64)
	events := "SELECT id, type, tenant, connector, created_at, body FROM tributary_events WHERE id IN (" + placeholders(d, 1, chunk) + ")"
	return claimStmts{claim: claim, events: events, args: args, chunk: chunk}
}

// claimIn claims, in tx, the deliveries cl says, with their events.
func (s *Store) claimIn(ctx context.Context, tx *sql.Tx, cl claimStmts) ([]Delivery, error) {
	const op = "claim deliveries"
	d := s.d
	chunk := cl.chunk
	rows, err := s.wstmts.query(ctx, tx, cl.claim, cl.args...)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	var out []Delivery
	for rows.Next() {
		var dl Delivery
		var created int64
		if err := rows.Scan(&dl.ID, &dl.Event.ID, &dl.Endpoint, &dl.Attempts, &created); err != nil {
			rows.Close()
			return nil, d.wrap(op, err)
		}
		dl.Created = time.UnixMilli(created).UTC()
		out = append(out, dl)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(op, err)
	}
	byID := map[string]Event{}
	for from := 0; from < len(out); from += chunk {
		part := out[from:min(from+chunk, len(out))]
		ids := make([]any, chunk)
		for i := range ids {
			ids[i] = part[min(i, len(part)-1)].Event.ID
		}
		rows, err := s.wstmts.query(ctx, tx, cl.events, ids...)
		if err != nil {
			return nil, d.wrap(op, err)
		}
		for rows.Next() {
			var ev Event
			var created int64
			if err := rows.Scan(&ev.ID, &ev.Type, &ev.Tenant, &ev.Connector, &created, &ev.Body); err != nil {
				rows.Close()
				return nil, d.wrap(op, err)
			}
			ev.Created = time.UnixMilli(created).UTC()
			byID[ev.ID] = ev
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, d.wrap(op, err)
		}
	}
	for i := range out {
		ev, ok := byID[out[i].Event.ID]
		if !ok {
			return nil, &Error{Op: op, Err: ErrCorrupt, Message: fmt.Sprintf("delivery %d: its event %q is missing", out[i].ID, out[i].Event.ID)}
		}
		out[i].Event = ev
	}
	return out, nil
}

// Delivered records that the endpoint answered dl with status (2xx): the
// delivery is done, and the endpoint's failures are forgotten. A delivery
// another deliverer claimed since (this claim lapsed) is left to it.
func (s *Store) Delivered(ctx context.Context, dl Delivery, owner string, status int) error {
	return s.DeliveredAll(ctx, owner, Success{Delivery: dl, Status: status})
}

// Success is a delivery its endpoint answered with a 2xx status.
type Success struct {
	Delivery Delivery
	// Status is the endpoint's answer (2xx).
	Status int
}

// markChunk is how many deliveries one statement of DeliveredAll marks:
// its list of ids is always that long (padded with the last id), so that
// the statement is the same for any batch and is prepared once.
const markChunk = 16

// succeededEvery is how stale an endpoint's last success time may get:
// a success on an endpoint whose failures are 0 already, whose last status
// was the same and whose success time is more recent than that writes
// nothing to the endpoint's row (every delivery rewrote it: on PostgreSQL
// the concurrent deliverers' transactions queued on its row lock).
const succeededEvery = time.Second

// DeliveredAll records, in one transaction, the successes of several
// deliveries claimed by owner (a batch sent at once), as Delivered records
// one: each is done, and its endpoint's failures are forgotten (the
// endpoint's row is written only when that changes something, or its
// success time is older than a second). A delivery another deliverer
// claimed since is left to it. On an error none is marked: each is sent
// again once its claim lapses (at least once).
func (s *Store) DeliveredAll(ctx context.Context, owner string, done ...Success) error {
	const op = "delivered"
	if err := s.outboxReady(op); err != nil {
		return err
	}
	if len(done) == 0 {
		return nil
	}
	d := s.d
	mk := s.markStmts()
	s.wstmts.ready(ctx, mk.mark, mk.reset)
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return d.wrap(op, err)
	}
	defer tx.Rollback()
	if err := s.markIn(ctx, tx, mk, owner, done); err != nil {
		return err
	}
	return d.wrap(op, tx.Commit())
}

// markStmts are the statements that record successes.
type markStmts struct{ mark, reset string }

// markStmts returns the statements that record successes.
func (s *Store) markStmts() markStmts {
	d := s.d
	now := d.now()
	mark := "UPDATE tributary_deliveries SET state = 'delivered', attempts = attempts + 1, done_at = " + now +
		", last_status = " + d.ph(1) + ", last_error = NULL, lease_owner = NULL, lease_expires = NULL WHERE lease_owner = " + d.ph(2) +
		" AND state = 'pending' AND id IN (" + placeholders(d, 3, markChunk) + ")"
	// The endpoint's row, when a success changes it: the SELECT gives no
	// row (and the upsert locks none) when it is up to date.
	reset := "INSERT INTO tributary_webhook_endpoints (endpoint, failures, last_status, succeeded_at) SELECT CAST(" + d.ph(1) + " AS TEXT), 0, CAST(" + d.ph(2) + " AS BIGINT), " + now +
		" WHERE NOT EXISTS (SELECT 1 FROM tributary_webhook_endpoints e WHERE e.endpoint = " + d.ph(3) + " AND e.failures = 0 AND e.last_status = " + d.ph(4) +
		" AND e.last_error IS NULL AND e.retry_at IS NULL AND e.succeeded_at > " + now + " - " + d.ph(5) + ")" +
		" ON CONFLICT (endpoint) DO UPDATE SET failures = 0, last_status = excluded.last_status, last_error = NULL, retry_at = NULL, succeeded_at = excluded.succeeded_at"
	return markStmts{mark: mark, reset: reset}
}

// markIn records, in tx, the successes done (none: nothing).
func (s *Store) markIn(ctx context.Context, tx *sql.Tx, mk markStmts, owner string, done []Success) error {
	const op = "delivered"
	if len(done) == 0 {
		return nil
	}
	d := s.d
	// The ids by status (one, mostly), in chunks; each endpoint's last
	// status.
	byStatus := map[int][]int64{}
	var statuses []int
	last := map[string]int{}
	var endpoints []string
	for _, sc := range done {
		if _, ok := byStatus[sc.Status]; !ok {
			statuses = append(statuses, sc.Status)
		}
		byStatus[sc.Status] = append(byStatus[sc.Status], sc.Delivery.ID)
		if _, ok := last[sc.Delivery.Endpoint]; !ok {
			endpoints = append(endpoints, sc.Delivery.Endpoint)
		}
		last[sc.Delivery.Endpoint] = sc.Status
	}
	for _, status := range statuses {
		ids := byStatus[status]
		for len(ids) > 0 {
			chunk := ids[:min(len(ids), markChunk)]
			ids = ids[len(chunk):]
			args := []any{status, owner}
			for i := range markChunk {
				args = append(args, chunk[min(i, len(chunk)-1)])
			}
			if _, err := s.wstmts.exec(ctx, tx, mk.mark, args...); err != nil {
				return d.wrap(op, err)
			}
		}
	}
	for _, e := range endpoints {
		if _, err := s.wstmts.exec(ctx, tx, mk.reset, e, last[e], e, last[e], succeededEvery.Milliseconds()); err != nil {
			return d.wrap(op, err)
		}
	}
	return nil
}

// Attempt is how a failed attempt of a delivery went, and what follows.
type Attempt struct {
	// Status is the endpoint's HTTP status (0: no answer).
	Status int
	// Message says what failed (never a secret).
	Message string
	// Retry is the delivery's back-off before its next attempt.
	Retry time.Duration
	// EndpointBackoff is the endpoint's back-off after its failures-th
	// failure in a row: no delivery to it is given out before it passes
	// (nil: none), so that an endpoint that keeps failing is tried now and
	// then, not by every chain at once.
	EndpointBackoff func(failures int) time.Duration
	// RetryFor is the retries' window: a delivery made longer ago than
	// that is given up (DeliveryFailed) instead of tried again.
	RetryFor time.Duration
}

// DeliveryFailed records a failed attempt of dl: the delivery waits
// a.Retry (or is given up, when its window a.RetryFor has passed, and the
// next of its chain goes), the endpoint's consecutive failures grow by
// one and it waits a.EndpointBackoff of them. It returns the delivery's state.
func (s *Store) DeliveryFailed(ctx context.Context, dl Delivery, owner string, a Attempt) (DeliveryState, error) {
	const op = "delivery failed"
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return "", d.wrap(op, err)
	}
	defer tx.Rollback()
	msg := cutMessage(a.Message)
	var state string
	err = tx.QueryRowContext(ctx, "UPDATE tributary_deliveries SET attempts = attempts + 1, last_status = "+d.ph(1)+", last_error = "+d.ph(2)+
		", state = CASE WHEN created_at + "+d.ph(3)+" <= "+d.now()+" THEN 'failed' ELSE 'pending' END"+
		", done_at = CASE WHEN created_at + "+d.ph(4)+" <= "+d.now()+" THEN "+d.now()+" ELSE NULL END"+
		", next_at = "+d.now()+" + "+d.ph(5)+", lease_owner = NULL, lease_expires = NULL WHERE id = "+d.ph(6)+" AND lease_owner = "+d.ph(7)+" AND state = 'pending' RETURNING state",
		a.Status, msg, a.RetryFor.Milliseconds(), a.RetryFor.Milliseconds(), a.Retry.Milliseconds(), dl.ID, owner).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return DeliveryPending, nil // another deliverer has it
	}
	if err != nil {
		return "", d.wrap(op, err)
	}
	var failures int
	if err := tx.QueryRowContext(ctx, "INSERT INTO tributary_webhook_endpoints (endpoint, failures, last_status, last_error, failed_at) VALUES ("+
		d.ph(1)+", 1, "+d.ph(2)+", "+d.ph(3)+", "+d.now()+
		") ON CONFLICT (endpoint) DO UPDATE SET failures = tributary_webhook_endpoints.failures + 1, last_status = excluded.last_status, last_error = excluded.last_error, failed_at = excluded.failed_at"+
		" RETURNING failures", dl.Endpoint, a.Status, msg).Scan(&failures); err != nil {
		return "", d.wrap(op, err)
	}
	if a.EndpointBackoff != nil {
		if wait := a.EndpointBackoff(failures); wait > 0 {
			if _, err := tx.ExecContext(ctx, "UPDATE tributary_webhook_endpoints SET retry_at = failed_at + "+d.ph(1)+" WHERE endpoint = "+d.ph(2),
				wait.Milliseconds(), dl.Endpoint); err != nil {
				return "", d.wrap(op, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return "", d.wrap(op, err)
	}
	return DeliveryState(state), nil
}

// Unclaim gives claimed deliveries back unattempted (a deliverer
// stopping), for another to send at once.
func (s *Store) Unclaim(ctx context.Context, owner string, dls ...Delivery) error {
	d := s.d
	for _, dl := range dls {
		if _, err := s.w.ExecContext(ctx, "UPDATE tributary_deliveries SET lease_owner = NULL, lease_expires = NULL WHERE id = "+d.ph(1)+" AND lease_owner = "+d.ph(2),
			dl.ID, owner); err != nil {
			return d.wrap("unclaim deliveries", err)
		}
	}
	return nil
}

// EndpointState is what the store knows of one endpoint's deliveries.
type EndpointState struct {
	// Endpoint is the endpoint's id.
	Endpoint string
	// Pending, Delivered and Failed count its deliveries by state.
	Pending, Delivered, Failed int64
	// Failures is how many attempts in a row failed (0: the last one
	// succeeded, or none was made).
	Failures int
	// LastStatus and LastError describe the last attempt (LastError ""
	// when it succeeded).
	LastStatus int
	LastError  string
	// FailedAt and SucceededAt are the last failure's and the last
	// success's times (SucceededAt to within a second: successes in a
	// row rewrite it once a second at most); RetryAt is when the endpoint is tried again after
	// its failures (zero: not backing off).
	FailedAt, SucceededAt, RetryAt time.Time
	// OldestPending is when its oldest pending delivery was made (zero:
	// none pending).
	OldestPending time.Time
}

// Endpoints describes the endpoints named (every endpoint with a delivery
// or an attempt when none is named), by id.
func (s *Store) Endpoints(ctx context.Context, ids ...string) ([]EndpointState, error) {
	const op = "endpoints"
	if err := s.outboxReady(op); err != nil {
		return nil, err
	}
	d := s.d
	by := map[string]*EndpointState{}
	get := func(id string) *EndpointState {
		e := by[id]
		if e == nil {
			e = &EndpointState{Endpoint: id}
			by[id] = e
		}
		return e
	}
	for _, id := range ids {
		get(id)
	}
	rows, err := s.r.QueryContext(ctx, "SELECT endpoint, state, count(*), min(created_at) FROM tributary_deliveries GROUP BY endpoint, state")
	if err != nil {
		return nil, d.wrap(op, err)
	}
	for rows.Next() {
		var id, state string
		var n, oldest int64
		if err := rows.Scan(&id, &state, &n, &oldest); err != nil {
			rows.Close()
			return nil, d.wrap(op, err)
		}
		e := get(id)
		switch DeliveryState(state) {
		case DeliveryPending:
			e.Pending, e.OldestPending = n, time.UnixMilli(oldest).UTC()
		case DeliveryDelivered:
			e.Delivered = n
		case DeliveryFailed:
			e.Failed = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(op, err)
	}
	rows, err = s.r.QueryContext(ctx, "SELECT endpoint, failures, last_status, last_error, failed_at, succeeded_at, retry_at FROM tributary_webhook_endpoints")
	if err != nil {
		return nil, d.wrap(op, err)
	}
	for rows.Next() {
		var id string
		var failures int
		var status, failed, succeeded, retry sql.NullInt64
		var msg sql.NullString
		if err := rows.Scan(&id, &failures, &status, &msg, &failed, &succeeded, &retry); err != nil {
			rows.Close()
			return nil, d.wrap(op, err)
		}
		e := get(id)
		e.Failures, e.LastStatus, e.LastError = failures, int(status.Int64), msg.String
		for _, t := range []struct {
			v   sql.NullInt64
			out *time.Time
		}{{failed, &e.FailedAt}, {succeeded, &e.SucceededAt}, {retry, &e.RetryAt}} {
			if t.v.Valid {
				*t.out = time.UnixMilli(t.v.Int64).UTC()
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(op, err)
	}
	var out []EndpointState
	if len(ids) > 0 {
		for _, id := range ids {
			out = append(out, *by[id])
		}
		return out, nil
	}
	for _, e := range by {
		out = append(out, *e)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Endpoint < out[j-1].Endpoint; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// Replay selects the events to send again: one by its id, or those of a
// time range.
type Replay struct {
	// EventID names one event; or else, From and To bound the events'
	// creation times (From included, To excluded; a zero To: now).
	EventID  string
	From, To time.Time
	// Tenant, when set, limits the replay to the tenant's events.
	Tenant string
	// Types, when set, limits it to these event types.
	Types []string
}

// ReplayEvents makes a new delivery to endpoint of each event r selects,
// at the end of its connector's chain, and returns how many it made.
// ErrNotFound when r names an event that does not exist (or is not the
// tenant's).
func (s *Store) ReplayEvents(ctx context.Context, endpoint string, r Replay) (int, error) {
	const op = "replay"
	if err := s.outboxReady(op); err != nil {
		return 0, err
	}
	if endpoint == "" || !validText(endpoint) || !validText(r.EventID) || !validText(r.Tenant) {
		return 0, &Error{Op: op, Err: ErrInvalid, Message: "a replay needs an endpoint"}
	}
	if r.EventID == "" && r.From.IsZero() {
		return 0, &Error{Op: op, Err: ErrInvalid, Message: "a replay needs an event id or a start time"}
	}
	d := s.d
	where, args := []string{}, []any{}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", d.ph(len(args))))
	}
	if r.EventID != "" {
		add("id = ?", r.EventID)
	} else {
		add("created_at >= ?", r.From.UnixMilli())
		if !r.To.IsZero() {
			add("created_at < ?", r.To.UnixMilli())
		}
	}
	if r.Tenant != "" {
		add("tenant = ?", r.Tenant)
	}
	if len(r.Types) > 0 {
		var ps []string
		for _, t := range r.Types {
			args = append(args, t)
			ps = append(ps, d.ph(len(args)))
		}
		where = append(where, "type IN ("+strings.Join(ps, ", ")+")")
	}
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return 0, d.wrap(op, err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT id, connector FROM tributary_events WHERE "+strings.Join(where, " AND ")+" ORDER BY seq", args...)
	if err != nil {
		return 0, d.wrap(op, err)
	}
	type ev struct{ id, connector string }
	var evs []ev
	for rows.Next() {
		var e ev
		if err := rows.Scan(&e.id, &e.connector); err != nil {
			rows.Close()
			return 0, d.wrap(op, err)
		}
		evs = append(evs, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, d.wrap(op, err)
	}
	if r.EventID != "" && len(evs) == 0 {
		return 0, &Error{Op: op, Err: ErrNotFound, Message: fmt.Sprintf("no event has the id %q", r.EventID)}
	}
	for _, e := range evs {
		if lock, largs := s.connectorLock(e.connector); lock != "" {
			if _, err := tx.ExecContext(ctx, lock, largs...); err != nil {
				return 0, d.wrap(op, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_deliveries (event_id, endpoint, connector, state, attempts, created_at, next_at) VALUES ("+
			placeholders(d, 1, 3)+", 'pending', 0, "+d.now()+", "+d.now()+")", e.id, endpoint, e.connector); err != nil {
			return 0, d.wrap(op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, d.wrap(op, err)
	}
	return len(evs), nil
}

// EventRecord is an event as the store keeps it, with its deliveries.
type EventRecord struct {
	Event
	// Deliveries are the event's deliveries, oldest first.
	Deliveries []DeliveryRecord
}

// DeliveryRecord is one delivery of an event, as it stands.
type DeliveryRecord struct {
	ID         int64
	Endpoint   string
	State      DeliveryState
	Attempts   int
	LastStatus int
	LastError  string
}

// EventByID returns an event and its deliveries; ErrNotFound when there is
// none.
func (s *Store) EventByID(ctx context.Context, id string) (*EventRecord, error) {
	const op = "event"
	if err := s.outboxReady(op); err != nil {
		return nil, err
	}
	d := s.d
	rec := &EventRecord{}
	var created int64
	err := s.r.QueryRowContext(ctx, "SELECT id, type, tenant, connector, created_at, body FROM tributary_events WHERE id = "+d.ph(1), id).
		Scan(&rec.ID, &rec.Type, &rec.Tenant, &rec.Connector, &created, &rec.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &Error{Op: op, Err: ErrNotFound, Message: fmt.Sprintf("no event has the id %q", id)}
	}
	if err != nil {
		return nil, d.wrap(op, err)
	}
	rec.Created = time.UnixMilli(created).UTC()
	rows, err := s.r.QueryContext(ctx, "SELECT id, endpoint, state, attempts, last_status, last_error FROM tributary_deliveries WHERE event_id = "+d.ph(1)+" ORDER BY id", id)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var dr DeliveryRecord
		var state string
		var status sql.NullInt64
		var msg sql.NullString
		if err := rows.Scan(&dr.ID, &dr.Endpoint, &state, &dr.Attempts, &status, &msg); err != nil {
			return nil, d.wrap(op, err)
		}
		dr.State, dr.LastStatus, dr.LastError = DeliveryState(state), int(status.Int64), msg.String
		rec.Deliveries = append(rec.Deliveries, dr)
	}
	return rec, d.wrap(op, rows.Err())
}

// PruneEvents deletes the events written before before whose deliveries
// are all done (delivered or failed), with their deliveries, and returns
// how many events it deleted. Keep events at least as long as the
// retries' window.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	const op = "prune events"
	if err := s.outboxReady(op); err != nil {
		return 0, err
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return 0, d.wrap(op, err)
	}
	defer tx.Rollback()
	old := "SELECT id FROM tributary_events e WHERE created_at < " + d.ph(1) +
		" AND NOT EXISTS (SELECT 1 FROM tributary_deliveries p WHERE p.event_id = e.id AND p.state = 'pending')"
	if _, err := tx.ExecContext(ctx, "DELETE FROM tributary_deliveries WHERE event_id IN ("+old+")", before.UnixMilli()); err != nil {
		return 0, d.wrap(op, err)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM tributary_events WHERE created_at < "+d.ph(1)+
		" AND NOT EXISTS (SELECT 1 FROM tributary_deliveries p WHERE p.event_id = tributary_events.id)", before.UnixMilli())
	if err != nil {
		return 0, d.wrap(op, err)
	}
	n, _ := res.RowsAffected()
	if err := tx.Commit(); err != nil {
		return 0, d.wrap(op, err)
	}
	return int(n), nil
}
