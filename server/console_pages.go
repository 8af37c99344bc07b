package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// consolePageSize is how many connectors a page of the console lists.
const consolePageSize = 50

// maxConsoleScan bounds the connectors one page of the console's list
// reads when it keeps only some of what the store selects (whether the
// credentials open: StatusCredentialsUnreadable).
const maxConsoleScan = 1000

// consoleStatuses are the statuses the console filters by, in order: the
// store's healths (store.ParseHealth reads them), and
// StatusCredentialsUnreadable, which only this service's keys tell.
func consoleStatuses() []string {
	return []string{store.Healthy.String(), store.NeedsReconnect.String(), store.Failing.String(), StatusCredentialsUnreadable}
}

// connectorRow is a connector as the console lists it.
type connectorRow struct {
	ID, Tenant, ExternalUserID, Kind, Name, Status string
	// Reason says why the credentials do not open (sealProblem), when
	// Status is StatusCredentialsUnreadable.
	Reason                        string
	Copies, Failing               int
	LastSynced, Created, LastUsed time.Time
}

// rowOf is a connector as the console lists it, its status by the API's
// rule: StatusCredentialsUnreadable when its credentials do not open, else
// store.HealthOf from its copies summed up.
func (c *console) rowOf(cs *store.ConnectorSummary) connectorRow {
	row := connectorRow{ID: cs.ID, Tenant: cs.Tenant, ExternalUserID: cs.ExternalUserID, Kind: cs.Kind, Name: cs.Name,
		Status: store.HealthOf(cs.NeedsReconnect, cs.AuthFailing, cs.Failing).String(), Copies: cs.Copies, Failing: cs.Failing,
		LastSynced: cs.LastSynced, Created: cs.Created, LastUsed: cs.LastUsed}
	if row.Reason = c.s.sealProblem(&cs.Connector); row.Reason != "" {
		row.Status = StatusCredentialsUnreadable
	}
	return row
}

type connectorsData struct {
	Tenants              []string
	Statuses             []string
	Tenant, User, Status string
	Rows                 []connectorRow
	Next, First          string
}

// tenants are the configured clients and every tenant with connectors.
func (c *console) tenants(ctx context.Context) ([]string, error) {
	ts, err := c.s.st.Tenants(ctx)
	if err != nil {
		return nil, err
	}
	for _, cl := range c.s.cfg.Clients {
		if !slices.Contains(ts, cl.ID) {
			ts = append(ts, cl.ID)
		}
	}
	slices.Sort(ts)
	return ts, nil
}

