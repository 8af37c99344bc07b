package asanatest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

type rowOf = fakeserver.Row[obj]

// linkTTL is how long a download_url is valid: about two minutes.
const linkTTL = 2 * time.Minute

// serve routes the API's requests.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == TokenPath {
		s.grant(w, r)
		return
	}
	if r.Method != http.MethodGet {
		writeErr(w, http.StatusMethodNotAllowed, "This method is not allowed on this resource.")
		return
	}
	if s.authorized(w, r) { // a refusal before the token is checked is not counted
		s.limited.ServeHTTP(w, r)
	}
}

// route answers an authorized API request.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	one := func(t *fakeserver.Table[obj], id, what string) {
		rec, ok := t.Live(id)
		if !ok {
			writeErr(w, http.StatusNotFound, what+": Unknown object: "+id)
			return
		}
		if opt := q.Get("opt_fields"); opt != "" {
			rec = fields(rec, opt)
		}
		writeJSON(w, http.StatusOK, obj{"data": rec})
	}
	all := func(t *fakeserver.Table[obj], keep func(obj) bool) []obj {
		var out []obj
		for _, row := range t.Rows(nil) {
			if keep == nil || keep(row.Rec) {
				out = append(out, row.Rec)
			}
		}
		return out
	}
	switch {
	case len(seg) == 1 && seg[0] == "workspaces":
		s.list(w, r, all(&s.workspaces, nil))
	case len(seg) == 2 && seg[0] == "workspaces":
		one(&s.workspaces, seg[1], "workspace")
	case len(seg) == 3 && seg[0] == "workspaces" && seg[2] == "teams":
		if _, ok := s.workspaces.Live(seg[1]); !ok {
			writeErr(w, http.StatusNotFound, "workspace: Unknown object: "+seg[1])
			return
		}
		s.list(w, r, all(&s.teams, func(t obj) bool { return t["organization"].(obj)["gid"] == seg[1] }))
	case len(seg) == 4 && seg[0] == "workspaces" && seg[2] == "tasks" && seg[3] == "search":
		s.search(w, r, all(&s.tasks, nil))
	case len(seg) == 1 && seg[0] == "users":
		s.list(w, r, all(&s.users, nil))
	case len(seg) == 2 && seg[0] == "users":
		if seg[1] == "me" {
			seg[1] = s.me()["gid"].(string)
		}
		one(&s.users, seg[1], "user")
	case len(seg) == 2 && seg[0] == "teams":
		one(&s.teams, seg[1], "team")
	case len(seg) == 1 && seg[0] == "projects":
		s.list(w, r, all(&s.projects, func(p obj) bool {
			return (q.Get("workspace") == "" || p["workspace"].(obj)["gid"] == q.Get("workspace")) &&
				(q.Get("team") == "" || p["team"].(obj)["gid"] == q.Get("team")) &&
				(q.Get("archived") == "" || fmt.Sprint(p["archived"]) == q.Get("archived"))
		}))
	case len(seg) == 2 && seg[0] == "projects":
		one(&s.projects, seg[1], "project")
	case len(seg) == 3 && seg[0] == "projects" && seg[2] == "sections":
		if _, ok := s.projects.Live(seg[1]); !ok {
			writeErr(w, http.StatusNotFound, "project: Unknown object: "+seg[1])
			return
		}
		s.list(w, r, all(&s.sections, func(x obj) bool { return x["project"].(obj)["gid"] == seg[1] }))
	case len(seg) == 2 && seg[0] == "sections":
		one(&s.sections, seg[1], "section")
	case len(seg) == 1 && seg[0] == "tasks":
		s.listTasks(w, r)
	case len(seg) == 2 && seg[0] == "tasks":
		one(&s.tasks, seg[1], "task")
	case len(seg) == 3 && seg[0] == "tasks" && (seg[2] == "subtasks" || seg[2] == "stories"):
		if _, ok := s.tasks.Live(seg[1]); !ok {
			writeErr(w, http.StatusNotFound, "task: Unknown object: "+seg[1])
			return
		}
		if seg[2] == "subtasks" {
			s.list(w, r, all(&s.tasks, func(t obj) bool { p, _ := t["parent"].(obj); return p != nil && p["gid"] == seg[1] }))
		} else {
			s.list(w, r, all(&s.stories, func(x obj) bool { return x["target"].(obj)["gid"] == seg[1] }))
		}
	case len(seg) == 2 && seg[0] == "stories":
		one(&s.stories, seg[1], "story")
	case len(seg) == 1 && seg[0] == "tags":
		s.list(w, r, all(&s.tags, func(t obj) bool { return q.Get("workspace") == "" || t["workspace"].(obj)["gid"] == q.Get("workspace") }))
	case len(seg) == 2 && seg[0] == "tags":
		one(&s.tags, seg[1], "tag")
	case len(seg) == 1 && seg[0] == "attachments":
		parent := q.Get("parent")
		if parent == "" {
			writeErr(w, http.StatusBadRequest, "parent: Missing input")
			return
		}
		s.list(w, r, all(&s.attachments, func(a obj) bool { return a["parent"].(obj)["gid"] == parent }))
	case len(seg) == 2 && seg[0] == "attachments":
		a, ok := s.attachments.Live(seg[1])
		if !ok {
			writeErr(w, http.StatusNotFound, "attachment: Unknown object: "+seg[1])
			return
		}
		a = clone(a)
		a["download_url"] = s.signedURL(seg[1], a["name"].(string))
		if opt := q.Get("opt_fields"); opt != "" {
			a = fields(a, opt)
		}
		writeJSON(w, http.StatusOK, obj{"data": a})
	case len(seg) == 1 && seg[0] == "events":
		s.serveEvents(w, r)
	default:
		writeErr(w, http.StatusNotFound, "No matching route for request")
	}
}

