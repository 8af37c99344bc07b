package jira_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

var basic = jira.Credentials{Site: jiratest.DefaultSite, Email: jiratest.DefaultEmail, APIToken: jiratest.DefaultAPIToken}

func open(t *testing.T, srv *jiratest.Server, opts ...tributary.Option) *jira.Client {
	t.Helper()
	c, err := jira.New(basic, append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCredentialChecks(t *testing.T) {
	for _, c := range []struct {
		creds map[string]any
		want  string // "" valid, else a part of the error
	}{
		{map[string]any{"site": "acme", "email": "a@b.c", "api_token": "s3cr3t"}, ""},
		{map[string]any{"cloud_id": jiratest.DefaultCloudID, "access_token": "at"}, ""},
		{map[string]any{"cloud_id": jiratest.DefaultCloudID, "refresh_token": "rt", "client_id": "id", "client_secret": "sec"}, ""},
		{map[string]any{"site": "acme", "email": "a@b.c"}, "needs site, email and api_token"},
		{map[string]any{"email": "a@b.c", "api_token": "s3cr3t"}, "needs site, email and api_token"},
		{map[string]any{"site": "acme.atlassian.net", "email": "a@b.c", "api_token": "s3cr3t"}, "not a Jira Cloud site name"},
		{map[string]any{"site": "acme", "email": "a@b.c", "api_token": "s3cr3t", "access_token": "at"}, "not both"},
		{map[string]any{"access_token": "at"}, "cloud_id"},
		{map[string]any{"cloud_id": "x/../y", "access_token": "at"}, "cloud_id"},
		{map[string]any{"cloud_id": "c", "refresh_token": "rt"}, "client_id and client_secret"},
		{map[string]any{}, "give site, email and api_token"},
		{map[string]any{"site": "acme", "emial": "a@b.c", "api_token": "s3cr3t"}, `unknown credential field "emial"`},
	} {
		err := kinds.CheckCredentials(jira.Type, c.creds)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.creds, err)
		case c.want != "" && (err == nil || !errors.Is(err, tributary.ErrInvalidCredentials) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want ErrInvalidCredentials with %q", c.creds, err, c.want)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("%v: the error shows a secret: %v", c.creds, err)
		}
	}
	got := fmt.Sprintf("%v %+v", basic, jira.Credentials{CloudID: "c", AccessToken: "secret-at", RefreshToken: "secret-rt", ClientSecret: "secret-cs"})
	if strings.Contains(got, jiratest.DefaultAPIToken) || strings.Contains(got, "secret-") {
		t.Errorf("printed credentials show a secret: %s", got)
	}
}

// Jira's errors come back as the shared sentinels with Jira's own words.
func TestErrors(t *testing.T) {
	srv := jiratest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.Get(ctx, "issues", tributary.Params{"issueIdOrKey": "ENG-99999"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Message != "Issue does not exist or you do not have permission to see it." {
		t.Errorf("missing issue: %v", err)
	}
	_, err = c.List(ctx, "issues", tributary.Params{"jql": "ORDER BY key"})
	if !errors.Is(err, tributary.ErrInvalidParams) || !strings.Contains(err.Error(), "Unbounded JQL queries are not allowed here") {
		t.Errorf("unbounded JQL: %v", err)
	}
	_, err = c.List(ctx, "issues", tributary.Params{"maxResults": 0})
	if !errors.As(err, &te) || te.Param != "maxResults" || !errors.Is(err, tributary.ErrInvalidParams) || len(srv.Requests()) != 2 {
		t.Errorf("maxResults 0: %v (requests %d: none may be sent)", err, len(srv.Requests()))
	}
	wrong := basic
	wrong.APIToken = "WRONG_TOKEN"
	bad, err := jira.New(wrong, tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	if err := kinds.Verify(ctx, bad); !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "WRONG_TOKEN") {
		t.Errorf("a wrong token: %v", err)
	}
	if err := kinds.Verify(ctx, c); err != nil {
		t.Errorf("the right one: %v", err)
	}
}

// A 429 is Jira's: Retry-After and X-RateLimit-Reset in ISO 8601; the
// error says how long to wait, and the connector retries after it.
func TestRateLimited(t *testing.T) {
	srv := jiratest.New(jiratest.WithFaults(jiratest.Faults{RateLimitFirst: 1, RetryAfter: 30 * time.Second}))
	defer srv.Close()
	c := open(t, srv, tributary.WithRetry(tributary.RetryPolicy{}))
	_, err := c.List(context.Background(), "projects", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.RetryAfter < 29*time.Second || te.RetryAfter > 31*time.Second {
		t.Fatalf("%v (retry after %v), want ErrRateLimited after about 30s", err, te.RetryAfter)
	}
	srv.SetFaults(jiratest.Faults{RateLimitFirst: 1, RetryAfter: time.Millisecond})
	if _, err := open(t, srv).List(context.Background(), "projects", nil); err != nil {
		t.Errorf("after a short wait: %v", err)
	}
}

// A nextPageToken lives 7 days: an older one is a clear error, and a feed
// that was stopped on one starts its pass again from its checkpoint.
func TestExpiredPageToken(t *testing.T) {
	srv := jiratest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "issues", tributary.Params{"maxResults": 10})
	if err != nil || page.Next == nil {
		t.Fatalf("first page: %v, next %v", err, page.Next)
	}
	srv.Clock().Advance(jiratest.TokenLifetime + time.Minute)
	_, err = c.List(ctx, "issues", page.Next)
	if !errors.Is(err, tributary.ErrInvalidParams) || !strings.Contains(err.Error(), "next page token is invalid or expired") {
		t.Fatalf("expired token: %v", err)
	}
	since := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	n := 0
	for ch, err := range c.Changes(ctx, "issues", nil, tributary.Checkpoint{Since: since, Next: page.Next}) {
		if err != nil {
			t.Fatalf("the feed did not start again: %v", err)
		}
		n += len(ch.Records)
	}
	if n != jiratest.DefaultIssues {
		t.Errorf("the feed read %d issues again from its Since, want %d", n, jiratest.DefaultIssues)
	}
}

// An attachment's content: GET attachment/content/{id} answers 303 to a
// signed URL on another origin. The download follows it with its Range,
// resumes a cut through the 303 again, and the credentials never reach the
// media host.
func TestDownloadThrough303WithRange(t *testing.T) {
	const size = 200_000
	srv := jiratest.New(jiratest.WithAttachmentSize(size), jiratest.WithFileCutEvery(48<<10))
	defer srv.Close()
	c := open(t, srv)
	id := jiratest.AttachmentID(0)
	want, ok := srv.FileContent(id)
	if !ok {
		t.Fatal("issue 0 has no attachment")
	}
	s, err := c.Download(context.Background(), "issue_attachments", tributary.Params{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) || s.Size != size {
		t.Fatalf("downloaded %d bytes (size %d, %v), want %d with the same SHA-256", len(got), s.Size, err, size)
	}
	var api, files int
	for _, r := range srv.Requests() {
		switch {
		case r.Origin == "files":
			files++
			if r.Header.Get("Authorization") != "" {
				t.Errorf("credentials reached the media host: %s", r.Path)
			}
			if files > 1 && !strings.HasPrefix(r.Header.Get("Range"), "bytes=") {
				t.Errorf("resumed media request %d without Range", files)
			}
		case r.Path == "/rest/api/3/attachment/content/"+id:
			api++
			if r.Header.Get("Authorization") == "" {
				t.Error("the API request went without credentials")
			}
		}
	}
	if files < 4 || api != files {
		t.Errorf("%d media requests after %d API requests: each resume goes through the 303", files, api)
	}

	srv.ResetRequests()
	s, err = c.Download(context.Background(), "issue_attachments", tributary.Params{"id": id, "range_header": "bytes=100-199"})
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(part, want[100:200]) || s.Range == nil || s.Range.First != 100 || s.Range.Last != 199 {
		t.Errorf("range: %d bytes, served %+v", len(part), s.Range)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Origin != "files" || reqs[1].Header.Get("Range") != "bytes=100-199" {
		t.Errorf("requests %+v, want the API's 303 then the media with Range bytes=100-199", reqs)
	}
}
