package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tributary-dev/tributary/store"
)

// copyStatus is one copy in a connector's status.
type copyStatus struct {
	Entity   string     `json:"entity"`
	SyncedAt *time.Time `json:"synced_at"` // null: never synchronized
	Syncing  bool       `json:"syncing"`
	// LastSync is the last completed synchronization (at SyncedAt); null
	// when none completed, or the store recorded none (schema < 6).
	LastSync *lastSyncStatus `json:"last_sync"`
	Failure  *failureStatus  `json:"failure"` // null: the last sync succeeded (or none ran)
}

// lastSyncStatus summarizes a copy's last completed synchronization.
type lastSyncStatus struct {
	// Mode is "full" or "incremental".
	Mode       string `json:"mode"`
	Inserted   int64  `json:"inserted"`
	Updated    int64  `json:"updated"`
	Deleted    int64  `json:"deleted"`
	DurationMS int64  `json:"duration_ms"`
}

// failureStatus is a copy's last failure, as the store records it.
type failureStatus struct {
	Class    string    `json:"class"`
	Message  string    `json:"message"`
	Failures int       `json:"failures"`
	FailedAt time.Time `json:"failed_at"`
	// RetryAt is null for a config or auth failure: the copy waits for
	// its connector's configuration or credentials to change.
	RetryAt *time.Time `json:"retry_at"`
}

// status is the connector status endpoint: the connector as created
// (never its credentials), its status (connectorStatus: healthy,
// needs_reconnect, failing or credentials_unreadable) and each of its copies' synchronization
// state and last failure, from two reads of the store (the connector, its
// copies).
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	row, ok := s.connectorOf(w, r, id, "status")
	if !ok {
		return
	}
	info(r).kind = row.Kind
	copies, err := s.st.ConnectorCopies(r.Context(), id)
	if err != nil {
		s.storeFailed(w, r, "status", err)
		return
	}
	out := []copyStatus{}
	for _, c := range copies {
		cs := copyStatus{Entity: c.Entity, Syncing: c.Syncing}
		if !c.SyncedAt.IsZero() {
			t := c.SyncedAt.UTC()
			cs.SyncedAt = &t
		}
		if ls := c.LastSync; ls != nil {
			mode := "incremental"
			if ls.Full {
				mode = "full"
			}
			cs.LastSync = &lastSyncStatus{Mode: mode, Inserted: ls.Counts.Inserted, Updated: ls.Counts.Updated, Deleted: ls.Counts.Deleted,
				DurationMS: ls.Duration.Milliseconds()}
		}
		if f := c.Failure; f != nil {
			cs.Failure = &failureStatus{Class: string(f.Class), Message: f.Message, Failures: f.Failures, FailedAt: f.FailedAt.UTC()}
			if !f.RetryAt.IsZero() {
				t := f.RetryAt.UTC()
				cs.Failure.RetryAt = &t
			}
		}
		out = append(out, cs)
	}
	body := connectorJSON(row)
	s.setStatus(body, row, copies)
	body["copies"] = out
	s.writeJSON(w, http.StatusOK, body)
}

var failingDesc = prometheus.NewDesc("tributary_copy_failing",
	"1 while a copy's last synchronization failed, with the failure's class (config and auth: not retried until the connector changes; transient: retried with a back-off); 0, with class \"\", for every other registered copy. By connector, entity and class. Only while the store holds at most 1,000 copies (tributary_copies_failing always).",
	[]string{"connector", "entity", "class"}, nil)

// connectorOf looks up the connector id of a request to one connector's
// endpoint (op names it in a store failure): an id of the wrong shape, an
// unknown one, or one of another tenant or end user than the token's
// answers 404, alike.
func (s *Server) connectorOf(w http.ResponseWriter, r *http.Request, id, op string) (*store.Connector, bool) {
	sc, _ := scopeOf(r.Context())
	var row *store.Connector
	var err error
	if idRE.MatchString(id) {
		row, err = s.st.Connector(r.Context(), id)
	} else {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) || err == nil && !sc.allows(row.Tenant, row.ExternalUserID) {
		s.fail(w, r, http.StatusNotFound, "not_found", "no connector "+strconv.Quote(id), "")
		return nil, false
	}
	if err != nil {
		s.storeFailed(w, r, op, err)
		return nil, false
	}
	return row, true
}