func clone(o obj) obj {
	out := make(obj, len(o)+1)
	for k, v := range o {
		out[k] = v
	}
	return out
}

// list answers a page of items: limit (1 to 100) and an offset token
// bound to the request's path and filters, compact records unless
// opt_fields names fields.
func (s *Server) list(w http.ResponseWriter, r *http.Request, items []obj) {
	q := r.URL.Query()
	n := len(items)
	if v := q.Get("limit"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			writeErr(w, http.StatusBadRequest, "limit: Must be between 1 and 100")
			return
		}
	} else if n > 1000 {
		writeErr(w, http.StatusBadRequest, "The result is too large. You should use pagination (may require specifying a workspace)!")
		return
	}
	key := listKey(r)
	off := 0
	if v := q.Get("offset"); v != "" {
		var ok bool
		if off, ok = fakeserver.FromCursor(key, v); !ok {
			writeErr(w, http.StatusBadRequest, "offset: Your pagination token is invalid.")
			return
		}
	}
	page, next := fakeserver.PageOf(items, off, n)
	data := make([]any, len(page))
	for i, rec := range page {
		if opt := q.Get("opt_fields"); opt != "" {
			data[i] = fields(rec, opt)
		} else {
			data[i] = compact(rec)
		}
	}
	var np any
	if next >= 0 {
		tok := fakeserver.Cursor(key, next)
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("offset", tok)
		np = obj{"offset": tok, "path": r.URL.Path + "?" + nq.Encode(), "uri": fakeserver.BaseURL(r) + r.URL.Path + "?" + nq.Encode()}
	}
	writeJSON(w, http.StatusOK, obj{"data": data, "next_page": np})
}

// listKey binds an offset to the list and filters it pages.
func listKey(r *http.Request) string {
	q := r.URL.Query()
	q.Del("offset")
	q.Del("limit")
	q.Del("opt_fields")
	return r.URL.Path + "?" + q.Encode()
}

// listTasks answers GET /tasks: the tasks of a project, section or tag,
// or of an assignee in a workspace, modified and completed since.
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	project, section, tag, assignee, workspace := q.Get("project"), q.Get("section"), q.Get("tag"), q.Get("assignee"), q.Get("workspace")
	if (project == "" && section == "" && tag == "" && (assignee == "" || workspace == "")) || (project != "" && section != "") {
		writeErr(w, http.StatusBadRequest, "Must specify exactly one of project, tag, section, user task list, or assignee + workspace")
		return
	}
	var since, done time.Time
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"modified_since", &since}, {"completed_since", &done}} {
		if v := q.Get(p.name); v != "" && v != "now" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeErr(w, http.StatusBadRequest, p.name+": Not a valid date-time: "+v)
				return
			}
			*p.to = t
		} else if v == "now" {
			*p.to = s.clock.Now()
		}
	}
	if assignee == "me" {
		assignee = s.me()["gid"].(string)
	}
	var out []obj
	for _, row := range s.tasks.Rows(nil) {
		t := row.Rec
		if t["parent"] != nil && project+section != "" {
			continue // a subtask is in no project
		}
		in := func(field, sub, want string) bool {
			if want == "" {
				return true
			}
			for _, m := range t[field].([]any) {
				x := m.(obj)
				if sub != "" {
					x = x[sub].(obj)
				}
				if x["gid"] == want {
					return true
				}
			}
			return false
		}
		if !in("projects", "", project) || !in("memberships", "section", section) || !in("tags", "", tag) ||
			(assignee != "" && (t["assignee"] == nil || t["assignee"].(obj)["gid"] != assignee)) ||
			(!since.IsZero() && row.Modified.Before(since)) ||
			(q.Has("completed_since") && t["completed"] == true && row.Modified.Before(done)) {
			continue
		}
		out = append(out, t)
	}
	s.list(w, r, out)
}

