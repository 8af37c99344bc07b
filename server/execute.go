package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// execute is the execute endpoint of connector id.
func (s *Server) execute(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info(r).connector = id
	sc, _ := scopeOf(r.Context())
	var req tributary.Request
	if !s.decode(w, r, &req) {
		return
	}
	l, err := s.connector(r.Context(), sc, id)
	if errors.Is(err, errNoConnector) {
		s.fail(w, r, http.StatusNotFound, "not_found", "no connector "+strconv.Quote(id), "")
		return
	}
	if err != nil {
		s.storeFailed(w, r, "execute", err)
		return
	}
	info(r).kind, info(r).action = l.row.Kind, string(req.Action)
	// Every answer names the connector's kind, so that a client that
	// took it for another can say so (hosted.Connector does).
	w.Header().Set(hosted.ConnectorTypeHeader, l.row.Kind)
	s.used(id)
	if req.Action == tributary.ActionDownload && !s.rangeParam(w, r, l.conn, &req) {
		return
	}
	start := time.Now()
	var conn = l.conn
	if req.Action == tributary.ActionSearch {
		rep, err := s.replicaOf(r.Context(), l)
		if err != nil {
			s.storeFailed(w, r, "search", err)
			return
		}
		conn = searching{Connector: l.conn, Searcher: &syncingSearcher{s: s, l: l, rep: rep}}
	}
	u0 := usageOf(l.conn)
	res, err := tributary.Execute(r.Context(), conn, req)
	s.metrics.vendor(l.row.Kind, usageOf(l.conn).Sub(u0))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	if res.Download != nil {
		s.stream(w, r, res)
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
	s.writeJSON(w, http.StatusOK, map[string]any{
		"status": "success", "result": result, "connector_metadata": meta,
		"execution_metadata": map[string]any{"connector_instance_id": id, "request_id": info(r).id,
			"execution_time_ms": time.Since(start).Milliseconds()},
	})
}

func usageOf(c tributary.Connector) tributary.Usage {
	if m, ok := c.(tributary.Metered); ok {
		return m.Usage()
	}
	return tributary.Usage{}
}

// searching adds a Searcher to a connector.
type searching struct {
	tributary.Connector
	tributary.Searcher
}

// replicaOf returns the durable replica of a connector, over the server's
// store, opened once.
func (s *Server) replicaOf(ctx context.Context, l *live) (*replica.Replica, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.rep == nil && l.repErr == nil {
		l.rep, l.repErr = replica.Open(ctx, l.conn, replica.Store(s.st), l.replicaOptions()...)
	}
	return l.rep, l.repErr
}

// syncingSearcher answers search from the store; an entity never
// synchronized is synchronized first, under the store's claim so that one
// process does it while the others wait for it.
type syncingSearcher struct {
	s   *Server
	l   *live
	rep *replica.Replica
}

// syncPoll is how long a search waits for another process's first
// synchronization of the entity before it polls again.
const syncPoll = 200 * time.Millisecond

// maxSyncWaits bounds how often a search synchronizes, or waits for
// another process to, before it answers that the entity is not
// synchronized (a minute of waiting at syncPoll).
const maxSyncWaits = 300

// Search implements tributary.Searcher.
func (ss *syncingSearcher) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := ss.rep.Search(ctx, entity, q)
		if err == nil || !errors.Is(err, store.ErrNotSynced) || attempt == maxSyncWaits {
			return res, err
		}
		if err := ss.s.syncNow(ctx, ss.l, ss.rep, entity); err != nil {
			return nil, err
		}
	}
}

