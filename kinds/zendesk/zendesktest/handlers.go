package zendesktest

import (
	"net/http"
	"strconv"
	"strings"
)

// listCollection serves a generic list with its filters and reverse order.
func (s *Server) listCollection(c *call, name string) {
	d := s.d
	l := d.collections[name]
	var idx []int
	if l.filter != nil {
		var ok bool
		if idx, ok = l.filter(d, c); !ok {
			return
		}
	}
	n := l.n(d)
	if _, mutable := mutSpecs[name]; mutable && idx == nil {
		idx = d.live(name)
		if name == "groups" {
			idx = d.all(name)
		}
	}
	if idx != nil {
		n = len(idx)
	}
	s.servePage(c, page{key: l.listKey, n: n, defPer: l.defPer, item: s.itemFunc(c, l, idx, n)})
}

// itemFunc maps the k-th position of a response to a record, applying the
// filter's index list and descending order.
func (s *Server) itemFunc(c *call, l *collection, idx []int, n int) func(w *jw, k int) {
	d, base, desc := s.d, c.origin, c.descending()
	return func(w *jw, k int) {
		if desc {
			k = n - 1 - k
		}
		if idx != nil {
			k = idx[k]
		}
		l.write(d, w, base, k)
	}
}

// getOne serves GET /{collection}/{id}.
func (s *Server) getOne(c *call, name, idStr string, me bool) {
	d := s.d
	l := d.collections[name]
	var k int
	if me {
		if d.users == 0 {
			writeBody(c.w, http.StatusNotFound, bodyNotFound)
			return
		}
	} else {
		id, ok := parseID(idStr)
		if ok {
			k, ok = l.index(d, id)
		}
		if !ok {
			writeBody(c.w, http.StatusNotFound, bodyNotFound)
			return
		}
	}
	s.writeOne(c, l.oneKey, func(w *jw) { l.write(d, w, c.origin, k) })
}

// ticketIndex resolves a ticket path id, writing 403/404 when it fails.
func (s *Server) ticketIndex(c *call, idStr string) (int, bool) {
	id, ok := parseID(idStr)
	if ok && id == ForbiddenTicketID {
		writeBody(c.w, http.StatusForbidden, bodyForbidden)
		return 0, false
	}
	k, ok := s.d.collections["tickets"].index(s.d, id)
	if !ok {
		writeBody(c.w, http.StatusNotFound, bodyNotFound)
		return 0, false
	}
	return k, true
}

func (s *Server) getTicket(c *call, idStr string) {
	t, ok := s.ticketIndex(c, idStr)
	if !ok {
		return
	}
	s.writeOne(c, "ticket", func(w *jw) { s.d.ticket(w, c.origin, t) })
}

