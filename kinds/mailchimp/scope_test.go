package mailchimp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// email_activity is copied one sent campaign at a time: a part per report
// (every sent campaign has one; the others have no activity), each walked
// with GET /3.0/reports/{campaign_id}/email-activity. A recipient's
// email_id repeats across campaigns: only campaign_id with email_id names
// a record of the copy.
func TestEmailActivityScopeReadsEverySentCampaign(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	var sent []string
	for r, err := range tributary.All(ctx, c, "campaigns", tributary.Params{"status": "sent"}) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := r.StringAt("id")
		sent = append(sent, id)
	}
	srv.ResetRequests()

	e, _ := tributary.FindEntity(c.Entities(), "email_activity")
	if !e.CopiedInParts() {
		t.Fatal("email_activity has no parts")
	}
	var keys, campaigns, paths []string
	records, seen := 0, map[string]int{}
	for part, err := range e.Scope.Parts(ctx, c, nil) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := part.Params["campaign_id"].(string)
		keys = append(keys, part.Key)
		campaigns = append(campaigns, id)
		paths = append(paths, "/3.0/reports/"+id+"/email-activity")
		if diff := cmp.Diff(map[string]any{"campaign_id": id}, part.Fields); diff != "" {
			t.Errorf("part %s fields (-want +got):\n%s", part.Key, diff)
		}
		for r, err := range tributary.All(ctx, c, "email_activity", part.Params) {
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := r.StringAt("campaign_id"); got != id {
				t.Errorf("part %s: a record of campaign %q", part.Key, got)
			}
			emailID, _ := r.StringAt("email_id")
			seen[emailID]++
			records++
		}
	}
	if len(sent) == 0 || records != len(sent)*20 {
		t.Errorf("%d records of %d sent campaigns, want 20 each", records, len(sent))
	}
	for i, k := range keys {
		if k != "campaign "+campaigns[i] {
			t.Errorf("part %d key %q", i, k)
		}
	}
	slices.Sort(sent)
	if diff := cmp.Diff(sent, slices.Sorted(slices.Values(campaigns))); diff != "" {
		t.Errorf("parts' campaigns (-sent +parts):\n%s", diff)
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct email_id, want 20 (the same recipients in every campaign)", len(seen))
	}
	var got []string
	for _, r := range srv.Requests() {
		if r.Path == "/3.0/reports" {
			continue
		}
		// A walk pages by Mailchimp's default count, 10: two pages of 20.
		if r.Query.Get("offset") == "10" {
			continue
		}
		got = append(got, r.Path)
	}
	if diff := cmp.Diff(paths, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
