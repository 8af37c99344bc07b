package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestQuickstartOffline runs the README's first command against the fake.
func TestQuickstartOffline(t *testing.T) {
	t.Setenv("ZENDESK_SUBDOMAIN", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"page 3: 25 tickets", "== ticket 35436", "read bytes 0-63", `parameter "sort"`, "mailchimp", "hubspot", "200 accounts, done=false, nextRecordsUrl=/services/data/v67.0/query/", "accounts, done=true"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
