package hosted_test

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

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/internal/testmain"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

func TestMain(m *testing.M) {
	testmain.WaitingParallel(4)
	goleak.VerifyTestMain(pgtest.Main(m))
}

var zdCreds = map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRateLimitWait: time.Second})

type world struct {
	zd     *zendesktest.Server
	srv    *hostedtest.Server
	client *hosted.Client
	direct tributary.Connector
}

func setup(t *testing.T, paths hosted.Paths, zdOpts ...zendesktest.Option) *world {
	t.Helper()
	zd := zendesktest.New(zdOpts...)
	t.Cleanup(zd.Close)
	srv := newService(t, hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL), fast))
	t.Cleanup(srv.Close)
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
		ExternalUserID: "customer-42", Paths: paths}, fast)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := kinds.Open("zendesk-support", zdCreds, tributary.WithBaseURL(zd.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	return &world{zd: zd, srv: srv, client: c, direct: direct}
}

func (w *world) connector(t *testing.T) *hosted.Connector {
	t.Helper()
	id, err := w.client.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Name: "Acme helpdesk", Credentials: zdCreds})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := w.client.Connector(id, "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func raws(recs []tributary.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Raw())
	}
	return out
}

// Direct and hosted mode return the same records, meta and next params for
// the same operations, on both of the service's path sets.
func TestHostedMatchesDirect(t *testing.T) {
	for name, paths := range map[string]hosted.Paths{"default": hosted.DefaultPaths, "integrations": hosted.IntegrationsPaths} {
		t.Run(name, func(t *testing.T) {
			w := setup(t, paths, zendesktest.WithTickets(230))
			h := w.connector(t)
			ctx := context.Background()
			ops := []tributary.Request{
				{Entity: "tickets", Action: "list", Params: tributary.Params{"per_page": 100, "page": 2}},
				{Entity: "tickets", Action: "list", Params: tributary.Params{"page[size]": 50}},
				{Entity: "users", Action: "list", Params: tributary.Params{"role": "agent"}},
				{Entity: "ticket_audits", Action: "list", Params: nil},
				{Entity: "tickets", Action: "get", Params: tributary.Params{"ticket_id": zendesktest.TicketID(7)}},
				{Entity: "users", Action: "get", Params: tributary.Params{"user_id": zendesktest.UserID(1)}},
			}
			for _, op := range ops {
				want, err := tributary.Execute(ctx, w.direct, op)
				if err != nil {
					t.Fatalf("direct %v: %v", op, err)
				}
				got, err := tributary.Execute(ctx, h, op)
				if err != nil {
					t.Fatalf("hosted %v: %v", op, err)
				}
				if d := cmp.Diff(raws(want.Records), raws(got.Records)); d != "" {
					t.Errorf("%s.%s records (-direct +hosted):\n%s", op.Entity, op.Action, d)
				}
				if d := cmp.Diff(fmt.Sprint(want.Meta), fmt.Sprint(got.Meta)); d != "" {
					t.Errorf("%s.%s meta (-direct +hosted):\n%s", op.Entity, op.Action, d)
				}
				if d := cmp.Diff(fmt.Sprint(want.Next), fmt.Sprint(got.Next)); d != "" {
					t.Errorf("%s.%s next (-direct +hosted):\n%s", op.Entity, op.Action, d)
				}
			}
			var direct, viaHosted []string
			for r, err := range tributary.All(ctx, w.direct, "tickets", nil) {
				if err != nil {
					t.Fatal(err)
				}
				direct = append(direct, string(r.Raw()))
			}
			for r, err := range tributary.All(ctx, h, "tickets", tributary.Params{"per_page": 100}) {
				if err != nil {
					t.Fatal(err)
				}
				viaHosted = append(viaHosted, string(r.Raw()))
			}
			if len(direct) != 230 || cmp.Diff(direct, viaHosted) != "" {
				t.Errorf("All: %d direct, %d hosted records, or they differ", len(direct), len(viaHosted))
			}
		})
	}
}

func TestHostedDownloadResumes(t *testing.T) {
	w := setup(t, hosted.DefaultPaths, zendesktest.WithAttachmentSize(200_000))
	h := w.connector(t)
	id := zendesktest.AttachmentID(0, 0, 0)
	want, ok := w.zd.FileContent(id)
	if !ok {
		t.Skip("no attachment")
	}
	s, err := h.Download(context.Background(), "attachments", tributary.Params{"attachment_id": id})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) {
		t.Fatalf("%d bytes, err %v", len(got), err)
	}
	s, err = h.Download(context.Background(), "attachments", tributary.Params{"attachment_id": id, "range_header": "bytes=10-19"})
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(part, want[10:20]) || s.Range == nil || s.Range.First != 10 {
		t.Errorf("range: %q %+v", part, s.Range)
	}
}

