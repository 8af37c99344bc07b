package googledrive_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

func open(t *testing.T, s *googledrivetest.Server, opts ...tributary.Option) *googledrive.Client {
	t.Helper()
	opts = append([]tributary.Option{tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3})}, opts...)
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requests lists the fake's API requests as method path?query.
func requests(s *googledrivetest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Method+" "+r.Path+"?"+r.Query.Encode())
	}
	return out
}

// A walk of files reads every file of My Drive with every field, 100 a
// page (fields=* asks for permissions), following nextPageToken.
func TestFilesWalk(t *testing.T) {
	s := googledrivetest.New(googledrivetest.WithFiles(250))
	defer s.Close()
	c := open(t, s)
	var n int
	var first googledrive.File
	for f, err := range c.Files().All(context.Background(), googledrive.FileParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			first = f
		}
		n++
	}
	if n != 250 || first.ID != googledrivetest.FileID(0) || first.MimeType != googledrive.Folder || len(first.Owners) != 1 || first.CreatedTime == "" {
		t.Fatalf("%d files, first %+v", n, first)
	}
	got := requests(s)
	if len(got) != 3 || got[0] != "GET /files?fields=%2A" || !strings.Contains(got[1], "pageToken=") {
		t.Errorf("requests %q", got)
	}
}

// get, api_search and about; a Google Doc in a shared drive needs
// supportsAllDrives.
func TestGetSearchAbout(t *testing.T) {
	s := googledrivetest.New()
	defer s.Close()
	c := open(t, s)
	ctx := context.Background()
	f, err := c.Files().Get(ctx, googledrivetest.FileID(1))
	if err != nil || f.MimeType != googledrive.Document || f.Name != "document 1" || len(f.ExportLinks) == 0 {
		t.Fatalf("get %+v, %v", f, err)
	}
	page, err := c.APISearch(ctx, "files", tributary.Params{"q": "name contains 'spreadsheet' and trashed = false", "pageSize": 5})
	if err != nil || len(page.Records) != 5 {
		t.Fatalf("api_search: %v, %d records", err, len(page.Records))
	}
	for _, r := range page.Records {
		if m, _ := r.StringAt("mimeType"); m != googledrive.Spreadsheet {
			t.Errorf("api_search found %s", r)
		}
	}
	inDrive := googledrivetest.FileID(googledrivetest.DefaultFiles)
	if _, err := c.Get(ctx, "files", tributary.Params{"fileId": inDrive}); !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("a shared drive's file without supportsAllDrives: %v", err)
	}
	if r, err := c.Get(ctx, "files", tributary.Params{"fileId": inDrive, "supportsAllDrives": true}); err != nil {
		t.Errorf("with supportsAllDrives: %v", err)
	} else if d, _ := r.StringAt("driveId"); d != googledrivetest.DriveID(0) {
		t.Errorf("driveId %q", d)
	}
	a, err := c.About(ctx)
	if err != nil || a.User == nil || a.User.EmailAddress != googledrivetest.DefaultEmail || len(a.ExportFormats[googledrive.Document]) == 0 {
		t.Errorf("about %+v, %v", a, err)
	}
	ds, err := c.Drives().List(ctx, googledrive.DriveParams{})
	if err != nil || len(ds.Items) != 2 || ds.Items[0].Name != "Team 1" {
		t.Errorf("drives %+v, %v", ds, err)
	}
	cs, err := c.Comments().List(ctx, googledrive.FileChildParams{FileID: googledrivetest.FileID(1)})
	if err != nil || len(cs.Items) != 2 || len(cs.Items[0].Replies) != 1 {
		t.Errorf("comments %+v, %v", cs, err)
	}
	ps, err := c.Permissions().List(ctx, googledrive.FileChildParams{FileID: googledrivetest.FileID(0)})
	if err != nil || len(ps.Items) != 3 || ps.Items[0].Role != "owner" {
		t.Errorf("permissions %+v, %v", ps, err)
	}
}