// connectors lists the connectors, filtered by tenant, external user and
// status, a page at a time (keyset paging on the creation order).
func (c *console) connectors(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	d := connectorsData{Statuses: consoleStatuses(), Tenant: q.Get("tenant"), User: q.Get("user"), Status: q.Get("status")}
	var err error
	if d.Tenants, err = c.tenants(ctx); err != nil {
		c.storeProblem(w, r, err)
		return
	}
	if d.Tenant != "" && !slices.Contains(d.Tenants, d.Tenant) {
		c.problem(w, r, http.StatusNotFound, "No tenant "+strconv.Quote(d.Tenant)+".")
		return
	}
	health := store.AnyHealth
	if d.Status != "" && d.Status != StatusCredentialsUnreadable {
		h, ok := store.ParseHealth(d.Status)
		if !ok {
			c.problem(w, r, http.StatusBadRequest, "status must be one of "+strings.Join(consoleStatuses(), ", ")+".")
			return
		}
		health = h
	}
	if !printable(d.User) {
		c.problem(w, r, http.StatusBadRequest, "user must be at most 256 printable characters.")
		return
	}
	var after int64
	if a := q.Get("after"); a != "" {
		if after, err = strconv.ParseInt(a, 10, 64); err != nil || after < 0 {
			c.problem(w, r, http.StatusBadRequest, "after must be a connector's position (a whole number).")
			return
		}
	}
	// The status is the store's filter, by the same rule as each row's
	// (store.HealthOf); whether the credentials open, only this service's
	// keys tell: those rows are kept or dropped here, reading on, a page
	// at a time, until the page is full or maxConsoleScan connectors were
	// read (then the next page goes on from there).
	last, more := after, false
	for scanned := 0; len(d.Rows) < consolePageSize && scanned < maxConsoleScan; {
		batch, err := c.s.st.ConnectorSummaries(ctx, store.ConnectorQuery{Tenant: d.Tenant, ExternalUserID: d.User, Health: health, After: last, Limit: consolePageSize + 1})
		if err != nil {
			c.storeProblem(w, r, err)
			return
		}
		more = false
		for i := range batch {
			if len(d.Rows) == consolePageSize {
				more = true
				break
			}
			row := c.rowOf(&batch[i])
			last, scanned = batch[i].Seq, scanned+1
			if unreadable := row.Status == StatusCredentialsUnreadable; d.Status == "" || unreadable == (d.Status == StatusCredentialsUnreadable) {
				d.Rows = append(d.Rows, row)
			}
		}
		if len(batch) <= consolePageSize && !more {
			break
		}
		more = true
	}
	link := func(after int64) string {
		v := url.Values{}
		for k, x := range map[string]string{"tenant": d.Tenant, "user": d.User, "status": d.Status} {
			if x != "" {
				v.Set(k, x)
			}
		}
		if after > 0 {
			v.Set("after", strconv.FormatInt(after, 10))
		}
		if len(v) == 0 {
			return "/console/connectors"
		}
		return "/console/connectors?" + v.Encode()
	}
	if more {
		d.Next = link(last)
	}
	if after > 0 {
		d.First = link(0)
	}
	c.render(w, r, http.StatusOK, "connectors", view{Title: "Connectors", Nav: "connectors", Data: d})
}

// storeProblem answers a store failure.
func (c *console) storeProblem(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	c.s.log.Error("console: the store failed", "request_id", info(r).id, "err", err)
	c.problem(w, r, http.StatusServiceUnavailable, "The store did not answer; try again.")
}

// copyRow is one copy on a connector's page.
type copyRow struct {
	Entity     string
	Records    int64
	HasRecords bool
	SyncedAt   time.Time
	Syncing    bool
	Owner      string
	Failure    *store.Failure
	// LastSync is the store's summary of the last synchronization: mode,
	// counts, duration (nil: none, or a store before version 7).
	LastSync *store.SyncSummary
	// Last is the newest recorded synchronization of the copy in the
	// history (nil: none), shown when LastSync is nil.
	Last *historyRow
}

// historyRow is one completed synchronization.
type historyRow struct {
	At                         time.Time
	Entity, Mode               string
	Inserted, Updated, Deleted int64
}

type connectorData struct {
	Row     connectorRow
	Copies  []copyRow
	History []historyRow
	// RecordsPlot and LagPlot draw the history ("" when too short).
	RecordsPlot, LagPlot template.HTML
}

// connectorPage is one connector: its copies and its sync history.
func (c *console) connectorPage(w http.ResponseWriter, r *http.Request) {
	notice := ""
	q := r.URL.Query()
	if e := q.Get("synced"); e != "" {
		notice = "Synchronized " + e + "."
	} else if e := q.Get("busy"); e != "" {
		notice = "Another process is synchronizing " + e + ": reload in a moment."
	}
	c.showConnector(w, r, r.PathValue("id"), http.StatusOK, notice, "")
}

// loadConnector reads connector id; false (and a 404 answered) when there
// is none.
func (c *console) loadConnector(w http.ResponseWriter, r *http.Request, id string) (*store.Connector, []store.CopyState, bool) {
	var row *store.Connector
	err := store.ErrNotFound
	if idRE.MatchString(id) {
		row, err = c.s.st.Connector(r.Context(), id)
	}
	if errors.Is(err, store.ErrNotFound) {
		c.problem(w, r, http.StatusNotFound, "No connector "+strconv.Quote(id)+".")
		return nil, nil, false
	}
	if err != nil {
		c.storeProblem(w, r, err)
		return nil, nil, false
	}
	copies, err := c.s.st.ConnectorCopies(r.Context(), id)
	if err != nil {
		c.storeProblem(w, r, err)
		return nil, nil, false
	}
	return row, copies, true
}

