package jiratest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// routes is the vendor API: the paths of the package doc, behind
// authentication and the rate limit, also under /ex/jira/{cloud_id}.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h http.HandlerFunc) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if s.limit(w) && s.authorized(w, r) {
				h(w, r)
			}
		})
	}
	const v3, agile = "/rest/api/3", "/rest/agile/1.0"
	api("GET "+v3+"/search/jql", s.search)
	api("POST "+v3+"/search/jql", s.search)
	api("GET /rest/api/2/search", s.searchV2)
	api("GET "+v3+"/issue/{issue}", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		var sel map[string]bool
		if f := r.URL.Query()["fields"]; len(f) > 0 {
			sel = selection(strings.Split(strings.Join(f, ","), ","))
			if len(sel) == 0 {
				sel = map[string]bool{"__none": true}
			}
		}
		fakeserver.JSON(w, http.StatusOK, s.issueJSON(is, sel))
	}))
	api("GET "+v3+"/issue/{issue}/comment", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		ids := slices.Clone(is.Comments)
		if r.URL.Query().Get("orderBy") == "-created" {
			slices.Reverse(ids)
		}
		s.offsetPage(w, r, "comments", 100, 5000, len(ids), false, func(i int) any {
			c, _ := s.comments.Live(ids[i])
			return s.commentJSON(c)
		})
	}))
	api("GET "+v3+"/issue/{issue}/comment/{id}", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		c, ok := s.comments.Live(r.PathValue("id"))
		if !ok || c.Issue != is.ID {
			writeErr(w, http.StatusNotFound, "Can not find a comment for the id: "+r.PathValue("id")+".")
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.commentJSON(c))
	}))
	api("GET "+v3+"/issue/{issue}/worklog", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		s.offsetPage(w, r, "worklogs", 5000, 5000, len(is.Worklogs), false, func(i int) any {
			wl, _ := s.worklogs.Live(is.Worklogs[i])
			return s.worklogJSON(wl)
		})
	}))
	api("GET "+v3+"/issue/{issue}/worklog/{id}", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		wl, ok := s.worklogs.Live(r.PathValue("id"))
		if !ok || wl.Issue != is.ID {
			writeErr(w, http.StatusNotFound, "Cannot find worklog with id: "+r.PathValue("id")+".")
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.worklogJSON(wl))
	}))
	api("GET "+v3+"/issue/{issue}/changelog", s.withIssue(func(w http.ResponseWriter, r *http.Request, is issue) {
		s.offsetPage(w, r, "values", 100, 100, 1, true, func(int) any {
			return map[string]any{"id": strconv.Itoa(60000 + is.ID), "author": s.userDetails(is.Reporter), "created": s.date(is.Updated),
				"items": []any{map[string]any{"field": "status", "fieldtype": "jira", "fieldId": "status", "from": "10000", "fromString": "To Do",
					"to": statuses[is.Status]["id"], "toString": statuses[is.Status]["name"]}}}
		})
	}))
	api("GET "+v3+"/issue/{issue}/transitions", s.withIssue(func(w http.ResponseWriter, _ *http.Request, is issue) {
		var ts []any
		for i, st := range statuses {
			if i != is.Status {
				ts = append(ts, map[string]any{"id": strconv.Itoa(11 + 10*i), "name": "Move to " + st["name"].(string), "to": st,
					"hasScreen": false, "isGlobal": true, "isInitial": false, "isAvailable": true, "isConditional": false, "isLooped": false})
			}
		}
		fakeserver.JSON(w, http.StatusOK, map[string]any{"transitions": ts})
	}))
	api("GET "+v3+"/attachment/{id}", func(w http.ResponseWriter, r *http.Request) {
		if is, ok := s.attached(w, r); ok {
			fakeserver.JSON(w, http.StatusOK, s.attachment(is, true))
		}
	})
	api("GET "+v3+"/attachment/content/{id}", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := s.attached(w, r); !ok {
			return
		}
		id := r.PathValue("id")
		if r.URL.Query().Get("redirect") == "false" {
			f, _ := s.file(id)
			fakeserver.ServeFile(w, r, f)
			return
		}
		http.Redirect(w, r, s.FilesURL+"/file/"+id+"?token="+s.sign(id), http.StatusSeeOther)
	})
	api("GET "+v3+"/project/search", func(w http.ResponseWriter, r *http.Request) {
		var ps []int
		for p := range s.cfg.projects {
			if k := r.URL.Query().Get("keys"); k == "" || slices.Contains(strings.Split(k, ","), projectKey(p)) {
				ps = append(ps, p)
			}
		}
		s.offsetPage(w, r, "values", 50, 100, len(ps), true, func(i int) any { return s.project(ps[i]) })
	})
	api("GET "+v3+"/project/{key}", func(w http.ResponseWriter, r *http.Request) {
		for p := range s.cfg.projects {
			if k := r.PathValue("key"); k == projectKey(p) || k == strconv.Itoa(10000+p) {
				fakeserver.JSON(w, http.StatusOK, s.project(p))
				return
			}
		}
		writeErr(w, http.StatusNotFound, "No project could be found with key '"+r.PathValue("key")+"'.")
	})
	api("GET "+v3+"/users/search", func(w http.ResponseWriter, r *http.Request) {
		start, size, ok := s.startAndSize(w, r, 50, 1000)
		if ok {
			page, _ := fakeserver.PageOf(s.usersList(), start, size)
			fakeserver.JSON(w, http.StatusOK, page)
		}
	})
	api("GET "+v3+"/user", func(w http.ResponseWriter, r *http.Request) {
		u, ok := userIndex(r.URL.Query().Get("accountId"))
		if !ok || u >= s.cfg.users {
			writeErr(w, http.StatusNotFound, "Specified user does not exist or you do not have required permissions")
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.user(u))
	})
	api("GET "+v3+"/myself", func(w http.ResponseWriter, _ *http.Request) { fakeserver.JSON(w, http.StatusOK, s.user(0)) })
	api("GET "+v3+"/field", func(w http.ResponseWriter, _ *http.Request) { fakeserver.JSON(w, http.StatusOK, fields()) })
	static := func(path, what string, n int, one func(int) map[string]any, match func(int, string) bool) {
		api("GET "+v3+path, func(w http.ResponseWriter, _ *http.Request) {
			out := make([]any, n)
			for i := range n {
				out[i] = one(i)
			}
			fakeserver.JSON(w, http.StatusOK, out)
		})
		api("GET "+v3+path+"/{id}", func(w http.ResponseWriter, r *http.Request) {
			for i := range n {
				if match(i, r.PathValue("id")) {
					fakeserver.JSON(w, http.StatusOK, one(i))
					return
				}
			}
			writeErr(w, http.StatusNotFound, "The "+what+" with id '"+r.PathValue("id")+"' does not exist.")
		})
	}
	static("/status", "status", len(statuses), func(i int) map[string]any { return statuses[i] }, func(i int, v string) bool {
		return v == statuses[i]["id"] || strings.EqualFold(v, statuses[i]["name"].(string))
	})
	static("/priority", "priority", len(priorityNames), s.priority, func(i int, v string) bool { return v == strconv.Itoa(i+1) })
	static("/issuetype", "issue type", len(typeNames), s.issueType, func(i int, v string) bool { return v == strconv.Itoa(10001+i) })
	api("GET "+v3+"/worklog/updated", s.changedWorklogs(false))
	api("GET "+v3+"/worklog/deleted", s.changedWorklogs(true))
	api("POST "+v3+"/worklog/list", s.worklogList)
	api("GET "+agile+"/board", func(w http.ResponseWriter, r *http.Request) {
		var bs []int
		for b := 1; b <= s.cfg.boards; b++ {
			if t := r.URL.Query().Get("type"); t == "" || t == s.board(b)["type"] {
				bs = append(bs, b)
			}
		}
		s.offsetPage(w, r, "values", 50, 50, len(bs), false, func(i int) any { return s.board(bs[i]) })
	})
	api("GET "+agile+"/board/{id}", func(w http.ResponseWriter, r *http.Request) {
		if b, ok := s.boardOf(w, r.PathValue("id")); ok {
			fakeserver.JSON(w, http.StatusOK, s.board(b))
		}
	})
	api("GET "+agile+"/board/{id}/sprint", func(w http.ResponseWriter, r *http.Request) {
		b, ok := s.boardOf(w, r.PathValue("id"))
		if !ok {
			return
		}
		if s.board(b)["type"] != "scrum" {
			writeErr(w, http.StatusBadRequest, "The board does not support sprints")
			return
		}
		s.offsetPage(w, r, "values", 50, 50, 3, false, func(i int) any { return s.sprint(b, i) })
	})
	api("GET "+agile+"/sprint/{id}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("id"))
		if b := n / 100; err != nil || b < 1 || b > s.cfg.boards || n%100 > 2 || s.board(b)["type"] != "scrum" {
			writeErr(w, http.StatusNotFound, "Sprint does not exist or you do not have permission to see it.")
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.sprint(n/100, n%100))
	})
	mux.HandleFunc("GET /oauth/token/accessible-resources", func(w http.ResponseWriter, r *http.Request) {
		if _, _, basic := r.BasicAuth(); !basic && s.authorized(w, r) {
			fakeserver.JSON(w, http.StatusOK, s.cfg.sites)
		} else if basic {
			fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "message": "Unauthorized"})
		}
	})
	mux.HandleFunc("POST "+TokenPath, s.refreshGrant)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/ex/jira/"); ok {
			cloud, path, _ := strings.Cut(rest, "/")
			if !slices.ContainsFunc(s.cfg.sites, func(st Site) bool { return st.ID == cloud }) {
				fakeserver.JSON(w, http.StatusNotFound, map[string]any{"code": 404, "message": "Not Found"})
				return
			}
			r.URL.Path, r.URL.RawPath = "/"+path, ""
		}
		mux.ServeHTTP(w, r)
	})
}

