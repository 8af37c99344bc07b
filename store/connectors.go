package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Connector is a connector that a service holds: who owns it, its kind, and
// its credentials, sealed by the caller (the store never sees them in
// clear). Printing a Connector (String, any fmt verb, slog) shows the
// length of Sealed, never its bytes.
type Connector struct {
	// ID is unique in the store, chosen by the caller.
	ID string
	// Tenant is the API client that created the connector.
	Tenant string
	// ExternalUserID is the tenant's own name for the end user.
	ExternalUserID string
	// Kind is the connector's connector_type.
	Kind string
	// Name is the connector's display name.
	Name string
	// Sealed is the sealed credentials.
	Sealed []byte
	// Replication is the replication_config as JSON; nil when none.
	Replication []byte
	// Version is 1 at creation, and grows by 1 on every change of Sealed
	// or Replication.
	Version int64
	// Created is when the connector was created (the database's clock,
	// to the millisecond); the store sets it.
	Created time.Time
	// NeedsReconnect is set when the vendor refused the connector's
	// credentials for good (an OAuth refresh token refused): only new
	// credentials can mend it. LockConnectorEvents sets and clears it;
	// UpdateConnector clears it with new sealed credentials (schema
	// version 8; false in an older store).
	NeedsReconnect bool
	// LastUsed is the latest use RecordUse recorded (zero: never; schema
	// version 8).
	LastUsed time.Time
}

// String describes the connector, with the length of Sealed only.
func (c Connector) String() string {
	repl := "none"
	if c.Replication != nil {
		repl = strconv.Quote(string(c.Replication))
	}
	return fmt.Sprintf("Connector{ID:%q Tenant:%q ExternalUserID:%q Kind:%q Name:%q Sealed:[%d bytes] Replication:%s Version:%d Created:%s NeedsReconnect:%t LastUsed:%s}",
		c.ID, c.Tenant, c.ExternalUserID, c.Kind, c.Name, len(c.Sealed), repl, c.Version, c.Created.Format(time.RFC3339Nano), c.NeedsReconnect, c.LastUsed.Format(time.RFC3339Nano))
}

// Format prints String for every verb (%v, %+v, %#v, %s, %q, %x...), so
// that no verb prints Sealed's bytes.
func (c Connector) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// LogValue describes the connector to log/slog, with the length of Sealed
// only.
func (c Connector) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("id", c.ID), slog.String("tenant", c.Tenant), slog.String("external_user_id", c.ExternalUserID),
		slog.String("kind", c.Kind), slog.String("name", c.Name), slog.Int("sealed_bytes", len(c.Sealed)),
		slog.Int64("version", c.Version), slog.Time("created", c.Created), slog.Bool("needs_reconnect", c.NeedsReconnect))
}

// Errors of the connector methods, matched with errors.Is; each comes
// inside an *Error.
var (
	// ErrNotFound: no connector has the id.
	ErrNotFound = errors.New("connector not found")
	// ErrExists: CreateConnector with an id another connector has.
	ErrExists = errors.New("connector exists")
	// ErrConflict: UpdateSealed lost a race: the connector's version is no
	// longer the one given.
	ErrConflict = errors.New("connector version conflict")
)

