package googledrivetest

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// routes serves Drive's paths; every answer needs a token and counts
// against the rate window.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+TokenPath, s.grant)
	api := func(pattern string, h func(http.ResponseWriter, *http.Request)) {
		mux.HandleFunc("GET "+pattern, func(w http.ResponseWriter, r *http.Request) {
			if s.authorized(w, r) && s.limit(w) {
				h(w, r)
			}
		})
	}
	api("/about", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.answer(w, r, s.aboutJSON(), true)
	})
	api("/files", s.listFiles)
	api("/files/{fileId}", s.getFile)
	api("/files/{fileId}/export", s.export)
	child := func(what string, of func(file) []map[string]any, required bool) {
		collection, id := what+"s", what+"Id"
		api("/files/{fileId}/"+collection, func(w http.ResponseWriter, r *http.Request) {
			if f, ok := s.reachable(w, r); ok {
				s.page(w, r, "drive#"+what+"List", collection, of(f), required, MaxPage)
			}
		})
		api("/files/{fileId}/"+collection+"/{"+id+"}", func(w http.ResponseWriter, r *http.Request) {
			if f, ok := s.reachable(w, r); ok {
				s.one(w, r, of(f), r.PathValue(id), what, required)
			}
		})
	}
	child("permission", s.permissions, false)
	child("comment", s.comments, true)
	child("revision", s.revisions, false)
	replies := func(w http.ResponseWriter, r *http.Request) ([]map[string]any, bool) {
		f, ok := s.reachable(w, r)
		if !ok {
			return nil, false
		}
		for _, c := range s.comments(f) {
			if c["id"] == r.PathValue("commentId") {
				var out []map[string]any
				for _, rep := range c["replies"].([]any) {
					out = append(out, rep.(map[string]any))
				}
				return out, true
			}
		}
		writeErr(w, http.StatusNotFound, "notFound", "Comment not found: "+r.PathValue("commentId")+".")
		return nil, false
	}
	api("/files/{fileId}/comments/{commentId}/replies", func(w http.ResponseWriter, r *http.Request) {
		if reps, ok := replies(w, r); ok {
			s.page(w, r, "drive#replyList", "replies", reps, true, MaxPage)
		}
	})
	api("/files/{fileId}/comments/{commentId}/replies/{replyId}", func(w http.ResponseWriter, r *http.Request) {
		if reps, ok := replies(w, r); ok {
			s.one(w, r, reps, r.PathValue("replyId"), "reply", true)
		}
	})
	api("/drives", func(w http.ResponseWriter, r *http.Request) {
		var ds []map[string]any
		for _, row := range s.drives.Rows(nil) {
			ds = append(ds, driveJSON(row.Rec))
		}
		s.page(w, r, "drive#driveList", "drives", ds, false, MaxPage)
	})
	api("/drives/{driveId}", func(w http.ResponseWriter, r *http.Request) {
		d, ok := s.drives.Live(r.PathValue("driveId"))
		if !ok {
			writeErr(w, http.StatusNotFound, "notFound", "Shared drive not found: "+r.PathValue("driveId"))
			return
		}
		s.answer(w, r, driveJSON(d), false)
	})
	api("/changes/startPageToken", func(w http.ResponseWriter, r *http.Request) {
		if d := r.URL.Query().Get("driveId"); d != "" && !s.driveOK(w, r, d) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		fakeserver.JSON(w, http.StatusOK, map[string]any{"kind": "drive#startPageToken", "startPageToken": strconv.Itoa(len(s.log) + 1)})
	})
	api("/changes", s.changes)
	return mux
}

// MaxPage is the most records a page holds: files and changes asked for
// with permissions among their fields, and every other list.
const MaxPage = 100

// driveOK answers 404 for a shared drive that does not exist, and 403
// when supportsAllDrives is not set.
func (s *Server) driveOK(w http.ResponseWriter, r *http.Request, id string) bool {
	if _, ok := s.drives.Live(id); !ok {
		writeErr(w, http.StatusNotFound, "notFound", "Shared drive not found: "+id)
		return false
	}
	if r.URL.Query().Get("supportsAllDrives") != "true" {
		writeErr(w, http.StatusForbidden, "teamDrivesParameterNotSupported", "The supportsAllDrives parameter must be true to read a shared drive.")
		return false
	}
	return true
}