func (c *console) showConnector(w http.ResponseWriter, r *http.Request, id string, status int, notice, msg string) {
	ctx := r.Context()
	row, copies, ok := c.loadConnector(w, r, id)
	if !ok {
		return
	}
	info(r).connector, info(r).kind = row.ID, row.Kind
	sum := store.ConnectorSummary{Connector: *row, Copies: len(copies)}
	var d connectorData
	for _, cp := range copies {
		cr := copyRow{Entity: cp.Entity, SyncedAt: cp.SyncedAt, Syncing: cp.Syncing, Owner: cp.Owner, Failure: cp.Failure, LastSync: cp.LastSync}
		if cp.Failure != nil {
			sum.Failing++
			if cp.Failure.Class == store.FailureAuth {
				sum.AuthFailing++
			}
		}
		if cp.SyncedAt.After(sum.LastSynced) {
			sum.LastSynced = cp.SyncedAt
		}
		if !cp.SyncedAt.IsZero() {
			n, err := c.s.st.Count(ctx, row.ID, cp.Entity)
			if err == nil {
				cr.Records, cr.HasRecords = n, true
			}
		}
		d.Copies = append(d.Copies, cr)
	}
	d.Row = c.rowOf(&sum)
	evs, err := c.s.st.ConnectorEvents(ctx, row.ID, webhook.SyncCompleted, 60)
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	for _, ev := range evs {
		var body struct {
			Data struct {
				Entity, Mode               string
				Inserted, Updated, Deleted int64
			} `json:"data"`
		}
		if json.Unmarshal(ev.Body, &body) != nil {
			continue
		}
		b := body.Data
		d.History = append(d.History, historyRow{At: ev.Created, Entity: b.Entity, Mode: b.Mode, Inserted: b.Inserted, Updated: b.Updated, Deleted: b.Deleted})
	}
	for i := range d.Copies {
		if j := slices.IndexFunc(d.History, func(h historyRow) bool { return h.Entity == d.Copies[i].Entity }); j >= 0 {
			d.Copies[i].Last = &d.History[j]
		}
	}
	d.RecordsPlot, d.LagPlot = historyPlots(d.History)
	c.render(w, r, status, "connector", view{Title: "Connector " + row.ID, Nav: "connectors", Notice: notice, Error: msg, Data: d})
}

// plotPoint is one point of a plot: a time and a value.
type plotPoint struct {
	At    time.Time
	Value float64
	Label string // the point's tooltip, after its time
}

// plotSeries is one line of a plot: an entity's points, oldest first.
type plotSeries struct {
	Name   string
	Points []plotPoint
}

// seriesColors tell a plot's lines apart (the Okabe–Ito palette, which
// readers with a colour vision deficiency tell apart too, darkened to
// show on white); past eight, the lines are dashed as well.
var seriesColors = []string{"#0072b2", "#c75300", "#007a5a", "#b8478f", "#a86f00", "#2f8fc4", "#6b4c9a", "#4d4d4d"}

