package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// grantSource answers the tokens of a grant: errs in turn, then tokens.
type grantSource struct {
	calls *int
	errs  []error
}

func (g grantSource) Token() (*oauth2.Token, error) {
	n := *g.calls
	*g.calls++
	if n < len(g.errs) {
		return nil, g.errs[n]
	}
	return &oauth2.Token{AccessToken: "granted-" + string(rune('a'+n)), Expiry: time.Now().Add(time.Hour)}, nil
}

// A grant that needs no refresh token (a service account's JWT) gives the
// tokens: obtained under the request's context with the token client in
// it, cached until a token that worked is rejected, and a
// refused grant is an error that does not echo the endpoint's body.
func TestGrant(t *testing.T) {
	calls := 0
	var ctxs []context.Context
	var errs []error
	auth, ts := OAuth(OAuthConfig{TokenURL: "https://token.example.com/token", Grant: func(ctx context.Context) oauth2.TokenSource {
		ctxs = append(ctxs, ctx)
		return grantSource{calls: &calls, errs: errs}
	}})
	req, _ := http.NewRequest(http.MethodGet, "https://api.example.com/x", nil)
	if err := auth.Apply(req); err != nil || req.Header.Get("Authorization") != "Bearer granted-a" {
		t.Fatalf("%v, %q", err, req.Header.Get("Authorization"))
	}
	if err := auth.Apply(req); err != nil || calls != 1 {
		t.Errorf("the token is not cached: %d grants, %v", calls, err)
	}
	if hc, ok := ctxs[0].Value(oauth2.HTTPClient).(*http.Client); !ok || hc == nil {
		t.Errorf("the grant's context carries no token client")
	}
	auth.(Accepter).Accept("Bearer granted-a") // it worked, then expired early
	if !auth.(Rejecter).Reject("Bearer granted-a") {
		t.Error("a token that worked, rejected, is not renewed")
	}
	if tok, err := ts.TokenContext(context.Background()); err != nil || tok.AccessToken != "granted-b" {
		t.Errorf("after a 401: %v, %v", tok, err)
	}

	calls = 0
	errs = []error{&oauth2.RetrieveError{Response: &http.Response{StatusCode: 400}, Body: []byte(`{"assertion":"SECRET"}`), ErrorCode: "invalid_grant", ErrorDescription: "Invalid JWT Signature."}}
	auth, _ = OAuth(OAuthConfig{TokenURL: "https://token.example.com/token", Grant: func(ctx context.Context) oauth2.TokenSource {
		return grantSource{calls: &calls, errs: errs}
	}})
	err := auth.Apply(req)
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "invalid_grant") || errors.Is(err, ErrTokenUnavailable) || calls != 1 {
		t.Errorf("a refused grant: %v after %d grants", err, calls)
	}
}