func TestHostedErrors(t *testing.T) {
	w := setup(t, hosted.DefaultPaths)
	h := w.connector(t)
	ctx := context.Background()
	before := w.srv.Requests()["execute"]
	// Local validation: nothing is sent.
	_, err := h.List(ctx, "tickets", tributary.Params{"sort": "nope"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "sort" {
		t.Fatalf("validation: %v", err)
	}
	if _, err := h.Get(ctx, "widgets", nil); !errors.Is(err, tributary.ErrUnknownEntity) {
		t.Fatalf("unknown entity: %v", err)
	}
	if w.srv.Requests()["execute"] != before {
		t.Fatal("invalid operations were sent to the service")
	}
	// The source's 404 comes back as the same error as in direct mode.
	_, err = h.Get(ctx, "tickets", tributary.Params{"ticket_id": 99_999_999})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Code != "RecordNotFound" || te.StatusCode != 404 {
		t.Fatalf("404: %v", err)
	}
	// Bad credentials are refused before the create call.
	before = w.srv.Requests()["create"]
	_, err = w.client.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: map[string]any{"subdomain": "acme", "api_token": "only-half"}})
	if !errors.Is(err, tributary.ErrInvalidCredentials) || w.srv.Requests()["create"] != before {
		t.Fatalf("bad credentials: %v", err)
	}
	// A wrong hosted token is ErrUnauthorized.
	bad, _ := hosted.New(hosted.Config{BaseURL: w.srv.URL, Token: "wrong-hosted-token"}, fast)
	bc, _ := bad.Connector(h.ID(), "zendesk-support")
	if _, err := bc.List(ctx, "tickets", nil); !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "wrong-hosted-token") {
		t.Fatalf("bad token: %v", err)
	}
	// A search on an unknown field is refused locally, naming the field.
	before = w.srv.Requests()["execute"]
	_, err = tributary.Execute(ctx, h, tributary.Request{Entity: "tickets", Action: "search", Params: tributary.Params{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"colour": "red"}}}}})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "colour" {
		t.Fatalf("search on an unknown field: %v", err)
	}
	if w.srv.Requests()["execute"] != before {
		t.Fatal("an invalid search was sent")
	}
}

// One token serves many calls; it is renewed before it expires.
func TestTokenIsCachedAndRenewed(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	srv := newService(t, hostedtest.WithTokenTTL(61*time.Second), hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL)))
	defer srv.Close()
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret, ExternalUserID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := c.Connector(id, "zendesk-support")
	for range 5 {
		if _, err := h.List(context.Background(), "groups", nil); err != nil {
			t.Fatal(err)
		}
	}
	// A 61 s token is within the client's one-minute renewal margin after
	// a second, so the next call fetches a new one.
	if n := srv.Requests()["token"]; n != 1 {
		t.Errorf("%d token requests for 6 calls, want 1", n)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, err := h.List(context.Background(), "groups", nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests()["token"]; n != 2 {
		t.Errorf("%d token requests; the token was not renewed before expiry", n)
	}
}

func TestNoSecretInHostedValues(t *testing.T) {
	cfg := hosted.Config{BaseURL: "https://svc.example.com", ClientID: "id", ClientSecret: "client-secret-value", ExternalUserID: "u"}
	c, err := hosted.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: map[string]any{"subdomain": "acme", "access_token": "source-token-value"}}
	for _, s := range []string{fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg), fmt.Sprintf("%v %+v %#v", c, c, c), fmt.Sprintf("%v %+v %#v", req, req, req)} {
		if strings.Contains(s, "client-secret-value") || strings.Contains(s, "source-token-value") {
			t.Errorf("secret printed: %s", s)
		}
	}
}

// Intercom's replication_config.start_date is required and validated
// before the create call; a valid one is sent and accepted (the service
// checks the token at Intercom's fake).
func TestIntercomReplicationConfig(t *testing.T) {
	ic := intercomtest.New()
	t.Cleanup(ic.Close)
	srv := newService(t, hostedtest.WithConnectorOptions("intercom", tributary.WithBaseURL(ic.URL), fast))
	t.Cleanup(srv.Close)
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
		ExternalUserID: "customer-42"}, fast)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{srv: srv, client: c}
	ctx := context.Background()
	creds := map[string]any{"access_token": intercomtest.DefaultAccessToken}
	before := w.srv.Requests()["create"]
	for _, rc := range []map[string]any{nil, {"start_date": "2024-01-31 00:00:00"}} {
		_, err := w.client.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "intercom", Credentials: creds, ReplicationConfig: rc})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "replication_config.start_date" {
			t.Errorf("%v: err = %v", rc, err)
		}
	}
	if w.srv.Requests()["create"] != before {
		t.Fatal("an invalid replication_config was sent")
	}
	id, err := w.client.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "intercom", Credentials: creds,
		ReplicationConfig: intercom.ReplicationConfig(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC))})
	if err != nil || id == "" {
		t.Fatalf("valid start_date: %q %v", id, err)
	}
}