// schemaV2 is what version 2 added: the connectors. seq orders them by
// creation.
func (s *Store) schemaV2() []string {
	return []string{
		`CREATE TABLE tributary_connectors (seq ` + s.d.serial() + `, id TEXT NOT NULL UNIQUE,
			tenant TEXT NOT NULL, external_user_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
			sealed ` + s.d.blob() + ` NOT NULL, replication ` + s.d.blob() + `,
			version BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
		"CREATE INDEX tributary_connectors_tenant ON tributary_connectors (tenant, seq)",
	}
}

// connectorInsertCols are the columns a new connector's INSERT gives.
const connectorInsertCols = "id, tenant, external_user_id, kind, name, sealed, replication, version, created_at"

// connectorCols is the select list scanConnector reads, under alias (""
// or "c."): the columns of version 8 are constants in an older store
// (opened read-only).
func (s *Store) connectorCols(alias string) string {
	cols := ""
	for i, c := range strings.Split(connectorInsertCols, ", ") {
		if i > 0 {
			cols += ", "
		}
		cols += alias + c
	}
	if s.schema < 8 {
		return cols + ", 0, NULL"
	}
	return cols + ", " + alias + "needs_reconnect, " + alias + "last_used"
}

func scanConnector(row interface{ Scan(...any) error }, extra ...any) (*Connector, error) {
	c := &Connector{}
	var created int64
	var needs int64
	var used sql.NullInt64
	if err := row.Scan(append([]any{&c.ID, &c.Tenant, &c.ExternalUserID, &c.Kind, &c.Name, &c.Sealed, &c.Replication, &c.Version, &created, &needs, &used}, extra...)...); err != nil {
		return nil, err
	}
	if c.Sealed == nil {
		c.Sealed = []byte{}
	}
	c.Created = time.UnixMilli(created).UTC()
	c.NeedsReconnect = needs != 0
	if used.Valid {
		c.LastUsed = time.UnixMilli(used.Int64).UTC()
	}
	return c, nil
}

// connectorsReady fails when the store's tables are of a version without
// connectors (an old store opened read-only).
func (s *Store) connectorsReady(op string) error {
	if s.schema < 2 {
		return s.d.wrap(op, &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which has no connectors, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)})
	}
	return nil
}

// validText reports whether s can be stored as text by both databases
// (UTF-8, without NUL, which PostgreSQL refuses).
func validText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

func notFound(op, id string) error {
	return &Error{Op: op, Connector: id, Err: ErrNotFound, Message: fmt.Sprintf("no connector has the id %q", id)}
}

// CreateConnector stores a new connector, at version 1, and returns it as
// stored (Version and Created set). ID, Tenant and Kind must not be empty;
// Replication, when not nil, must be JSON; a nil Sealed is stored empty.
// ErrExists when the id is taken, ErrInvalid for a bad connector. Events
// given (Emit) are written in the same transaction.
func (s *Store) CreateConnector(ctx context.Context, c Connector, opts ...EventOption) (*Connector, error) {
	const op = "create connector"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	invalid := func(msg string) error {
		return &Error{Op: op, Connector: c.ID, Err: ErrInvalid, Message: msg}
	}
	if c.ID == "" || c.Tenant == "" || c.Kind == "" {
		return nil, invalid("a connector needs an id, a tenant and a kind")
	}
	for _, f := range []struct{ name, v string }{{"id", c.ID}, {"tenant", c.Tenant}, {"external user id", c.ExternalUserID}, {"kind", c.Kind}, {"name", c.Name}} {
		if !validText(f.v) {
			return nil, invalid("the connector's " + f.name + " is not UTF-8 text without NUL characters")
		}
	}
	if c.Replication != nil && !json.Valid(c.Replication) {
		return nil, invalid("the connector's replication configuration is not valid JSON")
	}
	sealed := c.Sealed
	if sealed == nil {
		sealed = []byte{}
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer tx.Rollback()
	var created int64
	err = tx.QueryRowContext(ctx, "INSERT INTO tributary_connectors ("+connectorInsertCols+") VALUES ("+placeholders(d, 1, 7)+", 1, "+d.now()+
		") ON CONFLICT (id) DO NOTHING RETURNING created_at",
		c.ID, c.Tenant, c.ExternalUserID, c.Kind, c.Name, sealed, c.Replication).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &Error{Op: op, Connector: c.ID, Err: ErrExists, Message: fmt.Sprintf("a connector has the id %q already", c.ID)}
	}
	if err != nil {
		return nil, d.wrap(op, err)
	}
	if err := s.writeWith(ctx, tx, op, opts); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap(op, err)
	}
	out := c
	out.Sealed = slices.Clone(sealed)
	out.Replication = slices.Clone(c.Replication)
	out.Version = 1
	out.Created = time.UnixMilli(created).UTC()
	return &out, nil
}

// Connector returns the connector with the id; ErrNotFound when there is
// none.
func (s *Store) Connector(ctx context.Context, id string) (*Connector, error) {
	const op = "get connector"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	if !validText(id) {
		return nil, notFound(op, id)
	}
	c, err := scanConnector(s.r.QueryRowContext(ctx, "SELECT "+s.connectorCols("")+" FROM tributary_connectors WHERE id = "+s.d.ph(1), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, id)
	}
	if err != nil {
		return nil, s.d.wrap(op, err)
	}
	return c, nil
}

// ListConnectors lists one tenant's connectors (all tenants' when tenant
// is ""), oldest first.
func (s *Store) ListConnectors(ctx context.Context, tenant string) ([]Connector, error) {
	const op = "list connectors"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	if !validText(tenant) {
		return nil, nil
	}
	q, args := "SELECT "+s.connectorCols("")+" FROM tributary_connectors", []any{}
	if tenant != "" {
		q += " WHERE tenant = " + s.d.ph(1)
		args = append(args, tenant)
	}
	rows, err := s.r.QueryContext(ctx, q+" ORDER BY seq", args...)
	if err != nil {
		return nil, s.d.wrap(op, err)
	}
	defer rows.Close()
	var out []Connector
	for rows.Next() {
		c, err := scanConnector(rows)
		if err != nil {
			return nil, s.d.wrap(op, err)
		}
		out = append(out, *c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.d.wrap(op, err)
	}
	return out, nil
}

// UpdateSealed replaces the sealed credentials if the connector is still
// at version; it returns the new version (version+1), or ErrConflict when
// the version has moved (another update won), or ErrNotFound. A nil sealed
// is stored empty.
func (s *Store) UpdateSealed(ctx context.Context, id string, version int64, sealed []byte) (int64, error) {
	const op = "update connector"
	if err := s.connectorsReady(op); err != nil {
		return 0, err
	}
	if !validText(id) {
		return 0, notFound(op, id)
	}
	if sealed == nil {
		sealed = []byte{}
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return 0, d.wrap(op, err)
	}
	defer tx.Rollback()
	var next int64
	err = tx.QueryRowContext(ctx, "UPDATE tributary_connectors SET sealed = "+d.ph(1)+", version = version + 1 WHERE id = "+d.ph(2)+" AND version = "+d.ph(3)+" RETURNING version",
		sealed, id, version).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		var current int64
		err := tx.QueryRowContext(ctx, "SELECT version FROM tributary_connectors WHERE id = "+d.ph(1), id).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, notFound(op, id)
		}
		if err != nil {
			return 0, d.wrap(op, err)
		}
		return 0, &Error{Op: op, Connector: id, Err: ErrConflict, Message: fmt.Sprintf("connector %q is at version %d, not %d: read it again", id, current, version)}
	}
	if err != nil {
		return 0, d.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, d.wrap(op, err)
	}
	return next, nil
}

// LockConnector runs fn holding an exclusive lock on the connector that
// every process using the database respects (PostgreSQL: the row, SELECT
// ... FOR UPDATE, in a transaction; SQLite: the database's write lock, in
// a write transaction). fn gets the current row; when it returns non-nil
// sealed bytes, they are saved, at version+1, in the same transaction. An
// error from fn rolls back and is returned as it is. LockConnector returns
// the connector as it is when the lock is released. This is how OAuth
// refreshes with single-use refresh tokens stay safe across processes: fn
// does the HTTP refresh, and no other LockConnector on the connector runs
// until the new token is saved. (Only LockConnector takes the lock:
// UpdateSealed waits for it but then fails with ErrConflict if fn saved.)
//
// While fn runs, fn must not write through this Store. On SQLite the
// Store has one write connection, which fn's transaction holds: a write
// would wait for it until ctx ends. And the lock is the whole database's:
// every other writer, in every process, waits, up to 30 seconds, then
// fails with ErrBusy; keep fn short (an HTTP call with a timeout). On
// PostgreSQL a write to the same connector waits for the lock in the same
// way; other connectors are not held up. Reads (Connector, searches) do
// not wait, and see the connector as it was before fn.
//
// When saving fails after fn succeeded (the commit failed, ctx ended),
// the error says so: the new credentials fn obtained are lost.
func (s *Store) LockConnector(ctx context.Context, id string, fn func(ctx context.Context, c *Connector) (sealed []byte, err error)) (*Connector, error) {
	if fn == nil {
		return s.LockConnectorEvents(ctx, id, nil)
	}
	return s.LockConnectorEvents(ctx, id, func(ctx context.Context, c *Connector) ([]byte, []*Event, error) {
		sealed, err := fn(ctx, c)
		return sealed, nil, err
	})
}

// LockConnectorEvents is LockConnector whose fn may also return events,
// written (with its sealed bytes, if any) in the lock's transaction: fn
// returns them, with a nil error, for something it decided under the lock
// (a refresh the vendor refused: the connector needs reconnecting). fn may
// also set or clear c.NeedsReconnect: the new value is saved in the same
// transaction, without a new version. When fn returns an error, nothing
// is written.
func (s *Store) LockConnectorEvents(ctx context.Context, id string, fn func(ctx context.Context, c *Connector) (sealed []byte, events []*Event, err error)) (*Connector, error) {
	const op = "lock connector"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, &Error{Op: op, Connector: id, Err: ErrInvalid, Message: "no function to run under the lock"}
	}
	if !validText(id) {
		return nil, notFound(op, id)
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer tx.Rollback()
	c, err := scanConnector(tx.QueryRowContext(ctx, "SELECT "+s.connectorCols("")+" FROM tributary_connectors WHERE id = "+d.ph(1)+d.forUpdate(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, id)
	}
	if err != nil {
		return nil, d.wrap(op, err)
	}
	arg := *c
	arg.Sealed = slices.Clone(c.Sealed)
	arg.Replication = slices.Clone(c.Replication)
	sealed, events, err := fn(ctx, &arg)
	if err != nil {
		return nil, err
	}
	mark := arg.NeedsReconnect != c.NeedsReconnect && s.schema >= 8
	if sealed == nil && len(events) == 0 && !mark {
		return c, nil // the transaction only read
	}
	if err := s.insertEvents(ctx, tx, op, events); err != nil {
		return nil, err
	}
	if mark {
		if _, err := tx.ExecContext(ctx, "UPDATE tributary_connectors SET needs_reconnect = "+d.ph(1)+" WHERE id = "+d.ph(2), boolInt(arg.NeedsReconnect), id); err != nil {
			return nil, d.wrap(op, err)
		}
		c.NeedsReconnect = arg.NeedsReconnect
	}
	if sealed == nil {
		return c, d.wrap(op, tx.Commit())
	}
	if err := tx.QueryRowContext(ctx, "UPDATE tributary_connectors SET sealed = "+d.ph(1)+", version = version + 1 WHERE id = "+d.ph(2)+" RETURNING version",
		sealed, id).Scan(&c.Version); err != nil {
		return nil, lostSave(d.wrap(op, err))
	}
	if err := tx.Commit(); err != nil {
		return nil, lostSave(d.wrap(op, err))
	}
	c.Sealed = slices.Clone(sealed)
	return c, nil
}

// boolInt is a flag as the store's SMALLINT columns hold it.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ConnectorChange is what UpdateConnector changes of a connector: a nil
// field is left as it is. Printing a ConnectorChange shows the length of
// Sealed, never its bytes.
type ConnectorChange struct {
	// Sealed, when not nil, replaces the sealed credentials.
	Sealed []byte
	// Replication, when not nil, replaces the replication_config (JSON).
	Replication []byte
	// Name, when not nil, replaces the display name.
	Name *string
}

// String describes the change, with the length of Sealed only.
func (c ConnectorChange) String() string {
	sealed, repl, name := "unchanged", "unchanged", "unchanged"
	if c.Sealed != nil {
		sealed = fmt.Sprintf("[%d bytes]", len(c.Sealed))
	}
	if c.Replication != nil {
		repl = strconv.Quote(string(c.Replication))
	}
	if c.Name != nil {
		name = strconv.Quote(*c.Name)
	}
	return fmt.Sprintf("ConnectorChange{Sealed:%s Replication:%s Name:%s}", sealed, repl, name)
}

// Format prints String for every verb, so that no verb prints Sealed's
// bytes.
func (c ConnectorChange) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// UpdateConnector replaces the connector's sealed credentials, its
// replication configuration and/or its name (the fields of ch that are not
// nil). New credentials clear NeedsReconnect. A change of the credentials or the replication configuration
// moves the connector to version+1 and in the same transaction forgets the
// failures of every
// copy of the connector, as ResetFailures does: a copy that failed with
// the old credentials or configuration is given out again at once, and a
// crash cannot leave the new credentials saved with the old failures
// blocking the copies. It returns the connector as updated and how many
// copies had a failure. ErrNotFound when no connector has the id,
// ErrInvalid when ch changes nothing or its Replication is not JSON.
//
// The update waits for a LockConnector on the connector (an OAuth
// refresh) to finish, then replaces what it saved. A change of the
// credentials or the configuration also revokes the claims on the
// connector's copies, in the same transaction: a synchronization in
// progress with the old ones can no longer write, commit, or record its
// failure (Claim.RecordFailure: ErrLeaseLost), and the copy can be claimed
// again at once. Until its next write finds its claim revoked, such a
// synchronization may still be reading from the vendor while a new one
// of another copy of the connector starts. opts add what commits with it
// (Emit, FinishingSession).
func (s *Store) UpdateConnector(ctx context.Context, id string, ch ConnectorChange, opts ...EventOption) (*Connector, int, error) {
	const op = "update connector"
	if err := s.connectorsReady(op); err != nil {
		return nil, 0, err
	}
	if ch.Sealed == nil && ch.Replication == nil && ch.Name == nil {
		return nil, 0, &Error{Op: op, Connector: id, Err: ErrInvalid, Message: "the change changes nothing: give sealed credentials, a replication configuration, a name, or several"}
	}
	if ch.Replication != nil && !json.Valid(ch.Replication) {
		return nil, 0, &Error{Op: op, Connector: id, Err: ErrInvalid, Message: "the connector's replication configuration is not valid JSON"}
	}
	if ch.Name != nil && !validText(*ch.Name) {
		return nil, 0, &Error{Op: op, Connector: id, Err: ErrInvalid, Message: "the connector's name is not UTF-8 text without NUL characters"}
	}
	if !validText(id) {
		return nil, 0, notFound(op, id)
	}
	d := s.d
	var sets []string
	var args []any
	if ch.Sealed != nil {
		args = append(args, ch.Sealed)
		sets = append(sets, "sealed = "+d.ph(len(args)))
		if s.schema >= 8 {
			sets = append(sets, "needs_reconnect = 0") // new credentials: a reconnection
		}
	}
	if ch.Replication != nil {
		args = append(args, ch.Replication)
		sets = append(sets, "replication = "+d.ph(len(args)))
	}
	if ch.Name != nil {
		args = append(args, *ch.Name)
		sets = append(sets, "name = "+d.ph(len(args)))
	}
	// A new name alone changes nothing the connector reads: its version
	// and its copies' failures stay.
	working := ch.Sealed != nil || ch.Replication != nil
	if working {
		sets = append(sets, "version = version + 1")
	}
	args = append(args, id)
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, 0, d.wrap(op, err)
	}
	defer tx.Rollback()
	c, err := scanConnector(tx.QueryRowContext(ctx, "UPDATE tributary_connectors SET "+strings.Join(sets, ", ")+" WHERE id = "+d.ph(len(args))+
		" RETURNING "+s.connectorCols(""), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, notFound(op, id)
	}
	if err != nil {
		return nil, 0, d.wrap(op, err)
	}
	reset := 0
	if working {
		// Revoke the copies' claims: a synchronization in flight with the
		// old credentials or configuration can no longer write, commit or
		// record its failure (its fence fails), and the copy is free to be
		// claimed again at once.
		if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET lease_token = COALESCE(lease_token, 0) + 1, lease_owner = NULL, lease_expires = NULL WHERE connector = "+d.ph(1)+
			" AND lease_owner IS NOT NULL", id); err != nil {
			return nil, 0, d.wrap(op, err)
		}
	}
	if working && s.schema >= 3 {
		res, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET "+clearFailure+" WHERE connector = "+d.ph(1)+
			" AND failure_class IS NOT NULL", id)
		if err != nil {
			return nil, 0, d.wrap(op, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, 0, d.wrap(op, err)
		}
		reset = int(n)
	}
	if err := s.writeWith(ctx, tx, op, opts); err != nil {
		return nil, 0, err
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, d.wrap(op, err)
	}
	return c, reset, nil
}

// lostSave adds to a store error that the credentials were not saved.
func lostSave(err error) error {
	var se *Error
	if errors.As(err, &se) {
		se.Message = "the new sealed credentials were not saved: " + se.Message
	}
	return err
}

// DeleteConnector deletes the connector with the id; ErrNotFound when
// there is none. Events given (Emit) are written in the same transaction.
func (s *Store) DeleteConnector(ctx context.Context, id string, opts ...EventOption) error {
	const op = "delete connector"
	if err := s.connectorsReady(op); err != nil {
		return err
	}
	if !validText(id) {
		return notFound(op, id)
	}
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return s.d.wrap(op, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "DELETE FROM tributary_connectors WHERE id = "+s.d.ph(1), id)
	if err != nil {
		return s.d.wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.d.wrap(op, err)
	}
	if n == 0 {
		return notFound(op, id)
	}
	if err := s.insertEvents(ctx, tx, op, eventsOf(opts)); err != nil {
		return err
	}
	return s.d.wrap(op, tx.Commit())
}

// ConnectorQuery selects a page of connectors: for ConnectorsPage (one
// tenant's, newest first, the API's list) and ConnectorSummaries (oldest
// first, with their copies summed up: an operator's console).
type ConnectorQuery struct {
	// Tenant, when not "", keeps that tenant's connectors; ConnectorsPage
	// requires it.
	Tenant string
	// ExternalUserID, when not "", keeps the connectors of that end user.
	ExternalUserID string
	// Kind, when not "", keeps the connectors of that connector_type.
	Kind string
	// Health, when not AnyHealth, keeps the connectors of that health.
	Health Health
	// Before, when above 0, is the cursor ConnectorsPage returned: its
	// page starts after it.
	Before int64
	// After is the Seq of the last connector of ConnectorSummaries'
	// previous page (0: the first page).
	After int64
	// Limit is the most connectors returned, 1 to 1000 (ConnectorSummaries:
	// 50 when 0).
	Limit int
}

// connectorFilter is the WHERE conditions and arguments of q's filters
// (not its paging) over tributary_connectors under alias ("" or "c.");
// ok is false when a value cannot match any connector.
func (s *Store) connectorFilter(q ConnectorQuery, alias string) (where []string, args []any, ok bool) {
	for _, v := range []string{q.Tenant, q.ExternalUserID, q.Kind} {
		if !validText(v) {
			return nil, nil, false
		}
	}
	add := func(col string, v string) {
		if v != "" {
			args = append(args, v)
			where = append(where, alias+col+" = "+s.d.ph(len(args)))
		}
	}
	add("tenant", q.Tenant)
	add("external_user_id", q.ExternalUserID)
	add("kind", q.Kind)
	if q.Health != AnyHealth {
		where = append(where, s.healthCond(q.Health, alias))
	}
	return where, args, true
}

// Health is a connector's health, by one rule: NeedsReconnect when it is
// marked so (Connector.NeedsReconnect) or a copy's last synchronization
// failed with class auth (the vendor refused the credentials: only new
// ones mend it); else Failing when a copy's last synchronization failed;
// else Healthy. ConnectorQuery filters by it; HealthOf tells it.
type Health int

// The healths; AnyHealth filters nothing.
const (
	AnyHealth Health = iota
	Healthy
	NeedsReconnect
	Failing
)

// String is the health's name: "healthy", "needs_reconnect", "failing"
// (the service's API and console use these), "any".
func (h Health) String() string {
	switch h {
	case Healthy:
		return "healthy"
	case NeedsReconnect:
		return "needs_reconnect"
	case Failing:
		return "failing"
	}
	return "any"
}

// ParseHealth is the health named name ("healthy", "needs_reconnect",
// "failing": Health.String); false for another name.
func ParseHealth(name string) (Health, bool) {
	for h := Healthy; h <= Failing; h++ {
		if h.String() == name {
			return h, true
		}
	}
	return AnyHealth, false
}

// HealthOf is the health of a connector marked needsReconnect or not,
// with authFailing copies failing with class auth and failing copies
// failing with any class.
func HealthOf(needsReconnect bool, authFailing, failing int) Health {
	switch {
	case needsReconnect || authFailing > 0:
		return NeedsReconnect
	case failing > 0:
		return Failing
	}
	return Healthy
}

// healthCond is the SQL condition of HealthOf(...) == h over the
// connector under alias. The copies' conditions are probes of the partial
// index of failing copies (tributary_entities_failing).
func (s *Store) healthCond(h Health, alias string) string {
	failing := "EXISTS (SELECT 1 FROM tributary_entities f WHERE f.connector = " + alias + "id AND f.failure_class IS NOT NULL)"
	auth := "EXISTS (SELECT 1 FROM tributary_entities f WHERE f.connector = " + alias + "id AND f.failure_class IS NOT NULL AND f.failure_class = 'auth')"
	marked := alias + "needs_reconnect <> 0"
	if s.schema < 8 {
		marked = "1 = 0"
	}
	switch h {
	case Healthy:
		return "NOT (" + marked + ") AND NOT " + failing
	case NeedsReconnect:
		return "(" + marked + " OR " + auth + ")"
	case Failing:
		return "NOT (" + marked + ") AND " + failing + " AND NOT " + auth
	}
	return "1 = 1"
}

// ConnectorsPage lists a tenant's connectors that match q, newest first,
// and returns, when there may be more, the cursor of the next page (0 when
// this page is the last). It is one indexed statement.
func (s *Store) ConnectorsPage(ctx context.Context, q ConnectorQuery) ([]Connector, int64, error) {
	const op = "list connectors"
	if err := s.connectorsReady(op); err != nil {
		return nil, 0, err
	}
	if q.Tenant == "" || q.Limit < 1 || q.Limit > 1000 {
		return nil, 0, &Error{Op: op, Err: ErrInvalid, Message: "a page of connectors needs a tenant and a limit of 1 to 1000"}
	}
	where, args, ok := s.connectorFilter(q, "")
	if !ok {
		return []Connector{}, 0, nil // no connector has it
	}
	d := s.d
	if q.Before > 0 {
		args = append(args, q.Before)
		where = append(where, "seq < "+d.ph(len(args)))
	}
	args = append(args, q.Limit+1)
	rows, err := s.r.QueryContext(ctx, "SELECT "+s.connectorCols("")+", seq FROM tributary_connectors WHERE "+
		strings.Join(where, " AND ")+" ORDER BY seq DESC LIMIT "+d.ph(len(args)), args...)
	if err != nil {
		return nil, 0, d.wrap(op, err)
	}
	defer rows.Close()
	out := []Connector{}
	var seqs []int64
	for rows.Next() {
		var seq int64
		c, err := scanConnector(rows, &seq)
		if err != nil {
			return nil, 0, d.wrap(op, err)
		}
		out = append(out, *c)
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, d.wrap(op, err)
	}
	if len(out) <= q.Limit {
		return out, 0, nil
	}
	return out[:q.Limit], seqs[q.Limit-1], nil
}

// Scrub writes SQLite's write-ahead log into the database file and
// empties the log (PRAGMA wal_checkpoint(TRUNCATE)); on PostgreSQL it does
// nothing. The SQLite store runs with secure_delete on: what a deletion
// frees (a deleted connector's sealed credentials, a dropped copy's
// records) is overwritten with zeros in the database file; until a
// checkpoint of the log, it still holds the pages as they were before. After
// DeleteConnector and Drop, a Scrub leaves neither file holding what
// they removed. It waits for the readers that hold the log, up to the
// store's busy timeout.
func (s *Store) Scrub(ctx context.Context) error {
	return s.d.wrap("scrub", s.d.afterLoad(ctx, s.w))
}
