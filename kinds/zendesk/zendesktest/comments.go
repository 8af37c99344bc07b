package zendesktest

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ids of what is made while the fake runs.
const (
	// addedCommentBase is the id of the first comment AddComment (or
	// Create("ticket_comments")) adds; the n-th added has
	// addedCommentBase+n, past every generated comment id.
	addedCommentBase int64 = 15_000_000_000_000
	// logEventBase is the id of the first ticket event (audit) recorded
	// while the fake runs; each takes four ids (its child events use the
	// next three).
	logEventBase int64 = 25_000_000_000_000
)

// redactRune is what Zendesk shows in place of each redacted character.
const redactRune = "▇"

// addedComment is a comment added while the fake runs.
type addedComment struct {
	id    int64
	t     int   // ticket index
	at    int64 // created_at, Unix seconds
	audit int64 // the audit (ticket event) that added it
}

// evKind is what a logged ticket event records.
type evKind int

const (
	evCreate  evKind = iota // the j-th initial audit of a ticket Create made
	evComment               // a comment added (comment = its position in added)
	evRedact                // a comment redacted
	evUpdate                // the ticket's subject changed (rev: its revision)
	evDelete                // the ticket deleted
)

// tevent is one ticket event recorded while the fake runs.
type tevent struct {
	id      int64 // event (audit) id
	t       int   // ticket index
	at      int64 // Unix seconds
	kind    evKind
	j       int   // evCreate: the comment index; evComment: position in added
	comment int64 // evRedact: the comment's id
	rev     int   // evUpdate: the subject's revision after the change
}

func (e tevent) key() exportKey { return exportKey{e.at, e.id} }

// commentState is what AddComment, redaction and ticket changes recorded.
// It is never modified once published: a change publishes a copy.
type commentState struct {
	added    []addedComment // in creation (= id) order
	byTicket map[int][]int  // ticket index → positions in added, in order
	redacted map[int64]bool // ids of redacted comments
	log      []tevent       // sorted by (at, id)
	seq      int64          // log events so far (ids)
}

func (d *data) comments() *commentState {
	if cs := d.cm.Load(); cs != nil {
		return cs
	}
	return &commentState{}
}

// changeComments publishes a copy of the comment state changed by f. The
// caller holds Server.mutMu.
func (d *data) changeComments(f func(cs *commentState)) {
	old := d.comments()
	cs := &commentState{
		added:    slices.Clone(old.added),
		byTicket: make(map[int][]int, len(old.byTicket)+1),
		redacted: maps.Clone(old.redacted),
		log:      slices.Clone(old.log),
		seq:      old.seq,
	}
	for t, p := range old.byTicket {
		cs.byTicket[t] = p // the slices are replaced, never appended to in place
	}
	if cs.redacted == nil {
		cs.redacted = map[int64]bool{}
	}
	f(cs)
	d.cm.Store(cs)
}

// logEvent records a ticket event at its (at, id) place and returns its id.
// id 0 takes the next log id.
func (cs *commentState) logEvent(e tevent) int64 {
	if e.id == 0 {
		e.id = logEventBase + 4*cs.seq
		cs.seq++
	}
	i := sort.Search(len(cs.log), func(i int) bool { return cs.log[i].key().after(e.key()) })
	cs.log = slices.Insert(cs.log, i, e)
	return e.id
}

// numAllComments is the number of comments of ticket t, added ones
// included.
func (d *data) numAllComments(t int) int {
	return numComments(t) + len(d.comments().byTicket[t])
}

// commentFacts are what a comment renders from.
type commentFacts struct {
	id, audit, at int64
	body          string
	public        bool
	attachments   int
	inline        bool // has an inline image (shown with include_inline_images)
}

// commentOf returns comment j of ticket t: generated below numComments(t),
// added from there.
func (d *data) commentOf(t, j int) commentFacts {
	var f commentFacts
	cs := d.comments()
	if n := numComments(t); j < n {
		f = commentFacts{id: CommentID(t, j), audit: AuditID(t, j), at: commentCreated(t, j),
			body: bodies[j], public: j != 2, attachments: numAttachments(t, j), inline: hasInline(t, j)}
	} else {
		a := cs.added[cs.byTicket[t][j-n]]
		f = commentFacts{id: a.id, audit: a.audit, at: a.at, body: addedBody(a), public: true}
	}
	if cs.redacted[f.id] {
		f.body = redacted(f.body)
	}
	return f
}

// addedBody is the text of an added comment.
func addedBody(a addedComment) string {
	return "Update " + strconv.FormatInt(a.id-addedCommentBase+1, 10) + " on ticket " +
		strconv.FormatInt(TicketID(a.t), 10) + ": please see the latest reply."
}

// redacted is text after Zendesk's redaction: every character a ▇.
func redacted(s string) string { return strings.Repeat(redactRune, utf8.RuneCountInString(s)) }

