package hosted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tributary-dev/tributary"
)

// ConnectSessionRequest is the body of a connect session's creation: who
// the connector is for, which kinds the end user may pick, and where the
// user goes back to.
type ConnectSessionRequest struct {
	// ExternalUserID is the end user the connector is created for;
	// empty: the Client's Config.ExternalUserID.
	ExternalUserID string `json:"external_user_id"`
	// AllowedKinds are the kinds the connect page offers; empty: every
	// kind the service has an OAuth app for.
	AllowedKinds []string `json:"allowed_kinds"`
	// ReturnURL (absolute, http or https) receives the user at the end,
	// with connector_id=… or error=… added to its query. Required.
	ReturnURL string `json:"return_url"`
	// ConnectorID, when set, reconnects that connector (of the same
	// external user) instead of creating one.
	ConnectorID string `json:"connector_id,omitempty"`
}

// ConnectSession is a created connect session: send the end user to
// ConnectURL before ExpiresAt. It can be used once.
type ConnectSession struct {
	ID string `json:"id"`
	// Token is the session's secret, the last segment of ConnectURL.
	Token      string    `json:"token"`
	ConnectURL string    `json:"connect_url"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// Format prints the session without its token (nor the URL that holds it).
func (s ConnectSession) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "hosted.ConnectSession{ID: %q, Token: [REDACTED], ConnectURL: [REDACTED], ExpiresAt: %s}", s.ID, s.ExpiresAt.Format(time.RFC3339))
}

// CreateConnectSession asks the service for a connect session
// (Paths.ConnectSessions): a short-lived, single-use link to the service's
// connect page, where the end user picks a kind and consents at the
// vendor; the service then creates the connector and sends the user to
// r.ReturnURL with its id.
func (c *Client) CreateConnectSession(ctx context.Context, r ConnectSessionRequest) (*ConnectSession, error) {
	if r.ExternalUserID == "" {
		r.ExternalUserID = c.user
	}
	if r.AllowedKinds == nil {
		r.AllowedKinds = []string{}
	}
	resp, err := c.post(ctx, c.paths.ConnectSessions, r, nil)
	if err != nil {
		return nil, c.wrap("", "", "", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, c.wrap("", "", "", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.statusError("", "", "", resp, raw)
	}
	var out ConnectSession
	if err := json.Unmarshal(raw, &out); err != nil || out.ConnectURL == "" || out.Token == "" {
		return nil, &tributary.Error{StatusCode: resp.StatusCode, Err: tributary.ErrUnexpectedResponse, Message: "expected {id, token, connect_url, expires_at} in the connect session answer"}
	}
	c.rememberSecrets(map[string]any{"token": out.Token})
	return &out, nil
}
