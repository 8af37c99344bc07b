package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Connect sessions (schema version 6) are a service's links that let an
// end user connect an account: created by the API, opened in a browser,
// started when the user picks a kind, claimed once by the OAuth callback
// and finished, completed or failed. Several processes sharing the store
// see the same sessions; every state change is a conditional update, so a
// session is started, claimed and finished by one of them only.
//
// The store holds no secret of a session in clear: the caller stores the
// session token, the OAuth state and the browser binding as hashes, and
// what must be recovered at the callback (the PKCE verifier, the inputs)
// sealed.

// The states of a connect session.
const (
	// ConnectPending: created, no kind picked yet.
	ConnectPending = "pending"
	// ConnectStarted: the user picked a kind and was sent to the vendor.
	ConnectStarted = "started"
	// ConnectClaimed: a callback is exchanging the code.
	ConnectClaimed = "claimed"
	// ConnectCompleted: the connector was created or reconnected.
	ConnectCompleted = "completed"
	// ConnectFailed: the flow was refused or failed; the session is used.
	ConnectFailed = "failed"
)

// ConnectSession is one connect session as stored. Printing it shows the
// lengths of the hashes and of Sealed, never their bytes.
type ConnectSession struct {
	// ID is unique in the store, chosen by the caller.
	ID string
	// TokenHash is the hash of the session's token (the link's secret),
	// unique in the store.
	TokenHash string
	// Tenant is the API client that created the session; ExternalUserID
	// the end user the connector is created for.
	Tenant, ExternalUserID string
	// AllowedKinds are the kinds the user may pick.
	AllowedKinds []string
	// ReturnURL is where the user is sent back to.
	ReturnURL string
	// ConnectorID, when set, is the connector the session reconnects.
	ConnectorID string
	// Kind is the kind the user picked (once started).
	Kind string
	// StateHash is the hash of the OAuth state of the flow started last;
	// BrowserHash the hash of the cookie that binds the session to the
	// browser that started it.
	StateHash, BrowserHash string
	// Sealed is what the callback needs, sealed by the caller.
	Sealed []byte
	// Status is one of the Connect* states.
	Status string
	// Result is the connector id of a completed session, the error code
	// of a failed one.
	Result string
	// Expires is when the session stops being usable; Created when it was
	// made (the caller's clock, to the millisecond).
	Expires, Created time.Time
}

// String describes the session without its hashes nor sealed bytes.
func (c ConnectSession) String() string {
	return fmt.Sprintf("ConnectSession{ID:%q Tenant:%q ExternalUserID:%q AllowedKinds:%q ConnectorID:%q Kind:%q Status:%q Result:%q Sealed:[%d bytes] Expires:%s}",
		c.ID, c.Tenant, c.ExternalUserID, c.AllowedKinds, c.ConnectorID, c.Kind, c.Status, c.Result, len(c.Sealed), c.Expires.Format(time.RFC3339))
}

// Format prints String for every verb.
func (c ConnectSession) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// ErrSessionState: a connect session is not in the state the change
// needs (already used, another flow started meanwhile, unknown).
var ErrSessionState = errors.New("connect session is not in the expected state")