// historyPlots draws the sync history as two inline SVG plots (no
// script), oldest on the left, one line per entity: the records each
// synchronization changed, and the lag each one ended (the time since
// the previous one of the same entity).
func historyPlots(h []historyRow) (records, lag template.HTML) {
	var recs, lags []plotSeries
	index := func(list *[]plotSeries, entity string) *plotSeries {
		for i := range *list {
			if (*list)[i].Name == entity {
				return &(*list)[i]
			}
		}
		*list = append(*list, plotSeries{Name: entity})
		return &(*list)[len(*list)-1]
	}
	prev := map[string]time.Time{}
	for i := len(h) - 1; i >= 0; i-- {
		x := h[i]
		n := x.Inserted + x.Updated + x.Deleted
		r := index(&recs, x.Entity)
		r.Points = append(r.Points, plotPoint{At: x.At, Value: float64(n), Label: fmt.Sprintf("%s: %d records changed", x.Entity, n)})
		if p, ok := prev[x.Entity]; ok {
			m := x.At.Sub(p).Minutes()
			l := index(&lags, x.Entity)
			l.Points = append(l.Points, plotPoint{At: x.At, Value: m, Label: fmt.Sprintf("%s: %.1f minutes since its previous sync", x.Entity, m)})
		}
		prev[x.Entity] = x.At
	}
	slices.SortStableFunc(recs, func(a, b plotSeries) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(lags, func(a, b plotSeries) int { return strings.Compare(a.Name, b.Name) })
	return plot(recs, "Records changed per synchronization", "%.0f"), plot(lags, "Minutes since the entity's previous synchronization", "%.1f")
}

// plot draws each series (points oldest first) as an SVG line of its own
// colour over one time axis, with a legend; "" for fewer than two points
// in all.
func plot(series []plotSeries, title, format string) template.HTML {
	var all []plotPoint
	for _, sr := range series {
		all = append(all, sr.Points...)
	}
	if len(all) < 2 {
		return ""
	}
	const wd, ht, pad = 600.0, 160.0, 28.0
	t0, t1 := all[0].At, all[0].At
	top := 0.0
	for _, p := range all {
		if p.At.Before(t0) {
			t0 = p.At
		}
		if p.At.After(t1) {
			t1 = p.At
		}
		top = max(top, p.Value)
	}
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	if top <= 0 {
		top = 1
	}
	var lines, legend strings.Builder
	for i, sr := range series {
		color := seriesColors[i%len(seriesColors)]
		dash := ""
		if i >= len(seriesColors) {
			dash = ` stroke-dasharray="6 3"`
		}
		var pts []string
		var dots strings.Builder
		for _, p := range sr.Points {
			px := pad + (wd-2*pad)*p.At.Sub(t0).Seconds()/span
			py := ht - pad - (ht-2*pad)*p.Value/top
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, py))
			fmt.Fprintf(&dots, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s</title></circle>`, px, py, color,
				html.EscapeString(p.At.UTC().Format("2006-01-02 15:04:05Z")), html.EscapeString(p.Label))
		}
		fmt.Fprintf(&lines, `<g class="series" data-entity="%s">`, html.EscapeString(sr.Name))
		if len(pts) > 1 {
			fmt.Fprintf(&lines, `<polyline points="%s" stroke="%s"%s/>`, strings.Join(pts, " "), color, dash)
		}
		lines.WriteString(dots.String() + "</g>")
		fmt.Fprintf(&legend, `<li><svg width="18" height="10" aria-hidden="true"><line x1="0" y1="5" x2="18" y2="5" stroke="%s" stroke-width="3"%s/></svg>%s</li>`,
			color, dash, html.EscapeString(sr.Name))
	}
	label := fmt.Sprintf("%s: %d entities, %d points from %s to %s, at most "+format+".", title, len(series), len(all),
		t0.UTC().Format("2006-01-02 15:04Z"), t1.UTC().Format("2006-01-02 15:04Z"), top)
	// The axis' labels are HTML over the plot, inside its axes: the SVG
	// stretches to the page's width (preserveAspectRatio none), which
	// would squeeze text drawn in it, and a label left of the axis is cut
	// off on a narrow screen.
	return template.HTML(fmt.Sprintf(`<div class="plotbox"><span class="ymax" aria-hidden="true">`+format+`</span><span class="ymin" aria-hidden="true">0</span>`+
		`<svg class="plot" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s" preserveAspectRatio="none">`+
		`<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`+
		`%s</svg></div><ul class="legend" aria-label="Entities">%s</ul>`, top, wd, ht, html.EscapeString(label),
		pad, ht-pad, wd-pad, ht-pad, pad, pad, pad, ht-pad,
		lines.String(), legend.String()))
}

