package slacktest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// serve answers a method under / or /api, or a file under /files-pri/.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api")
	if strings.HasPrefix(path, "/files-pri/") {
		s.serveFile(w, r)
		return
	}
	method := strings.TrimPrefix(path, "/")
	handler, found := map[string]func(http.ResponseWriter, *http.Request, bool){
		"auth.test": s.authTest, "users.list": s.usersList, "users.info": s.usersInfo, "team.info": s.teamInfo,
		"conversations.list": s.conversationsList, "conversations.info": s.conversationsInfo, "conversations.members": s.conversationsMembers,
		"conversations.history": s.history, "conversations.replies": s.thread, "files.list": s.filesList, "files.info": s.filesInfo,
		"search.messages": s.search,
	}[method]
	if !found {
		fail(w, "unknown_method")
		return
	}
	if win := s.wins[method]; win != nil {
		now := s.clock.Now()
		if _, reset, ok := win.Take(now); !ok {
			s.throttled(w, r, reset.Sub(now))
			return
		}
	}
	tok, known, isUser := s.token(r)
	switch {
	case tok == "":
		fail(w, "not_authed")
		return
	case !known:
		fail(w, "invalid_auth")
		return
	}
	if needed, ok := s.cfg.missing[method]; ok {
		fail(w, "missing_scope", "needed", needed, "provided", "channels:read,users:read")
		return
	}
	handler(w, r, isUser)
}

// page cuts items at the cursor of r (bound to list), limit a page
// (def when r gives none, at most most); it writes invalid_cursor and
// returns false for a cursor of another list.
func page[T any](w http.ResponseWriter, r *http.Request, list string, items []T, def, most int) ([]T, string, bool) {
	off := 0
	if c := r.FormValue("cursor"); c != "" {
		var ok bool
		if off, ok = fakeserver.FromCursor(strings.ReplaceAll(list, ":", "/"), c); !ok {
			fail(w, "invalid_cursor")
			return nil, "", false
		}
	}
	n, err := strconv.Atoi(r.FormValue("limit"))
	if err != nil || n <= 0 {
		n = def
	}
	out, next := fakeserver.PageOf(items, off, min(n, most))
	cur := ""
	if next > 0 {
		cur = fakeserver.Cursor(strings.ReplaceAll(list, ":", "/"), next)
	}
	return out, cur, true
}

func (s *Server) authTest(w http.ResponseWriter, _ *http.Request, isUser bool) {
	body := map[string]any{"url": "https://" + TeamDomain + ".slack.com/", "team": "Acme", "user": "tributary", "team_id": TeamID, "user_id": "U0BOT0001"}
	if !isUser {
		body["bot_id"] = "B0BOT0001"
	}
	ok(w, body)
}

func (s *Server) usersList(w http.ResponseWriter, r *http.Request, _ bool) {
	items, cur, good := page(w, r, "users", rowsOf(&s.users, nil), 200, 1000)
	if good {
		ok(w, map[string]any{"members": items, "cache_ts": s.clock.Now().Unix(), "response_metadata": map[string]any{"next_cursor": cur}})
	}
}

func (s *Server) usersInfo(w http.ResponseWriter, r *http.Request, _ bool) {
	u, found := s.users.Live(r.FormValue("user"))
	if !found {
		fail(w, "user_not_found")
		return
	}
	ok(w, map[string]any{"user": u})
}

func (s *Server) teamInfo(w http.ResponseWriter, r *http.Request, _ bool) {
	if t := r.FormValue("team"); t != "" && t != TeamID {
		fail(w, "team_not_found")
		return
	}
	ok(w, map[string]any{"team": map[string]any{"id": TeamID, "name": "Acme", "domain": TeamDomain, "email_domain": "example.com",
		"icon": map[string]any{"image_34": "https://a.slack-edge.com/80588/img/avatars-teams/ava_0001-34.png", "image_default": true}}})
}

func (s *Server) conversationsList(w http.ResponseWriter, r *http.Request, _ bool) {
	types := r.FormValue("types")
	if types == "" {
		types = "public_channel"
	}
	want := strings.Split(types, ",")
	noArchived := r.FormValue("exclude_archived") == "true" || r.FormValue("exclude_archived") == "1"
	items := rowsOf(&s.channels, func(c channel) bool {
		kind := "public_channel"
		if c.IsPrivate {
			kind = "private_channel"
		}
		return slices.Contains(want, kind) && !(noArchived && c.IsArchived)
	})
	items, cur, good := page(w, r, "channels:"+types, items, 100, 999)
	if good {
		ok(w, map[string]any{"channels": items, "response_metadata": map[string]any{"next_cursor": cur}})
	}
}

