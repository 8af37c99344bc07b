package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// live is a connector this process has opened: its row (without the
// sealed credentials), the connector, and its replica once searched.
type live struct {
	row  store.Connector
	conn tributary.Connector

	rep    *replica.Replica
	repErr error
}

// sealed is what the credentials are sealed as.
type sealed struct {
	// Credentials are the connector's, as created, but for the refresh
	// token, which follows every rotation.
	Credentials map[string]any `json:"credentials"`
	// Token is the newest OAuth token any process obtained (nil before the
	// first refresh): another process adopts it instead of refreshing.
	Token *savedToken `json:"token,omitempty"`
	// LegacyNeedsReconnect is where stores before schema version 8 kept
	// the mark that the vendor refused a refresh: it is read once, by
	// store.MigrateNeedsReconnect, into the connector's column
	// (store.Connector.NeedsReconnect), and cleared by the next refresh.
	LegacyNeedsReconnect bool `json:"needs_reconnect,omitempty"`
}

// savedToken is an OAuth token as the processes share it, with the token
// response's fields the kinds read (tokenExtras).
type savedToken struct {
	AccessToken  string            `json:"access_token"`
	RefreshToken string            `json:"refresh_token,omitempty"`
	Expiry       time.Time         `json:"expiry,omitzero"`
	Extra        map[string]string `json:"extra,omitempty"`
}

// tokenExtras are the token response fields a kind reads besides the
// tokens: Salesforce's instance URL and Gong's customer host. A process
// that adopts another's token must see them too, or it would send the
// token to the default host.
var tokenExtras = []string{"instance_url", "api_base_url_for_customer"}

func saveToken(tok *oauth2.Token) *savedToken {
	st := &savedToken{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry}
	for _, k := range tokenExtras {
		if v, ok := tok.Extra(k).(string); ok && v != "" {
			if st.Extra == nil {
				st.Extra = map[string]string{}
			}
			st.Extra[k] = v
		}
	}
	return st
}

func (st *savedToken) token() *oauth2.Token {
	tok := &oauth2.Token{AccessToken: st.AccessToken, RefreshToken: st.RefreshToken, Expiry: st.Expiry, TokenType: "Bearer"}
	if len(st.Extra) > 0 {
		extra := make(map[string]any, len(st.Extra))
		for k, v := range st.Extra {
			extra[k] = v
		}
		tok = tok.WithExtra(extra)
	}
	return tok
}

// idRE is the shape of a connector id; anything else is not found before
// the store is asked.
var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// maxName bounds external_user_id and name.
const maxName = 256

// create is the connector creation endpoint.
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var body newConnector
	if !s.decode(w, r, &body) {
		return
	}
	sc, _ := scopeOf(r.Context())
	info(r).kind = body.ConnectorType
	created, err := s.createConnector(r.Context(), sc, body)
	if err != nil {
		s.failCreate(w, r, err)
		return
	}
	info(r).connector = created.ID
	s.log.Info("connector created", "request_id", info(r).id, "connector", created.ID, "kind", created.Kind, "client", sc.client)
	s.writeJSON(w, http.StatusCreated, connectorJSON(created))
}

// newConnector is what creating a connector takes: the body of the create
// endpoint, and what a connect session's callback has gathered.
type newConnector struct {
	ExternalUserID    string         `json:"external_user_id"`
	ConnectorType     string         `json:"connector_type"`
	Name              string         `json:"name"`
	Credentials       map[string]any `json:"credentials"`
	ReplicationConfig map[string]any `json:"replication_config"`
	// id, when set, is the new connector's id (newConnectorID).
	id string
}

// newConnectorID returns a new connector id.
func newConnectorID() string { return "conn_" + randomID(12) }

// refusal is an error of createConnector that is the caller's: it becomes
// an answer with its status, type and parameter as they are.
type refusal struct {
	status          int
	typ, msg, param string
}

func (e *refusal) Error() string { return e.msg }

// failCreate answers with an error of createConnector.
func (s *Server) failCreate(w http.ResponseWriter, r *http.Request, err error) {
	var rf *refusal
	if errors.As(err, &rf) {
		s.fail(w, r, rf.status, rf.typ, rf.msg, rf.param)
		return
	}
	s.storeFailed(w, r, "create", err)
}

