package zendesk_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

func open(t *testing.T, srv *zendesktest.Server, opts ...tributary.Option) *zendesk.Client {
	t.Helper()
	c, err := zendesk.New(zendesk.Credentials{Subdomain: zendesktest.DefaultSubdomain, Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken},
		// The fake limits its exports only when told to (and then the
		// test passes the limit): no pacing by default here.
		append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast, zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// All walks past Zendesk's 100-page offset limit by switching to cursor
// paging, and delivers every ticket exactly once, in order.
func TestAllWalksPastOffsetLimit(t *testing.T) {
	const n = 10_250
	srv := zendesktest.New(zendesktest.WithTickets(n))
	defer srv.Close()
	c := open(t, srv)
	i := 0
	for tk, err := range c.Tickets().All(context.Background(), zendesk.TicketListParams{}) {
		if err != nil {
			t.Fatalf("after %d tickets: %v", i, err)
		}
		if tk.ID != zendesktest.TicketID(i) {
			t.Fatalf("ticket %d has id %d, want %d", i, tk.ID, zendesktest.TicketID(i))
		}
		i++
	}
	if i != n {
		t.Fatalf("walked %d tickets, want %d", i, n)
	}
	for _, r := range srv.Requests() {
		if r.Query.Get("page[size]") != "100" || r.Query.Get("page") != "" {
			t.Fatalf("a walk request was not in cursor mode: %v", r.Query)
		}
	}
}

// Offset paging as the contract describes it: page, per_page; Meta
// next_page, previous_page, count; Next holds the following page.
func TestListPagesByNumber(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithTickets(250))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "tickets", tributary.Params{"page": 2, "per_page": 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 100 {
		t.Fatalf("%d records", len(page.Records))
	}
	if id, _ := page.Records[0].IntAt("id"); id != zendesktest.TicketID(100) {
		t.Errorf("first id %d", id)
	}
	if page.Meta["count"] != int64(250) || page.Meta["next_page"] == nil || page.Meta["previous_page"] == nil {
		t.Errorf("meta %v", page.Meta)
	}
	if page.Next["page"] != int64(3) || page.Next["per_page"] != int64(100) {
		t.Errorf("next %v", page.Next)
	}
	last, err := c.List(context.Background(), "tickets", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Records) != 50 || last.Next != nil || last.Meta["next_page"] != nil {
		t.Errorf("last page: %d records, next %v, meta %v", len(last.Records), last.Next, last.Meta)
	}
}

// Large user ids (beyond 2^53) survive in Records and typed records.
func TestLargeIDsStayExact(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithUsers(3))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.Users().List(context.Background(), zendesk.UserListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range page.Items {
		if u.ID != zendesktest.UserID(i) {
			t.Errorf("user %d id %d, want %d", i, u.ID, zendesktest.UserID(i))
		}
	}
	u, err := c.Users().Get(context.Background(), zendesktest.UserID(2))
	if err != nil || u.ID != zendesktest.UserID(2) {
		t.Fatalf("get: %v %d", err, u.ID)
	}
}

// The attachment lives on another host: the download goes there through
// Zendesk's 302 without credentials, honours the range and is resumed
// byte-exactly after cuts.
func TestDownloadAcrossHostsWithRangeAndResume(t *testing.T) {
	const size = 300_000
	srv := zendesktest.New(zendesktest.WithAttachmentSize(size), zendesktest.WithFileCutEvery(64<<10))
	defer srv.Close()
	c := open(t, srv)
	id := zendesktest.AttachmentID(0, 0, 0)
	want, ok := srv.FileContent(id)
	if !ok {
		t.Skip("the first comment of ticket 0 has no attachment")
	}
	s, err := c.Download(context.Background(), "attachments", tributary.Params{"attachment_id": id})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(want) || s.Size != int64(len(want)) {
		t.Fatalf("downloaded %d bytes (size %d), want %d with the same SHA-256", len(got), s.Size, len(want))
	}
	files := 0
	for _, r := range srv.Requests() {
		if r.Origin == "files" {
			files++
			if r.Header.Get("Authorization") != "" {
				t.Errorf("credentials reached the file host: %s", r.Path)
			}
		}
	}
	if files < 4 {
		t.Errorf("%d file requests: the cuts were not resumed", files)
	}

	s, err = c.Download(context.Background(), "attachments", tributary.Params{"attachment_id": id, "range_header": "bytes=100-199"})
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(part, want[100:200]) || s.Range == nil || s.Range.First != 100 || s.Range.Last != 199 {
		t.Errorf("range: %d bytes, served %+v", len(part), s.Range)
	}
}

func TestRateLimitAndServerErrorsAreRetried(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithFaults(zendesktest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: time.Second}))
	defer srv.Close()
	c := open(t, srv)
	start := time.Now()
	page, err := c.List(context.Background(), "groups", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) == 0 || len(srv.Requests()) != 3 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
	if time.Since(start) < time.Second {
		t.Errorf("Retry-After of 1s was not waited (%v)", time.Since(start))
	}
}

func TestErrorsFromZendeskBodies(t *testing.T) {
	srv := zendesktest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.Get(ctx, "tickets", tributary.Params{"ticket_id": 99_999_999})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Code != "RecordNotFound" || te.StatusCode != 404 {
		t.Errorf("404: %v", err)
	}
	_, err = c.Get(ctx, "tickets", tributary.Params{"ticket_id": 403})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrForbidden) || te.Message == "" {
		t.Errorf("403 with an object error: %v", err)
	}
	_, err = c.List(ctx, "tickets", tributary.Params{"page": 101})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Code != "InvalidPaginationDepth" {
		t.Errorf("page 101: %v", err)
	}
	bad, _ := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: "agent@example.com", APIToken: "wrong-token"}, tributary.WithBaseURL(srv.URL))
	_, err = bad.List(ctx, "users", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("401: %v", err)
	}
}

