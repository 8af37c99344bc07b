package hosted

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
)

// ConnectorInfo is a connector as the service describes it; never its
// credentials.
type ConnectorInfo struct {
	ID             string    `json:"id"`
	ConnectorType  string    `json:"connector_type"`
	Name           string    `json:"name"`
	ExternalUserID string    `json:"external_user_id"`
	CreatedAt      time.Time `json:"created_at"`
	// LastUsedAt is when a call last used the connector (an operation, a
	// search, a download, a change feed read, through the API or /mcp;
	// not the background sync), to within the service's
	// UseFlushEvery; nil: never.
	LastUsedAt *time.Time `json:"last_used_at"`
	// Status is "healthy"; "needs_reconnect" when the vendor refused the
	// connector's refresh token or a copy failed with class auth (new
	// credentials, UpdateConnector, make it healthy again); "failing"
	// when a copy's last synchronization failed otherwise; or
	// "credentials_unreadable" when the service's keys do not open the
	// connector's credentials (StatusReason says so; new credentials mend
	// it).
	Status string `json:"status"`
	// StatusReason says why, for credentials_unreadable ("" otherwise).
	StatusReason string `json:"status_reason,omitempty"`
	// Copies are the connector's copies in the service's store (from
	// GetConnector only).
	Copies []CopyStatus `json:"copies,omitempty"`
}

// CopyStatus is one copy of a connector's entity in the service's store.
type CopyStatus struct {
	Entity string `json:"entity"`
	// SyncedAt is when the copy was last brought up to date; nil: never.
	SyncedAt *time.Time `json:"synced_at"`
	// Syncing reports a full synchronization under way.
	Syncing bool `json:"syncing"`
	// LastSync summarizes the last completed synchronization; nil when
	// none completed (or the service's store recorded none).
	LastSync *LastSync `json:"last_sync"`
	// Failure is the last synchronization's failure; nil when it
	// succeeded (or none ran).
	Failure *CopyFailure `json:"failure"`
}

// LastSync is a copy's last completed synchronization.
type LastSync struct {
	// Mode is "full" or "incremental".
	Mode string `json:"mode"`
	// Inserted, Updated and Deleted count what it changed in the copy.
	Inserted int64 `json:"inserted"`
	Updated  int64 `json:"updated"`
	Deleted  int64 `json:"deleted"`
	// DurationMS is how long it took, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// CopyFailure is a copy's last synchronization failure.
type CopyFailure struct {
	// Class is "config" or "auth" (not retried until the connector
	// changes) or "transient" (retried at RetryAt).
	Class    string    `json:"class"`
	Message  string    `json:"message"`
	Failures int       `json:"failures"`
	FailedAt time.Time `json:"failed_at"`
	// RetryAt is nil for a config or auth failure.
	RetryAt *time.Time `json:"retry_at"`
}

// ListOptions filter ListConnectors.
type ListOptions struct {
	// ExternalUserID keeps one end user's connectors (a token limited to
	// a user sees only that user's, whatever this says).
	ExternalUserID string
	// ConnectorType keeps the connectors of one kind.
	ConnectorType string
	// PageSize is how many connectors each request asks for, 1 to 100
	// (0: the service's default, 20).
	PageSize int
}

// ListConnectors lists the connectors the client's token may use, newest
// first, asking the service a page at a time (GET on Paths.Create,
// following its cursor) as the sequence is read. An error ends the
// sequence.
func (c *Client) ListConnectors(ctx context.Context, o ListOptions) iter.Seq2[ConnectorInfo, error] {
	return func(yield func(ConnectorInfo, error) bool) {
		cursor := ""
		for {
			q := url.Values{}
			if o.ExternalUserID != "" {
				q.Set("external_user_id", o.ExternalUserID)
			}
			if o.ConnectorType != "" {
				q.Set("connector_type", o.ConnectorType)
			}
			if o.PageSize != 0 {
				q.Set("limit", strconv.Itoa(o.PageSize))
			}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			var page struct {
				Data       []ConnectorInfo `json:"data"`
				NextCursor *string         `json:"next_cursor"`
				HasMore    bool            `json:"has_more"`
			}
			if err := c.getJSON(ctx, o.ConnectorType, c.paths.Create+"?"+q.Encode(), &page); err != nil {
				yield(ConnectorInfo{}, err)
				return
			}
			for _, ci := range page.Data {
				if !yield(ci, nil) {
					return
				}
			}
			if !page.HasMore || page.NextCursor == nil || *page.NextCursor == "" {
				return
			}
			cursor = *page.NextCursor
		}
	}
}

// GetConnector returns connector id with its status and its copies'
// synchronization state (GET on Paths.Update). An unknown id, or one the
// token may not use, matches tributary.ErrNotFound.
func (c *Client) GetConnector(ctx context.Context, id string) (*ConnectorInfo, error) {
	var ci ConnectorInfo
	if err := c.getJSON(ctx, "", c.connectorPath(id), &ci); err != nil {
		return nil, err
	}
	return &ci, nil
}

// DeleteConnector deletes connector id (DELETE on Paths.Update): the
// service forgets its credentials and drops its copies. An unknown id
// matches tributary.ErrNotFound.
func (c *Client) DeleteConnector(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.base.String()+c.connectorPath(id), nil)
	if err != nil {
		return c.wrap("hosted", "", "", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.wrap("hosted", "", "", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := readSmall(resp)
		return c.statusError("hosted", "", "", resp, raw)
	}
	return nil
}

func (c *Client) connectorPath(id string) string {
	return strings.ReplaceAll(c.paths.Update, "{id}", url.PathEscape(id))
}

// getJSON GETs path and decodes the answer into v.
func (c *Client) getJSON(ctx context.Context, kind, path string, v any) error {
	if kind == "" {
		kind = "hosted"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String()+path, nil)
	if err != nil {
		return c.wrap(kind, "", "", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.wrap(kind, "", "", err)
	}
	defer resp.Body.Close()
	raw, err := readSmall(resp)
	if err != nil {
		return c.wrap(kind, "", "", err)
	}
	if resp.StatusCode/100 != 2 {
		return c.statusError(kind, "", "", resp, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &tributary.Error{Kind: kind, StatusCode: resp.StatusCode, Err: tributary.ErrUnexpectedResponse,
			Message: "the answer is not the JSON expected: " + err.Error()}
	}
	return nil
}

// readSmall reads an answer of at most 4 MiB.
func readSmall(resp *http.Response) ([]byte, error) {
	return io.ReadAll(io.LimitReader(resp.Body, 4<<20))
}