// reachable finds the file of the path: a file of a shared drive needs
// supportsAllDrives, as Drive asks.
func (s *Server) reachable(w http.ResponseWriter, r *http.Request) (file, bool) {
	id := r.PathValue("fileId")
	s.mu.Lock()
	f, ok := s.files.Live(id)
	s.mu.Unlock()
	if !ok || (f.Drive != "" && r.URL.Query().Get("supportsAllDrives") != "true") {
		writeErr(w, http.StatusNotFound, "notFound", "File not found: "+id+".")
		return file{}, false
	}
	return f, true
}

// answer writes one record, cut to the request's fields.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, rec map[string]any, required bool) {
	if sel, explicit, ok := s.fields(w, r, required); ok {
		write(w, sel, explicit, rec)
	}
}

func (s *Server) one(w http.ResponseWriter, r *http.Request, recs []map[string]any, id, what string, required bool) {
	for _, rec := range recs {
		if rec["id"] == id {
			s.answer(w, r, rec, required)
			return
		}
	}
	name := strings.ToUpper(what[:1]) + what[1:]
	writeErr(w, http.StatusNotFound, "notFound", name+" not found: "+id+".")
}

// fields reads the request's partial-response selection: nil (every
// field) for *; a few fields by default; a 400 where Drive requires it.
func (s *Server) fields(w http.ResponseWriter, r *http.Request, required bool) (sel selection, explicit, ok bool) {
	f, ok := r.URL.Query()["fields"]
	if !ok {
		if required {
			writeErr(w, http.StatusBadRequest, "required", "The 'fields' parameter is required for this method.")
			return nil, false, false
		}
		return nil, false, true
	}
	return parseFields(f[0]), true, true
}

// defaultFields are what Drive answers, by the answer's kind, when a
// request names no fields.
var defaultFields = map[string]selection{}

func init() {
	for kind, f := range map[string]string{
		"file": "kind,id,name,mimeType", "permission": "kind,id,type,role", "drive": "kind,id,name", "revision": "kind,id,mimeType,modifiedTime",
	} {
		defaultFields["drive#"+kind] = parseFields(f)
		defaultFields["drive#"+kind+"List"] = parseFields("kind,nextPageToken,incompleteSearch," + kind + "s(" + f + ")")
	}
	defaultFields["drive#changeList"] = parseFields("kind,nextPageToken,newStartPageToken,changes(kind,changeType,time,removed,fileId,driveId,file(kind,id,name,mimeType))")
}

// write answers v cut to sel, or to the default fields of its kind.
func write(w http.ResponseWriter, sel selection, explicit bool, v map[string]any) {
	if !explicit {
		kind, _ := v["kind"].(string)
		sel = defaultFields[kind]
	}
	fakeserver.JSON(w, http.StatusOK, sel.apply(v))
}

// page answers a list page of recs, by an opaque pageToken bound to the
// request's query.
func (s *Server) page(w http.ResponseWriter, r *http.Request, kind, member string, recs []map[string]any, required bool, most int) {
	s.pageOf(w, r, kind, member, len(recs), func(i int) map[string]any { return recs[i] }, required, most)
}

// pageOf answers the page of n records that the request's pageToken
// names, rendering only those (at(i) is the ith).
func (s *Server) pageOf(w http.ResponseWriter, r *http.Request, kind, member string, n int, at func(int) map[string]any, required bool, most int) {
	sel, explicit, ok := s.fields(w, r, required)
	if !ok {
		return
	}
	q := r.URL.Query()
	size := most
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeErr(w, http.StatusBadRequest, "invalid", "Invalid value '"+v+"'. Values must be within the range: [1, "+strconv.Itoa(most)+"]")
			return
		}
		size = min(n, most)
	}
	bound := q.Get("q") + "|" + q.Get("driveId") + "|" + q.Get("corpora") + "|" + r.URL.Path
	off := 0
	if tok := q.Get("pageToken"); tok != "" {
		if off, ok = fakeserver.FromCursor(bound, tok); !ok {
			writeErr(w, http.StatusBadRequest, "invalid", "Invalid Value")
			return
		}
	}
	list := []any{}
	end := min(off+size, n)
	for i := off; i < end; i++ {
		list = append(list, at(i))
	}
	next := 0
	if end < n {
		next = end
	}
	out := map[string]any{"kind": kind, member: list}
	if member == "files" {
		out["incompleteSearch"] = false
	}
	if next > 0 {
		out["nextPageToken"] = fakeserver.Cursor(bound, next)
	}
	write(w, sel, explicit, out)
}