// consoleSyncTimeout bounds a "sync now".
const consoleSyncTimeout = 5 * time.Minute

// syncCopy is "sync now": it synchronizes one copy as a first search
// does (under the store's claim), then shows the connector again.
func (c *console) syncCopy(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	row, copies, ok := c.loadConnector(w, r, id)
	if !ok {
		return
	}
	entity := r.PostFormValue("entity")
	i := slices.IndexFunc(copies, func(cp store.CopyState) bool { return cp.Entity == entity })
	if i < 0 {
		c.problem(w, r, http.StatusNotFound, "Connector "+row.ID+" has no copy of "+strconv.Quote(entity)+".")
		return
	}
	before := copies[i].SyncedAt
	ctx, cancel := context.WithTimeout(r.Context(), consoleSyncTimeout)
	defer cancel()
	err := c.syncOne(ctx, row.ID, entity)
	if err != nil {
		c.s.log.Warn("console: sync now failed", "request_id", info(r).id, "connector", row.ID, "entity", entity, "err", err)
		c.showConnector(w, r, row.ID, http.StatusBadGateway, "", "Synchronizing "+entity+" failed: "+err.Error())
		return
	}
	c.s.log.Info("console: synchronized", "request_id", info(r).id, "connector", row.ID, "entity", entity)
	param := "synced"
	if now, err := c.s.st.ConnectorCopies(ctx, row.ID); err == nil {
		if j := slices.IndexFunc(now, func(cp store.CopyState) bool { return cp.Entity == entity }); j >= 0 && !now[j].SyncedAt.After(before) {
			param = "busy" // another process holds the copy
		}
	}
	http.Redirect(w, r, "/console/connectors/"+row.ID+"?"+param+"="+url.QueryEscape(entity), http.StatusSeeOther)
}

// syncOne synchronizes connector id's copy of entity now.
func (c *console) syncOne(ctx context.Context, id, entity string) error {
	l, err := c.s.connectorAny(ctx, id)
	if err != nil {
		return err
	}
	rep, err := c.s.replicaOf(ctx, l)
	if err != nil {
		return err
	}
	return c.s.syncNow(ctx, l, rep, entity)
}

// condition is one row of the search playground's filter.
type condition struct{ Field, Op, Value string }

type hitRow struct {
	ID    string
	Score float64
	// Values are the hit's values of the fields searched (searchData's
	// HitFields), as text.
	Values []string
	Data   string
}

// connectorOption is one connector of the playground's picker.
type connectorOption struct{ ID, Label string }

// opOption is one operator of the playground, with what it does.
type opOption struct{ Op, Label string }

type searchData struct {
	Connector, Entity string
	Kind              string
	// Connectors are the picker's choices; More, when the store holds
	// more than it lists.
	Connectors     []connectorOption
	MoreConnectors bool
	Entities       []string
	Fields         []tributary.Field
	Ops            []opOption
	Conds          []condition
	Searched, More bool
	// HitFields are the fields the filter searched, a column each.
	HitFields []string
	Hits      []hitRow
	TookMS    float64
}

// searchOps are the operators the playground offers, each with what it
// does (docs/search.md has the whole language).
var searchOps = []opOption{
	{"eq", "eq: equals"}, {"neq", "neq: does not equal"},
	{"gt", "gt: greater than"}, {"gte", "gte: greater than or equal"},
	{"lt", "lt: less than"}, {"lte", "lte: less than or equal"},
	{"in", "in: one of (values separated by commas)"},
	{"like", "like: matches a pattern (% any text, _ one character)"},
	{"fuzzy", "fuzzy: has every word, typos allowed"}, {"keyword", "keyword: has one of the words"},
	{"contains", "contains: the list holds the value"},
}

