// Command hosted runs operations through the hosted connector service.
//
// With no TRIBUTARY_HOSTED_URL in the environment it starts an in-process
// service (hostedtest) in front of the built-in Zendesk fake and runs
// offline. Against a real service set TRIBUTARY_HOSTED_URL, either
// TRIBUTARY_HOSTED_TOKEN or TRIBUTARY_CLIENT_ID + TRIBUTARY_CLIENT_SECRET,
// and TRIBUTARY_CONNECTOR_ID (an existing helpdesk connector).
//
//	go run ./examples/hosted
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hosted:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	conn, cleanup, err := connect(ctx, out)
	if err != nil {
		return err
	}
	defer cleanup()

	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 10})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "tickets: %d on the first page, meta %v, next %v\n", len(page.Records), page.Meta, page.Next)
	n := 0
	for _, err := range tributary.All(ctx, conn, "users", tributary.Params{"role": "agent"}) {
		if err != nil {
			return err
		}
		n++
	}
	fmt.Fprintf(out, "agents: %d\n", n)
	return nil
}

func connect(ctx context.Context, out io.Writer) (*hosted.Connector, func(), error) {
	base := os.Getenv("TRIBUTARY_HOSTED_URL")
	if base != "" {
		c, err := hosted.New(hosted.Config{BaseURL: base, Token: os.Getenv("TRIBUTARY_HOSTED_TOKEN"),
			ClientID: os.Getenv("TRIBUTARY_CLIENT_ID"), ClientSecret: os.Getenv("TRIBUTARY_CLIENT_SECRET")})
		if err != nil {
			return nil, nil, err
		}
		conn, err := c.Connector(os.Getenv("TRIBUTARY_CONNECTOR_ID"), "zendesk-support")
		return conn, func() {}, err
	}
	zd := zendesktest.New()
	srv := hostedtest.New(hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL)))
	cleanup := func() { srv.Close(); zd.Close() }
	fmt.Fprintf(out, "No TRIBUTARY_HOSTED_URL set: running against an in-process service at %s\n", srv.URL)
	c, err := hosted.New(hosted.Config{BaseURL: srv.URL, ClientID: hostedtest.DefaultClientID, ClientSecret: hostedtest.DefaultClientSecret, ExternalUserID: "customer-42"})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Name: "Acme helpdesk",
		Credentials: map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	fmt.Fprintf(out, "created connector %s\n", id)
	conn, err := c.Connector(id, "zendesk-support")
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return conn, cleanup, nil
}