// listFiles is files.list: the corpus, then the query, in creation order.
func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	driveID, corpora := q.Get("driveId"), q.Get("corpora")
	all := q.Get("includeItemsFromAllDrives") == "true"
	switch {
	case all && q.Get("supportsAllDrives") != "true":
		writeErr(w, http.StatusForbidden, "teamDrivesParameterNotSupported", "The includeItemsFromAllDrives parameter can only be set to true when supportsAllDrives is set to true.")
		return
	case corpora == "drive" && (driveID == "" || !all):
		writeErr(w, http.StatusBadRequest, "invalid", "The driveId parameter must be specified if and only if corpora is set to drive, and includeItemsFromAllDrives must be true.")
		return
	case driveID != "" && !s.driveOK(w, r, driveID):
		return
	}
	match, err := parseQuery(q.Get("q"))
	if err != nil {
		writeErr(w, http.StatusBadRequest, "invalid", "Invalid Value")
		return
	}
	var found []file
	for _, row := range s.files.Rows(nil) {
		f := row.Rec
		inCorpus := (driveID != "" && f.Drive == driveID) || (driveID == "" && (f.Drive == "" || (all && corpora == "allDrives")))
		if inCorpus && match(f) {
			found = append(found, f)
		}
	}
	most := 1000
	if f := q.Get("fields"); strings.Contains(f, "*") || strings.Contains(f, "permissions") {
		most = MaxPage
	}
	s.pageOf(w, r, "drive#fileList", "files", len(found), func(i int) map[string]any {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.fileJSON(found[i])
	}, false, most)
}

// getFile is files.get: the metadata, or the bytes with alt=media.
func (s *Server) getFile(w http.ResponseWriter, r *http.Request) {
	f, ok := s.reachable(w, r)
	if !ok {
		return
	}
	if r.URL.Query().Get("alt") != "media" {
		s.mu.Lock()
		rec := s.fileJSON(f)
		s.mu.Unlock()
		s.answer(w, r, rec, false)
		return
	}
	if native(f.Mime) {
		writeErr(w, http.StatusForbidden, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{Name: f.Name, ContentType: f.Mime, ETag: fmt.Sprintf(`"%s-%d"`, f.ID, f.Version),
		ModTime: f.Modified, Body: s.content(f), CutEvery: s.cfg.cutEvery})
}

// export is files.export: a native file converted whole (Range is not
// honoured: the answer is always 200 with every byte).
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	f, ok := s.reachable(w, r)
	if !ok {
		return
	}
	mime := r.URL.Query().Get("mimeType")
	switch {
	case mime == "":
		writeErr(w, http.StatusBadRequest, "required", "Required parameter: mimeType")
	case !native(f.Mime) || f.Mime == Folder:
		writeErr(w, http.StatusForbidden, "fileNotExportable", "Export only supports Docs Editors files.")
	case !slices.Contains(exports[f.Mime], mime):
		writeErr(w, http.StatusBadRequest, "badRequest", "The requested conversion is not supported.")
	default:
		w.Header().Set("Content-Type", mime)
		w.Header().Set("Content-Length", strconv.Itoa(len(exported(f, mime))))
		_, _ = bytes.NewReader(exported(f, mime)).WriteTo(w)
	}
}

