package reliability

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// oauthCase is a kind whose first request fetches an OAuth access token
// from the fake's token endpoint (on its API origin, so faults reach it).
type oauthCase struct {
	kc    kindCase
	start func(t testing.TB) fake
}

func oauthCases() []oauthCase {
	return []oauthCase{
		{kc: kindCaseOf("salesforce"), start: func(t testing.TB) fake {
			s := salesforcetest.New()
			register(t, s)
			return fake{srv: s.Server, creds: map[string]any{"client_id": salesforcetest.DefaultClientID,
				"client_secret": salesforcetest.DefaultClientSecret, "refresh_token": salesforcetest.DefaultRefreshToken}}
		}},
		{kc: kindCaseOf("hubspot"), start: func(t testing.TB) fake {
			s := hubspottest.New()
			register(t, s)
			return fake{srv: s.Server, creds: map[string]any{"client_id": hubspottest.DefaultClientID,
				"client_secret": hubspottest.DefaultClientSecret, "refresh_token": hubspottest.DefaultRefreshToken}}
		}},
	}
}

// TestTokenRefreshCancel cancels a call while its OAuth token request hangs
// at the token endpoint: it must return within 100 ms with
// context.Canceled, like any other request.
func TestTokenRefreshCancel(t *testing.T) {
	for _, oc := range oauthCases() {
		t.Run(oc.kc.typ, func(t *testing.T) {
			f := oc.start(t)
			f.srv.SetFaults(fakeserver.Faults{Latency: time.Minute})
			obs := newObserver()
			t.Cleanup(obs.close)
			c := open(t, oc.kc, f, obs, tributary.WithRetry(fastRetry))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := c.List(ctx, oc.kc.entity, oc.kc.params.Clone())
				done <- err
			}()
			waitRequests(t, f, 1)
			time.Sleep(50 * time.Millisecond)
			cancelled := time.Now()
			cancel()
			select {
			case err := <-done:
				checkCancelled(t, "token request", err, time.Since(cancelled))
			case <-time.After(2 * time.Second):
				t.Errorf("the call had not returned 2 s after the cancel (the token request ignores the context)")
				f.srv.Close() // end the hanging request so the goroutine ends
				<-done
			}
		})
	}
}

// TestTokenRefreshTransientFault answers the first token request with the
// vendor's 5xx: the call must succeed, retried like any other request (or,
// at the least, fail with a retryable ErrServer, not ErrUnauthorized).
func TestTokenRefreshTransientFault(t *testing.T) {
	for _, oc := range oauthCases() {
		t.Run(oc.kc.typ, func(t *testing.T) {
			f := oc.start(t)
			f.srv.SetFaults(fakeserver.Faults{ServerErrorFirst: 1})
			c, err := kinds.Open(oc.kc.typ, f.creds, tributary.WithBaseURL(f.srv.URL), tributary.WithRetry(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.List(context.Background(), oc.kc.entity, oc.kc.params.Clone())
			if err != nil {
				var te *tributary.Error
				retryable := errors.As(err, &te) && te.Retryable
				t.Errorf("one 5xx from the token endpoint: %v (retryable %v), want the call to succeed after a retry", err, retryable)
			}
		})
	}
}
