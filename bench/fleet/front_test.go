package main

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// Every kind's marked credentials still pass the kind's own check, and
// the marker is found again wherever the kind sends it: a Basic
// Authorization, a bearer token, a form body's refresh token.
func TestMarkedCredentials(t *testing.T) {
	for _, k := range specs() {
		c := k.credentials(42)
		if err := kinds.CheckCredentials(k.kind, c); err != nil {
			t.Errorf("%s: %v", k.kind, err)
		}
		v := c[k.mark].(string)
		rest, i, ok := cut(v)
		if !ok || i != 42 || rest != k.creds[k.mark] {
			t.Errorf("%s: %q cut to %q, account %d, %v", k.kind, v, rest, i, ok)
		}
	}
	for _, c := range []struct {
		name, auth, query, body string
		want                    int
		wantAuth, wantBody      string
	}{
		{name: "basic", auth: "Basic " + base64.StdEncoding.EncodeToString([]byte("agent@example.com/token:TEST_TOKEN~a000007")), want: 7,
			wantAuth: "Basic " + base64.StdEncoding.EncodeToString([]byte("agent@example.com/token:TEST_TOKEN"))},
		{name: "bearer", auth: "Bearer TEST_TOKEN~a000123", want: 123, wantAuth: "Bearer TEST_TOKEN"},
		{name: "form", body: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"R~a000009"}}.Encode(), want: 9,
			wantBody: "grant_type=refresh_token&refresh_token=R"},
		{name: "escaped form", body: "refresh_token=R%7Ea000010", want: 10, wantBody: "refresh_token=R"},
		{name: "none", auth: "Bearer TEST_TOKEN~a12", want: -1},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://x/?"+c.query, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		body := []byte(c.body)
		i, ok := unmark(r, &body)
		if c.want < 0 {
			if ok {
				t.Errorf("%s: found account %d", c.name, i)
			}
			continue
		}
		if !ok || i != c.want || r.Header.Get("Authorization") != c.wantAuth || string(body) != c.wantBody {
			t.Errorf("%s: account %d %v, Authorization %q, body %q", c.name, i, ok, r.Header.Get("Authorization"), body)
		}
	}
}

// A token exchange's answer gets the account's marker on its tokens, once.
func TestMarkTokens(t *testing.T) {
	got := string(markTokens([]byte(`{"access_token":"A","refresh_token":"R","instance_url":"http://f"}`), 5))
	if !strings.Contains(got, `"access_token":"A~a000005"`) || !strings.Contains(got, `"refresh_token":"R~a000005"`) || !strings.Contains(got, `"instance_url":"http://f"`) {
		t.Errorf("marked: %s", got)
	}
	if again := string(markTokens([]byte(got), 5)); again != got {
		t.Errorf("marked twice: %s", again)
	}
	if plain := `{"records":[]}`; string(markTokens([]byte(plain), 5)) != plain {
		t.Error("a page without tokens was changed")
	}
}

// The front sends each request to its account's own fake, without the
// marker (the fake accepts the credential), with the front's Host (so
// that the fake's next-page URLs come back to it), and counts a request
// that arrives from one process while another process's request to the
// same account is in flight.
func TestFrontRoutesByAccount(t *testing.T) {
	var zd kindSpec
	for _, k := range specs() {
		if k.kind == "zendesk-support" {
			zd = k
		}
	}
	f, err := newFront(zd, 2, func() time.Duration { return 300 * time.Millisecond }, func(int) int { return 5 })
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	get := func(proc, account int) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, f.urls[proc]+"/api/v2/tickets.json?per_page=2", nil)
		c := zd.credentials(account)
		req.SetBasicAuth(c["email"].(string)+"/token", c["api_token"].(string))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get(0, 3); code != http.StatusOK || !strings.Contains(body, strings.TrimPrefix(f.urls[0], "http://")) {
		t.Fatalf("account 3 through process 0: %d %s", code, body)
	}
	if got := f.started(); len(got) != 1 || got[3] == nil {
		t.Fatalf("accounts started: %v", got)
	}
	if n := len(f.get(3).fake.(*zendesktest.Server).Requests()); n != 1 {
		t.Errorf("account 3's fake got %d requests, want 1", n)
	}
	if f.overlaps.Load() != 0 {
		t.Errorf("%d overlaps from one process", f.overlaps.Load())
	}
	var wg sync.WaitGroup
	for p := range 2 {
		wg.Go(func() { get(p, 4) })
	}
	wg.Wait()
	if f.overlaps.Load() != 1 || f.requests.Load() != 3 {
		t.Errorf("two processes at account 4 at once: %d overlaps, %d requests; want 1 and 3", f.overlaps.Load(), f.requests.Load())
	}
	req, _ := http.NewRequest(http.MethodGet, f.urls[1]+"/api/v2/tickets.json", nil)
	req.SetBasicAuth(zendesktest.DefaultEmail+"/token", zendesktest.DefaultAPIToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || f.unmarked.Load() != 1 {
		t.Errorf("a request without a marker: %s, %d unmarked", res.Status, f.unmarked.Load())
	}
}
