package kinds_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/sandbox"
)

// This test of internal/jsonx lives beside the kinds whose records it
// decodes: in jsonx's own tests, which include tests inside the package,
// importing the kinds would compile every kind (and sandbox, pagination,
// engine) a second time against jsonx's test build.

// The decoder behind jsonx.Unmarshal must give exactly what encoding/json
// gives, on every kind's real record shapes (from the fakes) and on the
// edge cases that matter: exact large integers, escapes, nulls into
// pointers, raw messages kept byte for byte.
func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	sb := sandbox.New()
	defer sb.Close()
	ctx := context.Background()
	cases := []struct {
		kind, entity string
		params       tributary.Params
		typ          reflect.Type
	}{
		{"zendesk-support", "tickets", nil, reflect.TypeFor[zendesk.Ticket]()},
		{"zendesk-support", "users", nil, reflect.TypeFor[zendesk.User]()},
		{"github", "issues", tributary.Params{"owner": "octo", "repo": "hello", "per_page": 100}, reflect.TypeFor[github.Issue]()},
		{"gong", "calls", nil, reflect.TypeFor[gong.Call]()},
		{"hubspot", "contacts", tributary.Params{"limit": 100}, reflect.TypeFor[hubspot.Contact]()},
		{"intercom", "contacts", tributary.Params{"per_page": 150}, reflect.TypeFor[intercom.Contact]()},
		{"mailchimp", "campaigns", tributary.Params{"count": 100}, reflect.TypeFor[mailchimp.Campaign]()},
		{"salesforce", "accounts", tributary.Params{"q": "SELECT FIELDS(STANDARD) FROM Account"}, reflect.TypeFor[salesforce.Account]()},
	}
	for _, tc := range cases {
		c, err := sb.Open(tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.List(ctx, tc.entity, tc.params)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.kind, tc.entity, err)
		}
		if len(page.Records) == 0 {
			t.Fatalf("%s %s: no records", tc.kind, tc.entity)
		}
		for i, r := range page.Records {
			want := reflect.New(tc.typ)
			got := reflect.New(tc.typ)
			if err := json.Unmarshal(r.Raw(), want.Interface()); err != nil {
				t.Fatalf("%s %s %d: encoding/json: %v", tc.kind, tc.entity, i, err)
			}
			if err := jsonx.Unmarshal(r.Raw(), got.Interface()); err != nil {
				t.Fatalf("%s %s %d: jsonx: %v", tc.kind, tc.entity, i, err)
			}
			if d := cmp.Diff(want.Interface(), got.Interface()); d != "" {
				t.Fatalf("%s %s %d differs (-encoding/json +jsonx):\n%s", tc.kind, tc.entity, i, d)
			}
		}
	}
}
