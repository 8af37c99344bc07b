package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// Webhook is one webhook endpoint of an API client: the service POSTs the
// client's events there, signed per Standard Webhooks with Secret.
type Webhook struct {
	// URL receives the events (http or https; redirects are not
	// followed).
	URL string
	// Secret signs the requests: "whsec_" and the base64 of 24 to 64
	// random bytes (webhook.NewSecret makes one).
	Secret string
	// Events are the event types to send ("sync.*" for every sync event);
	// empty: every type.
	Events []string
	// ChangesOnly sends sync.completed only for the syncs that inserted,
	// updated or deleted a record; default: for every sync, no-op ones
	// included.
	ChangesOnly bool
}

// Format prints the webhook without its secret.
func (w Webhook) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "server.Webhook{URL: %q, Events: %q, ChangesOnly: %v, Secret: [REDACTED]}", webhook.Endpoint{URL: w.URL}.String(), w.Events, w.ChangesOnly)
}

// DeliveryConfig tunes the delivery of webhooks; its zero value takes
// package webhook's defaults (retries for 24 hours, back-off from 5
// seconds to an hour, 10-second requests).
type DeliveryConfig struct {
	// RetryFor is how long a delivery is tried before it is marked failed.
	RetryFor time.Duration
	// Backoff and MaxBackoff bound the back-off between attempts.
	Backoff, MaxBackoff time.Duration
	// Timeout bounds one request.
	Timeout time.Duration
	// Poll is how often the deliverer looks for deliveries that other
	// processes' events made due.
	Poll time.Duration
	// Transport sends the requests (tests, or serve --sandbox's endpoint
	// that the command receives in-process); nil: package webhook's.
	Transport http.RoundTripper
}

