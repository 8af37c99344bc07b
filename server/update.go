package server

import (
	"context"
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
	s.writeJSON(w, http.StatusOK, map[string]any{"id": id, "connector_type": updated.Kind, "name": updated.Name,
		"external_user_id": updated.ExternalUserID, "created_at": updated.Created.UTC().Format(time.RFC3339)})
}

// connectorChange is what updating a connector takes: the body of the
// update endpoint, and the credentials a reconnect has gathered.
type connectorChange struct {
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
// store.ErrNotFound when it was deleted meanwhile, or the store's.
func (s *Server) updateConnector(ctx context.Context, row *store.Connector, in connectorChange) (*store.Connector, error) {
	id := row.ID
	if in.Credentials == nil && in.ReplicationConfig == nil {
		return nil, &refusal{status: http.StatusBadRequest, typ: "invalid_params", msg: "give credentials, replication_config or both to change", param: "credentials"}
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
	var ch store.ConnectorChange
	if creds == nil {
		// The replication_config only: the connector keeps its credentials
		// (and the OAuth token they hold).
		sl, err := s.unseal(row)
		if err != nil {
			return nil, err
		}
		creds = sl.Credentials
	}
	conn, err := s.open(*row, creds)
	if err != nil {
		return nil, err
	}
	internal := func(msg string) error {
		return &refusal{status: http.StatusInternalServerError, typ: "server_error", msg: msg}
	}
	if in.Credentials != nil {
		if ch.Sealed, err = s.seal(id, &sealed{Credentials: in.Credentials}); err != nil {
			return nil, internal("could not seal the credentials")
		}
	}
	if in.ReplicationConfig != nil {
		if ch.Replication, err = json.Marshal(in.ReplicationConfig); err != nil {
			return nil, internal("could not encode the replication_config")
		}
	}
	updated, reset, err := s.st.UpdateConnector(ctx, id, ch)
	if err != nil {
		return nil, err
	}
	updated.Sealed = nil
	s.mu.Lock()
	s.remember(id, &live{row: *updated, conn: conn})
	s.mu.Unlock()
	s.forget(id)
	s.log.Info("connector updated", "connector", id, "kind", row.Kind, "client", row.Tenant,
		"credentials", in.Credentials != nil, "replication_config", in.ReplicationConfig != nil,
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
