package hosted_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// faultyService stands in front of a hostedtest service: requests to the
// endpoints named in its faults get the fault, the others pass through.
type faultyService struct {
	*httptest.Server
	mu     sync.Mutex
	faults map[string]string // "token"/"execute" → "hang", "stall", "endless"
	first  int               // how many of the next requests to each faulty endpoint get the fault
	seen   map[string]int
	done   chan struct{}
}

func newFaultyService(t *testing.T, behind string) *faultyService {
	t.Helper()
	u, _ := url.Parse(behind)
	proxy := httputil.NewSingleHostReverseProxy(u)
	f := &faultyService{faults: map[string]string{}, seen: map[string]int{}, done: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoint := "create"
		switch {
		case strings.HasSuffix(r.URL.Path, "/token"):
			endpoint = "token"
		case strings.HasSuffix(r.URL.Path, "/execute"):
			endpoint = "execute"
		}
		f.mu.Lock()
		f.seen[endpoint]++
		fault := f.faults[endpoint]
		if fault != "" {
			if f.first <= 0 {
				fault = ""
			} else {
				f.first--
			}
		}
		f.mu.Unlock()
		wait := func() {
			select {
			case <-r.Context().Done():
			case <-f.done:
			}
		}
		switch fault {
		case "hang":
			wait()
		case "stall":
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			wait()
			panic(http.ErrAbortHandler)
		case "endless":
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"status":"success","result":[`))
			chunk := []byte(strings.Repeat(`{"id":1},`, 4096))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				select {
				case <-r.Context().Done():
					return
				case <-f.done:
					return
				default:
				}
			}
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(func() {
		close(f.done)
		f.CloseClientConnections()
		f.Close()
	})
	return f
}

func (f *faultyService) set(endpoint, fault string, first int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = map[string]string{endpoint: fault}
	f.first = first
	f.seen = map[string]int{}
}

func (f *faultyService) count(endpoint string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[endpoint]
}

func faultyWorld(t *testing.T, opts ...tributary.Option) (*faultyService, *hosted.Client, tributary.Connector) {
	t.Helper()
	zd := zendesktest.New(zendesktest.WithTickets(250))
	t.Cleanup(zd.Close)
	srv := newService(t, hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL), fast))
	t.Cleanup(srv.Close)
	fs := newFaultyService(t, srv.URL)
	c, err := hosted.New(hosted.Config{BaseURL: fs.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
		ExternalUserID: "customer-42"}, append([]tributary.Option{fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector(id, "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	return fs, c, conn
}

func walkIDs(t *testing.T, c tributary.Connector) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ids []string
	for rec, err := range tributary.All(ctx, c, "tickets", tributary.Params{"per_page": 100}) {
		if err != nil {
			return ids, err
		}
		raw, _ := rec.Lookup("id")
		ids = append(ids, string(raw))
	}
	return ids, nil
}

// A hosted walk whose second execute call stalls halfway through its body
// retries that page and delivers every record once, in order.
func TestHostedStalledPageIsRetried(t *testing.T) {
	fs, _, conn := faultyWorld(t, tributary.WithTimeouts(tributary.Timeouts{Stall: 500 * time.Millisecond}))
	fs.set("execute", "", 0)
	want, err := walkIDs(t, conn)
	if err != nil || len(want) != 250 {
		t.Fatalf("fault-free walk: %d records, %v", len(want), err)
	}
	clean := fs.count("execute")

	fs.set("execute", "stall", 1)
	start := time.Now()
	got, err := walkIDs(t, conn)
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the walk delivered %d records, not the %d of the fault-free walk in order", len(got), len(want))
	}
	if n := fs.count("execute"); n != clean+1 {
		t.Errorf("the service saw %d execute calls, want %d", n, clean+1)
	}
	if took := time.Since(start); took < 500*time.Millisecond || took > 15*time.Second {
		t.Errorf("took %v", took)
	}
}

// An execute call that never answers, or stalls halfway, is retried and
// then fails with ErrServer naming the limit; an endless answer fails at
// the page size cap, at once.
func TestHostedTimeoutErrors(t *testing.T) {
	fs, _, conn := faultyWorld(t, tributary.WithTimeouts(tributary.Timeouts{ResponseHeader: 2 * time.Second, Stall: 300 * time.Millisecond}),
		tributary.WithMaxPageBytes(1<<20))
	for _, tc := range []struct {
		fault, says string
		want        error
		calls       int
	}{
		{"hang", "response-header timeout", tributary.ErrServer, 3},
		{"stall", "stall timeout", tributary.ErrServer, 3},
		{"endless", "larger than 1 MiB", tributary.ErrUnexpectedResponse, 1},
	} {
		fs.set("execute", tc.fault, 100)
		start := time.Now()
		_, err := conn.List(context.Background(), "tickets", nil)
		took := time.Since(start)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.fault, err, tc.want, tc.says)
		}
		if n := fs.count("execute"); n != tc.calls {
			t.Errorf("%s: %d execute calls, want %d", tc.fault, n, tc.calls)
		}
		if took > 30*time.Second {
			t.Errorf("%s: took %v", tc.fault, took)
		}
	}
}

// The token exchange is bounded too: a token endpoint that never answers
// is a server error naming the limit, not bad credentials and not a hang.
func TestHostedTokenTimeout(t *testing.T) {
	zd := zendesktest.New()
	t.Cleanup(zd.Close)
	srv := newService(t, hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL), fast))
	t.Cleanup(srv.Close)
	fs := newFaultyService(t, srv.URL)
	fs.set("token", "hang", 100)
	c, err := hosted.New(hosted.Config{BaseURL: fs.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
		ExternalUserID: "customer-42"}, fast, tributary.WithTimeouts(tributary.Timeouts{ResponseHeader: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
	took := time.Since(start)
	if !errors.Is(err, tributary.ErrServer) || !strings.Contains(err.Error(), "response-header timeout") {
		t.Fatalf("error = %v, want ErrServer naming the response-header timeout", err)
	}
	if strings.Contains(err.Error(), hostedtest.DefaultClientSecret) {
		t.Errorf("error %q holds the client secret", err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}
