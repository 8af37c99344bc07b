package zendesktest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Incremental export limits, as Zendesk documents them.
const (
	maxExportPerPage = 1000 // per_page of an export, and its default
	exportMinAge     = 60   // seconds: start_time must be this old, and changes this recent are left out
)

const (
	bodyExportRateLimited = `{"error":"APIRateLimitExceeded","description":"Number of allowed incremental export API requests per minute exceeded"}`
	bodyTooRecent         = `{"error":"InvalidValue","description":"Too recent start_time. Use a start_time older than 1 minute"}`
)

// exportKey orders an export: by last-modified time, then id.
type exportKey struct{ at, id int64 }

func (a exportKey) after(b exportKey) bool { return a.at > b.at || (a.at == b.at && a.id > b.id) }

// encodeExportCursor writes a cursor like Zendesk's
// (base64 "1576613539.0||467|": time, then id).
func encodeExportCursor(k exportKey) string {
	return base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(k.at, 10) + ".0||" + strconv.FormatInt(k.id, 10) + "|"))
}

func decodeExportCursor(s string) (exportKey, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return exportKey{}, false
	}
	ts, rest, ok := strings.Cut(string(raw), ".0||")
	id, _, ok2 := strings.Cut(rest, "|")
	at, err1 := strconv.ParseInt(ts, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	return exportKey{at, n}, ok && ok2 && err1 == nil && err2 == nil
}

// exportSlice returns, in export order, up to limit record indices of
// entity name whose key is after from and whose time is at most cutoff,
// then whether more such records follow. Deleted records are included.
func (d *data) exportSlice(name string, from exportKey, cutoff int64, limit int) ([]int, bool) {
	sp := mutSpecs[name]
	gen := sp.gen(d)
	e := d.ent(name)
	// Generated records not changed since, in index order (their times and
	// ids grow with the index), merged with the changed ones by key.
	i := sort.Search(gen, func(k int) bool { return exportKey{sp.changed(k), sp.id(k)}.after(from) })
	j := 0
	var order []int
	var mods map[int]mod
	if e != nil {
		order, mods = e.order, e.mods
		j = sort.Search(len(order), func(x int) bool {
			k := order[x]
			return exportKey{mods[k].at, sp.id(k)}.after(from)
		})
	}
	var out []int
	for {
		for i < gen && mods != nil {
			if _, changed := mods[i]; !changed {
				break
			}
			i++
		}
		var k int
		var at int64
		switch {
		case i < gen && j < len(order):
			gk := exportKey{sp.changed(i), sp.id(i)}
			mk := exportKey{mods[order[j]].at, sp.id(order[j])}
			if mk.after(gk) {
				k, at = i, gk.at
				i++
			} else {
				k, at = order[j], mk.at
				j++
			}
		case i < gen:
			k, at = i, sp.changed(i)
			i++
		case j < len(order):
			k, at = order[j], mods[order[j]].at
			j++
		default:
			return out, false
		}
		if at > cutoff {
			return out, false
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, k)
	}
}

// serveExport serves the incremental exports:
// /incremental/{tickets,users}/cursor (cursor-based) and
// /incremental/{tickets,users,organizations,ticket_events} (time-based).
func (s *Server) serveExport(c *call, segs []string) bool {
	var name string
	cursorBased := false
	switch {
	case len(segs) == 2 && segs[1] == "ticket_events":
		name = "ticket_events"
	case len(segs) == 2 && (segs[1] == "tickets" || segs[1] == "users" || segs[1] == "organizations"):
		name = segs[1]
	case len(segs) == 3 && segs[2] == "cursor" && (segs[1] == "tickets" || segs[1] == "users"):
		name, cursorBased = segs[1], true
	default:
		return false
	}
	now := s.clock.Now()
	if _, reset, ok := s.export.Take(now); !ok {
		h := c.w.Header()
		h.Set("Retry-After", strconv.Itoa(int((reset.Sub(now)+time.Second-1)/time.Second)))
		writeBody(c.w, http.StatusTooManyRequests, bodyExportRateLimited)
		return true
	}
	cutoff := now.Unix() - exportMinAge
	limit := maxExportPerPage
	if v := c.get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			invalidValue(c.w, "per_page", "per_page must be a positive integer")
			return true
		}
		limit = min(n, maxExportPerPage)
	}
	var from exportKey
	cur := c.get("cursor")
	if cursorBased && cur != "" {
		k, ok := decodeExportCursor(cur)
		if !ok {
			invalidParam(c.w, "cursor is not valid")
			return true
		}
		from = k
	} else {
		v := c.get("start_time")
		if v == "" {
			invalidValue(c.w, "start_time", "start_time is required")
			return true
		}
		st, err := strconv.ParseInt(v, 10, 64)
		if err != nil || st < 0 {
			invalidValue(c.w, "start_time", "start_time must be a Unix time in seconds")
			return true
		}
		if st > cutoff {
			writeBody(c.w, http.StatusUnprocessableEntity, bodyTooRecent)
			return true
		}
		from = exportKey{st, 0} // every record changed at or after st
	}
	if name == "ticket_events" {
		s.serveTicketEvents(c, from, cutoff, limit)
		return true
	}
	d := s.d
	idx, more := d.exportSlice(name, from, cutoff, limit)

	buf := s.getBuf()
	w := jw{b: append((*buf)[:0], '{')}
	end := from.at // time-based: the page's end_time
	if len(idx) > 0 {
		end, _ = d.changedAt(name, idx[len(idx)-1])
	}
	if !cursorBased && more && end == from.at {
		// A full page of records that all share start_time's second would
		// name the same page again: take the whole second, and go on from
		// the next one.
		idx, _ = d.exportSlice(name, from, min(cutoff, from.at), 1<<30)
		end++
	}
	write := d.collections[name].write
	w.Arr(name)
	for _, k := range idx {
		write(d, &w, c.origin, k)
	}
	w.ArrEnd()
	path := c.r.URL.EscapedPath()
	if cursorBased {
		after := from
		if len(idx) > 0 {
			after.at, after.id = d.changedAt(name, idx[len(idx)-1])
		}
		ac := encodeExportCursor(after)
		w.Str("after_url", c.base+path+"?cursor="+url.QueryEscape(ac))
		w.Str("after_cursor", ac)
		if cur != "" {
			w.Str("before_url", c.base+path+"?cursor="+url.QueryEscape(cur))
			w.Str("before_cursor", cur)
		} else {
			w.Null("before_url")
			w.Null("before_cursor")
		}
	} else {
		w.Int("count", int64(len(idx)))
		w.Int("end_time", end)
		w.Str("next_page", c.base+path+"?start_time="+strconv.FormatInt(end, 10))
		more = len(idx) >= limit
	}
	w.Bool("end_of_stream", !more)
	w.b = append(w.b, '}')
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(buf, w.b)
	return true
}
