package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// routes mounts the endpoints: the contract's at both path sets of package
// hosted, and the operational ones.
func (s *Server) routes() {
	m := http.NewServeMux()
	post := func(path, endpoint string, h func(http.ResponseWriter, *http.Request)) {
		m.HandleFunc("POST "+path, s.observe(endpoint, h))
	}
	post(hosted.DefaultPaths.Token, "token", s.token)
	for _, p := range []string{hosted.DefaultPaths.Create, hosted.IntegrationsPaths.Create, "/integrations/connectors"} {
		post(p, "create", s.authenticated(s.create))
	}
	for _, p := range []string{hosted.DefaultPaths.Create, hosted.IntegrationsPaths.Create, "/api/v1/connectors/sources"} {
		m.HandleFunc("GET "+p, s.observe("list", s.authenticated(s.list)))
	}
	// Execute answers beside every other operation on a connector: the
	// contract's path, and each prefix the service answers at.
	for _, p := range []string{hosted.DefaultPaths.Execute, hosted.IntegrationsPaths.Execute, "/v1/integrations/connectors/{id}/execute"} {
		post(p, "execute", s.authenticated(s.execute))
	}
	for _, p := range []string{"/api/v1/connectors/sources/{id}", "/api/v1/integrations/connectors/{id}", "/v1/integrations/connectors/{id}"} {
		m.HandleFunc("GET "+p, s.observe("status", s.authenticated(s.status)))
		m.HandleFunc("PATCH "+p, s.observe("update", s.authenticated(s.update)))
		m.HandleFunc("DELETE "+p, s.observe("delete", s.authenticated(s.deleteConnector)))
	}
	for _, p := range []string{"/v1/webhooks", "/api/v1/webhooks"} {
		m.HandleFunc("GET "+p, s.observe("webhooks", s.authenticated(s.webhooks)))
		post(p+"/replay", "replay", s.authenticated(s.replay))
	}
	for _, p := range changesPaths {
		m.HandleFunc("GET "+p, s.observe("changes", s.authenticated(s.changes)))
	}
	s.connectRoutes(m)
	m.HandleFunc(MCPPath, s.observe("mcp", s.mcpHandler()))
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		s.writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	m.HandleFunc("GET /readyz", s.ready)
	m.Handle("GET /metrics", promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{}))
	s.mountConsole(m)
	m.HandleFunc("/", s.observe("other", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "not_found", "no such endpoint", "")
	}))
	s.mux = m
}

// ready answers 200 when the store answers within two seconds.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := s.st.ListConnectors(ctx, "tributary/readyz"); err != nil {
		s.log.Warn("not ready", "err", err)
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "store": "unreachable"})
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}

// reqInfo is what the log line and the metrics of one request say.
type reqInfo struct {
	id                              string
	client, connector, kind, action string
	errType                         string
}

type infoKey struct{}

// info returns the request's reqInfo (a throwaway one outside observe).
func info(r *http.Request) *reqInfo {
	if ri, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// requestIDRE is the shape of a request id a caller may pass in
// X-Request-Id; anything else is replaced.
var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// statusWriter records the status a handler wrote and the bytes of the
// body it wrote (what the request's log line says).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe gives a request its id, a log line and its metrics.
func (s *Server) observe(endpoint string, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: r.Header.Get("X-Request-Id")}
		if !requestIDRE.MatchString(ri.id) {
			ri.id = randomID(8)
		}
		w.Header().Set("X-Request-Id", ri.id)
		sw := &statusWriter{ResponseWriter: w}
		s.metrics.inflight.Inc()
		defer func() {
			s.metrics.inflight.Dec()
			if sw.status == 0 {
				sw.status = http.StatusInternalServerError // a panic or an aborted download
			}
			outcome := "success"
			if sw.status >= 400 {
				outcome = ri.errType
				if outcome == "" {
					outcome = "error"
				}
			}
			kind := ri.kind
			if kind == "" {
				kind = "none"
			}
			if _, ok := s.kindLabel[kind]; !ok {
				kind = "other"
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(endpoint, kind, outcome).Inc()
			s.metrics.duration.WithLabelValues(endpoint, kind).Observe(d.Seconds())
			s.log.LogAttrs(r.Context(), levelFor(sw.status), "request",
				slog.String("request_id", ri.id), slog.String("method", r.Method), slog.String("endpoint", endpoint),
				slog.String("client", ri.client), slog.String("connector", ri.connector), slog.String("kind", ri.kind),
				slog.String("action", ri.action), slog.Int("status", sw.status), slog.String("error", ri.errType),
				slog.Int64("bytes", sw.bytes), slog.Float64("duration_ms", durationMS(d)))
		}()
		h(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, ri)))
	}
}

