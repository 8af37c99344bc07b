package zendesktest

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// viaAPI is the via of the changes the fake's Mutable methods make (an API
// client's).
const viaAPI = `{"channel":"api","source":{"from":{},"to":{},"rel":null}}`

// evRef is one event of the ticket events export: the generated audit at
// position gen of the all-audits order, or a logged one (log != nil).
type evRef struct {
	gen int
	log *tevent
}

// genEventKey is the export key of the generated audit at position p.
func genEventKey(d *data, p int) exportKey {
	t, j := d.auditAt(p)
	return exportKey{commentCreated(t, j), AuditID(t, j)}
}

func (r evRef) key(d *data) exportKey {
	if r.log != nil {
		return r.log.key()
	}
	return genEventKey(d, r.gen)
}

// ticketEvents returns, in export order ((timestamp, id)), up to limit
// events after from and at or before cutoff, and whether more follow. The
// generated tickets' audits (one per generated comment, at its
// created_at) are merged with the events logged while the fake runs.
func (d *data) ticketEvents(cs *commentState, from exportKey, cutoff int64, limit int) ([]evRef, bool) {
	gen := cumComments(d.tickets)
	i := sort.Search(gen, func(p int) bool { return genEventKey(d, p).after(from) })
	j := sort.Search(len(cs.log), func(x int) bool { return cs.log[x].key().after(from) })
	var out []evRef
	for {
		var r evRef
		switch {
		case i < gen && j < len(cs.log):
			if cs.log[j].key().after(genEventKey(d, i)) {
				r = evRef{gen: i}
				i++
			} else {
				r = evRef{log: &cs.log[j]}
				j++
			}
		case i < gen:
			r = evRef{gen: i}
			i++
		case j < len(cs.log):
			r = evRef{log: &cs.log[j]}
			j++
		default:
			return out, false
		}
		if r.key(d).at > cutoff {
			return out, false
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, r)
	}
}

// serveTicketEvents answers GET /api/v2/incremental/ticket_events, the
// time-based ticket event export, from start_time from (the caller has
// taken the rate limit and checked start_time).
func (s *Server) serveTicketEvents(c *call, from exportKey, cutoff int64, limit int) {
	d := s.d
	cs := d.comments()
	withComments := false
	for _, v := range c.q["include"] {
		for _, inc := range strings.Split(v, ",") {
			withComments = withComments || strings.TrimSpace(inc) == "comment_events"
		}
	}
	evs, more := d.ticketEvents(cs, from, cutoff, limit)
	end := from.at
	if len(evs) > 0 {
		end = evs[len(evs)-1].key(d).at
	}
	if more && end == from.at {
		// A full page all in start_time's second: take the whole second.
		evs, _ = d.ticketEvents(cs, from, min(cutoff, from.at), 1<<30)
		end++
	}
	buf := s.getBuf()
	w := jw{b: append((*buf)[:0], '{')}
	w.Arr("ticket_events")
	for _, r := range evs {
		d.ticketEvent(&w, c.origin, cs, r, withComments)
	}
	w.ArrEnd()
	next := c.base + c.r.URL.EscapedPath() + "?start_time=" + strconv.FormatInt(end, 10)
	if inc := c.get("include"); inc != "" {
		next += "&include=" + url.QueryEscape(inc)
	}
	if pp := c.get("per_page"); pp != "" {
		next += "&per_page=" + url.QueryEscape(pp)
	}
	w.Str("next_page", next)
	w.Int("count", int64(len(evs)))
	w.Int("end_time", end)
	w.Bool("end_of_stream", len(evs) < limit)
	w.b = append(w.b, '}')
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(buf, w.b)
}