// createConnector checks in, asks the vendor whether its credentials work
// (verifyCredentials), seals them and stores the connector for sc's
// tenant, with its connector.created event, and registers its copies.
// Errors are a *refusal, a *tributary.Error (the credentials or
// replication config), or the store's. The connector's id is in.id when
// set (a connect flow names it before, for its own event); opts commit
// with it (store.Emit, store.FinishingSession).
func (s *Server) createConnector(ctx context.Context, sc scope, in newConnector, opts ...store.EventOption) (*store.Connector, error) {
	bad := func(param, msg string) error {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_params", msg: msg, param: param}
	}
	switch {
	case in.ExternalUserID == "":
		return nil, bad("external_user_id", "external_user_id is required")
	case !printable(in.ExternalUserID):
		return nil, bad("external_user_id", fmt.Sprintf("external_user_id must be at most %d printable characters", maxName))
	case !printable(in.Name) && in.Name != "":
		return nil, bad("name", fmt.Sprintf("name must be at most %d printable characters", maxName))
	case in.ConnectorType == "":
		return nil, bad("connector_type", "connector_type is required")
	case in.Credentials == nil:
		return nil, bad("credentials", "credentials is required")
	}
	if sc.user != "" && sc.user != in.ExternalUserID {
		return nil, &refusal{status: http.StatusForbidden, typ: "forbidden", msg: "this token may only create connectors of its own external user", param: "external_user_id"}
	}
	if err := kinds.CheckCredentials(in.ConnectorType, in.Credentials); err != nil {
		return nil, credentialsParam(err)
	}
	if err := kinds.CheckReplicationConfig(in.ConnectorType, in.ReplicationConfig); err != nil {
		return nil, err
	}
	// The vendor is asked before anything is stored: refused credentials
	// leave no connector and no event.
	sl, err := s.verifyCredentials(ctx, in.ConnectorType, in.Credentials)
	if err != nil {
		return nil, err
	}
	id := in.id
	if id == "" {
		id = newConnectorID()
	}
	row := store.Connector{ID: id, Tenant: sc.client, ExternalUserID: in.ExternalUserID, Kind: in.ConnectorType, Name: in.Name}
	conn, err := s.open(row, sl.Credentials)
	if err != nil {
		return nil, err
	}
	if in.ReplicationConfig != nil {
		row.Replication, _ = json.Marshal(in.ReplicationConfig)
	}
	internal := func(msg string) error {
		return &refusal{status: http.StatusInternalServerError, typ: "server_error", msg: msg}
	}
	if row.Sealed, err = s.seal(id, sl); err != nil {
		return nil, internal("could not seal the credentials")
	}
	ev, err := s.newEvent(webhook.ConnectorCreated, sc.client, id, map[string]any{"connector_id": id, "connector_type": row.Kind,
		"external_user_id": row.ExternalUserID, "name": row.Name})
	if err != nil {
		return nil, internal("could not build the event")
	}
	created, err := s.st.CreateConnector(ctx, row, append([]store.EventOption{store.Emit(ev)}, opts...)...)
	if err != nil {
		return nil, err
	}
	s.emitted()
	s.mcp.forgetTenant(sc.client)
	if ents := replica.Syncable(conn.Entities()); len(ents) > 0 {
		if err := s.st.Register(ctx, id, ents...); err != nil {
			return nil, err
		}
		s.wakeWorkers() // its copies are due: their first sync starts now
	}
	created.Sealed = nil
	s.mu.Lock()
	s.remember(id, &live{row: *created, conn: conn})
	s.mu.Unlock()
	return created, nil
}