// durationMS is d in milliseconds, to the microsecond: what a log line
// says of a duration (a JSON handler would print a time.Duration in
// nanoseconds).
func durationMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// metrics are the service's Prometheus metrics.
type metrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	inflight  prometheus.Gauge
	throttled *prometheus.CounterVec
	vendorReq *prometheus.CounterVec
	syncs     *prometheus.CounterVec
	syncRecs  *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry, s *Server) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_requests_total",
			Help: "Requests answered, by endpoint, connector kind and outcome (success or the error type)."}, []string{"endpoint", "kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tributary_request_duration_seconds",
			Help: "Time to answer a request, by endpoint and connector kind.", Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14)}, []string{"endpoint", "kind"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tributary_requests_in_flight", Help: "Requests being answered."}),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_vendor_throttled_total",
			Help: "Answers of the vendors that asked to slow down (429 or the vendor's own), by kind, from executes and syncs."}, []string{"kind"}),
		vendorReq: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_vendor_requests_total",
			Help: "Requests sent to the vendors, retries included, by kind, from executes and syncs."}, []string{"kind"}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_syncs_total",
			Help: "Synchronizations of a copy run by this process, by kind and outcome."}, []string{"kind", "outcome"}),
		syncRecs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_sync_records_total",
			Help: "Records written by this process's synchronizations, by kind and change (inserted, updated, deleted)."}, []string{"kind", "change"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inflight, m.throttled, m.vendorReq, m.syncs, m.syncRecs,
		&freshnessCollector{s: s}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// vendor counts what an operation cost at the vendor.
func (m *metrics) vendor(kind string, u tributary.Usage) {
	if u.Requests > 0 {
		m.vendorReq.WithLabelValues(kind).Add(float64(u.Requests))
	}
	if u.Throttled > 0 {
		m.throttled.WithLabelValues(kind).Add(float64(u.Throttled))
	}
}

// synced counts one synchronization of a copy (the workers' report hook).
func (s *Server) synced(connector string, rep replica.EntityReport, err error) {
	m := s.metrics
	kind := "other"
	s.mu.Lock()
	if l, ok := s.conns[connector]; ok {
		kind = l.row.Kind
	}
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("sync failed", "connector", connector, "entity", rep.Entity, "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if errors.Is(err, errNoConnector) || s.gone(ctx, connector) {
		// The connector was deleted while this copy was held (the sync
		// failed for it, or ended otherwise): the copy goes now that its
		// claim is released.
		if _, derr := s.st.Drop(ctx, connector, rep.Entity); derr != nil && !errors.Is(derr, store.ErrNotSynced) {
			s.log.Warn("a deleted connector's copy is kept", "connector", connector, "entity", rep.Entity, "err", derr)
		} else if derr == nil {
			_ = s.st.Scrub(ctx)
		}
	}
	outcome := "success"
	if err != nil {
		outcome = "error"
	}
	m.syncs.WithLabelValues(kind, outcome).Inc()
	m.syncRecs.WithLabelValues(kind, "inserted").Add(float64(rep.Inserted))
	m.syncRecs.WithLabelValues(kind, "updated").Add(float64(rep.Updated))
	m.syncRecs.WithLabelValues(kind, "deleted").Add(float64(rep.Deleted))
	m.vendor(kind, rep.Usage)
}

// gone reports whether connector id is no longer in the store (deleted,
// by this process or another).
func (s *Server) gone(ctx context.Context, id string) bool {
	_, err := s.st.Connector(ctx, id)
	return errors.Is(err, store.ErrNotFound)
}

// freshnessCollector reports, at each scrape, how current the store's
// copies are (synchronized by any process, so every process of one store
// reports the same): the copies by state, the failing ones, and their
// staleness as a histogram, from one statement over the copies' rows
// (store.CopiesFreshness); and, while the store holds at most
// perCopySeriesMax copies, one lag and one failing series a copy. A
// fleet's 100,000 copies would be 200,000 series a scrape from each
// process: there the aggregates say what to alert on, and the console and
// the status endpoint say which copy.
type freshnessCollector struct{ s *Server }

// perCopySeriesMax is the most copies a store may hold for /metrics to
// give a series of each.
const perCopySeriesMax = 1000

var (
	lagDesc = prometheus.NewDesc("tributary_sync_lag_seconds",
		"Seconds since each copy was last synchronized (by any process), by connector and entity; copies never synchronized are absent. Only while the store holds at most 1,000 copies (tributary_copy_staleness_seconds always).",
		[]string{"connector", "entity"}, nil)
	copiesDesc = prometheus.NewDesc("tributary_copies",
		"The store's copies (every process reports the same) by state: never_synchronized; fresh (synchronized within the sync interval); due (last synchronized one to two intervals ago); overdue (more than two intervals ago: alert on it). Without a background sync (a negative interval), every synchronized copy is fresh.",
		[]string{"state"}, nil)
	failingCountDesc = prometheus.NewDesc("tributary_copies_failing",
		"The store's copies whose last synchronization failed (every process reports the same).", nil, nil)
	stalenessDesc = prometheus.NewDesc("tributary_copy_staleness_seconds",
		"Seconds since each copy's last synchronization ended, over the store's copies synchronized at least once (every process reports the same).", nil, nil)
)

// stalenessBounds are the histogram's buckets.
var stalenessBounds = []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
	10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 24 * time.Hour}