// syncNow synchronizes an entity that has no copy yet: under its claim
// when this process gets it, or by waiting for the process that holds it.
func (s *Server) syncNow(ctx context.Context, l *live, rep *replica.Replica, entity string) error {
	key := l.row.ID + "/" + entity
	s.syncMu.Lock()
	if ch, ok := s.syncing[key]; ok { // this process is at it already
		s.syncMu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ch := make(chan struct{})
	s.syncing[key] = ch
	s.syncMu.Unlock()
	defer func() {
		s.syncMu.Lock()
		delete(s.syncing, key)
		s.syncMu.Unlock()
		close(ch)
	}()
	c, err := s.st.Claim(ctx, l.row.ID, entity, s.owner+"/search", s.cfg.LeaseTTL)
	if errors.Is(err, store.ErrLeaseHeld) {
		t := time.NewTimer(syncPoll)
		defer t.Stop()
		select {
		case <-t.C:
			return nil // the caller searches again
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return err
	}
	defer c.Release(context.WithoutCancel(ctx))
	// The sync.completed event, as a background sync writes it (the
	// console's history and the webhooks see on-demand syncs too).
	rp, err := rep.SyncClaimed(ctx, c, s.syncEventOptions(l.row.ID, entity)...)
	s.synced(l.row.ID, rp, err)
	if err == nil {
		// A failure the background sync recorded is over.
		if cerr := s.st.ClearFailure(context.WithoutCancel(ctx), l.row.ID, entity); cerr != nil {
			s.log.Warn("clearing a copy's failure", "connector", l.row.ID, "entity", entity, "err", cerr)
		}
	}
	return err
}

// rangeParam carries a download's HTTP Range header into
// params.range_header, which means the same; it answers 416 itself for a
// Range it cannot serve, and 400 for a Range and a range_header that
// differ, and reports false. An entity whose download takes no range
// ignores the header (RFC 9110 allows it): the answer is the whole file.
func (s *Server) rangeParam(w http.ResponseWriter, r *http.Request, conn tributary.Connector, req *tributary.Request) bool {
	h := r.Header.Get("Range")
	if h == "" || !takesRange(conn, req.Entity) {
		return true
	}
	if _, err := download.ParseRange(h); err != nil {
		s.fail(w, r, http.StatusRequestedRangeNotSatisfiable, "invalid_params", "the Range header: "+err.Error(), "range_header")
		return false
	}
	if v, ok := req.Params["range_header"]; ok && v != h {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", fmt.Sprintf("the Range header %q and params.range_header %v differ: give the range once", h, v), "range_header")
		return false
	}
	p := req.Params.Clone()
	if p == nil {
		p = tributary.Params{}
	}
	p["range_header"] = h
	req.Params = p
	return true
}

// takesRange reports whether the download of entity takes range_header.
func takesRange(conn tributary.Connector, entity string) bool {
	for _, e := range conn.Entities() {
		if e.Name == entity {
			_, ok := e.Param(tributary.ActionDownload, "range_header")
			return ok
		}
	}
	return false
}

// stream answers a download: the file's bytes as they come, with the
// range and validator the source gave.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, res *tributary.Result) {
	st := res.Download
	defer st.Close()
	if ir := r.Header.Get("If-Range"); ir != "" && st.Validator != "" && ir != st.Validator {
		s.fail(w, r, http.StatusPreconditionFailed, "unexpected_response", "the file changed since the validator "+strconv.Quote(ir), "")
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
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(WriteStall))
	w.WriteHeader(status)
	buf := make([]byte, 64<<10)
	for {
		n, err := st.Read(buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(WriteStall))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				// The status is sent: cut the response so the client sees a
				// short body, not a whole one.
				s.log.Warn("download cut", "request_id", info(r).id, "err", err)
				panic(http.ErrAbortHandler)
			}
			return
		}
	}
}

// decode reads a JSON body of at most Config.MaxBody bytes into v, with
// numbers kept exact; it answers 400 or 413 itself and reports false.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		s.fail(w, r, http.StatusUnsupportedMediaType, "invalid_params", "the body must be application/json", "")
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		s.fail(w, r, http.StatusRequestEntityTooLarge, "invalid_params", fmt.Sprintf("the body is larger than %d bytes", s.cfg.MaxBody), "")
		return false
	}
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "the body could not be read", "")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "the body is not the expected JSON object: "+jsonProblem(err), "")
		return false
	}
	if dec.More() {
		s.fail(w, r, http.StatusBadRequest, "invalid_params", "the body has data after its JSON object", "")
		return false
	}
	return true
}

// jsonProblem describes a decoding error without echoing the body.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "a syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		return "field " + strconv.Quote(te.Field) + " has the wrong type"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	case errors.Is(err, io.EOF):
		return "the body is empty"
	}
	return "malformed JSON"
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"status":"error","error":{"type":"server_error","message":"encoding failed","status":500,"request_id":"","retryable":false}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	// The client has WriteStall to read the answer, however long the
	// vendor took to give it.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(WriteStall))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// apiError is the one error envelope of every failed request, under
