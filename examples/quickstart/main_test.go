package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// TestQuickstartOffline runs the README's first command against the fake.
func TestQuickstartOffline(t *testing.T) {
	t.Setenv("ZENDESK_SUBDOMAIN", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	// The fake holds as many tickets as the CLI's and the service's
	// sandboxes: the count the first page reports.
	count := "count=" + strconv.Itoa(zendesktest.DefaultTickets)
	for _, want := range []string{"page 3: 25 tickets", count, "== ticket 35436", "read bytes 0-63", `parameter "sort"`, "mailchimp", "hubspot", "200 accounts, done=false, nextRecordsUrl=/services/data/v67.0/query/", "accounts, done=true"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