// schemaV6 is what version 6 added: the connect sessions.
func (s *Store) schemaV6() []string {
	return []string{
		`CREATE TABLE tributary_connect_sessions (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
			tenant TEXT NOT NULL, external_user_id TEXT NOT NULL, allowed_kinds TEXT NOT NULL, return_url TEXT NOT NULL,
			connector_id TEXT NOT NULL, kind TEXT NOT NULL, state_hash TEXT, browser_hash TEXT NOT NULL,
			sealed ` + s.d.blob() + `, status TEXT NOT NULL, result TEXT NOT NULL,
			expires_at BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
		"CREATE UNIQUE INDEX tributary_connect_sessions_state ON tributary_connect_sessions (state_hash)",
		"CREATE INDEX tributary_connect_sessions_expires ON tributary_connect_sessions (expires_at)",
	}
}

// sessionsReady fails when the store's tables are of a version without
// connect sessions (an older store opened read-only).
func (s *Store) sessionsReady(op string) error {
	if s.schema < 6 {
		return &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which has no connect sessions, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)}
	}
	return nil
}

// ConnectSessionRetention is how long a connect session is kept after it
// expired; CreateConnectSession deletes older ones, and a running service
// prunes them (PruneConnectSessions) on a schedule.
const ConnectSessionRetention = 24 * time.Hour

const sessionCols = "id, token_hash, tenant, external_user_id, allowed_kinds, return_url, connector_id, kind, state_hash, browser_hash, sealed, status, result, expires_at, created_at"

func scanSession(row interface{ Scan(...any) error }) (*ConnectSession, error) {
	c := &ConnectSession{}
	var kinds string
	var state sql.NullString
	var expires, created int64
	if err := row.Scan(&c.ID, &c.TokenHash, &c.Tenant, &c.ExternalUserID, &kinds, &c.ReturnURL, &c.ConnectorID, &c.Kind,
		&state, &c.BrowserHash, &c.Sealed, &c.Status, &c.Result, &expires, &created); err != nil {
		return nil, err
	}
	c.StateHash = state.String
	if err := json.Unmarshal([]byte(kinds), &c.AllowedKinds); err != nil {
		return nil, err
	}
	c.Expires, c.Created = time.UnixMilli(expires).UTC(), time.UnixMilli(created).UTC()
	return c, nil
}

// CreateConnectSession stores a new session (Status pending), and deletes
// the sessions expired for longer than ConnectSessionRetention. ID,
// TokenHash and Tenant are required; ErrExists when the id or token hash
// is taken.
func (s *Store) CreateConnectSession(ctx context.Context, c ConnectSession) error {
	const op = "create connect session"
	if err := s.sessionsReady(op); err != nil {
		return err
	}
	if c.ID == "" || c.TokenHash == "" || c.Tenant == "" {
		return &Error{Op: op, Err: ErrInvalid, Message: "a connect session needs an id, a token hash and a tenant"}
	}
	for _, v := range append([]string{c.ID, c.TokenHash, c.Tenant, c.ExternalUserID, c.ReturnURL, c.ConnectorID}, c.AllowedKinds...) {
		if !validText(v) {
			return &Error{Op: op, Err: ErrInvalid, Message: "a connect session's fields must be UTF-8 text without NUL characters"}
		}
	}
	kinds, err := json.Marshal(append([]string{}, c.AllowedKinds...))
	if err != nil {
		return &Error{Op: op, Err: ErrInvalid, Message: err.Error()}
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return d.wrap(op, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, pruneSessions(d), c.Created.Add(-ConnectSessionRetention).UnixMilli()); err != nil {
		return d.wrap(op, err)
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO tributary_connect_sessions ("+sessionCols+") VALUES ("+placeholders(d, 1, 15)+") ON CONFLICT DO NOTHING",
		c.ID, c.TokenHash, c.Tenant, c.ExternalUserID, string(kinds), c.ReturnURL, c.ConnectorID, "", nil, "", nil, ConnectPending, "",
		c.Expires.UnixMilli(), c.Created.UnixMilli())
	if err != nil {
		return d.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return &Error{Op: op, Err: ErrExists, Message: "a connect session has this id or token already"}
	}
	return d.wrap(op, tx.Commit())
}

// pruneSessions deletes the sessions that expired before its one
// parameter (Unix milliseconds).
func pruneSessions(d dialect) string {
	return "DELETE FROM tributary_connect_sessions WHERE expires_at < " + d.ph(1)
}

// PruneConnectSessions deletes the connect sessions that expired before
// before (whatever their state) and returns how many it deleted.
func (s *Store) PruneConnectSessions(ctx context.Context, before time.Time) (int, error) {
	const op = "prune connect sessions"
	if err := s.sessionsReady(op); err != nil {
		return 0, err
	}
	res, err := s.w.ExecContext(ctx, pruneSessions(s.d), before.UnixMilli())
	if err != nil {
		return 0, s.d.wrap(op, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ConnectSessionByToken returns the session whose token hash is given;
// ErrNotFound when there is none.
func (s *Store) ConnectSessionByToken(ctx context.Context, tokenHash string) (*ConnectSession, error) {
	return s.sessionBy(ctx, "get connect session", "token_hash", tokenHash)
}

// ConnectSessionByState returns the session whose latest flow has the
// state hash given; ErrNotFound when there is none.
func (s *Store) ConnectSessionByState(ctx context.Context, stateHash string) (*ConnectSession, error) {
	return s.sessionBy(ctx, "get connect session", "state_hash", stateHash)
}

func (s *Store) sessionBy(ctx context.Context, op, col, v string) (*ConnectSession, error) {
	if err := s.sessionsReady(op); err != nil {
		return nil, err
	}
	if v == "" || !validText(v) {
		return nil, &Error{Op: op, Err: ErrNotFound, Message: "no such connect session"}
	}
	c, err := scanSession(s.r.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM tributary_connect_sessions WHERE "+col+" = "+s.d.ph(1), v))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &Error{Op: op, Err: ErrNotFound, Message: "no such connect session"}
	}
	if err != nil {
		return nil, s.d.wrap(op, err)
	}
	return c, nil
}

// StartConnectSession records the flow the user started: the kind, the
// hashes of its state and of the browser's binding, and what is sealed
// for the callback. A session that is pending or started (the user went
// back and picked again) may be started; the previous flow's state then
// matches nothing. ErrSessionState otherwise.
func (s *Store) StartConnectSession(ctx context.Context, id, kind, stateHash, browserHash string, sealed []byte) error {
	const op = "start connect session"
	if err := s.sessionsReady(op); err != nil {
		return err
	}
	if stateHash == "" || !validText(kind) || !validText(stateHash) || !validText(browserHash) {
		return &Error{Op: op, Err: ErrInvalid, Message: "a started connect session needs a state hash"}
	}
	d := s.d
	res, err := s.w.ExecContext(ctx, "UPDATE tributary_connect_sessions SET kind = "+d.ph(1)+", state_hash = "+d.ph(2)+", browser_hash = "+d.ph(3)+
		", sealed = "+d.ph(4)+", status = '"+ConnectStarted+"' WHERE id = "+d.ph(5)+" AND status IN ('"+ConnectPending+"', '"+ConnectStarted+"')",
		kind, stateHash, browserHash, sealed, id)
	return s.changed(op, res, err)
}

// ClaimConnectSession lets one callback, of all processes, go on with
// session id's flow of state hash stateHash: the session becomes claimed.
// ErrSessionState when it is not started with that state (used already,
// replayed, or another flow started since).
func (s *Store) ClaimConnectSession(ctx context.Context, id, stateHash string) error {
	const op = "claim connect session"
	if err := s.sessionsReady(op); err != nil {
		return err
	}
	d := s.d
	res, err := s.w.ExecContext(ctx, "UPDATE tributary_connect_sessions SET status = '"+ConnectClaimed+"' WHERE id = "+d.ph(1)+
		" AND status = '"+ConnectStarted+"' AND state_hash = "+d.ph(2), id, stateHash)
	return s.changed(op, res, err)
}

// FinishConnectSession ends session id, which is not finished yet, as
// status (ConnectCompleted or ConnectFailed) with its result (the
// connector id, or an error code), and writes the events given (Emit) in
// the same transaction. ErrSessionState when it was finished already.
func (s *Store) FinishConnectSession(ctx context.Context, id, status, result string, opts ...EventOption) error {
	const op = "finish connect session"
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return d.wrap(op, err)
	}
	defer tx.Rollback()
	if err := s.finishSession(ctx, tx, op, id, status, result); err != nil {
		return err
	}
	if err := s.writeWith(ctx, tx, op, opts); err != nil {
		return err
	}
	return d.wrap(op, tx.Commit())
}

// finishSession is FinishConnectSession's update, in tx.
func (s *Store) finishSession(ctx context.Context, tx *sql.Tx, op, id, status, result string) error {
	if err := s.sessionsReady(op); err != nil {
		return err
	}
	if (status != ConnectCompleted && status != ConnectFailed) || !validText(result) {
		return &Error{Op: op, Err: ErrInvalid, Message: "a connect session finishes completed or failed"}
	}
	d := s.d
	res, err := tx.ExecContext(ctx, "UPDATE tributary_connect_sessions SET status = "+d.ph(1)+", result = "+d.ph(2)+", sealed = NULL WHERE id = "+d.ph(3)+
		" AND status NOT IN ('"+ConnectCompleted+"', '"+ConnectFailed+"')", status, result, id)
	return s.changed(op, res, err)
}

// changed turns an update of one session into ErrSessionState when it
// changed no row.
func (s *Store) changed(op string, res sql.Result, err error) error {
	if err != nil {
		return s.d.wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.d.wrap(op, err)
	}
	if n != 1 {
		return &Error{Op: op, Err: ErrSessionState, Message: "the connect session is used, unknown, or running another flow"}
	}
	return nil
}