// Google's error bodies: a bad token is ErrUnauthorized, a missing file
// ErrNotFound, a 403 userRateLimitExceeded a rate limit waited for (with
// back-off) and retried, never a permission refused.
func TestErrors(t *testing.T) {
	s := googledrivetest.New()
	defer s.Close()
	ctx := context.Background()
	bad, err := googledrive.New(googledrive.Credentials{AccessToken: "wrong"}, tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.List(ctx, "files", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.Code != "authError" || te.StatusCode != 401 {
		t.Errorf("bad token: %v", err)
	}
	c := open(t, s)
	if _, err := c.Get(ctx, "files", tributary.Params{"fileId": "nope"}); !errors.Is(err, tributary.ErrNotFound) || !strings.Contains(err.Error(), "File not found: nope") {
		t.Errorf("missing file: %v", err)
	}
	limited := googledrivetest.New(googledrivetest.WithRateLimit(1, 60_000_000_000))
	defer limited.Close()
	lc := open(t, limited, tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0}))
	if _, err := lc.Get(ctx, "about", nil); err != nil {
		t.Fatal(err)
	}
	_, err = lc.Get(ctx, "about", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || errors.Is(err, tributary.ErrForbidden) || te.StatusCode != 403 || !te.Retryable {
		t.Errorf("403 userRateLimitExceeded: %v (%+v)", err, te)
	}
}

// A 403 userRateLimitExceeded and a 429 are retried after a back-off, and
// the read succeeds.
func TestRateLimitsRetried(t *testing.T) {
	s := googledrivetest.New(googledrivetest.WithFaults(googledrivetest.Faults{RateLimitFirst: 1, RetryAfter: time.Nanosecond}))
	defer s.Close()
	c := open(t, s, tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: 1, MaxBackoff: 1}))
	if _, err := c.Get(context.Background(), "about", nil); err != nil {
		t.Fatalf("after a 429: %v", err)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	clock := s.Clock()
	limited := googledrivetest.New(googledrivetest.WithClock(clock), googledrivetest.WithRateLimit(1, 1_000_000_000))
	defer limited.Close()
	lc := open(t, limited, tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: 1, MaxBackoff: 1}))
	if _, err := lc.Get(context.Background(), "about", nil); err != nil {
		t.Fatal(err)
	}
	limited.ResetRequests()
	clock.SetStep(1_000_000_000) // the refused request's reading ends the window
	if _, err := lc.Get(context.Background(), "about", nil); err != nil {
		t.Errorf("after a 403 userRateLimitExceeded: %v", err)
	}
	if n := len(limited.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (one refused with 403, one retried)", n)
	}
}

// Printing credentials shows no secret.
func TestCredentialsRedacted(t *testing.T) {
	c := googledrive.Credentials{AccessToken: "ya29.secret", RefreshToken: "1//secret", ClientID: "id", ClientSecret: "shh"}
	if s := fmt.Sprintf("%v %+v", c, c); strings.Contains(s, "secret") || strings.Contains(s, "shh") {
		t.Errorf("printed %s", s)
	}
	for _, m := range []map[string]any{
		{}, {"access_token": "a", "service_account_json": "{}"}, {"refresh_token": "r"}, {"service_account_json": `{"type":"authorized_user"}`},
		{"subject": "a@b.c"}, {"service_account_json": `{"type":"service_account","client_email":"a@b","private_key":"x","token_uri":"https://evil.example.com/token"}`},
		{"acess_token": "a"},
	} {
		if _, err := googledrive.CredentialsFromMap(m); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: %v", m, err)
		}
	}
	if _, err := googledrive.CredentialsFromMap(map[string]any{"service_account_json": googledrivetest.ServiceAccountKey(), "subject": "a@example.com"}); err != nil {
		t.Errorf("a service account key: %v", err)
	}
}
