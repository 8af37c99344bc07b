package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// TestEveryErrorCodeMapped: each ok:false code the kind declares, answered
// with HTTP 200 as Slack does, becomes an error matching its sentinel,
// with the code and (missing_scope) the scope needed; the five the issue
// names are among them; a rate limit in the body is waited for and
// retried.
func TestEveryErrorCodeMapped(t *testing.T) {
	for _, code := range []string{"not_authed", "invalid_auth", "channel_not_found", "ratelimited", "missing_scope"} {
		if errorCodes[code] == nil {
			t.Errorf("%s is not mapped", code)
		}
	}
	var answer string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	c, err := New(Credentials{Token: "xoxb-1"}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing(),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	for code, sentinel := range errorCodes {
		answer, calls = `{"ok":false,"error":"`+code+`","needed":"channels:history","provided":"users:read"}`, 0
		_, err := c.Get(context.Background(), "channels", tributary.Params{"channel": "C00000001"})
		var te *tributary.Error
		if !errors.Is(err, sentinel) || !errors.As(err, &te) || te.Code != code || te.StatusCode != 200 || te.Entity != "channels" {
			t.Errorf("%s: %v, want %v with the code", code, err, sentinel)
		}
		if code == "missing_scope" && !strings.Contains(err.Error(), "needed: channels:history") {
			t.Errorf("missing_scope: %v, want the scope needed", err)
		}
		if want := map[bool]int{true: 2, false: 1}[code == "ratelimited"]; calls != want {
			t.Errorf("%s: %d requests, want %d", code, calls, want)
		}
		if !errors.Is(err, engine.ErrInBody) {
			t.Errorf("%s: %v does not say the body reported it", code, err)
		}
	}
}

// TestErrorsFromTheFake: the fake's own ok:false answers, through the
// client: a token it never issued, an unknown channel, a scope the app
// lacks; a 429 with Retry-After is waited for and retried.
func TestErrorsFromTheFake(t *testing.T) {
	s := slacktest.New(slacktest.WithMissingScope("files.list", "files:read"), slacktest.WithFaults(slacktest.Faults{RateLimitFirst: 1, RetryAfter: time.Second}))
	defer s.Close()
	ctx := context.Background()
	open := func(tok string) *Client {
		c, err := New(Credentials{Token: tok}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	synctest.Test(t, func(t *testing.T) {
		c, err := New(Credentials{Token: slacktest.DefaultBotToken}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing(),
			tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := c.Get(ctx, "team", nil); err != nil {
			t.Errorf("team.info after one 429: %v", err)
		}
		if waited := time.Since(start); waited < time.Second {
			t.Errorf("waited %v after a 429 with Retry-After: 1, want a second", waited)
		}
	})
	if _, err := open("xoxb-unknown").Get(ctx, "team", nil); !errors.Is(err, tributary.ErrUnauthorized) || !strings.Contains(err.Error(), "invalid_auth") {
		t.Errorf("unknown token: %v", err)
	}
	c := open(slacktest.DefaultBotToken)
	if _, err := c.Get(ctx, "channels", tributary.Params{"channel": "C99999999"}); !errors.Is(err, tributary.ErrNotFound) || !strings.Contains(err.Error(), "channel_not_found") {
		t.Errorf("unknown channel: %v", err)
	}
	if _, err := c.List(ctx, "files", nil); !errors.Is(err, tributary.ErrForbidden) || !strings.Contains(err.Error(), "needed: files:read") {
		t.Errorf("missing scope: %v", err)
	}
}

// TestNoTokenInErrors: a server that echoes the tokens in its ok:false
// answer (the code, the scope needed) gets them redacted from the error,
// and the credentials print without them.
func TestNoTokenInErrors(t *testing.T) {
	const bot, user = "xoxb-1111-2222-SECRETBOT", "xoxp-3333-4444-SECRETUSER"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":false,"error":"` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `","needed":"` + user + `"}`))
	}))
	defer srv.Close()
	creds := Credentials{Token: bot, UserToken: user, TeamID: "T1"}
	c, err := New(creds, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing(), tributary.WithRetry(tributary.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.Get(context.Background(), "team", nil)
	_, err2 := c.APISearch(context.Background(), "channel_messages", tributary.Params{"query": "x"})
	for _, s := range []string{fmt.Sprint(err1), fmt.Sprintf("%+v", err2), fmt.Sprintf("%#v", creds), fmt.Sprint(creds), fmt.Sprintf("%+v", c)} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("a token in %q", s)
		}
	}
	if err1 == nil || err2 == nil {
		t.Errorf("errors %v, %v", err1, err2)
	}
}
