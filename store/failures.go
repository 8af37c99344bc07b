package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// A copy whose synchronization fails keeps its last failure in the store
// (schema version 3): when, how many times in a row, what the error said,
// its class, and when the copy may be tried again. ClaimNext passes over a
// copy until then, and over a copy whose failure is permanent (a
// configuration or an authorization error) until ResetFailures; Claim, an
// explicit request for one copy, takes it all the same. The record lives
// in the database, so it survives restarts and every process sharing the
// store honours it. Times are the database server's clock, as leases'.

// FailureClass says what kind of failure stopped a copy's synchronization,
// and so whether trying again without a change can help.
type FailureClass string

// The classes of failure.
const (
	// FailureConfig: the copy's configuration is wrong (invalid params, an
	// invalid replication_config, an entity the connector does not
	// have). Permanent until ResetFailures.
	FailureConfig FailureClass = "config"
	// FailureAuth: the source refused the credentials (unauthorized,
	// forbidden, invalid credentials, a failed token refresh). Permanent
	// until ResetFailures.
	FailureAuth FailureClass = "auth"
	// FailureTransient: anything else (the network, the source's
	// failures, its rate limit): tried again after a back-off.
	FailureTransient FailureClass = "transient"
)

// Permanent reports whether a failure of class c waits for ResetFailures
// rather than for a time.
func (c FailureClass) Permanent() bool { return c == FailureConfig || c == FailureAuth }

func (c FailureClass) valid() bool { return c.Permanent() || c == FailureTransient }

// MaxFailureMessage is the longest failure message kept, in bytes; a
// longer one is cut (at a character boundary) and ends with "…".
const MaxFailureMessage = 2000

// Failure is the last failure of a copy's synchronization, cleared by the
// next success (ClearFailure) or by ResetFailures.
type Failure struct {
	// Class is what kind of failure it is.
	Class FailureClass
	// Message is the error's text, as the library produced it (the
	// library's errors never contain credentials).
	Message string
	// Failures is how many synchronizations in a row failed.
	Failures int
	// FailedAt is when the last one failed (the database's clock).
	FailedAt time.Time
	// RetryAt is when ClaimNext may give the copy to a worker again; zero
	// for a permanent failure (Class.Permanent), which waits for
	// ResetFailures.
	RetryAt time.Time
}

// failureCols are the columns of tributary_entities that hold a Failure,
// in scanFailure's order.
const failureCols = "failure_class, failure_message, failures, failed_at, retry_at"

// schemaV3 is what version 3 added: each copy's last failure.
func (s *Store) schemaV3() []string {
	return []string{
		"ALTER TABLE tributary_entities ADD COLUMN failure_class TEXT",
		"ALTER TABLE tributary_entities ADD COLUMN failure_message TEXT",
		"ALTER TABLE tributary_entities ADD COLUMN failures BIGINT",
		"ALTER TABLE tributary_entities ADD COLUMN failed_at BIGINT",
		"ALTER TABLE tributary_entities ADD COLUMN retry_at BIGINT",
	}
}

// failureFields are the scan targets of failureCols.
type failureFields struct {
	class, message    sql.NullString
	failures          sql.NullInt64
	failedAt, retryAt sql.NullInt64
}

func (f *failureFields) dest() []any {
	return []any{&f.class, &f.message, &f.failures, &f.failedAt, &f.retryAt}
}

// failure returns the Failure the fields hold, nil for none.
func (f *failureFields) failure() *Failure {
	if !f.class.Valid {
		return nil
	}
	out := &Failure{Class: FailureClass(f.class.String), Message: f.message.String, Failures: int(f.failures.Int64)}
	if f.failedAt.Valid {
		out.FailedAt = time.UnixMilli(f.failedAt.Int64).UTC()
	}
	if f.retryAt.Valid {
		out.RetryAt = time.UnixMilli(f.retryAt.Int64).UTC()
	}
	return out
}

// failuresReady fails when the store's tables are of a version without
// failures (an older store opened read-only).
func (s *Store) failuresReady(op string) error {
	if s.schema < 3 {
		return &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which keeps no failures, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)}
	}
	return nil
}

// RecordFailure records that a synchronization of the copy (connector,
// entity) failed with class and message, and returns the copy's failure
// as recorded. The count of consecutive failures grows by one. A
// transient failure makes the copy wait backoff(failures) (the count
// including this failure; nil or a duration ≤ 0: no wait) from the
// database's clock before ClaimNext gives it out again; a permanent one
// (config, auth) waits for ResetFailures, and backoff is not called. The
// message is kept as given, cut at MaxFailureMessage bytes: pass the text
// of the library's error, which never includes credentials. The copy is
// registered if it was not. Events given (Emit) are written in the same
// transaction.
func (s *Store) RecordFailure(ctx context.Context, connector, entity string, class FailureClass, message string, backoff func(failures int) time.Duration, opts ...EventOption) (*Failure, error) {
	return s.recordFailure(ctx, connector, entity, nil, class, message, backoff, opts...)
}

// RecordFailure is Store.RecordFailure of the claimed copy, recorded only
// while c is still the copy's current claim: once another worker claimed
// the copy, or a change of the connector's credentials or configuration
// (UpdateConnector) revoked the claim, it records nothing, writes none of
// opts' events, and fails with ErrLeaseLost. A synchronization that
// failed with the old credentials cannot mark the copy failed after the
// new ones reset it.
func (c *Claim) RecordFailure(ctx context.Context, class FailureClass, message string, backoff func(failures int) time.Duration, opts ...EventOption) (*Failure, error) {
	return c.s.recordFailure(ctx, c.Connector, c.Entity, c, class, message, backoff, opts...)
}

