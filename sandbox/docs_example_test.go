package sandbox_test

// The go blocks of README.md and docs/*.md, each between "// doc: <page>"
// and "// end doc" (internal/doctest's TestGoSnippets checks that the
// pages show exactly these, in order; docs/testing.md): here they compile
// with this package's tests, which link what they need already, and those
// in an Example with an Output comment run, on the sandbox's fakes. The
// code around a region is what the page leaves to the reader: where ctx,
// the connector or the request come from. The one that needs a Standard
// Webhooks library is in webhook/docs_example_test.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// zendeskSandbox opens a Zendesk connector on the sandbox's fake.
func zendeskSandbox() (*sandbox.Sandbox, tributary.Connector) {
	sb := sandbox.New()
	conn, err := sb.Open("zendesk-support")
	if err != nil {
		log.Fatal(err)
	}
	return sb, conn
}

// docs/search.md: a search in Go, over a copy in memory.
func Example_search() {
	ctx := context.Background()
	sb, conn := zendeskSandbox()
	defer sb.Close()
	err := func() error {
		// doc: docs/search.md
		r := replica.New(conn) // a copy in memory; replica.Open keeps one on disk
		if _, err := r.Sync(ctx, "tickets"); err != nil {
			return err
		}
		res, err := r.Search(ctx, "tickets", search.Request{
			Query: search.Query{
				Filter: search.And(search.In("status", "open", "pending"), search.Fuzzy("subject", "pasword reset")).Ptr(),
				Sort:   []search.SortItem{search.Desc("id")},
			},
			Limit:  2,
			Fields: []search.Path{{"id"}, {"subject"}},
		})
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			fmt.Println(h.ID, string(h.Data))
		}
		// 35665 {"id":35665,"subject":"Password reset link expired #229"}
		// 35657 {"id":35657,"subject":"Password reset link expired #221"}
		// end doc
		return nil
	}()
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 35665 {"id":35665,"subject":"Password reset link expired #229"}
	// 35657 {"id":35657,"subject":"Password reset link expired #221"}
}

// The README's library tour.
func Example_readmeLibrary() {
	_ = func(ctx context.Context) error {
		// doc: README.md
		c, err := kinds.Open("zendesk-support", map[string]any{
			"subdomain": "acme", "email": "agent@acme.com", "api_token": os.Getenv("ZENDESK_API_TOKEN"),
		})
		if err != nil {
			return err
		}
		page, err := c.List(ctx, "tickets", tributary.Params{"per_page": 50}) // page.Records, page.Meta, page.Next
		if err != nil {
			return err
		}
		for rec, err := range tributary.All(ctx, c, "tickets", nil) { // every record of every page
			if err != nil {
				return err
			}
			subject, _ := rec.StringAt("subject") // dot paths: "via.channel"
			fmt.Println(subject)
		}

		r, err := replica.Open(ctx, c, replica.SQLite("tributary.db")) // a durable copy, incremental after the first sync
		if err != nil {
			return err
		}
		defer r.Close()
		rep, err := r.Sync(ctx, "tickets", "users")
		if err != nil {
			return err
		}
		res, err := r.Search(ctx, "tickets", search.Request{Query: search.Query{
			Filter: search.And(search.In("status", "open", "pending"), search.Fuzzy("subject", "pasword reset")).Ptr()}})
		// end doc
		_, _, _, _ = page, rep, res, err
		return nil
	}
}

// The README's connect flow, in the handler of the redirect URL.
func Example_readmeConnect() {
	var id, secret string
	_ = func(ctx context.Context, r *http.Request) error {
		// doc: README.md
		flow, err := connect.New("hubspot", connect.Config{ClientID: id, ClientSecret: secret,
			RedirectURL: "https://app.example.com/oauth/callback"})
		if err != nil {
			return err
		}
		auth := flow.AuthCodeURL() // send the user to auth.URL; keep auth.State and auth.Verifier (PKCE)

		// In the handler of RedirectURL:
		code, err := flow.Callback(r.URL.Query(), auth.State) // state checked; ErrAccessDenied on Deny
		if err != nil {
			return err
		}
		creds, err := flow.Exchange(ctx, code, auth.Verifier) // the token and the vendor's extras
		if err != nil {
			return err
		}
		conn, err := kinds.Open("hubspot", creds)
		// end doc
		_, _ = conn, err
		return nil
	}
}

// The README's connect session, in the handler of "Connect your CRM".
func Example_readmeConnectSession() {
	var tr *hosted.Client
	var user struct{ ID string }
	_ = func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		// doc: README.md
		s, err := tr.CreateConnectSession(ctx, hosted.ConnectSessionRequest{ // tr: a *hosted.Client
			ExternalUserID: user.ID, AllowedKinds: []string{"hubspot", "zendesk-support"},
			ReturnURL: "https://app.example.com/settings/connected"})
		if err != nil {
			http.Error(w, "The connection service is unavailable; try again.", http.StatusServiceUnavailable)
			return
		}
		http.Redirect(w, r, s.ConnectURL, http.StatusSeeOther)
		// end doc
	}
}

