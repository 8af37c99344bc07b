package hosted_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/search"
)

// service is a hosted service that keeps the body of every execute call
// and answers each with result.
type service struct {
	mu     sync.Mutex
	bodies []string
	result string
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	result := s.result
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"success","result":`+result+`,"connector_metadata":{}}`)
}

func (s *service) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		return ""
	}
	return s.bodies[len(s.bodies)-1]
}

func hostedOn(t *testing.T, s *service) *hosted.Connector {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, Token: "hosted-token"}, fast)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector("conn_1", "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// Ids given as strings are sent to the service as the integers they
// spell, and search values compared with integer and boolean fields too.
func TestHostedSendsCanonicalValues(t *testing.T) {
	s := &service{result: `{"id":14328435003535}`}
	h := hostedOn(t, s)
	ctx := context.Background()
	if _, err := h.Get(ctx, "article_attachments", tributary.Params{"article_id": "7253394935055", "attachment_id": "014328435003535"}); err != nil {
		t.Fatal(err)
	}
	if want := `"params":{"article_id":7253394935055,"attachment_id":14328435003535}`; !strings.Contains(s.last(), want) {
		t.Errorf("sent %s, want %s", s.last(), want)
	}

	s.result = `{"hits":[],"next_cursor":null,"took_ms":0}`
	_, err := tributary.Execute(ctx, h, tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: tributary.Params{
		"query": map[string]any{"filter": map[string]any{"and": []any{
			map[string]any{"in": map[string]any{"id": []any{"35436", 7}}},
			map[string]any{"eq": map[string]any{"has_incidents": "false"}},
			map[string]any{"eq": map[string]any{"subject": "42"}},
		}}},
		"limit": "10",
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"in":{"id":[35436,7]}}`, `{"eq":{"has_incidents":false}}`, `{"eq":{"subject":"42"}}`, `"limit":10`} {
		if !strings.Contains(s.last(), want) {
			t.Errorf("sent %s, want it to carry %s", s.last(), want)
		}
	}
	// The typed request too.
	_, err = h.Search(ctx, "tickets", search.Request{Query: search.Query{Filter: search.Eq("id", "35436").Ptr()}})
	if err != nil || !strings.Contains(s.last(), `{"eq":{"id":35436}}`) {
		t.Errorf("typed search sent %s (%v)", s.last(), err)
	}
	// Anything else is refused locally.
	n := len(s.bodies)
	if _, err := h.Get(ctx, "article_attachments", tributary.Params{"article_id": "7253394935055x", "attachment_id": 1}); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("bad id: %v", err)
	}
	if len(s.bodies) != n {
		t.Error("an invalid operation was sent")
	}
}

// A result of another shape than a list says what arrived.
func TestHostedShapeErrors(t *testing.T) {
	s := &service{result: `{"ticket":{"id":1}}`}
	h := hostedOn(t, s)
	_, err := h.List(context.Background(), "tickets", nil)
	if !errors.Is(err, tributary.ErrUnexpectedResponse) || !strings.Contains(err.Error(), "the result: expected an array, got an object") {
		t.Errorf("list: %v", err)
	}
	s.result = `[{"id":1},{"id":2}]`
	_, err = h.Get(context.Background(), "tickets", tributary.Params{"ticket_id": 1})
	if !errors.Is(err, tributary.ErrUnexpectedResponse) || !strings.Contains(err.Error(), "the result: expected an object, got an array") {
		t.Errorf("get: %v", err)
	}
}