// pickerSize is how many connectors the playground's picker lists.
const pickerSize = 500

// maxConditions is how many conditions the playground's filter has.
const maxConditions = 3

// searchPage is the search playground: a copy, a filter over the
// entity's searchable fields (from the catalogue), and the hits, from the
// service's copy.
func (c *console) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := searchData{Connector: strings.TrimSpace(q.Get("connector")), Entity: q.Get("entity"), Ops: searchOps}
	for i := range maxConditions {
		n := strconv.Itoa(i)
		d.Conds = append(d.Conds, condition{Field: q.Get("f" + n), Op: q.Get("op" + n), Value: q.Get("v" + n)})
	}
	v := view{Title: "Search", Nav: "search", Data: &d}
	picked, err := c.s.st.ConnectorSummaries(r.Context(), store.ConnectorQuery{Health: store.AnyHealth, Limit: pickerSize + 1})
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	d.MoreConnectors = len(picked) > pickerSize
	for _, cs := range picked[:min(len(picked), pickerSize)] {
		label := cs.Kind + " · " + cs.Tenant + " / " + cs.ExternalUserID + " · " + cs.ID
		if cs.Name != "" {
			label = cs.Name + " · " + label
		}
		d.Connectors = append(d.Connectors, connectorOption{ID: cs.ID, Label: label})
	}
	if d.Connector != "" && !slices.ContainsFunc(d.Connectors, func(o connectorOption) bool { return o.ID == d.Connector }) {
		d.Connectors = append(d.Connectors, connectorOption{ID: d.Connector, Label: d.Connector})
	}
	if d.Connector == "" {
		c.render(w, r, http.StatusOK, "search", v)
		return
	}
	row, copies, ok := c.loadConnector(w, r, d.Connector)
	if !ok {
		return
	}
	d.Kind = row.Kind
	for _, cp := range copies {
		d.Entities = append(d.Entities, cp.Entity)
	}
	if d.Entity == "" {
		c.render(w, r, http.StatusOK, "search", v)
		return
	}
	if !slices.Contains(d.Entities, d.Entity) {
		c.problem(w, r, http.StatusNotFound, "Connector "+row.ID+" has no copy of "+strconv.Quote(d.Entity)+".")
		return
	}
	l, err := c.s.connectorAny(r.Context(), row.ID)
	if err != nil {
		c.render(w, r, http.StatusBadGateway, "search", view{Title: "Search", Nav: "search", Data: &d, Error: "The connector could not be opened: " + err.Error()})
		return
	}
	if ent, ok := tributary.FindEntity(l.conn.Entities(), d.Entity); ok {
		d.Fields = ent.Searchable
	}
	if q.Get("run") == "" {
		c.render(w, r, http.StatusOK, "search", v)
		return
	}
	var fs []search.Filter
	for i, cd := range d.Conds {
		if cd.Field == "" {
			continue
		}
		if !slices.Contains(d.HitFields, cd.Field) {
			d.HitFields = append(d.HitFields, cd.Field)
		}
		f, err := filterOf(cd)
		if err != nil {
			v.Error = fmt.Sprintf("Condition %d: %v", i+1, err)
			c.render(w, r, http.StatusBadRequest, "search", v)
			return
		}
		fs = append(fs, f)
	}
	req := search.Request{Limit: 25}
	switch len(fs) {
	case 0:
	case 1:
		req.Query.Filter = &fs[0]
	default:
		req.Query.Filter = search.And(fs...).Ptr()
	}
	rep, err := c.s.replicaOf(r.Context(), l)
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	res, err := rep.Search(r.Context(), d.Entity, req)
	switch {
	case errors.Is(err, store.ErrNotSynced):
		v.Error = "This copy has not been synchronized yet: use Sync now on the connector's page."
		c.render(w, r, http.StatusConflict, "search", v)
		return
	case err != nil:
		v.Error = "The search failed: " + err.Error()
		c.render(w, r, http.StatusBadRequest, "search", v)
		return
	}
	d.Searched, d.More, d.TookMS = true, res.HasMore(), res.TookMS
	for _, h := range res.Hits {
		d.Hits = append(d.Hits, hitRow{ID: h.ID, Score: h.Score, Data: clip(string(h.Data), 2000), Values: fieldValues(h.Data, d.HitFields)})
	}
	c.render(w, r, http.StatusOK, "search", v)
}

