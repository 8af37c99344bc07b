package stripetest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
)

// recorder keeps every exchange with the fake, as a fixture records one,
// the fake's URL standing for https://api.stripe.com.
type recorder struct{ exchanges []fixture.Exchange }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, resp, respBody, err := fixture.Capture(http.DefaultTransport, req)
	if err != nil {
		return nil, err
	}
	q := map[string]any{}
	for k, v := range req.URL.Query() {
		if len(v) == 1 {
			q[k] = v[0]
		} else {
			q[k] = v
		}
	}
	ex := fixture.Exchange{
		Request:  fixture.Request{Method: req.Method, URL: "https://api.stripe.com" + req.URL.Path, Query: q, Headers: map[string]string{}},
		Response: fixture.Response{Status: resp.StatusCode, Headers: map[string]string{"Content-Type": resp.Header.Get("Content-Type")}, Body: json.RawMessage(respBody)},
	}
	if len(body) > 0 {
		ex.Request.Body = body
	}
	r.exchanges = append(r.exchanges, ex)
	return resp, nil
}

// TestFakeAgreesWithTheDescription: the lists, gets and searches the kind
// sends, the events after mutations, and the fake's errors agree with
// Stripe's description.
func TestFakeAgreesWithTheDescription(t *testing.T) {
	s := stripetest.New(stripetest.WithCustomers(6))
	defer s.Close()
	for _, e := range []string{"customers", "invoices", "subscriptions", "products"} {
		id, err := s.Create(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Update(e, id); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(e, id); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	c, err := stripe.New(stripe.Credentials{APIKey: stripetest.DefaultKey}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing(),
		tributary.WithHTTPClient(&http.Client{Transport: rec}), tributary.WithRetry(tributary.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, e := range stripe.Catalogue() {
		if e.Name == "balance" {
			if _, err := c.Get(ctx, "balance", nil); err != nil {
				t.Errorf("balance: %v", err)
			}
			continue
		}
		page, err := c.List(ctx, e.Name, tributary.Params{"limit": 3})
		if err != nil || len(page.Records) == 0 {
			t.Errorf("%s.list: %v", e.Name, err)
			continue
		}
		id, _ := page.Records[0].StringAt("id")
		idParam := e.Params[tributary.ActionGet][0].Name
		if _, err := c.Get(ctx, e.Name, tributary.Params{idParam: id}); err != nil {
			t.Errorf("%s.get: %v", e.Name, err)
		}
		if e.Supports(tributary.ActionAPISearch) {
			if _, err := c.APISearch(ctx, e.Name, tributary.Params{"query": "created>0", "limit": 2}); err != nil {
				t.Errorf("%s.api_search: %v", e.Name, err)
			}
		}
	}
	if _, err := c.Get(ctx, "customers", tributary.Params{"customer": "cus_missing"}); err == nil {
		t.Error("a missing customer was found")
	}
	// The differences the description is known for are allowed by
	// testdata/vendor-specs/allow-stripe.txt.
	vendorspec.OpenAPI(t, "stripe").ValidateFixture(t, fixture.File{Name: "fake", Exchanges: rec.exchanges})
}

// TestEvents: every mutation is an event at the fake's clock, newest
// first; a deleted customer leaves the list and its get says deleted; a
// canceled subscription leaves the default list but not status=all;
// events older than 30 days are forgotten.
func TestEvents(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	s := stripetest.New(stripetest.WithClock(clock), stripetest.WithCustomers(3))
	defer s.Close()
	c, err := stripe.New(stripe.Credentials{APIKey: stripetest.DefaultKey}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, _ := s.Create("customers")
	clock.Advance(time.Minute)
	if err := s.Update("customers", id); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if err := s.Delete("customers", id); err != nil {
		t.Fatal(err)
	}
	sub := stripetest.ID("subscriptions", 0)
	if err := s.Delete("subscriptions", sub); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("charges", stripetest.ID("charges", 0)); err == nil {
		t.Error("deleted a charge: Stripe deletes none")
	}
	var types []string
	for ev, err := range c.Events().All(ctx, stripe.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, " "); got != "customer.subscription.deleted customer.deleted customer.updated customer.created" {
		t.Errorf("events %s", got)
	}
	cu, err := c.Customers().Get(ctx, id)
	if err != nil || !cu.Deleted {
		t.Errorf("deleted customer: %+v, %v", cu, err)
	}
	if n := len(s.IDs("customers")); n != 3 {
		t.Errorf("%d customers, want 3", n)
	}
	page, err := c.List(ctx, "subscriptions", nil)
	if err != nil || len(page.Records) != 0 {
		t.Errorf("the default list shows a canceled subscription: %v, %d", err, len(page.Records))
	}
	page, err = c.List(ctx, "subscriptions", tributary.Params{"status": "all"})
	if err != nil || len(page.Records) != 1 {
		t.Errorf("status all: %v, %d", err, len(page.Records))
	}
	clock.Advance(31 * 24 * time.Hour)
	page, err = c.List(ctx, "events", nil)
	if err != nil || len(page.Records) != 0 {
		t.Errorf("events older than 30 days: %v, %d", err, len(page.Records))
	}
}
