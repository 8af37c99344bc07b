package fakeserver_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// The response cache answers a POST again only for the same body (a
// GraphQL query with the same variables), and a GET for the same URL.
func TestResponseCache(t *testing.T) {
	var runs atomic.Int32
	s := fakeserver.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := runs.Add(1)
		b, _ := io.ReadAll(r.Body)
		fakeserver.WriteJSON(w, 200, []byte(`{"run":`+string(rune('0'+n))+`,"body":"`+string(b)+`"}`))
	}), nil, fakeserver.Faults{}, fakeserver.Vendor{})
	defer s.Close()
	s.SetResponseCache(true)
	do := func(method, body string) string {
		req, _ := http.NewRequest(method, s.URL+"/graphql", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for _, c := range []struct{ method, body, want string }{
		{"POST", "a", `{"run":1,"body":"a"}`},
		{"POST", "b", `{"run":2,"body":"b"}`},
		{"POST", "a", `{"run":1,"body":"a"}`},
		{"GET", "", `{"run":3,"body":""}`},
		{"GET", "", `{"run":3,"body":""}`},
	} {
		if got := do(c.method, c.body); got != c.want {
			t.Errorf("%s %q: got %s, want %s", c.method, c.body, got, c.want)
		}
	}
}