// clip cuts s to at most n bytes, at a character's start, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// fieldValues are a record's values at the field paths, as text: a string
// as it is, anything else as JSON, "—" when the record has none.
func fieldValues(record []byte, fields []string) []string {
	var rec any
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.UseNumber() // ids beyond 2^53 stay as they are
	if dec.Decode(&rec) != nil {
		return nil
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "—"
		p, err := search.ParsePath(f)
		if err != nil {
			continue
		}
		v, ok := rec, true
		for _, k := range p {
			m, isObj := v.(map[string]any)
			if v, ok = m[k]; !isObj || !ok {
				ok = false
				break
			}
		}
		switch x := v.(type) {
		case nil:
			if ok {
				out[i] = "null"
			}
		case string:
			out[i] = clip(x, 200)
		default:
			b, _ := json.Marshal(x)
			out[i] = clip(string(b), 200)
		}
	}
	return out
}

// filterOf builds one condition's filter; the value is JSON when it
// parses as a number, true, false or null, or a quoted string, and text
// otherwise; "in" takes values separated by commas.
func filterOf(cd condition) (search.Filter, error) {
	value := func(s string) any {
		s = strings.TrimSpace(s)
		var x any
		if json.Unmarshal([]byte(s), &x) == nil {
			if _, obj := x.(map[string]any); !obj {
				if _, arr := x.([]any); !arr {
					return x
				}
			}
		}
		return s
	}
	val := value(cd.Value)
	switch search.Op(cd.Op) {
	case search.OpEq:
		return search.Eq(cd.Field, val), nil
	case search.OpNeq:
		return search.Neq(cd.Field, val), nil
	case search.OpGt:
		return search.Gt(cd.Field, val), nil
	case search.OpGte:
		return search.Gte(cd.Field, val), nil
	case search.OpLt:
		return search.Lt(cd.Field, val), nil
	case search.OpLte:
		return search.Lte(cd.Field, val), nil
	case search.OpIn:
		var vs []any
		for p := range strings.SplitSeq(cd.Value, ",") {
			vs = append(vs, value(p))
		}
		return search.In(cd.Field, vs...), nil
	case search.OpLike:
		return search.Like(cd.Field, cd.Value), nil
	case search.OpFuzzy:
		return search.Fuzzy(cd.Field, cd.Value), nil
	case search.OpKeyword:
		return search.Keyword(cd.Field, cd.Value), nil
	case search.OpContains:
		return search.Contains(cd.Field, val), nil
	}
	return search.Filter{}, fmt.Errorf("unknown operator %q", cd.Op)
}

// endpointRow is one webhook endpoint on the console.
type endpointRow struct {
	ID, Tenant, URL string
	Events          []string
	ChangesOnly     bool
	Status          string
	State           store.EndpointState
	Pending, Failed []store.DeliveryInfo
}

