package server_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// A service over a SQLite store, in front of the Zendesk fake, and the
// hosted client talking to it.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	zd := zendesktest.New()
	defer zd.Close()
	dir, _ := os.MkdirTemp("", "serve-example-")
	defer os.RemoveAll(dir)
	st, err := store.OpenSQLite(ctx, filepath.Join(dir, "serve.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	keys, _ := server.GenerateKey("k1") // in production: from a secret store, never generated at start
	srv, err := server.New(server.Config{
		Store:   st,
		Keys:    keys,
		Clients: []server.Client{{ID: "app", Secret: "an-app-secret-of-at-least-16-characters"}},
		ConnectorOptions: map[string][]tributary.Option{
			"zendesk-support": {tributary.WithBaseURL(zd.URL)}, // the fake instead of zendesk.com
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	c, _ := hosted.New(hosted.Config{BaseURL: "http://" + ln.Addr().String(),
		ClientID: "app", ClientSecret: "an-app-secret-of-at-least-16-characters", ExternalUserID: "customer-42"})
	id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: map[string]any{
		"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}})
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, _ := c.Connector(id, "zendesk-support")
	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), "tickets through the service")

	stop() // a graceful shutdown
	fmt.Println("served:", <-served)
	// Output:
	// 2 tickets through the service
	// served: <nil>
}
