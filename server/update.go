package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// update is the connector update endpoint: it replaces a connector's
// name, credentials and/or replication_config, checked as create checks
// them (new credentials are tried at the vendor first), and, when the
// credentials or the replication_config change, makes the copies that
// failed with the old ones (a config or auth failure waits for a change)
// eligible for synchronization again.
func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	var body connectorChange
	if !s.decode(w, r, &body) {
		return
	}
	row, ok := s.connectorOf(w, r, id, "update")
	if !ok {
		return
	}
	info(r).kind = row.Kind
	updated, err := s.updateConnector(r.Context(), row, body)
	if err != nil {
		s.failUpdate(w, r, id, err)
		return
	}
	s.writeJSON(w, http.StatusOK, connectorJSON(updated))
}

// connectorChange is what updating a connector takes: the body of the
// update endpoint, and the credentials a reconnect has gathered.
type connectorChange struct {
	// Name, when not nil, replaces the display name.
	Name              *string        `json:"name"`
	Credentials       map[string]any `json:"credentials"`
	ReplicationConfig map[string]any `json:"replication_config"`
}

// failUpdate answers with an error of updateConnector.
func (s *Server) failUpdate(w http.ResponseWriter, r *http.Request, id string, err error) {
	var rf *refusal
	switch {
	case errors.As(err, &rf):
		s.fail(w, r, rf.status, rf.typ, rf.msg, rf.param)
	case errors.Is(err, store.ErrNotFound): // deleted meanwhile
		s.fail(w, r, http.StatusNotFound, "not_found", "no connector "+strconv.Quote(id), "")
	default:
		s.storeFailed(w, r, "update", err)
	}
}

// updateConnector applies ch to the connector row (found in the caller's
// scope), resets its copies' failures in the same transaction, and makes
// this process's workers open it anew. Errors are a *refusal, a
// *tributary.Error (the credentials or replication config),
// store.ErrNotFound when it was deleted meanwhile, or the store's. opts
// commit with the update (store.Emit, store.FinishingSession).
func (s *Server) updateConnector(ctx context.Context, row *store.Connector, in connectorChange, opts ...store.EventOption) (*store.Connector, error) {
	id := row.ID
	if in.Credentials == nil && in.ReplicationConfig == nil && in.Name == nil {
		return nil, &refusal{status: http.StatusBadRequest, typ: "invalid_params", msg: "give name, credentials or replication_config (or several) to change", param: "credentials"}
	}
	if in.Name != nil && !printable(*in.Name) {
		return nil, &refusal{status: http.StatusBadRequest, typ: "invalid_params", msg: fmt.Sprintf("name must be at most %d printable characters", maxName), param: "name"}
	}
	creds := in.Credentials
	if creds != nil {
		if err := kinds.CheckCredentials(row.Kind, creds); err != nil {
			return nil, credentialsParam(err)
		}
	}
	if in.ReplicationConfig != nil {
		if err := kinds.CheckReplicationConfig(row.Kind, in.ReplicationConfig); err != nil {
			return nil, err
		}
	}
	ch := store.ConnectorChange{Name: in.Name}
	if creds == nil && in.ReplicationConfig == nil {
		// The name only: nothing the connector reads changes.
		updated, _, err := s.st.UpdateConnector(ctx, id, ch, opts...)
		if err != nil {
			return nil, err
		}
		updated.Sealed = nil
		s.mcp.forgetTenant(row.Tenant) // /mcp's list_connectors gives the name
		s.log.Info("connector renamed", "connector", id, "kind", row.Kind, "client", row.Tenant)
		return updated, nil
	}
	var sl *sealed
	if creds != nil {
		// New credentials are tried at the vendor before they replace the
		// old; sealed anew, they clear a needs-reconnect mark.
		var err error
		if sl, err = s.verifyCredentials(ctx, row.Kind, creds); err != nil {
			return nil, err
		}
		creds = sl.Credentials
	} else {
		// The replication_config only: the connector keeps its credentials
		// (and the OAuth token they hold).
		old, err := s.unseal(row)
		if err != nil {
			return nil, err
		}
		creds = old.Credentials
	}
	conn, err := s.open(*row, creds)
	if err != nil {
		return nil, err
	}
	internal := func(msg string) error {
		return &refusal{status: http.StatusInternalServerError, typ: "server_error", msg: msg}
	}
	if sl != nil {
		if ch.Sealed, err = s.seal(id, sl); err != nil {
			return nil, internal("could not seal the credentials")
		}
	}
	if in.ReplicationConfig != nil {
		if ch.Replication, err = json.Marshal(in.ReplicationConfig); err != nil {
			return nil, internal("could not encode the replication_config")
		}
	}
	updated, reset, err := s.st.UpdateConnector(ctx, id, ch, opts...)
	if err != nil {
		return nil, err
	}
	updated.Sealed = nil
	s.mu.Lock()
	s.remember(id, &live{row: *updated, conn: conn})
	s.mu.Unlock()
	s.forget(id)
	if in.Name != nil {
		s.mcp.forgetTenant(row.Tenant)
	}
	s.log.Info("connector updated", "connector", id, "kind", row.Kind, "client", row.Tenant,
		"credentials", in.Credentials != nil, "replication_config", in.ReplicationConfig != nil, "name", in.Name != nil,
		"version", updated.Version, "failures_reset", reset)
	return updated, nil
}

// addWorker records a running background worker, so that a connector's
// update reaches it; removeWorker forgets it once it stops.
func (s *Server) addWorker(w *replica.Worker) {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	s.workers[w] = struct{}{}
}

func (s *Server) removeWorker(w *replica.Worker) {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	delete(s.workers, w)
}

// forget tells this process's background workers to drop their replica of
// connector id: their next claim of its copies opens it again, with the
// connector as it is now; and to look for due copies now, since a change
// of credentials or scope may have made some due (a failing copy's
// failures reset), rather than at the end of their idle wait.
func (s *Server) forget(id string) {
	s.workersMu.Lock()
	for w := range s.workers {
		w.Forget(id)
	}
	s.workersMu.Unlock()
	s.wakeWorkers()
}

// wakeWorkers tells this process's background workers that copies are
// due now (a new connector's), so that they look without waiting out
// their idle poll.
func (s *Server) wakeWorkers() {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	for w := range s.workers {
		w.Wake()
	}
}

// credentialsParam names the parameter "credentials" in a credentials
// error that names none.
func credentialsParam(err error) error {
	var te *tributary.Error
	if errors.As(err, &te) && te.Param == "" {
		named := *te
		named.Param = "credentials"
		return &named
	}
	return err
}