// channel returns the channel r names, or writes channel_not_found.
func (s *Server) channel(w http.ResponseWriter, r *http.Request) (channel, bool) {
	c, found := s.channels.Live(r.FormValue("channel"))
	if !found {
		fail(w, "channel_not_found")
	}
	return c, found
}

func (s *Server) conversationsInfo(w http.ResponseWriter, r *http.Request, _ bool) {
	if c, found := s.channel(w, r); found {
		ok(w, map[string]any{"channel": c})
	}
}

func (s *Server) conversationsMembers(w http.ResponseWriter, r *http.Request, _ bool) {
	c, found := s.channel(w, r)
	if !found {
		return
	}
	items, cur, good := page(w, r, "members:"+c.ID, c.members, 100, 1000)
	if good {
		ok(w, map[string]any{"members": items, "response_metadata": map[string]any{"next_cursor": cur}})
	}
}

// window keeps the messages between r's oldest and latest (excluded
// unless inclusive).
func window(r *http.Request, msgs []message) []message {
	oldest, latest := r.FormValue("oldest"), r.FormValue("latest")
	incl := r.FormValue("inclusive") == "true" || r.FormValue("inclusive") == "1"
	return slices.DeleteFunc(msgs, func(m message) bool {
		if oldest != "" && (cmpTS(m.TS, oldest) < 0 || (!incl && cmpTS(m.TS, oldest) == 0)) {
			return true
		}
		return latest != "" && (cmpTS(m.TS, latest) > 0 || (!incl && cmpTS(m.TS, latest) == 0))
	})
}

// cmpTS compares two ts as numbers (seconds, then the fraction), without
// parsing them: a client may write one with fewer decimals, or none.
func cmpTS(a, b string) int {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	if len(as) != len(bs) {
		return len(as) - len(bs)
	}
	if c := strings.Compare(as, bs); c != 0 {
		return c
	}
	for len(af) < len(bf) {
		af += "0"
	}
	for len(bf) < len(af) {
		bf += "0"
	}
	return strings.Compare(af, bf)
}

// messagesPage answers a page of msgs as history and replies do: at most
// 15 a page for an app outside the Marketplace.
func (s *Server) messagesPage(w http.ResponseWriter, r *http.Request, list string, msgs []message, extra map[string]any) {
	def, most := 100, 999
	if !s.cfg.marketplace {
		def, most = 15, 15
	}
	items, cur, good := page(w, r, list+"|"+r.FormValue("oldest")+"|"+r.FormValue("latest"), window(r, msgs), def, most)
	if !good {
		return
	}
	if items == nil {
		items = []message{}
	}
	extra["messages"], extra["has_more"] = items, cur != ""
	if cur != "" {
		extra["response_metadata"] = map[string]any{"next_cursor": cur}
	}
	ok(w, extra)
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, _ bool) {
	c, found := s.channel(w, r)
	if !found {
		return
	}
	msgs := rowsOf(&s.messages, func(m message) bool { return m.channel == c.ID })
	slices.SortFunc(msgs, func(a, b message) int { return cmpTS(b.TS, a.TS) })
	s.messagesPage(w, r, "history:"+c.ID, msgs, map[string]any{"pin_count": 0, "channel_actions_ts": nil, "channel_actions_count": 0})
}

func (s *Server) thread(w http.ResponseWriter, r *http.Request, _ bool) {
	c, found := s.channel(w, r)
	if !found {
		return
	}
	parent, found := s.messages.Live(c.ID + "/" + r.FormValue("ts"))
	if !found {
		fail(w, "thread_not_found")
		return
	}
	msgs := append([]message{parent}, rowsOf(&s.replies, func(m message) bool { return m.channel == c.ID && m.ThreadTS == parent.TS })...)
	slices.SortStableFunc(msgs[1:], func(a, b message) int { return cmpTS(a.TS, b.TS) })
	s.messagesPage(w, r, "replies:"+c.ID+":"+parent.TS, msgs, map[string]any{})
}

