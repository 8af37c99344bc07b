package github

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tributary-dev/tributary"
)

// fuzzSecret stands for a credential in the response's own headers: error
// parsing must never copy it into the error.
const fuzzSecret = "fuzz-secret-0123456789abcdef"

// maxFuzzErrorBody is what the engine reads of an error body.
const maxFuzzErrorBody = 64 << 10

// FuzzGitHubParseError feeds GitHub's error handling random statuses,
// headers and bodies (parseError, classify, retryable, retryAfter, emptyRepository):
// it never panics, leaves the status
// and sentinel alone, bounds Code, Message, RequestID and Param to 64 KiB,
// keeps them valid UTF-8 when the input is, and never copies a credential
// out of the response's Authorization, Cookie or WWW-Authenticate headers.
func FuzzGitHubParseError(f *testing.F) {
	f.Add(500, "", "text/html", []byte("<html><body>502 Bad Gateway</body></html>"))
	f.Add(429, "req-1", "text/plain", []byte("Too Many Requests"))
	f.Add(401, "req-2", "application/json", []byte(`{}`))
	f.Add(400, "", "application/json", []byte(`{"message":"\ud800","error":"\udfff","errors":[null,1,"x",{"message":["a"]}]}`))
	f.Add(403, "\xff", "application/json", []byte("{\"message\":\"\xff\xfe\"}"))
	f.Add(404, "", "", []byte(`[{"errorCode":"NOT_FOUND","message":"x","fields":null},null]`))
	f.Add(503, "", "application/xml", []byte(`<Error><Code>AccessDenied</Code><Message>m</Message><RequestId>r</RequestId></Error>`))
	f.Add(-1, "", "", []byte(nil))
	f.Fuzz(func(t *testing.T, status int, hval, contentType string, body []byte) {
		if len(body) > maxFuzzErrorBody {
			body = body[:maxFuzzErrorBody]
		}
		if len(hval) > 8<<10 {
			hval = hval[:8<<10]
		}
		h := http.Header{}
		for _, k := range []string{"X-GitHub-Request-Id", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
			h.Set(k, hval)
		}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		h.Set("Authorization", "Bearer "+fuzzSecret)
		h.Set("Set-Cookie", "session="+fuzzSecret)
		h.Set("Www-Authenticate", `Bearer realm="`+fuzzSecret+`"`)
		sentinel := tributary.SentinelForStatus(status)
		e := &tributary.Error{Kind: Type, Entity: "entity", Action: tributary.ActionList, StatusCode: status, Err: sentinel}
		parseError(status, h, body, e)
		if e.Kind != Type || e.Entity != "entity" || e.Action != tributary.ActionList || e.StatusCode != status || e.Err != sentinel {
			t.Fatalf("parseError changed more than Code, Message, RequestID and Param: %#v", e)
		}
		check := func(when string) {
			t.Helper()
			fromInput := strings.Contains(string(body), fuzzSecret) || strings.Contains(hval, fuzzSecret)
			valid := utf8.Valid(body) && utf8.ValidString(hval)
			for name, v := range map[string]string{"Code": e.Code, "Message": e.Message, "RequestID": e.RequestID, "Param": e.Param} {
				if len(v) > maxFuzzErrorBody {
					t.Fatalf("%s: %s is %d bytes long", when, name, len(v))
				}
				if valid && !utf8.ValidString(v) {
					t.Fatalf("%s: %s %q is not valid UTF-8", when, name, v)
				}
				if !fromInput && strings.Contains(v, fuzzSecret) {
					t.Fatalf("%s: %s carries the credential of a response header: %q", when, name, v)
				}
			}
			_ = e.Error()
		}
		check("parseError")
		classify(status, h, body, e)
		check("classify")
		if !isSentinel(e.Err) {
			t.Fatalf("classify set %v", e.Err)
		}
		resp := &http.Response{StatusCode: status, Header: h}
		_, _ = retryable(resp)
		if d, ok := retryAfter(resp, time.Now()); ok && d < 0 {
			t.Fatalf("retryAfter gave a negative wait %v", d)
		}
		_ = emptyRepository(e)
	})
}

// isSentinel reports whether err is one of the library's sentinels.
func isSentinel(err error) bool {
	for _, s := range []error{tributary.ErrUnknownEntity, tributary.ErrUnsupportedAction, tributary.ErrInvalidParams, tributary.ErrNotFound,
		tributary.ErrUnauthorized, tributary.ErrForbidden, tributary.ErrRateLimited, tributary.ErrServer, tributary.ErrPaging, tributary.ErrUnexpectedResponse} {
		if err == s {
			return true
		}
	}
	return false
}