// docs/changes.md: following the feed, on a sandbox copy; every ticket is
// an insert the first time.
func Example_changes() {
	ctx := context.Background()
	sb, conn := zendeskSandbox()
	defer sb.Close()
	dir, err := os.MkdirTemp("", "doctest-changes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	r, err := replica.Open(ctx, conn, replica.SQLite(filepath.Join(dir, "tributary.db")))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		log.Fatal(err)
	}
	inserted, deleted := 0, 0
	var saved int64
	loadMyCursor := func() int64 { return saved }
	saveMyCursor := func(c int64) { saved = c }
	upsert := func(string, json.RawMessage) { inserted++ }
	remove := func(string) { deleted++ }
	err = func() error {
		// doc: docs/changes.md
		cursor := loadMyCursor() // 0 the first time
		for {
			page, err := r.Changes(ctx, "tickets", cursor, 1000)
			if errors.Is(err, store.ErrCursorExpired) {
				return err // too old: read the copy again, then follow the feed (below)
			}
			if err != nil {
				return err
			}
			for _, c := range page.Changes {
				switch c.Op {
				case store.OpInsert, store.OpUpdate:
					upsert(c.ID, c.Data) // the record's JSON, byte for byte
				case store.OpDelete:
					remove(c.ID)
				}
			}
			cursor = page.Next
			saveMyCursor(cursor)
			if !page.More {
				break
			}
		}
		// end doc
		return nil
	}()
	fmt.Println(inserted, deleted, saved, err)
	// Output:
	// 250 0 250 <nil>
}

// docs/connect.md: the flow, in the handler of the redirect URL.
func Example_connectFlow() {
	var id, secret string
	_ = func(ctx context.Context, r *http.Request) error {
		// doc: docs/connect.md
		flow, err := connect.New("hubspot", connect.Config{
			ClientID: id, ClientSecret: secret, RedirectURL: "https://app.example.com/oauth/callback",
		})
		if err != nil {
			return err
		}
		auth := flow.AuthCodeURL() // redirect the user to auth.URL; keep auth.State and auth.Verifier

		// later, in the handler of RedirectURL:
		code, err := flow.Callback(r.URL.Query(), auth.State) // checks state; ErrAccessDenied on Deny
		if err != nil {
			return err
		}
		creds, err := flow.Exchange(ctx, code, auth.Verifier) // token + the vendor's post-exchange step
		if err != nil {
			return err
		}
		conn, err := kinds.Open("hubspot", creds) // or POST creds to /v1/integrations/connectors
		// end doc
		_, _ = conn, err
		return nil
	}
}

// docs/connect.md: a flow against Zendesk's fake.
func Example_connectFake() {
	callbackURL := "http://127.0.0.1:1/callback"
	// doc: docs/connect.md
	fake := zendesktest.New()
	defer fake.Close()
	flow, err := connect.New("zendesk-support", connect.Config{
		ClientID: zendesktest.DefaultClientID, ClientSecret: zendesktest.DefaultClientSecret,
		RedirectURL: callbackURL, BaseURL: fake.URL,
		Inputs: map[string]string{"subdomain": zendesktest.DefaultSubdomain},
	})
	// end doc
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(flow.App().Kind)
	// Output:
	// zendesk-support
}

// docs/connect.md: an application's backend.
func Example_connectBackend() {
	type account struct{ ID string }
	var (
		currentUser      func(*http.Request) account
		showNotConnected func(http.ResponseWriter, string)
		saveConnector    func(account, string)
	)
	_ = func() error {
		// doc: docs/connect.md
		tr, err := hosted.New(hosted.Config{BaseURL: "https://tributary.example.com",
			ClientID: "app", ClientSecret: os.Getenv("TRIBUTARY_CLIENT_SECRET")})
		if err != nil {
			return err
		}

		// The user clicks "Connect your CRM" in your application.
		http.HandleFunc("POST /settings/connect", func(w http.ResponseWriter, r *http.Request) {
			s, err := tr.CreateConnectSession(r.Context(), hosted.ConnectSessionRequest{
				ExternalUserID: currentUser(r).ID, AllowedKinds: []string{"hubspot", "salesforce"},
				ReturnURL: "https://app.example.com/settings/connected",
			})
			if err != nil {
				http.Error(w, "The connection service is unavailable; try again.", http.StatusServiceUnavailable)
				return
			}
			http.Redirect(w, r, s.ConnectURL, http.StatusSeeOther)
		})

		// The service sends the user back here.
		http.HandleFunc("GET /settings/connected", func(w http.ResponseWriter, r *http.Request) {
			if e := r.URL.Query().Get("error"); e != "" { // access_denied, exchange_refused, …
				showNotConnected(w, e)
				return
			}
			saveConnector(currentUser(r), r.URL.Query().Get("connector_id"))
		})
		// end doc
		return nil
	}
}