func (c *freshnessCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{lagDesc, failingDesc, copiesDesc, failingCountDesc, stalenessDesc} {
		ch <- d
	}
}

func (c *freshnessCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	interval := c.s.cfg.SyncEvery
	f, err := c.s.st.CopiesFreshness(ctx, max(interval, 0), stalenessBounds)
	if err != nil {
		c.s.log.Warn("metrics: reading the copies", "err", err)
		return
	}
	due, overdue := f.Due-f.Overdue, f.Overdue
	if interval < 0 {
		due, overdue = 0, 0
	}
	for state, n := range map[string]int64{"never_synchronized": f.Never, "fresh": f.Copies - f.Never - due - overdue, "due": due, "overdue": overdue} {
		ch <- prometheus.MustNewConstMetric(copiesDesc, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(failingCountDesc, prometheus.GaugeValue, float64(f.Failing))
	buckets := make(map[float64]uint64, len(stalenessBounds))
	for i, b := range stalenessBounds {
		buckets[b.Seconds()] = uint64(f.Buckets[i])
	}
	ch <- prometheus.MustNewConstHistogram(stalenessDesc, uint64(f.Copies-f.Never), f.SumSeconds, buckets)
	if f.Copies > perCopySeriesMax {
		return
	}
	copies, err := c.s.st.Copies(ctx)
	if err != nil {
		c.s.log.Warn("metrics: reading the copies", "err", err)
		return
	}
	now := time.Now()
	for _, e := range copies {
		if !e.SyncedAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, now.Sub(e.SyncedAt).Seconds(), e.Connector, e.Entity)
		}
		v, class := 0.0, ""
		if e.Failure != nil {
			v, class = 1, string(e.Failure.Class)
		}
		ch <- prometheus.MustNewConstMetric(failingDesc, prometheus.GaugeValue, v, e.Connector, e.Entity, class)
	}
}

func levelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
