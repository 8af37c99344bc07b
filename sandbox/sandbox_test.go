package sandbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
)

// Every kind of this build opens in the sandbox and lists a first page.
func TestEveryKindOpensAndLists(t *testing.T) {
	sb := sandbox.New()
	defer sb.Close()
	if got, want := sb.Types(), kinds.Types(); len(got) != len(want) {
		t.Fatalf("sandbox kinds %v, build kinds %v", got, want)
	}
	first := map[string]struct {
		entity string
		params tributary.Params
	}{
		"github": {"issues", tributary.Params{"owner": "octo", "repo": "hello"}}, "gong": {"users", nil}, "hubspot": {"contacts", nil},
		"intercom": {"contacts", nil}, "mailchimp": {"lists", nil}, "salesforce": {"accounts", tributary.Params{"q": "SELECT Id, Name FROM Account"}},
		"zendesk-support": {"tickets", nil},
	}
	for _, k := range sb.Types() {
		c, err := sb.Open(k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		op, ok := first[k]
		if !ok {
			// A later kind: its fake's main entity, listed with no params.
			f, _ := fakes.Of(k)
			op.entity = f.Main
		}
		page, err := c.List(context.Background(), op.entity, op.params)
		if err != nil {
			t.Errorf("%s %s.list: %v", k, op.entity, err)
			continue
		}
		if len(page.Records) == 0 {
			t.Errorf("%s %s.list: no records", k, op.entity)
		}
	}
	if _, err := sb.Open("nope"); !errors.Is(err, tributary.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
}
