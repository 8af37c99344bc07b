package server

import (
	"context"
	"encoding/base64"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/store"
)

// connectorStatus is the status (the list and status endpoints) of a
// connector with these copies: StatusCredentialsUnreadable, with the
// tenant's reason, when its credentials do not open with this service's
// keys; else by the store's one rule (store.HealthOf): "needs_reconnect"
// when the vendor refused its refresh token (row.NeedsReconnect) or a copy
// failed with class auth, "failing" when another copy failure stands,
// "healthy" otherwise.
func (s *Server) connectorStatus(row *store.Connector, copies []store.CopyState) (status, reason string) {
	if s.sealProblem(row) != "" {
		return StatusCredentialsUnreadable, unreadableReason
	}
	var auth, failing int
	for _, c := range copies {
		if c.Failure != nil {
			failing++
			if c.Failure.Class == store.FailureAuth {
				auth++
			}
		}
	}
	return store.HealthOf(row.NeedsReconnect, auth, failing).String(), ""
}

// setStatus puts a connector's status in its JSON, and its reason when
// there is one.
func (s *Server) setStatus(item map[string]any, row *store.Connector, copies []store.CopyState) {
	status, reason := s.connectorStatus(row, copies)
	item["status"] = status
	if reason != "" {
		item["status_reason"] = reason
	}
}

// Paging of the list endpoint.
const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// list is the connector list endpoint: the token's tenant's connectors
// (a user-scoped token's: its user's only), newest first, filtered by
// external_user_id and connector_type, a page at a time.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	sc, _ := scopeOf(r.Context())
	q := r.URL.Query()
	bad := func(param, msg string) { s.fail(w, r, http.StatusBadRequest, "invalid_params", msg, param) }
	query := store.ConnectorQuery{Tenant: sc.client, ExternalUserID: q.Get("external_user_id"), Kind: q.Get("connector_type"), Limit: defaultListLimit}
	if !printable(query.ExternalUserID) {
		bad("external_user_id", "external_user_id must be at most 256 printable characters")
		return
	}
	if query.Kind != "" {
		if _, err := kinds.Catalogue(query.Kind); err != nil {
			var te *tributary.Error
			msg := "unknown connector_type"
			if errors.As(err, &te) {
				msg = te.Message
			}
			bad("connector_type", msg)
			return
		}
	}
	if sc.user != "" {
		if query.ExternalUserID != "" && query.ExternalUserID != sc.user {
			s.fail(w, r, http.StatusForbidden, "forbidden", "this token may only list the connectors of its own external user", "external_user_id")
			return
		}
		query.ExternalUserID = sc.user
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			bad("limit", "limit must be an integer from 1 to "+strconv.Itoa(maxListLimit))
			return
		}
		query.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		before, ok := decodeCursor(v)
		if !ok {
			bad("cursor", "cursor is not one this endpoint returned")
			return
		}
		query.Before = before
	}
	rows, next, err := s.st.ConnectorsPage(r.Context(), query)
	if err != nil {
		s.storeFailed(w, r, "list", err)
		return
	}
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	copies, err := s.st.CopiesOf(r.Context(), ids...)
	if err != nil {
		s.storeFailed(w, r, "list", err)
		return
	}
	byConn := map[string][]store.CopyState{}
	for _, c := range copies {
		byConn[c.Connector] = append(byConn[c.Connector], c)
	}
	items := make([]map[string]any, 0, len(rows))
	for i := range rows {
		row := &rows[i]
		item := connectorJSON(row)
		s.setStatus(item, row, byConn[row.ID])
		items = append(items, item)
	}
	out := map[string]any{"data": items, "next_cursor": nil, "has_more": next != 0}
	if next != 0 {
		out["next_cursor"] = encodeCursor(next)
	}
	s.writeJSON(w, http.StatusOK, out)
}

// connectorJSON is what every connector endpoint says of a connector.
func connectorJSON(row *store.Connector) map[string]any {
	var used any // null: never used
	if !row.LastUsed.IsZero() {
		used = row.LastUsed.UTC().Format(time.RFC3339)
	}
	return map[string]any{"id": row.ID, "connector_type": row.Kind, "name": row.Name,
		"external_user_id": row.ExternalUserID, "created_at": row.Created.UTC().Format(time.RFC3339), "last_used_at": used}
}

// cursorPrefix versions the list's cursors.
const cursorPrefix = "c1."

// encodeCursor makes the opaque cursor of the page after the connector at
// seq.
func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

func decodeCursor(v string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || len(b) <= len(cursorPrefix) || string(b[:len(cursorPrefix)]) != cursorPrefix {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[len(cursorPrefix):]), 10, 64)
	return n, err == nil && n > 0
}

// verifyTimeout bounds a credential check.
const verifyTimeout = 30 * time.Second

// verifyCredentials asks the vendor whether creds work for a connector of
// kind (kinds.Verify: one cheap authenticated call), before anything is
// stored, and returns what to seal. An OAuth refresh the check needed is
// kept: the sealed credentials hold the rotated refresh token and the
// token obtained, so that no refresh token is spent for nothing. Errors
// are a *refusal: 400 naming credentials when the vendor refused them,
// 502 when it could not tell.
func (s *Server) verifyCredentials(ctx context.Context, kind string, creds map[string]any) (*sealed, error) {
	held := &heldTokens{}
	opts := append([]tributary.Option{}, s.cfg.ConnectorOptions[kind]...)
	opts = append(opts, tributary.WithTokenStore(held))
	conn, err := kinds.Open(kind, creds, opts...)
	if err != nil {
		return nil, credentialsParam(err)
	}
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	if err := kinds.Verify(ctx, conn); err != nil {
		var te *tributary.Error
		msg := err.Error()
		if errors.As(err, &te) {
			msg = te.Message
		}
		switch {
		case errors.Is(err, tributary.ErrUnauthorized), errors.Is(err, tributary.ErrForbidden), errors.Is(err, tributary.ErrInvalidCredentials):
			return nil, &refusal{status: http.StatusBadRequest, typ: "invalid_credentials", param: "credentials",
				msg: "the credentials were refused by " + kind + ": " + msg}
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return nil, &refusal{status: http.StatusGatewayTimeout, typ: "server_error", param: "credentials",
				msg: "the credentials could not be checked with " + kind + " in time"}
		default: // unreachable, the vendor's failure, its rate limit
			return nil, &refusal{status: http.StatusBadGateway, typ: hosted.ErrorType(err), param: "credentials",
				msg: "the credentials could not be checked with " + kind + ": " + msg}
		}
	}
	sl := &sealed{Credentials: maps.Clone(creds)}
	if tok := held.token(); tok != nil {
		if tok.RefreshToken != "" {
			sl.Credentials["refresh_token"] = tok.RefreshToken
		}
		sl.Token = saveToken(tok)
	}
	return sl, nil
}

// heldTokens is the token store of a credential check: the connector is
// not stored yet, so a refresh is kept here, to be sealed with it.
type heldTokens struct {
	mu  sync.Mutex
	tok *oauth2.Token
}

// Refresh implements tributary.TokenStore.
func (h *heldTokens) Refresh(ctx context.Context, stale *oauth2.Token, refresh func(ctx context.Context, refreshToken string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rt := ""
	if h.tok != nil {
		if stale == nil || h.tok.AccessToken != stale.AccessToken {
			return h.tok, nil
		}
		rt = h.tok.RefreshToken
	}
	tok, err := refresh(ctx, rt)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" && h.tok != nil {
		tok.RefreshToken = rt
	}
	h.tok = tok
	return tok, nil
}

func (h *heldTokens) token() *oauth2.Token {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tok
}