// docs/library.md: generic use.
func Example_libraryGeneric() {
	_ = func(ctx context.Context) error {
		// doc: docs/library.md
		c, err := kinds.Open("zendesk-support", map[string]any{
			"subdomain": "acme", "email": "agent@acme.com", "api_token": os.Getenv("ZENDESK_API_TOKEN"),
		})
		if err != nil {
			return err
		}

		page, err := c.List(ctx, "tickets", tributary.Params{"per_page": 50})
		if err != nil {
			return err
		}
		for _, rec := range page.Records {
			id, _ := rec.IntAt("id") // dot paths: rec.StringAt("via.channel")
			fmt.Println(id, rec)     // rec.Raw() is the vendor's JSON, byte for byte
		}
		if page.Next != nil { // nil on the last page
			page, err = c.List(ctx, "tickets", page.Next)
		}

		// Every record of every page, in order; an error ends the walk.
		for rec, err := range tributary.All(ctx, c, "tickets", nil) {
			if err != nil {
				return err
			}
			fmt.Println(rec)
		}

		// One entry point for callers that hold an operation as JSON (agents, the CLI).
		res, err := tributary.Execute(ctx, c, tributary.Request{Entity: "tickets", Action: "get", Params: tributary.Params{"ticket_id": 35436}})
		// end doc
		_, _, _ = page, res, err
		return nil
	}
}

// docs/library.md: typed use.
func Example_libraryTyped() {
	token := os.Getenv("ZENDESK_API_TOKEN")
	_ = func(ctx context.Context) error {
		// doc: docs/library.md
		zd, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: "agent@acme.com", APIToken: token})
		if err != nil {
			return err
		}
		t, err := zd.Tickets().Get(ctx, 35436) // zendesk.Ticket
		if err != nil {
			return err
		}
		fmt.Println(t.Subject)
		for u, err := range zd.Users().All(ctx, zendesk.UserListParams{Role: "agent"}) {
			if err != nil {
				return err
			}
			fmt.Println(u.Name)
		}
		page, err := zd.Views().List(ctx, zendesk.ViewListParams{SortBy: "position"})
		// end doc
		_, _ = page, err
		return nil
	}
}

// docs/library.md: a download, on the sandbox's Zendesk fake.
func Example_libraryDownload() {
	ctx := context.Background()
	sb, c := zendeskSandbox()
	defer sb.Close()
	var dst countWriter
	err := func() error {
		// doc: docs/library.md
		s, err := c.Download(ctx, "attachments", tributary.Params{"attachment_id": 30000000000000, "range_header": "bytes=0-1023"})
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = io.Copy(&dst, s) // s.ContentType, s.Size (whole file), s.Range (the bytes served)
		// end doc
		return err
	}()
	fmt.Println(int(dst), err)
	// Output:
	// 1024 <nil>
}

// countWriter counts the bytes written to it.
type countWriter int

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// docs/service.md: the hosted client.
func Example_serviceHosted() {
	var (
		id, secret string
		creds      map[string]any
		fresh      map[string]any
	)
	_ = func(ctx context.Context) error {
		// doc: docs/service.md
		c, err := hosted.New(hosted.Config{BaseURL: "https://connectors.example.com",
			ClientID: id, ClientSecret: secret, // or Token: a bearer token
			ExternalUserID: "customer-42"})
		if err != nil {
			return err
		}
		connID, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: creds})
		if err != nil {
			return err
		}
		conn, err := c.Connector(connID, "zendesk-support") // a tributary.Connector and tributary.Searcher
		if err != nil {
			return err
		}
		page, err := conn.List(ctx, "tickets", nil)
		if err != nil {
			return err
		}
		fmt.Println(len(page.Records))

		for ci, err := range c.ListConnectors(ctx, hosted.ListOptions{ConnectorType: "zendesk-support"}) {
			if err != nil {
				return err
			}
			fmt.Println(ci.ID, ci.Status)
		}
		info, err := c.GetConnector(ctx, connID) // status, copies, last syncs
		if err != nil {
			return err
		}
		fmt.Println(info.Status)
		if err := c.UpdateConnector(ctx, connID, hosted.UpdateRequest{Name: new("Helpdesk"), Credentials: fresh}); err != nil {
			return err
		}
		return c.DeleteConnector(ctx, connID)
		// end doc
	}
}

// docs/store-and-sync.md: a copy on disk.
func Example_storeAndSync() {
	var conn tributary.Connector
	_ = func(ctx context.Context) error {
		// doc: docs/store-and-sync.md
		r, err := replica.Open(ctx, conn, replica.SQLite("tributary.db"))
		if err != nil {
			return err
		}
		defer r.Close()
		rep, err := r.Sync(ctx, "tickets", "users") // incremental after the first time; rep says what changed
		if err != nil {
			return err
		}
		open, err := r.Search(ctx, "tickets", search.Request{ // later, even with the source unreachable
			Query: search.Query{Filter: search.Eq("status", "open").Ptr()}})
		// end doc
		_, _, _ = rep, open, err
		return nil
	}
}

// docs/testing.md: your code against a fake with faults.
func Example_testingFake() {
	// doc: docs/testing.md
	srv := zendesktest.New(zendesktest.WithTickets(50_000),
		zendesktest.WithFaults(zendesktest.Faults{RateLimitRate: 0.05, ServerErrorRate: 0.05, Seed: 1}))
	defer srv.Close()
	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL))
	// end doc
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c != nil)
	// Output:
	// true
}