// withIssue runs h with the live issue the path names, or answers 404.
func (s *Server) withIssue(h func(http.ResponseWriter, *http.Request, issue)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("issue")
		if k, ok := s.keyID(id); ok {
			id = k
		}
		is, ok := s.issues.Live(id)
		if !ok {
			writeErr(w, http.StatusNotFound, "Issue does not exist or you do not have permission to see it.")
			return
		}
		h(w, r, is)
	}
}

func (s *Server) keyID(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.keys[strings.ToUpper(key)]
	return id, ok
}

// attached finds the live issue of the attachment the path names.
func (s *Server) attached(w http.ResponseWriter, r *http.Request) (issue, bool) {
	n, err := strconv.Atoi(r.PathValue("id"))
	is, ok := s.issues.Live(strconv.Itoa(n - 50000))
	if err != nil || !ok || !is.Attachment {
		writeErr(w, http.StatusNotFound, "The attachment with id '"+r.PathValue("id")+"' does not exist")
		return issue{}, false
	}
	return is, true
}

func (s *Server) boardOf(w http.ResponseWriter, id string) (int, bool) {
	b, err := strconv.Atoi(id)
	if err != nil || b < 1 || b > s.cfg.boards {
		writeErr(w, http.StatusNotFound, "Board does not exist or you do not have permission to see it.")
		return 0, false
	}
	return b, true
}

