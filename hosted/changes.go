package hosted

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
)

// Change is one change of a connector's copy of an entity, as the
// service's change feed reports it.
type Change struct {
	// Seq is the change's number in the copy's feed: the cursor to read
	// the changes after it.
	Seq int64 `json:"seq"`
	// Op is "insert", "update" or "delete".
	Op string `json:"op"`
	// ID is the record's id.
	ID string `json:"id"`
	// Data is the record as the change left it (for a deletion, its last
	// bytes).
	Data json.RawMessage `json:"data"`
	// At is when the service stored the change.
	At time.Time `json:"at"`
}

// ChangePage is a page of a copy's change feed.
type ChangePage struct {
	// Entity is the entity whose copy changed.
	Entity string `json:"entity"`
	// Changes are in the order they were made.
	Changes []Change `json:"changes"`
	// NextCursor is the cursor of the next call: the last change's Seq,
	// or the cursor given when there were none.
	NextCursor int64 `json:"next_cursor"`
	// HasMore reports changes after NextCursor.
	HasMore bool `json:"has_more"`
}

// Changes reads the changes the service's copy of connector id's entity
// went through after cursor (0: from the start of its feed), at most
// limit of them (0: the service's default): each record inserted,
// updated or deleted by its synchronizations, with its data. A cursor
// older than the changes the service keeps fails with an error matching
// tributary.ErrCursorExpired: read the records again (list or search),
// then follow the changes from the cursor taken before that read.
func (c *Client) Changes(ctx context.Context, id, entity string, cursor int64, limit int) (*ChangePage, error) {
	q := url.Values{"entity": {entity}, "cursor": {strconv.FormatInt(cursor, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	u := c.base.String() + strings.ReplaceAll(c.paths.Changes, "{id}", url.PathEscape(id)) + "?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, c.wrap("hosted", entity, "", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.wrap("hosted", entity, "", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, c.wrap("hosted", entity, "", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.statusError("hosted", entity, "", resp, raw)
	}
	if int64(len(raw)) > c.maxBody {
		return nil, &tributary.Error{Kind: "hosted", Entity: entity, StatusCode: resp.StatusCode, Err: tributary.ErrUnexpectedResponse,
			Message: "the changes page is larger than the client reads (WithMaxPageBytes): ask for a smaller limit"}
	}
	page := &ChangePage{}
	if err := json.Unmarshal(raw, page); err != nil {
		return nil, &tributary.Error{Kind: "hosted", Entity: entity, StatusCode: resp.StatusCode, Err: tributary.ErrUnexpectedResponse,
			Message: "the changes page is not the JSON expected: " + err.Error()}
	}
	return page, nil
}
