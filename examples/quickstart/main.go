// Command quickstart tours Tributary on the helpdesk connector: it lists
// tickets page by page, gets one, downloads a byte range of an attachment
// and shows the error a bad parameter gets. Offline it then lists a page of
// every other kind from its fake and walks a Salesforce SOQL query page by
// page through nextRecordsUrl.
//
// With no credentials in the environment it starts the built-in Zendesk fake
// and runs offline. To run it against your account, set ZENDESK_SUBDOMAIN and
// either ZENDESK_EMAIL + ZENDESK_API_TOKEN or ZENDESK_ACCESS_TOKEN.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	creds, opts, cleanup := credentials(out)
	defer cleanup()

	c, err := kinds.Open("zendesk-support", creds, opts...)
	if err != nil {
		return err
	}

	// 1. List tickets, page by page: each page's Next holds the params of
	// the following one.
	fmt.Fprintln(out, "== tickets, three pages of 25")
	params := tributary.Params{"per_page": 25}
	var first tributary.Record
	for i := 1; i <= 3 && params != nil; i++ {
		page, err := c.List(ctx, "tickets", params)
		if err != nil {
			return err
		}
		if i == 1 && len(page.Records) > 0 {
			first = page.Records[0]
		}
		fmt.Fprintf(out, "page %d: %d tickets, count=%v, next=%v\n", i, len(page.Records), page.Meta["count"], page.Next)
		params = page.Next
	}
	if first.IsZero() {
		fmt.Fprintln(out, "the account has no tickets")
		return nil
	}

	// 2. Get one ticket, and read fields by dot path.
	id, _ := first.IntAt("id")
	rec, err := c.Get(ctx, "tickets", tributary.Params{"ticket_id": id})
	if err != nil {
		return err
	}
	subject, _ := rec.StringAt("subject")
	status, _ := rec.StringAt("status")
	fmt.Fprintf(out, "\n== ticket %d: %q (%s)\n", id, subject, status)

	// 3. Download the first 64 bytes of an attachment of that ticket.
	if err := downloadOne(ctx, out, c, id); err != nil {
		return err
	}

	// 4. A bad parameter is refused before anything is sent.
	_, err = c.List(ctx, "tickets", tributary.Params{"sort": "priority"})
	var te *tributary.Error
	if errors.As(err, &te) && errors.Is(err, tributary.ErrInvalidParams) {
		fmt.Fprintf(out, "\n== a bad parameter\n%v\n(entity %s, action %s, parameter %s)\n", err, te.Entity, te.Action, te.Param)
	}

	// 5. Offline, the same contract over every other kind's fake.
	if os.Getenv("ZENDESK_SUBDOMAIN") == "" {
		return everyKind(ctx, out)
	}
	return nil
}

// everyKind lists a first page of each kind from its fake, and walks a
// Salesforce SOQL query page by page through nextRecordsUrl.
func everyKind(ctx context.Context, out io.Writer) error {
	sb := sandbox.New()
	defer sb.Close()
	fmt.Fprintln(out, "\n== every kind, one contract (built-in fakes)")
	ops := []struct {
		kind, entity string
		params       tributary.Params
	}{
		{"github", "issues", tributary.Params{"owner": "octo", "repo": "hello", "per_page": 20}},
		{"gong", "calls", nil},
		{"hubspot", "contacts", tributary.Params{"limit": 20}},
		{"intercom", "contacts", tributary.Params{"per_page": 20}},
		{"mailchimp", "campaigns", tributary.Params{"count": 20}},
	}
	for _, op := range ops {
		c, err := sb.Open(op.kind)
		if err != nil {
			return err
		}
		page, err := c.List(ctx, op.entity, op.params)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-10s %-10s %3d records  meta %v\n", op.kind, op.entity, len(page.Records), page.Meta)
	}

	c, err := sb.Open("salesforce")
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\n== a SOQL query, page by page through nextRecordsUrl")
	pager := tributary.Pages(c, "accounts", tributary.Params{"q": "SELECT Id, Name FROM Account"})
	for pager.More() {
		page, err := pager.Next(ctx)
		if err != nil {
			return err
		}
		if page == nil {
			break
		}
		fmt.Fprintf(out, "%d accounts, done=%v, nextRecordsUrl=%v\n", len(page.Items), page.Meta["done"], page.Meta["nextRecordsUrl"])
	}
	return nil
}

func downloadOne(ctx context.Context, out io.Writer, c tributary.Connector, ticketID int64) error {
	comments, err := c.List(ctx, "ticket_comments", tributary.Params{"ticket_id": ticketID})
	if err != nil {
		return err
	}
	for _, cm := range comments.Records {
		attID, ok := cm.IntAt("attachments.0.id")
		if !ok {
			continue
		}
		s, err := c.Download(ctx, "attachments", tributary.Params{"attachment_id": attID, "range_header": "bytes=0-63"})
		if err != nil {
			return err
		}
		defer s.Close()
		b, err := io.ReadAll(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\n== attachment %d (%s, %d bytes in all): read bytes %d-%d, starting % x\n", attID, s.ContentType, s.Size, s.Range.First, s.Range.Last, b[:min(len(b), 8)])
		return nil
	}
	fmt.Fprintln(out, "\n== ticket has no attachment to download")
	return nil
}

// credentials reads the environment, or starts the fake when it is empty.
func credentials(out io.Writer) (map[string]any, []tributary.Option, func()) {
	sub := os.Getenv("ZENDESK_SUBDOMAIN")
	if sub == "" {
		srv := zendesktest.New() // the volumes of every sandbox: zendesktest.DefaultTickets tickets
		fmt.Fprintf(out, "No ZENDESK_SUBDOMAIN set: running against the built-in Zendesk fake at %s\n\n", srv.URL)
		return map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
			[]tributary.Option{tributary.WithBaseURL(srv.URL)}, srv.Close
	}
	creds := map[string]any{"subdomain": sub}
	if tok := os.Getenv("ZENDESK_ACCESS_TOKEN"); tok != "" {
		creds["access_token"] = tok
	} else {
		creds["email"] = os.Getenv("ZENDESK_EMAIL")
		creds["api_token"] = os.Getenv("ZENDESK_API_TOKEN")
	}
	return creds, nil, func() {}
}