func (s *Server) usersList() []any {
	out := make([]any, s.cfg.users)
	for u := range s.cfg.users {
		out[u] = s.user(u)
	}
	return out
}

// startAndSize reads startAt and maxResults (default def, at most most).
func (s *Server) startAndSize(w http.ResponseWriter, r *http.Request, def, most int) (int, int, bool) {
	q := r.URL.Query()
	start, size := 0, def
	for name, dst := range map[string]*int{"startAt": &start, "maxResults": &size} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				writeErr(w, http.StatusBadRequest, fmt.Sprintf("The %s parameter must be a non-negative integer.", name))
				return 0, 0, false
			}
			*dst = n
		}
	}
	return start, min(max(size, 1), most), true
}

// offsetPage answers a page of n records by startAt and maxResults, in
// Jira's envelope: {startAt, maxResults, total, <key>} (PageBean: with
// isLast, self and nextPage). A sprint list has no total.
func (s *Server) offsetPage(w http.ResponseWriter, r *http.Request, key string, def, most, n int, bean bool, rec func(int) any) {
	start, size, ok := s.startAndSize(w, r, def, most)
	if !ok {
		return
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	page, next := fakeserver.PageOf(idx, start, size)
	out := map[string]any{"startAt": start, "maxResults": size, "total": n}
	list := make([]any, len(page))
	for i, k := range page {
		list[i] = rec(k)
	}
	out[key] = list
	if bean || key == "values" {
		out["isLast"] = next < 0
	}
	if bean {
		out["self"] = s.self(r.URL.RequestURI())
		if next >= 0 {
			q := r.URL.Query()
			q.Set("startAt", strconv.Itoa(next))
			out["nextPage"] = s.self(r.URL.Path + "?" + q.Encode())
		}
	}
	if strings.HasSuffix(r.URL.Path, "/sprint") {
		delete(out, "total")
	}
	fakeserver.JSON(w, http.StatusOK, out)
}

// changedWorklogs answers worklog/updated (or deleted): the worklogs
// changed at or after since (ms), oldest first, 1000 a page (the next
// from until, the last one's time, which it reads again), without those
// of the last minute.
func (s *Server) changedWorklogs(deleted bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		since, err := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
		if err != nil && r.URL.Query().Get("since") != "" {
			writeErr(w, http.StatusBadRequest, "since must be a number of milliseconds")
			return
		}
		cutoff := s.clock.Now().Add(-time.Minute)
		rows := s.worklogs.Rows(func(row fakeserver.Row[worklog]) bool {
			return row.Deleted == deleted && row.Modified.UnixMilli() >= since && row.Modified.Before(cutoff)
		})
		fakeserver.ByModified(rows)
		page, next := fakeserver.PageOf(rows, 0, 1000)
		vals := make([]any, len(page))
		until := since
		for i, row := range page {
			n, _ := strconv.ParseInt(row.ID, 10, 64)
			vals[i] = map[string]any{"worklogId": n, "updatedTime": row.Modified.UnixMilli(), "properties": []any{}}
			until = row.Modified.UnixMilli()
		}
		out := map[string]any{"values": vals, "since": since, "until": until, "self": s.self(r.URL.RequestURI()), "lastPage": next < 0}
		if next >= 0 {
			out["nextPage"] = s.self(fmt.Sprintf("%s?since=%d", r.URL.Path, until))
		}
		fakeserver.JSON(w, http.StatusOK, out)
	}
}

// worklogList answers POST worklog/list: the live worklogs of up to 1000
// ids.
func (s *Server) worklogList(w http.ResponseWriter, r *http.Request) {
	var body struct {
		IDs []int64 `json:"ids"`
	}
	if err := fakeserver.ReadJSON(r, &body); err != nil || body.IDs == nil {
		writeErr(w, http.StatusBadRequest, "Request must contain a list of worklog ids.")
		return
	}
	if len(body.IDs) > 1000 {
		writeErr(w, http.StatusBadRequest, "The number of worklog ids must not be greater than 1000.")
		return
	}
	out := []any{}
	for _, id := range body.IDs {
		if wl, ok := s.worklogs.Live(strconv.FormatInt(id, 10)); ok {
			out = append(out, s.worklogJSON(wl))
		}
	}
	fakeserver.JSON(w, http.StatusOK, out)
}