// pages answers items by page and count, as files.list and
// search.messages do; it returns the page and its paging object.
func pages[T any](r *http.Request, items []T, def, most int) ([]T, map[string]any) {
	count, err := strconv.Atoi(r.FormValue("count"))
	if err != nil || count <= 0 {
		count = def
	}
	count = min(count, most)
	pg, err := strconv.Atoi(r.FormValue("page"))
	if err != nil || pg <= 0 {
		pg = 1
	}
	out, _ := fakeserver.PageOf(items, (pg-1)*count, count)
	if out == nil {
		out = []T{}
	}
	return out, map[string]any{"count": count, "total": len(items), "page": pg, "pages": (len(items) + count - 1) / count}
}

func (s *Server) filesList(w http.ResponseWriter, r *http.Request, _ bool) {
	ch, usr := r.FormValue("channel"), r.FormValue("user")
	from, _ := strconv.ParseInt(r.FormValue("ts_from"), 10, 64)
	to, _ := strconv.ParseInt(r.FormValue("ts_to"), 10, 64)
	items := rowsOf(&s.files, func(f file) bool {
		return (ch == "" || slices.Contains(f.Channels, ch)) && (usr == "" || f.User == usr) && f.Created >= from && (to == 0 || f.Created <= to)
	})
	slices.SortStableFunc(items, func(a, b file) int { return int(b.Created - a.Created) })
	out, paging := pages(r, items, 100, 1000)
	ok(w, map[string]any{"files": out, "paging": paging})
}

func (s *Server) filesInfo(w http.ResponseWriter, r *http.Request, _ bool) {
	f, found := s.files.Live(r.FormValue("file"))
	if !found {
		fail(w, "file_not_found")
		return
	}
	ok(w, map[string]any{"file": f, "comments": []any{}, "response_metadata": map[string]any{"next_cursor": ""}})
}

// search answers search.messages: messages whose text holds every word
// of the query (case-insensitive), newest first; user tokens only.
func (s *Server) search(w http.ResponseWriter, r *http.Request, isUser bool) {
	if !isUser {
		fail(w, "not_allowed_token_type")
		return
	}
	q := r.FormValue("query")
	if strings.TrimSpace(q) == "" {
		fail(w, "no_query")
		return
	}
	words := strings.Fields(strings.ToLower(q))
	msgs := rowsOf(&s.messages, func(m message) bool {
		for _, wd := range words {
			if !strings.Contains(strings.ToLower(m.Text), wd) {
				return false
			}
		}
		return true
	})
	slices.SortStableFunc(msgs, func(a, b message) int { return cmpTS(b.TS, a.TS) })
	out, paging := pages(r, msgs, 20, 100)
	matches := make([]map[string]any, 0, len(out))
	for _, m := range out {
		c, _ := s.channels.Live(m.channel)
		matches = append(matches, map[string]any{"type": "message", "ts": m.TS, "user": m.User, "username": "user", "text": m.Text, "team": TeamID,
			"iid": m.channel + "-" + m.TS, "channel": map[string]any{"id": c.ID, "name": c.Name, "is_private": c.IsPrivate},
			"permalink": "https://" + TeamDomain + ".slack.com/archives/" + m.channel + "/p" + strings.ReplaceAll(m.TS, ".", "")})
	}
	ok(w, map[string]any{"query": q, "messages": map[string]any{"total": len(msgs), "paging": paging, "matches": matches}})
}

// serveFile serves a file's bytes at /files-pri/{team}-{id}/… to a
// request with a token the fake issued.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	if s.cfg.fileRedirect != "" {
		http.Redirect(w, r, strings.TrimRight(s.cfg.fileRedirect, "/")+r.URL.Path, http.StatusFound)
		return
	}
	if _, known, _ := s.token(r); !known {
		http.Error(w, "not authed: url_private_download needs the token", http.StatusForbidden)
		return
	}
	seg := strings.Split(strings.TrimPrefix(r.URL.Path, "/files-pri/"), "/")
	id := strings.TrimPrefix(seg[0], TeamID+"-")
	f, found := s.files.Live(id)
	content, _ := s.FileContent(id)
	if !found {
		http.NotFound(w, r)
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{Name: f.Name, ContentType: f.Mimetype, ETag: `"` + id + `-` + strconv.Itoa(f.Size) + `"`,
		ModTime: time.Unix(f.Created, 0), Content: content, CutEvery: s.cfg.cutEvery})
}
