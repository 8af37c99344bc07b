package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// consolePageSize is how many connectors a page of the console lists.
const consolePageSize = 50

// consoleStatuses are the names of the healths the console filters by
// (store.ParseHealth reads them), in order.
func consoleStatuses() []string {
	return []string{store.Healthy.String(), store.NeedsReconnect.String(), store.Failing.String()}
}

// connectorRow is a connector as the console lists it.
type connectorRow struct {
	ID, Tenant, ExternalUserID, Kind, Name, Status string
	Copies, Failing                                int
	LastSynced, Created, LastUsed                  time.Time
}

// rowOf is a connector as the console lists it, its status by the API's
// rule (store.HealthOf) from its copies summed up.
func rowOf(cs *store.ConnectorSummary) connectorRow {
	return connectorRow{ID: cs.ID, Tenant: cs.Tenant, ExternalUserID: cs.ExternalUserID, Kind: cs.Kind, Name: cs.Name,
		Status: store.HealthOf(cs.NeedsReconnect, cs.AuthFailing, cs.Failing).String(), Copies: cs.Copies, Failing: cs.Failing,
		LastSynced: cs.LastSynced, Created: cs.Created, LastUsed: cs.LastUsed}
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
	if d.Status != "" {
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
	// One query: the status is the store's filter, by the same rule as
	// each row's (store.HealthOf).
	batch, err := c.s.st.ConnectorSummaries(ctx, store.ConnectorQuery{Tenant: d.Tenant, ExternalUserID: d.User, Health: health, After: after, Limit: consolePageSize + 1})
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	more := len(batch) > consolePageSize
	batch = batch[:min(len(batch), consolePageSize)]
	for i := range batch {
		d.Rows = append(d.Rows, rowOf(&batch[i]))
	}
	var last int64
	if len(batch) > 0 {
		last = batch[len(batch)-1].Seq
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
	d.Row = rowOf(&sum)
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

// historyPlots draws the sync history as two inline SVG plots (no
// script), oldest on the left: the records each synchronization changed,
// and the lag each one ended (the time since the previous one of the same
// entity).
func historyPlots(h []historyRow) (records, lag template.HTML) {
	var recs, lags []plotPoint
	prev := map[string]time.Time{}
	for i := len(h) - 1; i >= 0; i-- {
		x := h[i]
		n := x.Inserted + x.Updated + x.Deleted
		recs = append(recs, plotPoint{At: x.At, Value: float64(n), Label: fmt.Sprintf("%s: %d records changed", x.Entity, n)})
		if p, ok := prev[x.Entity]; ok {
			m := x.At.Sub(p).Minutes()
			lags = append(lags, plotPoint{At: x.At, Value: m, Label: fmt.Sprintf("%s: %.1f minutes since its previous sync", x.Entity, m)})
		}
		prev[x.Entity] = x.At
	}
	return plot(recs, "Records changed per synchronization", "%.0f"), plot(lags, "Minutes since the entity's previous synchronization", "%.1f")
}

// plot draws points (oldest first) as an SVG line; "" for fewer than two.
func plot(pts []plotPoint, title, format string) template.HTML {
	if len(pts) < 2 {
		return ""
	}
	const wd, ht, pad = 600.0, 160.0, 28.0
	t0, t1 := pts[0].At, pts[len(pts)-1].At
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	top := 0.0
	for _, p := range pts {
		top = max(top, p.Value)
	}
	if top <= 0 {
		top = 1
	}
	var line []string
	var dots strings.Builder
	for _, p := range pts {
		px := pad + (wd-2*pad)*p.At.Sub(t0).Seconds()/span
		py := ht - pad - (ht-2*pad)*p.Value/top
		line = append(line, fmt.Sprintf("%.1f,%.1f", px, py))
		fmt.Fprintf(&dots, `<circle cx="%.1f" cy="%.1f" r="3"><title>%s %s</title></circle>`, px, py,
			html.EscapeString(p.At.UTC().Format("2006-01-02 15:04:05Z")), html.EscapeString(p.Label))
	}
	label := fmt.Sprintf("%s: %d points from %s to %s, at most "+format+".", title, len(pts),
		t0.UTC().Format("2006-01-02 15:04Z"), t1.UTC().Format("2006-01-02 15:04Z"), top)
	// The axis' labels are HTML over the plot, inside its axes: the SVG
	// stretches to the page's width (preserveAspectRatio none), which
	// would squeeze text drawn in it, and a label left of the axis is cut
	// off on a narrow screen.
	return template.HTML(fmt.Sprintf(`<div class="plotbox"><span class="ymax" aria-hidden="true">`+format+`</span><span class="ymin" aria-hidden="true">0</span>`+
		`<svg class="plot" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s" preserveAspectRatio="none">`+
		`<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`+
		`<polyline points="%s"/>%s</svg></div>`, top, wd, ht, html.EscapeString(label),
		pad, ht-pad, wd-pad, ht-pad, pad, pad, pad, ht-pad,
		strings.Join(line, " "), dots.String()))
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
	Data  string
}

type searchData struct {
	Connector, Entity string
	Kind              string
	Entities          []string
	Fields            []tributary.Field
	Ops               []string
	Conds             []condition
	Searched, More    bool
	Hits              []hitRow
	TookMS            float64
}

// searchOps are the operators the playground offers.
var searchOps = []string{"eq", "neq", "gt", "gte", "lt", "lte", "in", "like", "fuzzy", "keyword", "contains"}

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
		data := string(h.Data)
		if len(data) > 400 {
			data = data[:400] + "…"
		}
		d.Hits = append(d.Hits, hitRow{ID: h.ID, Score: h.Score, Data: data})
	}
	c.render(w, r, http.StatusOK, "search", v)
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
			er := endpointRow{ID: ids[i], Tenant: e.Tenant, URL: u, Events: e.Events, State: states[i], Status: "healthy"}
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
	ID                string
	Connectors        int
	Primary, InRing   bool
	NotAKey, Readable bool
}

type keysData struct {
	Keys    []keyRow
	Pending int // connectors sealed under another key than the primary
	Total   int
}

// keysPage is the key-rotation status: how many connectors each key
// seals.
func (c *console) keysPage(w http.ResponseWriter, r *http.Request) {
	counts, err := c.s.st.SealedKeys(r.Context(), func(b []byte) string {
		id, err := keyring.KeyID(b)
		if err != nil {
			return ""
		}
		return id
	})
	if err != nil {
		c.storeProblem(w, r, err)
		return
	}
	primary := c.s.keys.Primary()
	var d keysData
	for _, id := range c.s.keys.IDs() {
		d.Keys = append(d.Keys, keyRow{ID: id, Connectors: counts[id], Primary: id == primary, InRing: true, Readable: true})
	}
	for id, n := range counts {
		d.Total += n
		if id != primary {
			d.Pending += n
		}
		if !slices.Contains(c.s.keys.IDs(), id) {
			d.Keys = append(d.Keys, keyRow{ID: id, Connectors: n, NotAKey: id == "", Readable: id != ""})
		}
	}
	c.render(w, r, http.StatusOK, "keys", view{Title: "Keys", Nav: "keys", Data: d})
}