// endpoints returns the webhook endpoints of every client.
func endpointsOf(clients []Client) ([]webhook.Endpoint, error) {
	var out []webhook.Endpoint
	for _, c := range clients {
		for _, w := range c.Webhooks {
			e := webhook.Endpoint{Tenant: c.ID, URL: w.URL, Secret: w.Secret, Events: w.Events, ChangesOnly: w.ChangesOnly}
			if err := e.Check(); err != nil {
				return nil, fmt.Errorf("client %q: %w", c.ID, err)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// newEvent builds an event of type typ about connector of tenant; it goes
// to the tenant's endpoints that want it.
func (s *Server) newEvent(typ, tenant, connector string, data map[string]any) (*store.Event, error) {
	return webhook.NewEvent(typ, tenant, connector, time.Now(), data, s.endpoints)
}

// emitted wakes this process's deliverer after an event committed.
func (s *Server) emitted() {
	if s.deliverer != nil {
		s.deliverer.Notify()
	}
}

// tenantOf returns the tenant of connector id (from the connectors this
// process holds, else the store).
func (s *Server) tenantOf(ctx context.Context, id string) (string, error) {
	s.mu.Lock()
	l, ok := s.conns[id]
	s.mu.Unlock()
	if ok {
		return l.row.Tenant, nil
	}
	row, err := s.st.Connector(ctx, id)
	if err != nil {
		return "", err
	}
	return row.Tenant, nil
}

// syncEventOptions are the load options of a claimed sync: its
// sync.completed event, written with its last transaction.
func (s *Server) syncEventOptions(connector, entity string) []store.LoadOption {
	return []store.LoadOption{store.WithEvent(func(done store.SyncDone) (*store.Event, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tenant, err := s.tenantOf(ctx, connector)
		if err != nil {
			return nil, err
		}
		mode := "incremental"
		if done.Full {
			mode = "full"
		}
		// cursor: the copy's change feed after the sync, read in the
		// sync's own transaction (GET …/changes?cursor= from a reader's
		// last cursor reads what changed).
		data := map[string]any{"connector_id": connector, "entity": entity, "mode": mode,
			"inserted": done.Counts.Inserted, "updated": done.Counts.Updated, "deleted": done.Counts.Deleted, "cursor": done.Cursor}
		changed := done.Counts.Inserted+done.Counts.Updated+done.Counts.Deleted > 0
		return webhook.NewSyncCompleted(tenant, connector, time.Now(), data, changed, s.endpoints)
	})}
}

// syncFailedEvents are the events of a claimed sync's failure: sync.failed,
// written with the failure's record.
func (s *Server) syncFailedEvents(connector, entity string, err error) []store.EventOption {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tenant, terr := s.tenantOf(ctx, connector)
	if terr != nil {
		s.log.Warn("webhooks: no sync.failed event: the connector's tenant is unknown", "connector", connector, "err", terr)
		return nil
	}
	ev, eerr := s.newEvent(webhook.SyncFailed, tenant, connector, map[string]any{"connector_id": connector, "entity": entity,
		"class": string(replica.FailureClass(err)), "error": err.Error()})
	if eerr != nil {
		s.log.Warn("webhooks: no sync.failed event", "connector", connector, "err", eerr)
		return nil
	}
	return []store.EventOption{store.Emit(ev)}
}

// deliveryMetrics are the webhook metrics.
type deliveryMetrics struct {
	delivered *prometheus.CounterVec
	retried   *prometheus.CounterVec
	failed    *prometheus.CounterVec
	latency   prometheus.Histogram
}

func newDeliveryMetrics(reg *prometheus.Registry, s *Server) (*deliveryMetrics, error) {
	m := &deliveryMetrics{
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_webhook_delivered_total",
			Help: "Webhook deliveries an endpoint answered 2xx, by this process, by client and endpoint id."}, []string{"client", "endpoint"}),
		retried: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_webhook_retried_total",
			Help: "Failed webhook attempts to be tried again after a back-off, by client and endpoint id."}, []string{"client", "endpoint"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tributary_webhook_failed_total",
			Help: "Webhook deliveries given up after their retries' window, by client and endpoint id."}, []string{"client", "endpoint"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tributary_webhook_delivery_latency_seconds",
			Help: "Time from an event's commit to its endpoint's 2xx.", Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 14)}),
	}
	for _, c := range []prometheus.Collector{m.delivered, m.retried, m.failed, m.latency, &endpointCollector{s: s}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe counts one attempt.
func (m *deliveryMetrics) observe(o webhook.Outcome) {
	switch o.State {
	case store.DeliveryDelivered:
		m.delivered.WithLabelValues(o.Tenant, o.Endpoint).Inc()
		m.latency.Observe(o.Latency.Seconds())
	case store.DeliveryFailed:
		m.failed.WithLabelValues(o.Tenant, o.Endpoint).Inc()
	default:
		m.retried.WithLabelValues(o.Tenant, o.Endpoint).Inc()
	}
}

// FailingAfter is how many failed attempts in a row make an endpoint
// failing (its status, tributary_webhook_endpoint_failing).
const FailingAfter = 3

// endpointCollector reports, at each scrape, every configured endpoint's
// pending deliveries and whether it is failing, from the store (every
// process's deliveries).
type endpointCollector struct{ s *Server }

var (
	pendingDesc = prometheus.NewDesc("tributary_webhook_pending",
		"Webhook deliveries not yet delivered nor given up, by client and endpoint id.", []string{"client", "endpoint"}, nil)
	endpointFailingDesc = prometheus.NewDesc("tributary_webhook_endpoint_failing",
		fmt.Sprintf("1 while an endpoint's last %d attempts or more failed in a row, else 0, by client and endpoint id.", FailingAfter), []string{"client", "endpoint"}, nil)
)

func (c *endpointCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- endpointFailingDesc
}

func (c *endpointCollector) Collect(ch chan<- prometheus.Metric) {
	if len(c.s.endpoints) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ids := make([]string, len(c.s.endpoints))
	for i, e := range c.s.endpoints {
		ids[i] = e.ID()
	}
	states, err := c.s.st.Endpoints(ctx, ids...)
	if err != nil {
		c.s.log.Warn("metrics: reading the webhook endpoints", "err", err)
		return
	}
	for i, st := range states {
		tenant := c.s.endpoints[i].Tenant
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(st.Pending), tenant, st.Endpoint)
		failing := 0.0
		if st.Failures >= FailingAfter {
			failing = 1
		}
		ch <- prometheus.MustNewConstMetric(endpointFailingDesc, prometheus.GaugeValue, failing, tenant, st.Endpoint)
	}
}