// OAuth: a stale access token is refreshed at /oauth/tokens after its 401
// and the request retried; the rotated pair reaches the callback; many
// concurrent first calls refresh once.
func TestOAuthRefreshRotates(t *testing.T) {
	var mu sync.Mutex
	var rotated []*oauth2.Token
	record := tributary.WithTokenRefresh(func(tok *oauth2.Token) {
		mu.Lock()
		rotated = append(rotated, tok)
		mu.Unlock()
	})
	oauthCreds := func(access string) zendesk.Credentials {
		return zendesk.Credentials{Subdomain: "acme", AccessToken: access, RefreshToken: zendesktest.DefaultRefreshToken,
			ClientID: zendesktest.DefaultClientID, ClientSecret: zendesktest.DefaultClientSecret}
	}

	srv := zendesktest.New()
	defer srv.Close()
	c, err := zendesk.New(oauthCreds("stale-token"), tributary.WithBaseURL(srv.URL), fast, record)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "groups", nil); err != nil {
		t.Fatalf("stale token: %v", err)
	}
	if len(rotated) != 1 || rotated[0].AccessToken != srv.AccessToken() || rotated[0].RefreshToken != srv.RefreshToken() {
		t.Fatalf("%d rotations after a stale token; want one with the fake's new pair", len(rotated))
	}

	rotated = nil
	srv2 := zendesktest.New()
	defer srv2.Close()
	c, err = zendesk.New(oauthCreds(""), tributary.WithBaseURL(srv2.URL), fast, record)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.List(context.Background(), "groups", nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rotated) != 1 || rotated[0].RefreshToken != srv2.RefreshToken() || rotated[0].AccessToken != srv2.AccessToken() {
		t.Fatalf("%d rotations; want exactly one with the fake's new pair", len(rotated))
	}

	// A token that has worked and is then rejected has expired: it is
	// refreshed once, and the request succeeds with the new pair.
	srv2.ExpireAccessTokens()
	if _, err := c.List(context.Background(), "groups", nil); err != nil || len(rotated) != 2 || rotated[1].AccessToken != srv2.AccessToken() {
		t.Fatalf("expired token: %v after %d rotations; want a second rotation", err, len(rotated))
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithCredentials("agent@example.com", "right-token"))
	defer srv.Close()
	const secret = "sup3r-s3cret-api-token"
	var logs bytes.Buffer
	creds := zendesk.Credentials{Subdomain: "acme", Email: "agent@example.com", APIToken: secret}
	c, err := zendesk.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "tickets", nil)
	_, err2 := c.Get(context.Background(), "users", tributary.Params{"user_id": 1})
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c), fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, creds), logs.String()} {
		if strings.Contains(s, secret) {
			t.Fatalf("the API token leaked: %s", s)
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected debug lines, got %q", logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithTickets(5000), zendesktest.WithFaults(zendesktest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "tickets", nil) {
		if e != nil {
			err = e
			break
		}
		n++
		if n == 150 {
			cancel()
			cancelled = time.Now()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %d records", err, n)
	}
	// The walk stops at the cancel, mid-page: not one record more. (Time
	// is only a guard against a hang: a loaded machine may be slow.)
	if n != 150 {
		t.Errorf("%d records yielded, want 150: the walk went on after the cancel", n)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("the walk took %v to stop", d)
	}
}

func TestCredentialChecks(t *testing.T) {
	cases := []map[string]any{
		{},
		{"subdomain": "acme"},
		{"subdomain": "acme", "email": "a@b.c"},
		{"subdomain": "acme", "email": "a@b.c", "api_token": "t", "access_token": "x"},
		{"subdomain": "acme.zendesk.com", "access_token": "x"},
		{"subdomain": "acme", "access_token": "x", "refresh_token": "r"},
		{"subdomain": "acme", "access_token": 7},
		{"subdomain": "acme", "access_token": "x", "password": "p"},
	}
	for _, creds := range cases {
		_, err := kinds.Open("zendesk-support", creds)
		if !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	if _, err := kinds.Open("zendesk", map[string]any{}); !errors.Is(err, tributary.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": "a@b.c", "api_token": "t"})
	if err != nil || c.Type() != "zendesk-support" {
		t.Fatalf("valid credentials: %v", err)
	}
}

// A page whose connection drops mid-body is fetched again.
func TestCutPageIsRetried(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithFaults(zendesktest.Faults{CutFirst: 2}))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "tickets", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 100 || len(srv.Requests()) != 3 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
}

// search runs on a synchronized copy: in direct mode without a replica it
// is refused with a clear error, and nothing is sent.
func TestSearchNeedsHostedOrReplica(t *testing.T) {
	srv := zendesktest.New()
	defer srv.Close()
	c := open(t, srv)
	_, err := tributary.Execute(context.Background(), c, tributary.Request{Entity: "tickets", Action: tributary.ActionSearch,
		Params: tributary.Params{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}}}})
	if !errors.Is(err, tributary.ErrUnsupportedAction) || !strings.Contains(err.Error(), "hosted mode") {
		t.Fatalf("err = %v", err)
	}
	_, err = tributary.Execute(context.Background(), c, tributary.Request{Entity: "tickets", Action: tributary.ActionGet, Params: tributary.Params{"ticket_id": -1}})
	if !errors.Is(err, tributary.ErrInvalidParams) {
		t.Fatalf("negative id: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