// printable reports whether s is a short run of printable characters.
func printable(s string) bool {
	if len(s) > maxName {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// open opens a connector of row's kind with creds; OAuth refreshes go
// through the store so that every process spends a refresh token once.
func (s *Server) open(row store.Connector, creds map[string]any) (tributary.Connector, error) {
	opts := append([]tributary.Option{}, s.cfg.ConnectorOptions[row.Kind]...)
	opts = append(opts, tributary.WithTokenStore(&tokenStore{s: s, id: row.ID}))
	return kinds.Open(row.Kind, creds, opts...)
}

// seal seals a connector's credentials and token for connector id.
func (s *Server) seal(id string, sl *sealed) ([]byte, error) {
	b, err := json.Marshal(sl)
	if err != nil {
		return nil, err
	}
	return s.keys.Seal(b, []byte(id))
}

// errSealed: a connector's credentials do not open with this process's
// keys (a key missing from Config.Keys, or a damaged row).
var errSealed = errors.New("the connector's credentials do not open with this service's keys")

// unseal opens a connector's credentials and token.
func (s *Server) unseal(row *store.Connector) (*sealed, error) {
	b, err := s.keys.Open(row.Sealed, []byte(row.ID))
	if err != nil {
		return nil, fmt.Errorf("%w: connector %s: %w", errSealed, row.ID, err)
	}
	var sl sealed
	if err := json.Unmarshal(b, &sl); err != nil {
		return nil, fmt.Errorf("%w: connector %s: %w", errSealed, row.ID, err)
	}
	return &sl, nil
}

// StatusCredentialsUnreadable is the status of a connector whose
// credentials do not open with this service's keys (Config.Keys): nothing
// can use it until the key that sealed them is added, or new credentials
// replace them. It comes before every other status: such a connector is
// never reported healthy.
const StatusCredentialsUnreadable = "credentials_unreadable"

// unreadableReason is the status_reason the API gives a tenant for a
// connector of StatusCredentialsUnreadable (the console names the key,
// for the operator: sealProblem).
const unreadableReason = "this service's keys do not open the connector's credentials: the key that sealed them is not in its configuration; new credentials (PATCH, or a connect session) mend it"

// sealProblem says why row's credentials do not open with this service's
// keys, naming the key that sealed them (key ids are not secret: the
// console's keys page lists them); "" when they open.
func (s *Server) sealProblem(row *store.Connector) string {
	return s.sealedProblem(row.ID, row.Sealed)
}

// sealedProblem is sealProblem of connector id's sealed credentials.
func (s *Server) sealedProblem(connector string, sealed []byte) string {
	b, err := s.keys.Open(sealed, []byte(connector))
	if err == nil && json.Valid(b) {
		clear(b)
		return ""
	}
	clear(b)
	id, kerr := keyring.KeyID(sealed)
	switch {
	case kerr != nil || err == nil:
		return "the sealed credentials are damaged: they are not a value this service reads"
	case errors.Is(err, keyring.ErrUnknownKey):
		return fmt.Sprintf("the credentials are sealed under key %q, which is not in this service's keys", id)
	}
	return fmt.Sprintf("the credentials are sealed under key %q, which this service's key %q does not open: another key was given the same id, or the row is damaged", id, id)
}

// sealCounts are the store's sealed credentials as this service's keys
// see them.
type sealCounts struct {
	// Sealed counts the connectors by the id of the key that sealed them
	// ("" for a value that is not a sealed one), Opens those of them that
	// open with this service's keys.
	Sealed, Opens map[string]int
	// Total counts the connectors, Unreadable those whose credentials do
	// not open.
	Total, Unreadable int
}

// countSeals reads every connector's sealed credentials and counts what
// opens with this service's keys (the keys page, the count at start).
func (s *Server) countSeals(ctx context.Context) (sealCounts, error) {
	c := sealCounts{Sealed: map[string]int{}, Opens: map[string]int{}}
	err := s.st.EachSealed(ctx, func(connector string, sealed []byte) error {
		id, err := keyring.KeyID(sealed)
		if err != nil {
			id = ""
		}
		c.Total++
		c.Sealed[id]++
		if s.sealedProblem(connector, sealed) == "" {
			c.Opens[id]++
		} else {
			c.Unreadable++
		}
		return nil
	})
	return c, err
}

// reportSeals logs, at start, how many connectors' credentials open with
// this service's keys: a warning naming how many do not (they are listed
// as StatusCredentialsUnreadable), by the key that sealed them.
func (s *Server) reportSeals(ctx context.Context) {
	c, err := s.countSeals(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("could not check the connectors' credentials against this service's keys", "err", err)
		}
		return
	}
	if c.Unreadable == 0 {
		s.log.Info("every connector's credentials open with this service's keys", "connectors", c.Total)
		return
	}
	var by []string
	for _, id := range slices.Sorted(maps.Keys(c.Sealed)) {
		if n := c.Sealed[id] - c.Opens[id]; n > 0 {
			by = append(by, fmt.Sprintf("%q: %d", id, n))
		}
	}
	s.log.Warn(fmt.Sprintf("%d of %d connectors' credentials do not open with this service's keys: they are listed as %s until the key that sealed them is added, or new credentials replace them",
		c.Unreadable, c.Total, StatusCredentialsUnreadable), "unreadable", c.Unreadable, "connectors", c.Total, "by_key", strings.Join(by, ", "))
}

// errNoConnector: no connector with this id is visible to the caller
// (another tenant's is not revealed).
var errNoConnector = errors.New("no such connector")

// connector returns the opened connector id, when sc may use it.
func (s *Server) connector(ctx context.Context, sc scope, id string) (*live, error) {
	if !idRE.MatchString(id) {
		return nil, errNoConnector
	}
	l, err := s.connectorAny(ctx, id)
	if err != nil {
		return nil, err
	}
	if !sc.allows(l.row.Tenant, l.row.ExternalUserID) {
		return nil, errNoConnector
	}
	return l, nil
}

// load opens connector id from the store and caches it.
func (s *Server) load(ctx context.Context, id string) (*live, error) {
	row, err := s.st.Connector(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		// Deleted: its copies' failure is of class config, not retried.
		return nil, fmt.Errorf("%w: %w", errNoConnector, err)
	}
	if err != nil {
		return nil, err
	}
	return s.openRow(row, false)
}

// openRow opens the connector row read from the store and caches it; a
// connector opened meanwhile is kept unless replace.
func (s *Server) openRow(row *store.Connector, replace bool) (*live, error) {
	sl, err := s.unseal(row)
	if err != nil {
		return nil, err
	}
	conn, err := s.open(*row, sl.Credentials)
	if err != nil {
		return nil, err
	}
	row.Sealed = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.conns[row.ID]; ok && (!replace || l.row.Version >= row.Version) { // opened meanwhile
		return l, nil
	}
	l := &live{row: *row, conn: conn}
	s.remember(row.ID, l)
	return l, nil
}

// maxOpen bounds the connectors a process keeps open; past it, one is
// dropped (and opened again from the store when next used).
const maxOpen = 10_000

// remember caches an opened connector; s.mu is held.
func (s *Server) remember(id string, l *live) {
	if len(s.conns) >= maxOpen {
		for other := range s.conns { // an arbitrary one
			delete(s.conns, other)
			break
		}
	}
	s.conns[id] = l
}

// replicaOptions are the options of connector id's replica: its
// replication_config, which the copy scopes read. The opener has loaded the
// connector just before.
func (s *Server) replicaOptions(id string) []replica.Option {
	s.mu.Lock()
	l := s.conns[id]
	s.mu.Unlock()
	if l == nil {
		return nil
	}
	return l.replicaOptions()
}

// replicaOptions are the options of the connector's replica.
func (l *live) replicaOptions() []replica.Option {
	opts := []replica.Option{replica.WithName(l.row.ID)}
	if len(l.row.Replication) == 0 {
		return opts
	}
	var cfg map[string]any
	if json.Unmarshal(l.row.Replication, &cfg) != nil {
		return opts
	}
	// Checked at creation; normalized here as the scopes read it.
	if norm, err := kinds.NormalizeReplicationConfig(l.row.Kind, cfg); err == nil {
		cfg = norm
	}
	return append(opts, replica.WithConfig(cfg))
}

// openForSync is the background sync's opener. A worker opens a
// connector on its first claim of the connector's copies and after a
// failure: the connector is read again then, and opened again when its
// version moved (another process updated its credentials or
// replication_config, or refreshed its OAuth token), so that a copy that
// failed with the old credentials is not tried with them again.
func (s *Server) openForSync(ctx context.Context, id string) (tributary.Connector, error) {
	row, err := s.st.Connector(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		// Deleted: its copies' failure is of class config, not retried.
		return nil, fmt.Errorf("%w: %w", errNoConnector, err)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	l, ok := s.conns[id]
	s.mu.Unlock()
	if ok && l.row.Version == row.Version {
		return l.conn, nil
	}
	l, err = s.openRow(row, true)
	if err != nil {
		return nil, err
	}
	return l.conn, nil
}

// connectorAny returns connector id whoever owns it (for the sync).
func (s *Server) connectorAny(ctx context.Context, id string) (*live, error) {
	s.mu.Lock()
	l, ok := s.conns[id]
	s.mu.Unlock()
	if ok {
		return l, nil
	}
	return s.load(ctx, id)
}

// tokenStore serializes a connector's OAuth refreshes across processes
// through the store: the refresh runs holding the connector's row lock,
// and the rotated tokens are sealed and saved in the same transaction.
type tokenStore struct {
	s  *Server
	id string
}

// Refresh implements tributary.TokenStore.
func (t *tokenStore) Refresh(ctx context.Context, stale *oauth2.Token, refresh func(ctx context.Context, refreshToken string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	var out *oauth2.Token
	var refused error
	_, err := t.s.st.LockConnectorEvents(ctx, t.id, func(ctx context.Context, row *store.Connector) ([]byte, []*store.Event, error) {
		sl, err := t.s.unseal(row)
		if err != nil {
			return nil, nil, err
		}
		if saved := sl.Token; saved != nil && (stale == nil || saved.AccessToken != stale.AccessToken) &&
			(saved.Expiry.IsZero() || time.Until(saved.Expiry) > time.Minute) {
			// Another process refreshed since this one read its token.
			out = saved.token()
			return nil, nil, nil
		}
		rt, _ := sl.Credentials["refresh_token"].(string)
		tok, err := refresh(ctx, rt)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, transport.ErrTokenUnavailable) || row.NeedsReconnect {
				return nil, nil, err // not a refusal, or already reported
			}
			// The vendor refused the refresh token: the connector needs
			// reconnecting. The mark and the event commit together.
			refused = err
			ev, eerr := t.s.newEvent(webhook.ConnectorNeedsReconnect, row.Tenant, row.ID, map[string]any{"connector_id": row.ID,
				"connector_type": row.Kind, "external_user_id": row.ExternalUserID, "error": err.Error()})
			if eerr != nil {
				return nil, nil, err
			}
			row.NeedsReconnect = true
			return nil, []*store.Event{ev}, nil
		}
		if tok.RefreshToken != "" {
			sl.Credentials["refresh_token"] = tok.RefreshToken
		}
		sl.Token = saveToken(tok)
		sl.LegacyNeedsReconnect = false
		row.NeedsReconnect = false
		out = tok
		b, err := t.s.seal(row.ID, sl)
		return b, nil, err
	})
	if refused != nil {
		if err == nil {
			t.s.emitted()
		}
		return nil, refused
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RotateKeys re-seals, under the primary key, every connector's
// credentials sealed under another key, while the service runs: each
// connector is rewritten in its own transaction, and a connector whose
// credentials changed meanwhile is read again. It returns how many it
// rewrote. Run it after putting a new key first in Config.Keys (every
// process must have the new key before any runs this), then drop the old
// key once it returns.
func (s *Server) RotateKeys(ctx context.Context) (int, error) {
	rows, err := s.st.ListConnectors(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, row := range rows {
		for {
			out, changed, err := s.keys.Rewrap(row.Sealed, []byte(row.ID))
			if err != nil {
				return n, fmt.Errorf("connector %s: %w", row.ID, err)
			}
			if !changed {
				break
			}
			_, err = s.st.UpdateSealed(ctx, row.ID, row.Version, out)
			if errors.Is(err, store.ErrConflict) {
				fresh, err := s.st.Connector(ctx, row.ID)
				if err != nil {
					return n, err
				}
				row = *fresh
				continue
			}
			if err != nil {
				return n, err
			}
			n++
			break
		}
	}
	return n, nil
}