// listTickets honours external_id and the id/created_at/updated_at order.
func (s *Server) listTickets(c *call) {
	l := s.d.collections["tickets"]
	var idx []int
	if ext, ok := c.q["external_id"]; ok {
		idx = []int{}
		if n, ok := strings.CutPrefix(firstOf(ext), "ext-"); ok {
			if t, err := strconv.Atoi(n); err == nil && s.d.alive("tickets", t) && t%4 != 3 &&
				strconv.Itoa(t) == n {
				idx = append(idx, t)
			}
		}
	} else {
		idx = s.d.live("tickets")
	}
	n := s.d.count("tickets")
	if idx != nil {
		n = len(idx)
	}
	s.servePage(c, page{key: "tickets", n: n, defPer: maxPerPage, item: s.itemFunc(c, l, idx, n)})
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func (s *Server) listComments(c *call, idStr string) {
	t, ok := s.ticketIndex(c, idStr)
	if !ok {
		return
	}
	d, base := s.d, c.origin
	inline := c.get("include_inline_images") == "true"
	n := d.numAllComments(t)
	desc := c.descending()
	s.servePage(c, page{key: "comments", n: n, defPer: maxPerPage, item: func(w *jw, k int) {
		if desc {
			k = n - 1 - k
		}
		d.comment(w, base, t, k, inline, false)
	}})
}

func (s *Server) listTicketAudits(c *call, idStr string) {
	t, ok := s.ticketIndex(c, idStr)
	if !ok {
		return
	}
	d, base := s.d, c.origin
	n := numComments(t)
	desc := c.descending()
	s.servePage(c, page{key: "audits", n: n, defPer: maxPerPage, item: func(w *jw, k int) {
		if desc {
			k = n - 1 - k
		}
		d.audit(w, base, t, k)
	}})
}

// listUsers honours role (or role[]) and external_id.
func (s *Server) listUsers(c *call) {
	d := s.d
	l := d.collections["users"]
	roles := append(append([]string(nil), c.q["role"]...), c.q["role[]"]...)
	var res []int // residues mod 10 of the selected roles
	if len(roles) > 0 {
		var sel [10]bool
		for _, r := range roles {
			switch r {
			case "admin":
				sel[0] = true
			case "agent":
				sel[1], sel[2], sel[3] = true, true, true
			case "end-user":
				for i := 4; i < 10; i++ {
					sel[i] = true
				}
			default:
				invalidValue(c.w, "role", "role must be one of end-user, agent, admin")
				return
			}
		}
		for i, ok := range sel {
			if ok {
				res = append(res, i)
			}
		}
	}
	if ext, ok := c.q["external_id"]; ok {
		idx := []int{}
		if v, ok := strings.CutPrefix(firstOf(ext), "user-ext-"); ok {
			if u, err := strconv.Atoi(v); err == nil && d.alive("users", u) && u%5 != 4 &&
				strconv.Itoa(u) == v && (res == nil || containsInt(res, u%10)) {
				idx = append(idx, u)
			}
		}
		s.servePage(c, page{key: "users", n: len(idx), defPer: maxPerPage, item: s.itemFunc(c, l, idx, len(idx))})
		return
	}
	if idx := d.selectLive("users", func(u int) bool { return res == nil || containsInt(res, u%10) }); idx != nil {
		// Records were created or deleted: select from the live ones.
		s.servePage(c, page{key: "users", n: len(idx), defPer: maxPerPage, item: s.itemFunc(c, l, idx, len(idx))})
		return
	}
	if res == nil {
		s.servePage(c, page{key: "users", n: d.users, defPer: maxPerPage, item: s.itemFunc(c, l, nil, d.users)})
		return
	}
	// The k-th user with a selected role, computed rather than listed.
	n := (d.users/10)*len(res) + countBelow(res, d.users%10)
	desc, base := c.descending(), c.origin
	s.servePage(c, page{key: "users", n: n, defPer: maxPerPage, item: func(w *jw, k int) {
		if desc {
			k = n - 1 - k
		}
		d.user(w, base, 10*(k/len(res))+res[k%len(res)])
	}})
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func countBelow(sorted []int, v int) int {
	n := 0
	for _, x := range sorted {
		if x < v {
			n++
		}
	}
	return n
}

// listArticles serves Help Center articles with the Help Center envelope.
func (s *Server) listArticles(c *call) {
	l := s.d.collections["articles"]
	sortBy, sortOrder := c.get("sort_by"), c.get("sort_order")
	if sortBy == "" {
		sortBy = "position"
	}
	if sortOrder != "desc" {
		sortOrder = "asc"
	}
	n := s.d.articles
	s.servePage(c, page{key: "articles", n: n, defPer: 30, hc: true, sortBy: sortBy, sortOrder: sortOrder,
		item: s.itemFunc(c, l, nil, n)})
}

func (s *Server) articleIndex(c *call, idStr string) (int, bool) {
	id, ok := parseID(idStr)
	k := id - articleBase
	if !ok || k < 0 || k >= int64(s.d.articles) {
		writeBody(c.w, http.StatusNotFound, bodyNotFound)
		return 0, false
	}
	return int(k), true
}

func (s *Server) listArticleAttachments(c *call, idStr string) {
	a, ok := s.articleIndex(c, idStr)
	if !ok {
		return
	}
	d, base := s.d, c.origin
	n := 1 + a%2
	s.servePage(c, page{key: "article_attachments", n: n, defPer: 30, hc: true, item: func(w *jw, k int) {
		d.articleAttachment(w, base, ArticleAttachmentID(a, k))
	}})
}

// getArticleAttachment serves one article attachment; articleID may be empty
// (the /help_center/articles/attachments/{id} form).
func (s *Server) getArticleAttachment(c *call, articleID, idStr string) {
	id, ok := parseID(idStr)
	var f fileMeta
	if ok {
		f, ok = s.d.fileInfo(id)
	}
	ok = ok && f.article >= 0
	if ok && articleID != "" {
		aid, aok := parseID(articleID)
		ok = aok && aid == ArticleID(f.article)
	}
	if !ok {
		writeBody(c.w, http.StatusNotFound, bodyNotFound)
		return
	}
	s.writeOne(c, "article_attachment", func(w *jw) { s.d.articleAttachment(w, c.origin, id) })
}

// getAttachment serves GET /api/v2/attachments/{id} for ticket attachments,
// their thumbnails, user photos and brand logos.
func (s *Server) getAttachment(c *call, idStr string) {
	id, ok := parseID(idStr)
	var f fileMeta
	if ok {
		f, ok = s.d.fileInfo(id)
	}
	if !ok || f.article >= 0 {
		writeBody(c.w, http.StatusNotFound, bodyNotFound)
		return
	}
	s.writeOne(c, "attachment", func(w *jw) { s.d.fileObj(w, c.origin, id, true) })
}
