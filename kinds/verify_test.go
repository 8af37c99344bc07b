package kinds_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
)

// pathRecorder records the paths of the requests sent through it.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
	next  http.RoundTripper
}

func (p *pathRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.paths = append(p.paths, r.Method+" "+r.URL.Path)
	p.mu.Unlock()
	return p.next.RoundTrip(r)
}

func (p *pathRecorder) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.paths
	p.paths = nil
	return out
}

// TestVerifyEveryKind: each kind's credential check is the one request of
// its vendor's documentation, which its fake answers 2xx for the sandbox
// credentials and 401 (ErrUnauthorized) for a wrong secret.
func TestVerifyEveryKind(t *testing.T) {
	want := map[string]string{
		"github": "GET /user", "gong": "GET /v2/users", "hubspot": "GET /account-info/v3/details",
		"intercom": "GET /me", "mailchimp": "GET /3.0/ping", "salesforce": "GET /services/data/v67.0/limits",
		"zendesk-support": "GET /api/v2/users/me.json",
	}
	sb := sandbox.New()
	defer sb.Close()
	for _, kind := range sb.Types() {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			opts, err := sb.Options(kind)
			if err != nil {
				t.Fatal(err)
			}
			rec := &pathRecorder{next: http.DefaultTransport}
			opts = append(opts, tributary.WithHTTPClient(&http.Client{Transport: rec}),
				tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0}))
			conn, err := kinds.Open(kind, sb.Credentials(kind), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := kinds.Verify(ctx, conn); err != nil {
				t.Fatalf("the sandbox credentials: %v", err)
			}
			// The seven first kinds' checks are stated here, from their
			// vendors' documentation; a later kind's is the one it
			// declares (its fixtures hold it to its vendor's description).
			w, ok := want[kind]
			if !ok {
				k, isEngine := conn.(interface{ Kind() *engine.Kind })
				if !isEngine || k.Kind().Check == nil {
					t.Fatalf("%s declares no credential check (engine.Kind.Check)", kind)
				}
				chk := k.Kind().Check
				m := chk.Method
				if m == "" {
					m = http.MethodGet
				}
				w = m + " " + chk.Path
			}
			got := rec.take()
			method, path, _ := strings.Cut(w, " ")
			if last := ""; len(got) > 0 {
				last = got[len(got)-1]
				// The path under the base URL's own path, if any.
				if m, p, _ := strings.Cut(last, " "); m != method || !strings.HasSuffix(p, path) {
					t.Fatalf("requests %q, want the last to be %q", got, w)
				}
			}
			if len(got) == 0 {
				t.Fatalf("requests %q, want the last to be %q", got, w)
			}
			bad := map[string]any{}
			for k, v := range sb.Credentials(kind) {
				s, _ := v.(string)
				if strings.Contains(k, "token") || strings.Contains(k, "secret") || k == "api_key" {
					s = "Qx7wrong" + s
				}
				bad[k] = s
			}
			conn, err = kinds.Open(kind, bad, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = kinds.Verify(ctx, conn)
			if !errors.Is(err, tributary.ErrUnauthorized) {
				t.Fatalf("wrong credentials: %v, want ErrUnauthorized", err)
			}
			if strings.Contains(err.Error(), "Qx7wrong") {
				t.Fatalf("the error shows the credentials: %v", err)
			}
		})
	}
}
