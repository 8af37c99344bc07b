package slack_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// vendorHosts sends requests for any host to the fake (as if it were
// slack.com, files.slack.com or another host), recording the host each
// was meant for and the Authorization it carried.
type vendorHosts struct {
	fake http.RoundTripper
	to   string // the fake's host

	mu   sync.Mutex
	seen []string // "host Authorization"
}

func (v *vendorHosts) RoundTrip(r *http.Request) (*http.Response, error) {
	v.mu.Lock()
	v.seen = append(v.seen, r.URL.Host+" "+r.Header.Get("Authorization"))
	v.mu.Unlock()
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = "http", v.to, ""
	return v.fake.RoundTrip(r)
}

// TestDownloadCarriesTheTokenToFilesOnly: with Slack's own hosts (no base
// URL), files.info goes to slack.com/api and the file's
// url_private_download to files.slack.com, both with the token; a file
// URL on another host, and a redirect from files.slack.com to another
// host, never receive it.
func TestDownloadCarriesTheTokenToFilesOnly(t *testing.T) {
	ctx := context.Background()
	run := func(t *testing.T, opts ...slacktest.Option) (*vendorHosts, []byte, error) {
		s := fake(t, append(opts, slacktest.WithFileSize(5000))...)
		hosts := &vendorHosts{fake: s.Transport(), to: strings.TrimPrefix(s.URL, "http://")}
		c, err := slack.New(bot, tributary.WithHTTPClient(&http.Client{Transport: hosts}), tributary.WithoutPacing())
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Download(ctx, "files", tributary.Params{"file": slacktest.FileID(1)})
		if err != nil {
			return hosts, nil, err
		}
		defer st.Close()
		b, err := io.ReadAll(st)
		return hosts, b, err
	}
	tok := "Bearer " + slacktest.DefaultBotToken

	hosts, got, err := run(t)
	if err != nil || len(got) != 5000 {
		t.Fatalf("download: %d bytes, %v", len(got), err)
	}
	if w := []string{"slack.com " + tok, "files.slack.com " + tok}; strings.Join(hosts.seen, "|") != strings.Join(w, "|") {
		t.Errorf("requests %q, want files.info on slack.com then the file on files.slack.com, both with the token", hosts.seen)
	}

	hosts, _, err = run(t, slacktest.WithFileHost("https://files.evil.example.com"))
	if err == nil {
		t.Error("a file on a foreign host downloaded without the token: the fake should have refused it")
	}
	if w := []string{"slack.com " + tok, "files.evil.example.com "}; strings.Join(hosts.seen, "|") != strings.Join(w, "|") {
		t.Errorf("requests %q, want the foreign file host without the token", hosts.seen)
	}

	// The fake redirects every file request, the redirected ones too,
	// until the client stops following.
	hosts, _, _ = run(t, slacktest.WithFileRedirect("https://cdn.example.net"))
	if len(hosts.seen) < 3 || strings.Join(hosts.seen[:2], "|") != "slack.com "+tok+"|files.slack.com "+tok {
		t.Fatalf("requests %q, want files.info, the file on files.slack.com, then the redirect's host", hosts.seen)
	}
	for _, h := range hosts.seen[2:] {
		if h != "cdn.example.net " {
			t.Errorf("after the redirect: %q, want cdn.example.net without the token", h)
		}
	}
}

// TestDownloadThroughTheFake: through a base URL standing in for Slack (the
// fake, a proxy), a files.slack.com URL is read from the base URL's origin
// with the token, and a range of it resumes there.
func TestDownloadThroughTheFake(t *testing.T) {
	s := fake(t, slacktest.WithFileSize(10000), slacktest.WithFileCutEvery(3000))
	c := open(t, s, bot)
	st, err := c.Download(context.Background(), "files", tributary.Params{"file": slacktest.FileID(0), "range_header": "bytes=100-"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := io.ReadAll(st)
	want, _ := s.FileContent(slacktest.FileID(0))
	if err != nil || !bytes.Equal(got, want[100:]) {
		t.Fatalf("downloaded %d bytes (%v), want the %d from byte 100", len(got), err, len(want)-100)
	}
	var files int
	for _, r := range s.Requests() {
		if strings.HasPrefix(r.Path, "/files-pri/") {
			files++
			if r.Header.Get("Authorization") != "Bearer "+slacktest.DefaultBotToken {
				t.Errorf("file request without the token")
			}
		}
	}
	if files != 4 {
		t.Errorf("%d file requests, want 4 (cut every 3000 bytes of 9900)", files)
	}
}
