package gongtest

import (
	"net/http"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Workspaces, settings and the call library: small unpaged lists.

func (s *Server) listWorkspaces(w http.ResponseWriter, _ *http.Request) {
	ws := make([]workspaceRecord, numWorkspaces)
	for i := range ws {
		ws[i] = workspace(i)
	}
	s.serveAll(w, "workspaces", ws)
}

// workspaceFilter reads an optional workspaceId query parameter: -1 when
// absent, ok false when it names no workspace.
func workspaceFilter(r *http.Request) (int, bool) {
	v := r.URL.Query().Get("workspaceId")
	if v == "" {
		return -1, true
	}
	return workspaceIndex(v)
}

func (s *Server) listScorecards(w http.ResponseWriter, r *http.Request) {
	ws, ok := workspaceFilter(r)
	if !ok {
		s.writeError(w, http.StatusNotFound, "Workspace not found")
		return
	}
	out := []map[string]any{}
	for k := range numScorecards {
		if ws < 0 || scorecardWorkspace(k) == ws {
			out = append(out, s.scorecard(k))
		}
	}
	s.serveAll(w, "scorecards", out)
}

func (s *Server) listTrackers(w http.ResponseWriter, r *http.Request) {
	ws, ok := workspaceFilter(r)
	if !ok {
		s.writeError(w, http.StatusNotFound, "Workspace not found")
		return
	}
	out := []map[string]any{}
	for k := range numTrackers {
		if ws < 0 || trackerWorkspace(k) == ws {
			out = append(out, tracker(k))
		}
	}
	s.serveAll(w, "keywordTrackers", out)
}

// ---- library ----

func (s *Server) listFolders(w http.ResponseWriter, r *http.Request) {
	ws, ok := workspaceFilter(r)
	if !ok {
		s.writeError(w, http.StatusNotFound, "No folders found")
		return
	}
	out := []map[string]any{}
	for f := range numFolders {
		if ws < 0 || folderWorkspace(f) == ws {
			out = append(out, folder(f))
		}
	}
	s.serveAll(w, "folders", out)
}

// folderContent answers GET /v2/library/folder-content. As Gong documents
// it, the response is the folder with its calls and has no records block.
func (s *Server) folderContent(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("folderId")
	if id == "" {
		s.writeError(w, http.StatusBadRequest, "folderId is required")
		return
	}
	f, ok := folderIndex(id)
	if !ok {
		s.writeError(w, http.StatusNotFound, "Folder not found")
		return
	}
	fd := folder(f)
	idx := s.folderCalls(f)
	calls := make([]map[string]any, 0, len(idx))
	for k, i := range idx {
		calls = append(calls, s.folderCall(f, k, i))
	}
	fakeserver.WriteJSON(w, http.StatusOK, object(
		kv{"requestId", s.requestID()}, kv{"id", fd["id"]}, kv{"name", fd["name"]},
		kv{"createdBy", fd["createdBy"]}, kv{"updated", fd["updated"]}, kv{"calls", calls}))
}