// webhooksPage lists every client's webhook endpoints, how their
// deliveries stand, and their pending and failed deliveries.
func (c *console) webhooksPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var rows []endpointRow
	if len(c.s.endpoints) > 0 {
		ids := make([]string, len(c.s.endpoints))
		for i, e := range c.s.endpoints {
			ids[i] = e.ID()
		}
		states, err := c.s.st.Endpoints(ctx, ids...)
		if err != nil {
			c.storeProblem(w, r, err)
			return
		}
		for i, e := range c.s.endpoints {
			u := e.URL
			if p, err := url.Parse(u); err == nil {
				p.RawQuery, p.Fragment = "", ""
				u = p.String()
			}
			er := endpointRow{ID: ids[i], Tenant: e.Tenant, URL: u, Events: e.Events, ChangesOnly: e.ChangesOnly, State: states[i], Status: "healthy"}
			if states[i].Failures >= FailingAfter {
				er.Status = "failing"
			}
			if er.Pending, err = c.s.st.Deliveries(ctx, ids[i], store.DeliveryPending, 20); err == nil {
				er.Failed, err = c.s.st.Deliveries(ctx, ids[i], store.DeliveryFailed, 20)
			}
			if err != nil {
				c.storeProblem(w, r, err)
				return
			}
			rows = append(rows, er)
		}
	}
	notice := ""
	if n := r.URL.Query().Get("replayed"); n != "" {
		if k, err := strconv.Atoi(n); err == nil {
			notice = fmt.Sprintf("Queued %d deliveries again.", k)
		}
	}
	c.render(w, r, http.StatusOK, "webhooks", view{Title: "Webhooks", Nav: "webhooks", Notice: notice, Data: rows})
}

// replay queues an event again to an endpoint (its tenant's).
func (c *console) replay(w http.ResponseWriter, r *http.Request) {
	epID, eventID := r.PostFormValue("endpoint"), r.PostFormValue("event")
	i := slices.IndexFunc(c.s.endpoints, func(e webhook.Endpoint) bool { return e.ID() == epID })
	if i < 0 {
		c.problem(w, r, http.StatusNotFound, "No webhook endpoint "+strconv.Quote(epID)+".")
		return
	}
	if eventID == "" {
		c.problem(w, r, http.StatusBadRequest, "event is required.")
		return
	}
	ep := c.s.endpoints[i]
	n, err := c.s.Replay(r.Context(), ep.Tenant, ep.ID(), store.Replay{EventID: eventID})
	if errors.Is(err, store.ErrNotFound) {
		c.problem(w, r, http.StatusNotFound, "No event "+strconv.Quote(eventID)+" of this endpoint's tenant.")
		return
	}
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	c.s.log.Info("console: replayed", "request_id", info(r).id, "endpoint", ep.ID(), "event", eventID)
	http.Redirect(w, r, "/console/webhooks?replayed="+strconv.Itoa(n), http.StatusSeeOther)
}

// keyRow is one key id and the connectors it seals.
type keyRow struct {
	ID string
	// Connectors counts the connectors sealed under the key, Opens those
	// of them this service opens.
	Connectors, Opens int
	Primary, InRing   bool
	NotAKey, Readable bool
}

type keysData struct {
	Keys []keyRow
	// Pending counts the connectors sealed under another key of the ring
	// than the primary (rotate-keys re-seals them).
	Pending int
	Total   int
	// Unreadable counts the connectors whose credentials do not open
	// with this service's keys.
	Unreadable int
}

// keysPage is the key-rotation status: how many connectors each key
// seals, and how many of them really open with this service's keys.
func (c *console) keysPage(w http.ResponseWriter, r *http.Request) {
	counts, err := c.s.countSeals(r.Context())
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	primary := c.s.keys.Primary()
	d := keysData{Total: counts.Total, Unreadable: counts.Unreadable}
	for _, id := range c.s.keys.IDs() {
		d.Keys = append(d.Keys, keyRow{ID: id, Connectors: counts.Sealed[id], Opens: counts.Opens[id], Primary: id == primary, InRing: true, Readable: true})
	}
	ids := slices.Sorted(maps.Keys(counts.Sealed))
	for _, id := range ids {
		n := counts.Sealed[id]
		if id != primary {
			d.Pending += counts.Opens[id]
		}
		if !slices.Contains(c.s.keys.IDs(), id) {
			d.Keys = append(d.Keys, keyRow{ID: id, Connectors: n, Opens: counts.Opens[id], NotAKey: id == "", Readable: id != ""})
		}
	}
	c.render(w, r, http.StatusOK, "keys", view{Title: "Keys", Nav: "keys", Data: d})
}
