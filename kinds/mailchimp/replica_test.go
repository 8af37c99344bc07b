package mailchimp_test

import (
	"context"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/replicatest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/search"
)

// A durable replica copies email_activity with no params from the caller
// (the scope's part per sent campaign); a search filtered on campaign_id
// returns that campaign's records only. A record's email_id repeats across
// campaigns (TestEmailActivityScopeReadsEverySentCampaign): the copy keys
// records by campaign and email_id (Scope.PartIDs), so every campaign keeps
// each of its recipients.
func TestReplicaCopiesEmailActivity(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	r := replicatest.Synced(t, c, []string{"email_activity"})
	var campaign string
	for rec, err := range tributary.All(ctx, c, "reports", nil) {
		if err != nil {
			t.Fatal(err)
		}
		campaign, _ = rec.StringAt("id")
		break
	}
	res, err := r.Search(ctx, "email_activity", search.Request{Query: search.Query{Filter: search.Eq("campaign_id", campaign).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 20 {
		t.Errorf("%d hits for campaign %s, want its 20 recipients", len(res.Hits), campaign)
	}
	for _, h := range res.Hits {
		if got, _ := tributary.NewRecord(h.Data).StringAt("campaign_id"); got != campaign {
			t.Errorf("hit %s has campaign_id %q, want %q", h.ID, got, campaign)
		}
	}
}