// {"status": "error", "error": ...} (docs/service-errors.md): what went
// wrong and this answer's status and request id, always; the parameter,
// the wait and what the vendor said, when there is one.
type apiError struct {
	// Type names the error ("invalid_params", "not_found", ...), as
	// package hosted reads it back into a sentinel.
	Type    string `json:"type"`
	Message string `json:"message"`
	// Status is the HTTP status of this answer.
	Status int `json:"status"`
	// RequestID is the service's id of this request (X-Request-Id).
	RequestID string `json:"request_id"`
	// Retryable says whether the same request may succeed later.
	Retryable bool `json:"retryable"`
	// Param names the offending parameter of a validation error.
	Param string `json:"param,omitempty"`
	// Code is the vendor's own error code.
	Code string `json:"code,omitempty"`
	// RetryAfterSeconds is how long to wait before trying again, when
	// known.
	RetryAfterSeconds float64 `json:"retry_after_seconds,omitempty"`
	// SourceStatus and SourceRequestID are the HTTP status and request
	// id of the vendor's answer, when the vendor answered.
	SourceStatus    int    `json:"source_status,omitempty"`
	SourceRequestID string `json:"source_request_id,omitempty"`
}

// writeError answers with the error envelope; it is the only writer of
// error answers.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, status int, e apiError) {
	info(r).errType = e.Type
	e.Status, e.RequestID = status, info(r).id
	s.writeJSON(w, status, map[string]any{"status": "error", "error": e})
}

// fail answers with an error of the service's own (no vendor involved).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, typ, msg, param string) {
	s.writeError(w, r, status, apiError{Type: typ, Message: msg, Param: param,
		Retryable: status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout})
}

// failErr answers with the error of an operation, in the shape package
// hosted reads back into the same *tributary.Error.
func (s *Server) failErr(w http.ResponseWriter, r *http.Request, err error) {
	var te *tributary.Error
	if !errors.As(err, &te) {
		s.log.Error("operation failed", "request_id", info(r).id, "err", err)
		s.fail(w, r, http.StatusInternalServerError, "server_error", "internal error", "")
		return
	}
	status := te.StatusCode
	if status < 400 {
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			status = http.StatusGatewayTimeout
		case errors.Is(err, tributary.ErrUnauthorized):
			status = http.StatusUnauthorized
		case errors.Is(err, tributary.ErrServer), errors.Is(err, tributary.ErrUnreachable), errors.Is(err, tributary.ErrUnexpectedResponse), errors.Is(err, tributary.ErrPaging):
			status = http.StatusBadGateway
		default:
			status = http.StatusBadRequest
		}
	}
	if status == http.StatusUnauthorized {
		// The source rejected the stored credentials: not the caller's token.
		status = http.StatusFailedDependency
	}
	s.writeError(w, r, status, apiError{Type: hosted.ErrorType(err), Message: te.Message, Param: te.Param, Code: te.Code,
		Retryable: te.Retryable, RetryAfterSeconds: te.RetryAfter.Seconds(), SourceStatus: te.StatusCode, SourceRequestID: te.RequestID})
}

// storeFailed answers a failure of the store or of the credentials: 503,
// with the details in the log only.
func (s *Server) storeFailed(w http.ResponseWriter, r *http.Request, op string, err error) {
	var te *tributary.Error
	if errors.As(err, &te) {
		s.failErr(w, r, err)
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		s.fail(w, r, http.StatusGatewayTimeout, "server_error", op+" cancelled", "")
		return
	}
	if errors.Is(err, errSealed) {
		s.log.Error(op+" failed", "request_id", info(r).id, "connector", info(r).connector, "err", err)
		s.fail(w, r, http.StatusInternalServerError, "server_error", errSealed.Error(), "")
		return
	}
	s.log.Error(op+" failed", "request_id", info(r).id, "connector", info(r).connector, "err", err)
	s.fail(w, r, http.StatusServiceUnavailable, "server_error", op+" failed; the service's storage is unavailable", "")
}