// changes is changes.list: the log from the token, in the token's scope
// (one shared drive, or My Drive), a page of up to pageSize changes; the
// last page names the token to go on from.
func (s *Server) changes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	driveID := q.Get("driveId")
	if driveID != "" && !s.driveOK(w, r, driveID) {
		return
	}
	sel, explicit, ok := s.fields(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, err := strconv.Atoi(q.Get("pageToken"))
	if err != nil || tok-1 < s.forgot || tok-1 > len(s.log) {
		writeErr(w, http.StatusBadRequest, "invalid", "Invalid Value")
		return
	}
	most := 1000
	if f := q.Get("fields"); strings.Contains(f, "*") || strings.Contains(f, "permissions") {
		most = MaxPage
	}
	size := most
	if n, err := strconv.Atoi(q.Get("pageSize")); err == nil && n > 0 {
		size = min(n, most)
	}
	all := q.Get("includeItemsFromAllDrives") == "true"
	list := []any{}
	i := tok - 1
	for ; i < len(s.log) && len(list) < size; i++ {
		c := s.log[i]
		if (driveID != "" && c.Drive != driveID) || (driveID == "" && c.Drive != "" && !all) {
			continue
		}
		if c.Removed && q.Get("includeRemoved") == "false" {
			continue
		}
		ch := map[string]any{"kind": "drive#change", "changeType": "file", "type": "file", "time": stamp(c.At), "removed": c.Removed, "fileId": c.FileID}
		if c.Drive != "" {
			ch["driveId"] = c.Drive
		}
		if f, ok := s.files.Live(c.FileID); ok && !c.Removed {
			ch["file"] = s.fileJSON(f)
		}
		list = append(list, ch)
	}
	out := map[string]any{"kind": "drive#changeList", "changes": list}
	if i < len(s.log) {
		out["nextPageToken"] = strconv.Itoa(i + 1)
	} else {
		out["newStartPageToken"] = strconv.Itoa(len(s.log) + 1)
	}
	write(w, sel, explicit, out)
}

// selection is a parsed partial-response fields value: nil selects every
// member; otherwise the members named, each with its own selection.
type selection map[string]selection

func parseFields(s string) selection {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil
	}
	out := selection{}
	depth, start := 0, 0
	add := func(part string) {
		part = strings.TrimSpace(part)
		if name, inner, ok := strings.Cut(part, "("); ok {
			out[name] = parseFields(strings.TrimSuffix(inner, ")"))
		} else if name, rest, ok := strings.Cut(part, "/"); ok {
			out[name] = parseFields(rest)
		} else if part == "*" {
			out["*"] = nil
		} else if part != "" {
			out[part] = nil
		}
	}
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	if _, all := out["*"]; all {
		return nil
	}
	return out
}

func (sel selection) apply(v any) any {
	if sel == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range sel {
			if val, ok := x[k]; ok {
				out[k] = sub.apply(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sel.apply(e)
		}
		return out
	}
	return v
}

// parseQuery reads a subset of Drive's q language: clauses joined by and,
// each trashed = true|false, name contains|= 'x', mimeType =|!= 'x',
// 'id' in parents, starred = true|false, modifiedTime >|>=|<|<= 'RFC 3339'.
func parseQuery(q string) (func(file) bool, error) {
	var tests []func(file) bool
	for clause := range strings.SplitSeq(q, " and ") {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		f := strings.Fields(clause)
		if len(f) < 3 {
			return nil, fmt.Errorf("bad clause %q", clause)
		}
		lhs, op, rhs := f[0], f[1], strings.Join(f[2:], " ")
		lit := strings.Trim(rhs, "'")
		switch {
		case (lhs == "trashed" || lhs == "starred") && op == "=":
			want := rhs == "true"
			tests = append(tests, func(x file) bool {
				return (lhs == "trashed" && x.Trashed == want) || (lhs == "starred" && x.Starred == want)
			})
		case lhs == "name" && op == "contains":
			tests = append(tests, func(x file) bool { return strings.Contains(strings.ToLower(x.Name), strings.ToLower(lit)) })
		case lhs == "name" && op == "=":
			tests = append(tests, func(x file) bool { return x.Name == lit })
		case lhs == "mimeType" && (op == "=" || op == "!="):
			tests = append(tests, func(x file) bool { return (x.Mime == lit) == (op == "=") })
		case op == "in" && rhs == "parents":
			id := strings.Trim(lhs, "'")
			tests = append(tests, func(x file) bool { return x.Parent == id })
		case lhs == "modifiedTime" && slices.Contains([]string{">", ">=", "<", "<="}, op):
			t, err := time.Parse(time.RFC3339, lit)
			if err != nil {
				return nil, err
			}
			tests = append(tests, func(x file) bool {
				c := x.Modified.Compare(t)
				return map[string]bool{">": c > 0, ">=": c >= 0, "<": c < 0, "<=": c <= 0}[op]
			})
		default:
			return nil, fmt.Errorf("unsupported clause %q", clause)
		}
	}
	return func(x file) bool {
		for _, t := range tests {
			if !t(x) {
				return false
			}
		}
		return true
	}, nil
}
