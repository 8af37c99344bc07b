package kinds_test

import (
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds"
)

// fuzzSecret stands for a credential in the response's own headers: error
// handling must never copy it into the error.
const fuzzSecret = "fuzz-secret-0123456789abcdef"

// maxErrorBody is what the engine reads of an error body.
const maxErrorBody = 64 << 10

// kindHooks opens every kind with placeholder credentials and returns its
// engine description, whose hooks the fuzz target drives.
func kindHooks(tb testing.TB) []*engine.Kind {
	var out []*engine.Kind
	for _, typ := range kinds.Types() {
		c, err := kinds.Open(typ, fuzzCredentials(tb, typ))
		if err != nil {
			tb.Fatalf("%s: %v", typ, err)
		}
		k, ok := c.(interface{ Kind() *engine.Kind })
		if !ok {
			tb.Fatalf("%s: the connector does not expose its engine kind", typ)
		}
		out = append(out, k.Kind())
	}
	return out
}

// FuzzErrorBodies feeds every kind's error handling (ParseError, Classify,
// EmptyList, Retryable, RetryAfter) random statuses, headers and bodies,
// seeded with every error response of the recorded fixtures: it never
// panics, changes only Code, Message, RequestID, Param and the sentinel
// (to another sentinel), bounds what it keeps, keeps valid UTF-8 valid,
// never copies a credential out of the response's Authorization, Cookie
// or WWW-Authenticate headers, and never asks for a negative wait.
//
//	go test -run '^$' -fuzz '^FuzzErrorBodies$' -fuzztime 30m ./kinds/
func FuzzErrorBodies(f *testing.F) {
	hooks := kindHooks(f)
	for i, typ := range kinds.Types() {
		dir := filepath.Join("..", "testdata", strings.TrimSuffix(typ, "-support"))
		for _, fx := range fixture.LoadDir(f, dir) {
			for _, ex := range fx.Exchanges {
				r := ex.Response
				if r.Status < 400 {
					continue
				}
				body := []byte(r.Body)
				if r.BodyText != nil {
					body = []byte(*r.BodyText)
				}
				f.Add(uint8(i), r.Status, r.Headers["Retry-After"], r.Headers["Content-Type"], body)
			}
		}
	}
	f.Add(uint8(0), 500, "", "text/html", []byte("<html><body>502 Bad Gateway</body></html>"))
	f.Add(uint8(1), 400, "", "application/json", []byte(`{"message":"\ud800","error":"\udfff","errors":[null,1,"x",{"message":["a"]}]}`))
	f.Add(uint8(2), 403, "\xff", "application/json", []byte("{\"message\":\"\xff\xfe\"}"))
	f.Add(uint8(3), -1, "", "", []byte(nil))
	f.Fuzz(func(t *testing.T, which uint8, status int, hval, contentType string, body []byte) {
		k := hooks[int(which)%len(hooks)]
		if len(body) > maxErrorBody {
			body = body[:maxErrorBody]
		}
		if len(hval) > 8<<10 {
			hval = hval[:8<<10]
		}
		h := http.Header{}
		for _, name := range []string{"Retry-After", "X-Request-Id", "X-Zendesk-Request-Id", "X-GitHub-Request-Id", "X-RateLimit-Remaining",
			"X-RateLimit-Reset", "X-Ratelimit-Reset", "X-HubSpot-RateLimit-Interval-Milliseconds", "X-HubSpot-RateLimit-Daily-Remaining", "X-HubSpot-Correlation-Id"} {
			h.Set(name, hval)
		}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		h.Set("Authorization", "Bearer "+fuzzSecret)
		h.Set("Set-Cookie", "session="+fuzzSecret)
		h.Set("Www-Authenticate", `Bearer realm="`+fuzzSecret+`"`)
		sentinel := tributary.SentinelForStatus(status)
		e := &tributary.Error{Kind: k.Type, Entity: "entity", Action: tributary.ActionList, StatusCode: status, Err: sentinel}
		check := func(when string) {
			t.Helper()
			if e.Kind != k.Type || e.Entity != "entity" || e.Action != tributary.ActionList || e.StatusCode != status || !isSentinel(e.Err) {
				t.Fatalf("%s %s changed more than it may: %#v", k.Type, when, e)
			}
			fromInput := strings.Contains(string(body), fuzzSecret) || strings.Contains(hval, fuzzSecret)
			valid := utf8.Valid(body) && utf8.ValidString(hval)
			for name, v := range map[string]string{"Code": e.Code, "Message": e.Message, "RequestID": e.RequestID, "Param": e.Param} {
				if len(v) > maxErrorBody {
					t.Fatalf("%s %s: %s is %d bytes long", k.Type, when, name, len(v))
				}
				if valid && !utf8.ValidString(v) {
					t.Fatalf("%s %s: %s %q is not valid UTF-8", k.Type, when, name, v)
				}
				if !fromInput && strings.Contains(v, fuzzSecret) {
					t.Fatalf("%s %s: %s carries the credential of a response header: %q", k.Type, when, name, v)
				}
			}
			_ = e.Error()
		}
		if k.ParseError != nil {
			k.ParseError(status, h, body, e)
			check("ParseError")
		}
		if k.Classify != nil {
			k.Classify(status, h, body, e)
			check("Classify")
		}
		if k.EmptyList != nil {
			_ = k.EmptyList(e)
		}
		resp := &http.Response{StatusCode: status, Header: h}
		if k.Retryable != nil {
			_, _ = k.Retryable(resp)
		}
		if k.RetryAfter != nil {
			if d, ok := k.RetryAfter(resp, time.Now()); ok && d < 0 {
				t.Fatalf("%s RetryAfter gave a negative wait %v", k.Type, d)
			}
		}
	})
}

// isSentinel reports whether err is one of the library's sentinels.
func isSentinel(err error) bool {
	for _, s := range []error{tributary.ErrUnknownEntity, tributary.ErrUnsupportedAction, tributary.ErrInvalidParams, tributary.ErrInvalidCredentials,
		tributary.ErrUnknownKind, tributary.ErrNotFound, tributary.ErrUnauthorized, tributary.ErrForbidden, tributary.ErrRateLimited,
		tributary.ErrServer, tributary.ErrPaging, tributary.ErrUnexpectedResponse} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
