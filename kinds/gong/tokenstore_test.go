package gong_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// Two connectors opened with the same Gong credentials, as two service
// processes would, share one token store. Gong's refresh tokens are
// single-use. Round after round, the fake expires every access token and
// both connectors list concurrently: every call succeeds, each round
// costs one refresh (not one per connector), no refresh token is presented
// twice, and both connectors send their requests to the
// api_base_url_for_customer of the token response, even the one that only
// adopted the other's token. Without the store, the second connector
// spends the refresh token the first already spent, and fails.
func TestTokenStoreSharesRefreshesBetweenConnectors(t *testing.T) {
	const rounds = 5
	open := func(t *testing.T, store tributary.TokenStore) (shared, customer *gongtest.Server, conns []tributary.Connector, rot *rotations) {
		shared, customer = gongtest.New(), gongtest.New()
		t.Cleanup(shared.Close)
		t.Cleanup(customer.Close)
		creds := oauthCreds("", gongtest.DefaultRefreshToken)
		creds.APIBaseURL = shared.URL
		rot = &rotations{}
		for range 2 {
			c, err := gong.New(creds, tributary.WithTokenURL(customer.TokenURL()), fast, tributary.WithTokenRefresh(rot.save), tributary.WithTokenStore(store))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		return shared, customer, conns, rot
	}
	lists := func(conns []tributary.Connector) []error {
		var mu sync.Mutex
		var errs []error
		var wg sync.WaitGroup
		for _, c := range conns {
			for range 6 {
				wg.Go(func() {
					if _, err := c.List(context.Background(), "workspaces", nil); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		return errs
	}

	t.Run("shared store", func(t *testing.T) {
		shared, customer, conns, rot := open(t, &fakeserver.TokenStore{})
		for round := range rounds {
			if errs := lists(conns); len(errs) > 0 {
				t.Fatalf("round %d: %d calls failed, first: %v", round, len(errs), errs[0])
			}
			customer.ExpireAccessTokens()
		}
		if err := customer.CheckRotatedRefreshes(gongtest.TokenPath, rounds); err != nil {
			t.Error(err)
		}
		if toks := rot.all(); len(toks) != rounds {
			t.Errorf("WithTokenRefresh saw %d tokens, want %d", len(toks), rounds)
		}
		if n := len(shared.Requests()); n != 0 {
			t.Errorf("the saved base URL got %d requests; both connectors should follow the token response", n)
		}
		for i, c := range conns {
			if got := c.(*gong.Client).BaseURL(); got != customer.URL {
				t.Errorf("connector %d uses %s, want %s", i, got, customer.URL)
			}
		}
	})
	t.Run("without a store the second connector fails", func(t *testing.T) {
		_, _, conns, _ := open(t, nil)
		errs := lists(conns)
		if len(errs) == 0 {
			t.Fatal("no call failed: the test cannot tell a shared refresh from two")
		}
		if !errors.Is(errs[0], tributary.ErrUnauthorized) || !strings.Contains(errs[0].Error(), "invalid_grant") {
			t.Errorf("failure %v, want ErrUnauthorized with invalid_grant", errs[0])
		}
	})
}
