// Package hostedtest is an in-process implementation of the hosted
// connector execution service, for tests and examples that must run
// offline: a token endpoint, connector creation (credentials kept in
// memory, never echoed back), operation execution through kinds.Open,
// usually against the kinds' own fakes, and the search action over a
// replica of each connector, synchronized on an entity's first search.
//
//	zd := zendesktest.New()
//	srv := hostedtest.New(hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL)))
//	c, _ := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID,
//		ClientSecret: hostedtest.DefaultClientSecret, ExternalUserID: "u1"})
//
// It answers at both path sets of package hosted (DefaultPaths and
// IntegrationsPaths).
package hostedtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
)

// The credentials the server accepts unless options say otherwise.
const (
	DefaultToken        = "HOSTED_TEST_TOKEN"
	DefaultClientID     = "hosted_test_client"
	DefaultClientSecret = "HOSTED_TEST_SECRET"
)

// Server is a running hosted service.
type Server struct {
	// URL is the service's base URL.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	cfg      config
	conns    map[string]*connector
	tokens   map[string]time.Time
	issued   int
	requests map[string]int
}

type connector struct {
	id, kind, user, name string
	conn                 tributary.Connector

	searchOnce sync.Once
	searcher   tributary.Searcher
	searchErr  error
}

type config struct {
	token            string
	clientID, secret string
	ttl              time.Duration
	connOpts         map[string][]tributary.Option
	searchers        func(kind string, c tributary.Connector) (tributary.Searcher, error)
}

// Option configures the server.
type Option func(*config)

// WithToken sets the static bearer token the server accepts.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithClient sets the client id and secret the token endpoint accepts.
func WithClient(id, secret string) Option {
	return func(c *config) { c.clientID, c.secret = id, secret }
}

// WithTokenTTL sets the lifetime of issued tokens (default one hour).
func WithTokenTTL(d time.Duration) Option { return func(c *config) { c.ttl = d } }

// WithConnectorOptions passes opts to kinds.Open for connectors of kind
// connectorType (for example tributary.WithBaseURL of that kind's fake).
func WithConnectorOptions(connectorType string, opts ...tributary.Option) Option {
	return func(c *config) { c.connOpts[connectorType] = append(c.connOpts[connectorType], opts...) }
}

// WithSearch replaces how the search action is served: fn returns the
// Searcher of a connector, once per connector. By default each connector
// gets a replica (package replica) that synchronizes an entity on its
// first search.
func WithSearch(fn func(connectorType string, c tributary.Connector) (tributary.Searcher, error)) Option {
	return func(c *config) { c.searchers = fn }
}

