package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// changesPaths are where the change feed endpoint answers: the contract's
// (beside its create path), and the two path sets of the service.
var changesPaths = []string{
	"/v1/integrations/connectors/{id}/changes",
	"/api/v1/integrations/connectors/{id}/changes",
	"/api/v1/connectors/sources/{id}/changes",
}

// defaultChangesLimit is how many changes a page has when the request
// names no limit.
const defaultChangesLimit = 1000

// changes is the change feed endpoint: the changes of one of a
// connector's copies after a cursor, GET …/changes?entity=…&cursor=…&limit=…,
// authenticated and scoped to the tenant and end user like the status
// endpoint. It answers {"entity", "changes": [{"seq", "op", "id", "data",
// "at"}], "next_cursor", "has_more"}; a cursor older than the feed keeps
// answers 410 with the error type "cursor_expired".
func (s *Server) changes(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	row, ok := s.connectorOf(w, r, id, "changes")
	if !ok {
		return
	}
	info(r).kind = row.Kind
	s.used(id)
	q := r.URL.Query()
	entity := q.Get("entity")
	if entity == "" {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "the entity query parameter is required", "entity")
		return
	}
	// An unknown entity gets the nearest names; one that cannot have a
	// copy is told so, and how to read it.
	es, err := kinds.Catalogue(row.Kind)
	if err == nil {
		err = replica.CheckCopy(row.Kind, es, entity, "")
	}
	if err != nil {
		var te *tributary.Error
		if e, _ := tributary.FindEntity(es, entity); errors.As(err, &te) && e.Supports(tributary.ActionList) {
			te.Message += "; read it with the execute endpoint's list action"
		}
		s.failErr(w, r, err)
		return
	}
	var cursor int64
	if c := q.Get("cursor"); c != "" {
		if cursor, err = strconv.ParseInt(c, 10, 64); err != nil || cursor < 0 {
			s.fail(w, r, http.StatusBadRequest, "invalid_params", "cursor must be a change's seq (an integer ≥ 0)", "cursor")
			return
		}
	}
	limit := defaultChangesLimit
	if l := q.Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit < 1 || limit > store.MaxChangesPage {
			s.fail(w, r, http.StatusBadRequest, "invalid_params", "limit must be from 1 to "+strconv.Itoa(store.MaxChangesPage), "limit")
			return
		}
	}
	page, err := s.st.Changes(r.Context(), id, entity, cursor, limit)
	switch {
	case errors.Is(err, store.ErrCursorExpired):
		s.fail(w, r, http.StatusGone, "cursor_expired", "cursor "+strconv.FormatInt(cursor, 10)+" is older than the changes the service keeps: read the records again (list or search), then follow the changes from the cursor taken before that read", "cursor")
		return
	case errors.Is(err, store.ErrNotSynced):
		s.fail(w, r, http.StatusNotFound, "not_found", "the connector has no copy of "+strconv.Quote(entity)+" yet", "entity")
		return
	case errors.Is(err, store.ErrInvalid):
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "cursor "+strconv.FormatInt(cursor, 10)+" is past the copy's last change", "cursor")
		return
	case err != nil:
		s.storeFailed(w, r, "changes", err)
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"entity": entity, "changes": page.Changes, "next_cursor": page.Next, "has_more": page.More})
}