// search answers the task search: 402 unless the workspace is premium;
// text, completed, projects.any, modified_at.after, sort_by and limit.
func (s *Server) search(w http.ResponseWriter, r *http.Request, tasks []obj) {
	if !s.cfg.premium {
		writeErr(w, http.StatusPaymentRequired, "Search is only available to premium users.")
		return
	}
	q := r.URL.Query()
	n := 20
	if v := q.Get("limit"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			writeErr(w, http.StatusBadRequest, "limit: Must be between 1 and 100")
			return
		}
	}
	var out []obj
	for _, t := range tasks {
		text := strings.ToLower(q.Get("text"))
		if text != "" && !strings.Contains(strings.ToLower(t["name"].(string)+" "+t["notes"].(string)), text) {
			continue
		}
		if v := q.Get("completed"); v != "" && fmt.Sprint(t["completed"]) != v {
			continue
		}
		if v := q.Get("projects.any"); v != "" && !slices.ContainsFunc(t["projects"].([]any), func(p any) bool {
			return slices.Contains(strings.Split(v, ","), p.(obj)["gid"].(string))
		}) {
			continue
		}
		if v := q.Get("modified_at.after"); v != "" && t["modified_at"].(string) <= v {
			continue
		}
		out = append(out, t)
	}
	key := "modified_at"
	if v := q.Get("sort_by"); v == "created_at" || v == "completed_at" {
		key = v
	}
	asc := q.Get("sort_ascending") == "true"
	slices.SortStableFunc(out, func(a, b obj) int {
		c := strings.Compare(fmt.Sprint(a[key]), fmt.Sprint(b[key]))
		if !asc {
			c = -c
		}
		return c
	})
	out = out[:min(n, len(out))]
	data := make([]any, len(out))
	for i, t := range out {
		if opt := q.Get("opt_fields"); opt != "" {
			data[i] = fields(t, opt)
		} else {
			data[i] = compact(t)
		}
	}
	writeJSON(w, http.StatusOK, obj{"data": data})
}

// serveEvents answers GET /events?resource=…&sync=…: 412 with a fresh
// token without one, or with one unknown or older than 24 hours; else the
// events since the token, at most 100, has_more, and the next token.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res := q.Get("resource")
	if _, ok := s.projects.Live(res); !ok {
		if _, ok := s.tasks.Live(res); !ok {
			writeErr(w, http.StatusBadRequest, "resource: Not a recognized ID: "+res)
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.events[res]
	tok, ok := s.syncs[q.Get("sync")]
	if !ok || tok.resource != res || s.clock.Now().Sub(tok.issued) > 24*time.Hour {
		msg := "Sync token invalid or too old. If you are attempting to keep resources in sync, you must fetch the full dataset for this query now and use the new sync token for the next sync."
		writeJSON(w, http.StatusPreconditionFailed, obj{"errors": []any{obj{"message": msg}}, "sync": s.syncToken(res, len(log))})
		return
	}
	end := min(tok.pos+100, len(log))
	data := make([]any, 0, end-tok.pos)
	for _, e := range log[tok.pos:end] {
		data = append(data, e)
	}
	writeJSON(w, http.StatusOK, obj{"data": data, "sync": s.syncToken(res, end), "has_more": end < len(log)})
}

// syncToken hands out a token for the events of res from pos; s.mu held.
func (s *Server) syncToken(res string, pos int) string {
	s.seq++
	tok := fmt.Sprintf("%032x", uint64(s.seq)*0x9e3779b97f4a7c15)
	s.syncs[tok] = syncToken{resource: res, pos: pos, issued: s.clock.Now()}
	return tok
}

// signedURL is an attachment's download_url on the file host, valid for
// linkTTL of the fake's clock.
func (s *Server) signedURL(gid, name string) string {
	exp := s.clock.Now().Add(linkTTL).Unix()
	return fmt.Sprintf("%s/%s/%s?X-Amz-Expires=120&Expires=%d&X-Amz-Signature=%x", s.FilesURL, gid, url.PathEscape(name), exp, exp*7919)
}

// serveFile is the file host (S3): the bytes of an attachment whose
// signed URL has not expired, with Range; S3's 403 otherwise.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	gid, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	exp, err := strconv.ParseInt(r.URL.Query().Get("Expires"), 10, 64)
	denied := func(msg string) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>%s</Message></Error>`, msg)
	}
	if err != nil || r.URL.Query().Get("X-Amz-Signature") != fmt.Sprintf("%x", exp*7919) {
		denied("The request signature we calculated does not match the signature you provided.")
		return
	}
	if s.clock.Now().Unix() > exp {
		denied("Request has expired")
		return
	}
	if r.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>`)
		return
	}
	content, ok := s.FileContent(gid)
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	a, _ := s.attachments.Live(gid)
	fakeserver.ServeFile(w, r, fakeserver.File{Name: a["name"].(string), ContentType: "application/pdf", Content: content,
		ETag: `"` + gid + `"`, CutEvery: s.cfg.cutEvery})
}
