package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// update is the connector update endpoint: it replaces a connector's
// credentials, its replication_config or both, checked as create checks
// them, and makes the copies that failed with the old ones (a config or
// auth failure waits for a change) eligible for synchronization again.
func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	var body struct {
		Credentials       map[string]any `json:"credentials"`
		ReplicationConfig map[string]any `json:"replication_config"`
	}
	if !s.decode(w, r, &body) {
		return
	}
	row, ok := s.connectorOf(w, r, id, "update")
	if !ok {
		return
	}
	info(r).kind = row.Kind
	if body.Credentials == nil && body.ReplicationConfig == nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "give credentials, replication_config or both to change", "credentials")
		return
	}
	creds := body.Credentials
	if creds != nil {
		if err := kinds.CheckCredentials(row.Kind, creds); err != nil {
			s.failErr(w, r, credentialsParam(err))
			return
		}
	}
	if body.ReplicationConfig != nil {
		if err := kinds.CheckReplicationConfig(row.Kind, body.ReplicationConfig); err != nil {
			s.failErr(w, r, err)
			return
		}
	}
	var ch store.ConnectorChange
	if creds == nil {
		// The replication_config only: the connector keeps its credentials
		// (and the OAuth token they hold).
		sl, err := s.unseal(row)
		if err != nil {
			s.storeFailed(w, r, "update", err)
			return
		}
		creds = sl.Credentials
	}
	conn, err := s.open(*row, creds)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	if body.Credentials != nil {
		if ch.Sealed, err = s.seal(id, &sealed{Credentials: body.Credentials}); err != nil {
			s.fail(w, r, http.StatusInternalServerError, "server_error", "could not seal the credentials", "")
			return
		}
	}
	if body.ReplicationConfig != nil {
		if ch.Replication, err = json.Marshal(body.ReplicationConfig); err != nil {
			s.fail(w, r, http.StatusInternalServerError, "server_error", "could not encode the replication_config", "")
			return
		}
	}
	updated, reset, err := s.st.UpdateConnector(r.Context(), id, ch)
	if errors.Is(err, store.ErrNotFound) { // deleted meanwhile
		s.fail(w, r, http.StatusNotFound, "not_found", "no connector "+strconv.Quote(id), "")
		return
	}
	if err != nil {
		s.storeFailed(w, r, "update", err)
		return
	}
	updated.Sealed = nil
	s.mu.Lock()
	s.remember(id, &live{row: *updated, conn: conn})
	s.mu.Unlock()
	s.forget(id)
	s.log.Info("connector updated", "request_id", info(r).id, "connector", id, "kind", row.Kind, "client", row.Tenant,
		"credentials", body.Credentials != nil, "replication_config", body.ReplicationConfig != nil,
		"version", updated.Version, "failures_reset", reset)
	s.writeJSON(w, http.StatusOK, map[string]any{"id": id, "connector_type": updated.Kind, "name": updated.Name,
		"external_user_id": updated.ExternalUserID, "created_at": updated.Created.UTC().Format(time.RFC3339)})
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
// connector as it is now.
func (s *Server) forget(id string) {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	for w := range s.workers {
		w.Forget(id)
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