// ticketEvent writes one event of the ticket events export: id, ticket_id,
// timestamp, created_at, updater_id, via, event_type ("Audit") and
// child_events, the changes the audit made. A comment is a Comment child
// event, in full with the comment_events sideload (withComments), else as
// comment_present and comment_public only.
func (d *data) ticketEvent(w *jw, base string, cs *commentState, r evRef, withComments bool) {
	w.ObjElem()
	e := r.log
	if e == nil || e.kind == evCreate {
		// A ticket's initial audits: generated, or of a ticket Create made.
		var t, j int
		var at int64
		if e == nil {
			t, j = d.auditAt(r.gen)
			at = commentCreated(t, j)
		} else {
			t, j, at = e.t, e.j, e.at
		}
		d.eventHead(w, AuditID(t, j), t, at, UserID(d.commentAuthor(t, j)))
		d.writeVia(w, t, j)
		w.Str("event_type", "Audit")
		w.Arr("child_events")
		d.commentChild(w, base, t, j, withComments)
		ev := eventBase + (int64(t)*8+int64(j))*4
		if j == 0 {
			subj, ok := ticketSubject(t)
			childHead(w, ev+1, "")
			w.StrOr("subject", subj, ok)
			w.Str("event_type", "Create")
			w.End()
			childHead(w, ev+2, "")
			w.Str("status", "new")
			w.Str("event_type", "Create")
			w.End()
		} else if prev, next := auditStatus(t, j); prev != next {
			childHead(w, ev+1, "")
			w.Str("status", next)
			w.Str("event_type", "Change")
			w.Str("previous_value", prev)
			w.End()
		}
		w.ArrEnd()
		w.End()
		return
	}
	t := e.t
	switch e.kind {
	case evComment:
		j := numComments(t) + positionIn(cs.byTicket[t], e.j)
		d.eventHead(w, e.id, t, e.at, UserID(d.commentAuthor(t, j)))
		d.writeVia(w, t, j)
		w.Str("event_type", "Audit")
		w.Arr("child_events")
		d.commentChild(w, base, t, j, withComments)
		w.ArrEnd()
	default:
		d.eventHead(w, e.id, t, e.at, UserID(0))
		w.Raw("via", viaAPI)
		w.Str("event_type", "Audit")
		w.Arr("child_events")
		childHead(w, e.id+1, viaAPI)
		switch e.kind {
		case evRedact:
			w.Str("type", "CommentRedactionEvent")
			w.Int("comment_id", e.comment)
			w.Str("event_type", "CommentRedactionEvent")
		case evUpdate:
			subj, ok := ticketSubject(t)
			prev, prevOK := subj, ok
			if e.rev > 1 {
				prev, prevOK = updatedName(subj, e.rev-1), true
			}
			w.Str("subject", updatedName(subj, e.rev))
			w.Str("event_type", "Change")
			w.StrOr("previous_value", prev, prevOK)
		case evDelete:
			w.Str("status", "deleted")
			w.Str("event_type", "Change")
			w.Str("previous_value", statuses[t%10])
		}
		w.End()
		w.ArrEnd()
	}
	w.End()
}

func (d *data) eventHead(w *jw, id int64, t int, at, updater int64) {
	w.Int("id", id)
	w.Int("ticket_id", TicketID(t))
	w.Int("timestamp", at)
	w.Time("created_at", at)
	w.Int("updater_id", updater)
}

// childHead opens a child event: id, via (the audit's, when via is
// empty: the generated channel "web"), via_reference_id.
func childHead(w *jw, id int64, via string) {
	w.ObjElem()
	w.Int("id", id)
	if via == "" {
		via = `{"channel":"web","source":{"from":{},"to":{},"rel":null}}`
	}
	w.Raw("via", via)
	w.Null("via_reference_id")
}

// commentChild writes comment j of ticket t as a Comment child event.
func (d *data) commentChild(w *jw, base string, t, j int, withComments bool) {
	f := d.commentOf(t, j)
	w.ObjElem()
	w.Int("id", f.id)
	d.writeVia(w, t, j)
	w.Null("via_reference_id")
	if !withComments {
		w.Bool("comment_present", true)
		w.Bool("comment_public", f.public)
		w.Str("event_type", "Comment")
		w.End()
		return
	}
	w.Str("type", "Comment")
	w.Int("author_id", UserID(d.commentAuthor(t, j)))
	d.commentBodies(w, f.body, false)
	w.Bool("public", f.public)
	d.commentAttachments(w, base, t, j, f, false)
	w.Int("audit_id", f.audit)
	w.Time("created_at", f.at)
	w.Str("event_type", "Comment")
	w.End()
}

// auditStatus is the status before and after generated audit j (j > 0) of
// ticket t, as the audits list shows it.
func auditStatus(t, j int) (prev, next string) {
	prev, next = "open", "open"
	if j == 1 {
		prev = "new"
	}
	if j == numComments(t)-1 {
		next = statuses[t%10]
	}
	return prev, next
}

func positionIn(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
