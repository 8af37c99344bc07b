package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/store"
)

// ConnectorsPage lists one tenant's connectors newest first, filtered by
// end user and kind, a page at a time with the cursor it returns; a
// rename changes the name only (the version stays); a change of nothing or
// a name with NUL is refused; printing a change shows the name.
func TestConnectorsPageAndRename(t *testing.T) {
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		for i, c := range []struct{ tenant, user, kind string }{
			{"a", "u1", "zendesk-support"}, {"a", "u2", "github"}, {"b", "u1", "github"}, {"a", "u1", "github"}, {"a", "u1", "zendesk-support"},
		} {
			if _, err := st.CreateConnector(ctx, store.Connector{ID: fmt.Sprintf("c%d", i), Tenant: c.tenant, ExternalUserID: c.user, Kind: c.kind, Sealed: []byte{1}}); err != nil {
				t.Fatal(err)
			}
		}
		page := func(q store.ConnectorQuery) ([]string, int64) {
			t.Helper()
			rows, next, err := st.ConnectorsPage(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			return ids, next
		}
		if ids, next := page(store.ConnectorQuery{Tenant: "a", Limit: 10}); !slices.Equal(ids, []string{"c4", "c3", "c1", "c0"}) || next != 0 {
			t.Fatalf("tenant a: %v %d", ids, next)
		}
		ids, next := page(store.ConnectorQuery{Tenant: "a", Limit: 3})
		if !slices.Equal(ids, []string{"c4", "c3", "c1"}) || next == 0 {
			t.Fatalf("first page: %v %d", ids, next)
		}
		if ids, next := page(store.ConnectorQuery{Tenant: "a", Limit: 3, Before: next}); !slices.Equal(ids, []string{"c0"}) || next != 0 {
			t.Fatalf("second page: %v %d", ids, next)
		}
		if ids, _ := page(store.ConnectorQuery{Tenant: "a", ExternalUserID: "u1", Kind: "github", Limit: 10}); !slices.Equal(ids, []string{"c3"}) {
			t.Fatalf("u1's github: %v", ids)
		}
		if _, _, err := st.ConnectorsPage(ctx, store.ConnectorQuery{Tenant: "a"}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("no limit: %v", err)
		}

		name := "Support"
		ch := store.ConnectorChange{Name: &name}
		if s := fmt.Sprint(ch); !strings.Contains(s, `Name:"Support"`) {
			t.Fatalf("printed: %s", s)
		}
		c, _, err := st.UpdateConnector(ctx, "c0", ch)
		if err != nil || c.Name != "Support" || c.Version != 1 {
			t.Fatalf("rename: %v %v", c, err)
		}
		bad := "a\x00b"
		if _, _, err := st.UpdateConnector(ctx, "c0", store.ConnectorChange{Name: &bad}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("a NUL in the name: %v", err)
		}
		if _, _, err := st.UpdateConnector(ctx, "c0", store.ConnectorChange{}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("no change: %v", err)
		}
		if c, _, err := st.UpdateConnector(ctx, "c0", store.ConnectorChange{Name: &name, Sealed: []byte{2}}); err != nil || c.Version != 2 {
			t.Fatalf("rename with credentials: %v %v", c, err)
		}
		if err := st.Scrub(ctx); err != nil {
			t.Fatalf("scrub: %v", err)
		}
	})
}
