package gongtest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// token serves POST /oauth2/generate-customer-token with
// grant_type=refresh_token. The OAuth app authenticates with Basic
// client_id:client_secret; the parameters may come in the form body or the
// query, as Gong accepts both. Refresh tokens are single-use: each refresh
// issues a new access token and a new refresh token, and the old refresh
// token is rejected with 400 invalid_grant from then on. The response names
// the fake's own origin as api_base_url_for_customer.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "POST is required")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok || id != s.cfg.clientID || secret != s.cfg.clientSecret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Bad client credentials")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "Malformed request")
		return
	}
	switch g := r.Form.Get("grant_type"); g {
	case "refresh_token":
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "Missing grant_type")
		return
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant type: "+g)
		return
	}
	rt := r.Form.Get("refresh_token")
	s.mu.Lock()
	if rt == "" || rt != s.refresh {
		s.mu.Unlock()
		oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid refresh token")
		return
	}
	tok := s.mintLocked(r)
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	b, _ := json.Marshal(tok)
	fakeserver.WriteJSON(w, http.StatusOK, b)
}

// mintLocked issues a new access token and a new refresh token (the old
// one is spent) and returns Gong's token answer, which names the fake's own
// origin as api_base_url_for_customer. s.mu is held.
func (s *Server) mintLocked(r *http.Request) map[string]any {
	s.refreshN++
	n := s.refreshN
	access := fmt.Sprintf("gongtest-access-%d-%s", n, hex.EncodeToString(s.sign("access" + strconv.Itoa(n)))[:16])
	next := fmt.Sprintf("gongtest-refresh-%d-%s", n, hex.EncodeToString(s.sign("refresh" + strconv.Itoa(n)))[:16])
	s.refresh = next
	s.issued[access] = true
	return map[string]any{
		"access_token":              access,
		"refresh_token":             next,
		"scope":                     scopes,
		"token_type":                "bearer",
		"expires_in":                86400,
		"api_base_url_for_customer": fakeserver.BaseURL(r),
	}
}

// scopes is the scope of the fake's tokens: every read scope.
const scopes = "api:calls:read:basic api:calls:read:extensive api:calls:read:media-url api:calls:read:transcript api:users:read api:stats:user-actions api:stats:user-actions:detailed api:stats:interaction api:stats:scorecards api:settings:scorecards:read api:settings:trackers:read api:workspaces:read api:library:read api:coaching:read"

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	fakeserver.WriteJSON(w, status, object(kv{"error", code}, kv{"error_description", desc}))
}