// endpointStatus is one endpoint in GET /v1/webhooks.
type endpointStatus struct {
	ID                  string     `json:"id"`
	URL                 string     `json:"url"`
	Events              []string   `json:"events"`
	ChangesOnly         bool       `json:"changes_only"`
	Status              string     `json:"status"` // healthy, failing
	Pending             int64      `json:"pending"`
	Delivered           int64      `json:"delivered"`
	Failed              int64      `json:"failed"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	LastStatus          int        `json:"last_status,omitempty"`
	LastError           string     `json:"last_error,omitempty"`
	LastFailureAt       *time.Time `json:"last_failure_at"`
	LastSuccessAt       *time.Time `json:"last_success_at"`
	RetryAt             *time.Time `json:"retry_at"`
	OldestPendingAt     *time.Time `json:"oldest_pending_at"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// clientEndpoints returns the endpoints of client.
func (s *Server) clientEndpoints(client string) []webhook.Endpoint {
	var out []webhook.Endpoint
	for _, e := range s.endpoints {
		if e.Tenant == client {
			out = append(out, e)
		}
	}
	return out
}

// webhooks is GET /v1/webhooks: the caller's endpoints and how their
// deliveries stand.
func (s *Server) webhooks(w http.ResponseWriter, r *http.Request) {
	sc, _ := scopeOf(r.Context())
	eps := s.clientEndpoints(sc.client)
	out := []endpointStatus{}
	if len(eps) > 0 {
		ids := make([]string, len(eps))
		for i, e := range eps {
			ids[i] = e.ID()
		}
		states, err := s.st.Endpoints(r.Context(), ids...)
		if err != nil {
			s.storeFailed(w, r, "webhooks", err)
			return
		}
		for i, st := range states {
			es := endpointStatus{ID: st.Endpoint, URL: eps[i].URL, Events: eps[i].Events, ChangesOnly: eps[i].ChangesOnly, Status: "healthy",
				Pending: st.Pending, Delivered: st.Delivered, Failed: st.Failed, ConsecutiveFailures: st.Failures,
				LastStatus: st.LastStatus, LastError: st.LastError, LastFailureAt: timePtr(st.FailedAt), LastSuccessAt: timePtr(st.SucceededAt),
				RetryAt: timePtr(st.RetryAt), OldestPendingAt: timePtr(st.OldestPending)}
			if es.Events == nil {
				es.Events = []string{}
			}
			if st.Failures >= FailingAfter {
				es.Status = "failing"
			}
			out = append(out, es)
		}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"endpoints": out})
}

// Replay makes new deliveries, to the endpoint of client whose URL or id
// is endpoint, of the client's events that r selects (one by id, or a
// time range); it returns how many. The events keep their ids, so a
// receiver that deduplicates by webhook-id drops those it had.
func (s *Server) Replay(ctx context.Context, client, endpoint string, r store.Replay) (int, error) {
	var ep *webhook.Endpoint
	for _, e := range s.clientEndpoints(client) {
		if e.URL == endpoint || e.ID() == endpoint {
			ep = &e
			break
		}
	}
	if ep == nil {
		return 0, fmt.Errorf("%w: client %q has no webhook endpoint %q", errNoEndpoint, client, endpoint)
	}
	r.Tenant = client
	n, err := s.st.ReplayEvents(ctx, ep.ID(), r)
	if err == nil && n > 0 {
		s.emitted()
	}
	return n, err
}

// errNoEndpoint: the replay names no endpoint of the client.
var errNoEndpoint = errors.New("no such webhook endpoint")

