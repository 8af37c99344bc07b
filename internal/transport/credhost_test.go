package transport

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// hostLog answers every request (a redirect for the paths /go/<url>) and
// records the Authorization each host received.
type hostLog struct{ auth map[string][]string }

func (h *hostLog) RoundTrip(r *http.Request) (*http.Response, error) {
	h.auth[r.URL.Scheme+"://"+r.URL.Host] = append(h.auth[r.URL.Scheme+"://"+r.URL.Host], r.Header.Get("Authorization"))
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("ok")), Request: r}
	if to, ok := strings.CutPrefix(r.URL.Path, "/go/"); ok {
		resp.StatusCode = http.StatusFound
		resp.Header.Set("Location", "https://"+to)
	}
	return resp, nil
}

// TestCredentialHosts: the credentials go to the origin and to the hosts
// the kind trusts (over https, on the default port), and to nothing else:
// not another host, not a trusted host over http or on another port, not
// the foreign host a trusted one redirects to.
func TestCredentialHosts(t *testing.T) {
	log := &hostLog{auth: map[string][]string{}}
	c := New(Config{Origin: &url.URL{Scheme: "https", Host: "slack.com"}, Auth: Bearer("xoxb-secret"),
		CredentialHosts: []string{"files.slack.com"}, Base: &http.Client{Transport: log}})
	for _, u := range []string{
		"https://slack.com/api/files.info", "https://files.slack.com/files-pri/T1-F1/a.pdf", "https://FILES.slack.com/files-pri/T1-F1/b.pdf",
		"http://files.slack.com/files-pri/T1-F1/a.pdf", "https://files.slack.com:8443/x", "https://evil.example.com/x",
		"https://files.slack.com.evil.example.com/x", "https://files.slack.com/go/attacker.example.com/steal",
	} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		resp.Body.Close()
	}
	want := map[string][]string{
		"https://slack.com":                        {"Bearer xoxb-secret"},
		"https://files.slack.com":                  {"Bearer xoxb-secret", "Bearer xoxb-secret"},
		"https://FILES.slack.com":                  {"Bearer xoxb-secret"},
		"http://files.slack.com":                   {""},
		"https://files.slack.com:8443":             {""},
		"https://evil.example.com":                 {""},
		"https://files.slack.com.evil.example.com": {""},
		"https://attacker.example.com":             {""},
	}
	for host, w := range want {
		if got := log.auth[host]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("%s received Authorization %q, want %q", host, got, w)
		}
	}
}