// New starts the service on loopback. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{token: DefaultToken, clientID: DefaultClientID, secret: DefaultClientSecret, ttl: time.Hour, connOpts: map[string][]tributary.Option{},
		searchers: func(_ string, c tributary.Connector) (tributary.Searcher, error) {
			return replica.New(c, replica.WithAutoSync()), nil
		}}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{cfg: cfg, conns: map[string]*connector{}, tokens: map[string]time.Time{}, requests: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns how many requests each endpoint ("token", "create",
// "execute") received.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

func (s *Server) count(endpoint string) {
	s.mu.Lock()
	s.requests[endpoint]++
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_params", "use POST", "")
		return
	}
	p := r.URL.Path
	switch {
	case p == hosted.DefaultPaths.Token || p == hosted.IntegrationsPaths.Token:
		s.count("token")
		s.token(w, r)
	case p == hosted.DefaultPaths.Create || p == hosted.IntegrationsPaths.Create || p == "/integrations/connectors":
		s.count("create")
		if s.authorized(w, r) {
			s.create(w, r)
		}
	case strings.HasSuffix(p, "/execute") && (strings.HasPrefix(p, "/api/v1/connectors/sources/") || strings.HasPrefix(p, "/api/v1/integrations/connectors/")):
		s.count("execute")
		id := p[strings.LastIndex(strings.TrimSuffix(p, "/execute"), "/")+1 : len(p)-len("/execute")]
		if s.authorized(w, r) {
			s.execute(w, r, id)
		}
	default:
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint", "")
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_params", "body must be JSON", "")
		return
	}
	if body.ClientID != s.cfg.clientID || body.ClientSecret != s.cfg.secret {
		writeError(w, http.StatusUnauthorized, "unauthorized", "invalid client credentials", "")
		return
	}
	s.mu.Lock()
	s.issued++
	tok := fmt.Sprintf("hosted-token-%d", s.issued)
	s.tokens[tok] = time.Now().Add(s.cfg.ttl)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(s.cfg.ttl / time.Second)})
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && tok != "" && tok == s.cfg.token {
		return true
	}
	s.mu.Lock()
	exp, known := s.tokens[tok]
	s.mu.Unlock()
	if ok && known && time.Now().Before(exp) {
		return true
	}
	writeError(w, http.StatusUnauthorized, "unauthorized", "missing, unknown or expired token", "")
	return false
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ExternalUserID    string         `json:"external_user_id"`
		ConnectorType     string         `json:"connector_type"`
		Name              string         `json:"name"`
		Credentials       map[string]any `json:"credentials"`
		ReplicationConfig map[string]any `json:"replication_config"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_params", "body must be JSON", "")
		return
	}
	if body.ExternalUserID == "" {
		writeError(w, http.StatusBadRequest, "invalid_params", "external_user_id is required", "external_user_id")
		return
	}
	if err := kinds.CheckReplicationConfig(body.ConnectorType, body.ReplicationConfig); err != nil {
		writeErr(w, err)
		return
	}
	conn, err := kinds.Open(body.ConnectorType, body.Credentials, s.cfg.connOpts[body.ConnectorType]...)
	if err != nil {
		writeErr(w, err)
		return
	}
	s.mu.Lock()
	id := fmt.Sprintf("conn_%04d", len(s.conns)+1)
	s.conns[id] = &connector{id: id, kind: body.ConnectorType, user: body.ExternalUserID, name: body.Name, conn: conn}
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "connector_type": body.ConnectorType, "name": body.Name, "external_user_id": body.ExternalUserID})
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	c, ok := s.conns[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no connector "+id, "")
		return
	}
	var req tributary.Request
	dec := json.NewDecoder(io.LimitReader(r.Body, 8<<20))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_params", "body must be {entity, action, params}", "")
		return
	}
	start := time.Now()
	var conn tributary.Connector = c.conn
	if req.Action == tributary.ActionSearch && s.cfg.searchers != nil {
		c.searchOnce.Do(func() { c.searcher, c.searchErr = s.cfg.searchers(c.kind, c.conn) })
		if c.searchErr != nil {
			writeErr(w, c.searchErr)
			return
		}
		conn = searching{Connector: c.conn, Searcher: c.searcher}
	}
	res, err := tributary.Execute(r.Context(), conn, req)
	if err != nil {
		writeErr(w, err)
		return
	}
	if res.Download != nil {
		streamDownload(w, r, res)
		return
	}
	var result any
	switch {
	case res.Search != nil:
		result = res.Search
	case req.Action == tributary.ActionGet && len(res.Records) == 1:
		result = res.Records[0]
	default:
		recs := res.Records
		if recs == nil {
			recs = []tributary.Record{}
		}
		result = recs
	}
	meta := res.Meta
	if meta == nil {
		meta = map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "success", "result": result, "connector_metadata": meta,
		"execution_metadata": map[string]any{"connector_instance_id": c.id, "execution_time_ms": time.Since(start).Milliseconds()},
	})
}

// searching adds a Searcher to a connector.
type searching struct {
	tributary.Connector
	tributary.Searcher
}

func streamDownload(w http.ResponseWriter, r *http.Request, res *tributary.Result) {
	st := res.Download
	defer st.Close()
	if ir := r.Header.Get("If-Range"); ir != "" && st.Validator != "" && ir != st.Validator {
		writeError(w, http.StatusPreconditionFailed, "unexpected_response", "the file changed since the validator "+ir, "")
		return
	}
	if st.ContentType != "" {
		w.Header().Set("Content-Type", st.ContentType)
	}
	if st.Validator != "" {
		w.Header().Set("ETag", st.Validator)
	}
	status := http.StatusOK
	if st.Range != nil {
		size := "*"
		if st.Range.Size >= 0 {
			size = strconv.FormatInt(st.Range.Size, 10)
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%s", st.Range.First, st.Range.Last, size))
		w.Header().Set("Content-Length", strconv.FormatInt(st.Range.Last-st.Range.First+1, 10))
		status = http.StatusPartialContent
	} else if st.Size >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(st.Size, 10))
	}
	w.WriteHeader(status)
	_, _ = io.Copy(w, st)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"status":"error","error":{"type":"server_error","message":"encoding failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, typ, msg, param string) {
	writeJSON(w, status, map[string]any{"status": "error", "error": map[string]any{"type": typ, "message": msg, "param": param, "status": status}})
}

// writeErr answers with the error of an operation, in the shape package
// hosted reads back into the same *tributary.Error.
func writeErr(w http.ResponseWriter, err error) {
	var te *tributary.Error
	if !errors.As(err, &te) {
		writeError(w, http.StatusInternalServerError, "server_error", "internal error", "")
		return
	}
	status := te.StatusCode
	if status < 400 {
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			status = http.StatusGatewayTimeout
		case errors.Is(err, tributary.ErrUnauthorized):
			status = http.StatusUnauthorized
		case errors.Is(err, tributary.ErrServer), errors.Is(err, tributary.ErrUnexpectedResponse), errors.Is(err, tributary.ErrPaging):
			status = http.StatusBadGateway
		default:
			status = http.StatusBadRequest
		}
	}
	if status == http.StatusUnauthorized {
		// The source rejected the stored credentials: not the caller's token.
		status = http.StatusFailedDependency
	}
	body := map[string]any{"type": hosted.ErrorType(err), "message": te.Message, "code": te.Code, "param": te.Param,
		"request_id": te.RequestID, "status": te.StatusCode, "retry_after_seconds": te.RetryAfter.Seconds()}
	writeJSON(w, status, map[string]any{"status": "error", "error": body})
}