// replay is POST /v1/webhooks/replay: {"endpoint": URL or id, "event_id"}
// or {"endpoint", "from", "to"} (RFC 3339; to defaults to now), optionally
// "types". A token limited to one external user may not replay.
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	sc, _ := scopeOf(r.Context())
	if sc.user != "" {
		s.fail(w, r, http.StatusForbidden, "forbidden", "a token limited to one external user may not replay events", "")
		return
	}
	var body struct {
		Endpoint string     `json:"endpoint"`
		EventID  string     `json:"event_id"`
		From     *time.Time `json:"from"`
		To       *time.Time `json:"to"`
		Types    []string   `json:"types"`
	}
	if !s.decode(w, r, &body) {
		return
	}
	bad := func(param, msg string) { s.fail(w, r, http.StatusBadRequest, "invalid_params", msg, param) }
	switch {
	case body.Endpoint == "":
		bad("endpoint", "endpoint (the URL or id of one of your webhook endpoints) is required")
		return
	case body.EventID == "" && body.From == nil:
		bad("event_id", "event_id, or from (and optionally to), is required")
		return
	case body.EventID != "" && (body.From != nil || body.To != nil):
		bad("event_id", "give event_id or a time range, not both")
		return
	}
	rp := store.Replay{EventID: body.EventID, Types: body.Types}
	if body.From != nil {
		rp.From = *body.From
	}
	if body.To != nil {
		rp.To = *body.To
	}
	n, err := s.Replay(r.Context(), sc.client, body.Endpoint, rp)
	switch {
	case errors.Is(err, errNoEndpoint):
		bad("endpoint", "no webhook endpoint of yours has this URL or id")
		return
	case errors.Is(err, store.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, "not_found", "no event of yours has this id", "event_id")
		return
	case errors.Is(err, store.ErrInvalid):
		bad("", err.Error())
		return
	case err != nil:
		s.storeFailed(w, r, "replay", err)
		return
	}
	s.writeJSON(w, http.StatusAccepted, map[string]any{"replayed": n})
}

// deleteConnector is DELETE on a connector: the connector and its sealed
// credentials are deleted, with a connector.deleted event in the same
// transaction; then its copies are dropped (one a synchronization holds
// goes when the synchronization ends) and, on SQLite, the log is
// checkpointed (Store.Scrub), so that neither the database file nor its
// log holds the sealed credentials or the copies' records any more.
func (s *Server) deleteConnector(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	row, ok := s.connectorOf(w, r, id, "delete")
	if !ok {
		return
	}
	info(r).kind = row.Kind
	ev, err := s.newEvent(webhook.ConnectorDeleted, row.Tenant, row.ID, map[string]any{"connector_id": row.ID, "connector_type": row.Kind,
		"external_user_id": row.ExternalUserID, "name": row.Name})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "server_error", "could not build the event", "")
		return
	}
	if err := s.st.DeleteConnector(r.Context(), id, store.Emit(ev)); errors.Is(err, store.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "not_found", "no connector "+id, "")
		return
	} else if err != nil {
		s.storeFailed(w, r, "delete", err)
		return
	}
	s.emitted()
	s.mu.Lock()
	delete(s.conns, id)
	s.mu.Unlock()
	s.forget(id)
	s.mcp.forgetTenant(row.Tenant)
	// Its copies go too, one at a time; one a sync holds at this moment
	// stays, and its next sync fails for good (no such connector: class
	// config, not retried).
	dropped := 0
	copies, derr := s.st.ConnectorCopies(r.Context(), id)
	for _, c := range copies {
		if _, err := s.st.Drop(r.Context(), id, c.Entity); err == nil {
			dropped++
		} else if !errors.Is(err, store.ErrNotSynced) && derr == nil {
			derr = err
		}
	}
	if derr != nil {
		s.log.Warn("connector deleted; some of its copies are kept", "request_id", info(r).id, "connector", id, "err", derr)
	}
	// SQLite: the write-ahead log still holds the deleted pages as they
	// were; a checkpoint leaves the zeros secure_delete wrote.
	if err := s.st.Scrub(r.Context()); err != nil {
		s.log.Warn("connector deleted; the store's log is not yet checkpointed", "request_id", info(r).id, "connector", id, "err", err)
	}
	s.log.Info("connector deleted", "request_id", info(r).id, "connector", id, "client", row.Tenant, "copies_dropped", dropped)
	w.WriteHeader(http.StatusNoContent)
}