func (s *Store) recordFailure(ctx context.Context, connector, entity string, fence *Claim, class FailureClass, message string, backoff func(failures int) time.Duration, opts ...EventOption) (*Failure, error) {
	if err := s.failuresReady("record failure"); err != nil {
		return nil, err
	}
	if !class.valid() {
		return nil, &Error{Op: "record failure", Connector: connector, Entity: entity, Err: ErrInvalid,
			Message: fmt.Sprintf("unknown failure class %q (classes: config, auth, transient)", class)}
	}
	if err := s.Register(ctx, connector, entity); err != nil {
		return nil, err
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap("record failure", err)
	}
	defer tx.Rollback()
	var n int
	args := []any{string(class), cutMessage(message), connector, entity}
	fenced := ""
	if fence != nil {
		fenced = " AND lease_token = " + d.ph(5) + " AND lease_owner = " + d.ph(6)
		args = append(args, fence.Token, fence.Owner)
	}
	err = tx.QueryRowContext(ctx, "UPDATE tributary_entities SET failure_class = "+d.ph(1)+", failure_message = "+d.ph(2)+
		", failures = COALESCE(failures, 0) + 1, failed_at = "+d.now()+", retry_at = NULL WHERE connector = "+d.ph(3)+" AND entity = "+d.ph(4)+
		fenced+" RETURNING failures", args...).Scan(&n)
	if fence != nil && errors.Is(err, sql.ErrNoRows) {
		return nil, fence.lost("record failure")
	}
	if err != nil {
		return nil, d.wrap("record failure", err)
	}
	if !class.Permanent() && backoff != nil {
		if wait := backoff(n); wait > 0 {
			if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET retry_at = failed_at + "+d.ph(1)+" WHERE connector = "+d.ph(2)+" AND entity = "+d.ph(3),
				wait.Milliseconds(), connector, entity); err != nil {
				return nil, d.wrap("record failure", err)
			}
		}
	}
	var f failureFields
	if err := tx.QueryRowContext(ctx, "SELECT "+failureCols+" FROM tributary_entities WHERE connector = "+d.ph(1)+" AND entity = "+d.ph(2),
		connector, entity).Scan(f.dest()...); err != nil {
		return nil, d.wrap("record failure", err)
	}
	if err := s.insertEvents(ctx, tx, "record failure", eventsOf(opts)); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap("record failure", err)
	}
	return f.failure(), nil
}

// cutMessage cuts m to MaxFailureMessage bytes at a character boundary.
func cutMessage(m string) string {
	if len(m) <= MaxFailureMessage {
		return m
	}
	const ellipsis = "…"
	cut := MaxFailureMessage - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + ellipsis
}

// ClearFailure forgets the copy's failure, if it has one: its
// synchronization succeeded. It writes nothing for a copy without one.
func (s *Store) ClearFailure(ctx context.Context, connector, entity string) error {
	if err := s.failuresReady("clear failure"); err != nil {
		return err
	}
	d := s.d
	_, err := s.w.ExecContext(ctx, "UPDATE tributary_entities SET "+clearFailure+" WHERE connector = "+d.ph(1)+" AND entity = "+d.ph(2)+
		" AND failure_class IS NOT NULL", connector, entity)
	return d.wrap("clear failure", err)
}

const clearFailure = "failure_class = NULL, failure_message = NULL, failures = NULL, failed_at = NULL, retry_at = NULL"

// ResetFailures forgets the failures of every copy of connector, permanent
// ones included, so that ClaimNext gives them out again at once: call it
// when the connector's configuration or credentials change. It returns how
// many copies had one.
func (s *Store) ResetFailures(ctx context.Context, connector string) (int, error) {
	if err := s.failuresReady("reset failures"); err != nil {
		return 0, err
	}
	d := s.d
	res, err := s.w.ExecContext(ctx, "UPDATE tributary_entities SET "+clearFailure+" WHERE connector = "+d.ph(1)+
		" AND failure_class IS NOT NULL", connector)
	if err != nil {
		return 0, d.wrap("reset failures", err)
	}
	n, err := res.RowsAffected()
	return int(n), d.wrap("reset failures", err)
}

// CopyFailure returns the copy's last failure, nil when it has none (or
// is not registered).
func (s *Store) CopyFailure(ctx context.Context, connector, entity string) (*Failure, error) {
	if err := s.failuresReady("failure"); err != nil {
		return nil, err
	}
	d := s.d
	var f failureFields
	err := s.r.QueryRowContext(ctx, "SELECT "+failureCols+" FROM tributary_entities WHERE connector = "+d.ph(1)+" AND entity = "+d.ph(2),
		connector, entity).Scan(f.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, d.wrap("failure", err)
	}
	return f.failure(), nil
}

// failureSelect is the failure columns for a SELECT over tributary_entities
// aliased prefix ("e." or ""), or NULLs in a store too old to have them.
func (s *Store) failureSelect(prefix string) string {
	if s.schema < 3 {
		return "NULL, NULL, NULL, NULL, NULL"
	}
	return prefix + "failure_class, " + prefix + "failure_message, " + prefix + "failures, " + prefix + "failed_at, " + prefix + "retry_at"
}
