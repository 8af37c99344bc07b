package fakeserver

import (
	"io"
	"net/http"
	"testing"
)

// TestTransportHost: through Transport the handler sees the Host the
// request names (a proxy's, so that the URLs the fake writes lead back to
// it), and the origin's when the request names none; a request for
// another origin is refused.
func TestTransportHost(t *testing.T) {
	s := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, BaseURL(r))
	}), nil, Faults{}, Vendor{})
	defer s.Close()
	c := &http.Client{Transport: s.Transport()}
	get := func(host string) (string, error) {
		req, err := http.NewRequest(http.MethodGet, s.URL+"/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return string(b), err
	}
	if got, err := get("proxy.example:8080"); err != nil || got != "http://proxy.example:8080" {
		t.Errorf("with Host proxy.example:8080: the fake saw %q, %v", got, err)
	}
	if got, err := get(""); err != nil || got != s.URL {
		t.Errorf("without a Host: the fake saw %q, %v; want %s", got, err, s.URL)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/x", nil)
	if res, err := c.Do(req); err == nil {
		res.Body.Close()
		t.Error("a request for another origin was answered")
	}
}

// TestTransportWithoutListeners: once the listeners are closed, nothing
// answers on the network, and Transport still answers both origins.
func TestTransportWithoutListeners(t *testing.T) {
	s := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "api") }),
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "files") }), Faults{}, Vendor{})
	defer s.Close()
	s.CloseListeners()
	if res, err := http.Get(s.URL + "/x"); err == nil {
		res.Body.Close()
		t.Fatal("the API origin still answers on the network")
	}
	c := &http.Client{Transport: s.Transport()}
	for origin, want := range map[string]string{s.URL: "api", s.FilesURL: "files"} {
		res, err := c.Get(origin + "/x")
		if err != nil {
			t.Fatalf("%s through Transport: %v", want, err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != want {
			t.Errorf("%s through Transport: %q, %v", want, b, err)
		}
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("the log holds %d requests, want the 2 made through Transport", n)
	}
}