// commentIndex resolves a comment id to its ticket and position; ok is
// false for an id that names no comment of a live ticket.
func (d *data) commentIndex(id int64) (t, j int, ok bool) {
	if id >= addedCommentBase {
		cs := d.comments()
		k := id - addedCommentBase
		if k >= int64(len(cs.added)) {
			return 0, 0, false
		}
		a := cs.added[k]
		pos := slices.Index(cs.byTicket[a.t], int(k))
		return a.t, numComments(a.t) + pos, d.alive("tickets", a.t)
	}
	off := id - commentBase
	if off < 0 {
		return 0, 0, false
	}
	t, j = int(off/8), int(off%8)
	return t, j, j < numComments(t) && d.alive("tickets", t)
}

// liveTickets returns the indices of the live tickets in order.
func (d *data) liveTickets() []int {
	if live := d.live("tickets"); live != nil {
		return live
	}
	out := make([]int, d.count("tickets"))
	for k := range out {
		out[k] = k
	}
	return out
}

// commentIDs implements IDs("ticket_comments"): the comments of live
// tickets in id order (generated ones by ticket, then added ones in the
// order they were added).
func (d *data) commentIDs() []string {
	live := d.liveTickets()
	var out []string
	for _, t := range live {
		for j := range numComments(t) {
			out = append(out, strconv.FormatInt(CommentID(t, j), 10))
		}
	}
	for _, a := range d.comments().added {
		if d.alive("tickets", a.t) {
			out = append(out, strconv.FormatInt(a.id, 10))
		}
	}
	return out
}

// AddComment adds a public comment to the live ticket ticketID as an
// update of the ticket would on Zendesk (comments are created through the
// Tickets API): a new comment, last in the ticket's comments list, with
// the next added-comment id, created_at now on the fake's clock, authored
// by the ticket's assignee (its requester when unassigned), and a new
// audit. The ticket's updated_at and generated_timestamp become now, so
// it shows in the incremental ticket exports, and the audit in the ticket
// events export. It returns the comment's id.
func (s *Server) AddComment(ticketID string) (string, error) {
	k, err := s.lookup("tickets", ticketID)
	if err != nil {
		return "", err
	}
	var id int64
	s.mutate("tickets", func(e *entOverlay, now int64) {
		touch(e, k, now)
		s.d.changeComments(func(cs *commentState) {
			id = addedCommentBase + int64(len(cs.added))
			pos := len(cs.added)
			a := addedComment{id: id, t: k, at: now}
			a.audit = cs.logEvent(tevent{t: k, at: now, kind: evComment, j: pos})
			cs.added = append(cs.added, a)
			cs.byTicket[k] = append(slices.Clone(cs.byTicket[k]), pos)
		})
	})
	return strconv.FormatInt(id, 10), nil
}

// createComment implements Create("ticket_comments"): AddComment on the
// live tickets in turn, the n-th created comment (counting from 0) on the
// live ticket at position n modulo their number, in id order.
func (s *Server) createComment() (string, error) {
	live := s.d.liveTickets()
	if len(live) == 0 {
		return "", fmt.Errorf("zendesktest: no live ticket to add a comment to")
	}
	n := len(s.d.comments().added)
	return s.AddComment(strconv.FormatInt(TicketID(live[n%len(live)]), 10))
}

// redactComment implements Update("ticket_comments", id) as Zendesk's
// comment redaction: the comment's body, html_body and plain_body text
// becomes ▇ characters, one per character, wherever the comment shows;
// its ticket's updated_at and generated_timestamp become now.
func (s *Server) redactComment(id string) error {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return fmt.Errorf("zendesktest: ticket_comments id %q: %w", id, err)
	}
	t, _, ok := s.d.commentIndex(n)
	if !ok {
		return fmt.Errorf("zendesktest: no comment with id %s on a live ticket", id)
	}
	s.mutate("tickets", func(e *entOverlay, now int64) {
		touch(e, t, now)
		s.d.changeComments(func(cs *commentState) {
			cs.redacted[n] = true
			cs.logEvent(tevent{t: t, at: now, kind: evRedact, comment: n})
		})
	})
	return nil
}

// touch makes ticket k changed now, its subject as it was.
func touch(e *entOverlay, k int, now int64) {
	m := e.mods[k]
	m.at = now
	e.mods[k] = m
}

// logTicketChange records the ticket event of a Create, Update or Delete
// of ticket k. The caller holds Server.mutMu.
func (d *data) logTicketChange(kind evKind, k int, now int64, rev int) {
	d.changeComments(func(cs *commentState) {
		switch kind {
		case evCreate:
			for j := range numComments(k) {
				cs.logEvent(tevent{id: AuditID(k, j), t: k, at: now, kind: evCreate, j: j})
			}
		default:
			cs.logEvent(tevent{t: k, at: now, kind: kind, rev: rev})
		}
	})
}