// search runs on a replica on the service side and returns the same hits
// as a replica in direct mode.
func TestHostedSearchMatchesDirectReplica(t *testing.T) {
	zd := zendesktest.New(zendesktest.WithTickets(300))
	defer zd.Close()
	srv := newService(t, hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL), fast))
	defer srv.Close()
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, Token: hostedtest.DefaultToken, ExternalUserID: "u"}, fast)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: zdCreds})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := c.Connector(id, "zendesk-support")
	direct, _ := kinds.Open("zendesk-support", zdCreds, tributary.WithBaseURL(zd.URL), fast)
	local := replica.New(direct)
	if _, err := local.Sync(context.Background(), "tickets"); err != nil {
		t.Fatal(err)
	}
	op := tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: tributary.Params{
		"query": map[string]any{"filter": map[string]any{"in": map[string]any{"status": []any{"open", "pending"}}}, "sort": []any{map[string]any{"created_at": "desc"}}},
		"limit": 25, "fields": []any{"id", "status", "created_at"},
	}}
	want, err := tributary.Execute(context.Background(), local.Connector(), op)
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	for {
		got, err := tributary.Execute(context.Background(), h, op)
		if err != nil {
			t.Fatal(err)
		}
		if pages == 0 {
			if len(got.Search.Hits) != 25 || len(want.Search.Hits) != 25 {
				t.Fatalf("%d hosted hits, %d direct", len(got.Search.Hits), len(want.Search.Hits))
			}
			for i := range got.Search.Hits {
				if got.Search.Hits[i].ID != want.Search.Hits[i].ID || string(got.Search.Hits[i].Data) != string(want.Search.Hits[i].Data) {
					t.Fatalf("hit %d: hosted %s %s, direct %s %s", i, got.Search.Hits[i].ID, got.Search.Hits[i].Data, want.Search.Hits[i].ID, want.Search.Hits[i].Data)
				}
			}
		}
		pages++
		if got.Search.NextCursor == nil {
			break
		}
		op.Params["cursor"] = *got.Search.NextCursor
	}
	if pages < 2 {
		t.Errorf("%d pages of search results; the cursor was not followed", pages)
	}
}

// A hosted walk whose pages name the ones after them (Zendesk's offset
// paging with its count) asks the service for several pages at once, as
// direct mode does, and yields the same records in the same order;
// WithPrefetch(1) asks for one at a time.
func TestHostedWalkFetchesPagesAtOnce(t *testing.T) {
	w := setup(t, hosted.DefaultPaths, zendesktest.WithTickets(1_000))
	w.zd.SetFaults(zendesktest.Faults{Latency: 10 * time.Millisecond})
	var direct []string
	for r, err := range tributary.All(context.Background(), w.direct, "tickets", tributary.Params{"per_page": 100}) {
		if err != nil {
			t.Fatal(err)
		}
		direct = append(direct, string(r.Raw()))
	}
	for _, prefetch := range []int{1, 0} {
		c, err := hosted.New(hosted.Config{BaseURL: w.srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret,
			ExternalUserID: "customer-42"}, fast, tributary.WithPrefetch(prefetch))
		if err != nil {
			t.Fatal(err)
		}
		id, err := c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Name: "Acme", Credentials: zdCreds})
		if err != nil {
			t.Fatal(err)
		}
		h, err := c.Connector(id, "zendesk-support")
		if err != nil {
			t.Fatal(err)
		}
		w.zd.ResetRequests()
		var got []string
		for r, err := range tributary.All(context.Background(), h, "tickets", tributary.Params{"per_page": 100}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(r.Raw()))
		}
		if d := cmp.Diff(direct, got); d != "" || len(got) != 1_000 {
			t.Fatalf("prefetch %d: %d records, or not direct mode's (-direct +hosted):\n%s", prefetch, len(got), d)
		}
		want := tributary.DefaultPrefetch
		if prefetch == 1 {
			want = 1
		}
		// The service runs each page it is asked for on the vendor at once.
		if m := w.zd.MostInFlight(); m != want {
			t.Errorf("prefetch %d: the vendor answered at most %d requests at once, want %d", prefetch, m, want)
		}
	}
}

// A connector opened as another kind than it is fails with an error that
// says which kind it is, whatever the operation: the service names the
// connector's kind in every execute answer.
func TestHostedConnectorOfAnotherKind(t *testing.T) {
	w := setup(t, hosted.DefaultPaths)
	h := w.connector(t) // a zendesk-support connector
	as, err := w.client.Connector(h.ID(), "github")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := "tributary: github %s: invalid params: connector " + h.ID() + " is a zendesk-support connector, not github: give the id of a github connector, or run the operation as zendesk-support"
	_, err = as.Get(ctx, "viewer", nil)
	if err == nil || err.Error() != fmt.Sprintf(want, "viewer.get") || !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("get:\n got %v\nwant %s", err, fmt.Sprintf(want, "viewer.get"))
	}
	_, err = as.Download(ctx, "release_assets", tributary.Params{"owner": "octo", "repo": "hello", "asset_id": 1})
	if err == nil || err.Error() != fmt.Sprintf(want, "release_assets.download") {
		t.Errorf("download:\n got %v\nwant %s", err, fmt.Sprintf(want, "release_assets.download"))
	}
	// The right kind is answered as before.
	if _, err := h.List(ctx, "tickets", tributary.Params{"per_page": 1}); err != nil {
		t.Fatal(err)
	}
}
