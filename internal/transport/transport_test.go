package transport

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRedactURL(t *testing.T) {
	cases := map[string]string{
		"https://acme.zendesk.com/attachments/token/abc123/?name=a.png":               "https://acme.zendesk.com/attachments/token/REDACTED/?name=a.png",
		"https://s3.example.com/b/k?X-Amz-Signature=deadbeef&X-Amz-Date=20240101":     "https://s3.example.com/b/k?X-Amz-Date=20240101&X-Amz-Signature=REDACTED",
		"https://user:pass@api.example.com/things?page=2&access_token=tok&api_key=k1": "https://api.example.com/things?access_token=REDACTED&api_key=REDACTED&page=2",
	}
	for in, want := range cases {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	for _, secret := range []string{"abc123", "deadbeef", "pass", "tok", "k1"} {
		for in := range cases {
			if strings.Contains(RedactURL(in), "="+secret) || strings.Contains(RedactURL(in), "/"+secret+"/") {
				t.Errorf("%q survives in %q", secret, RedactURL(in))
			}
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		"0":                             0,
		"1.5":                           1500 * time.Millisecond,
		"Sun, 22 Nov 2026 10:00:30 GMT": 30 * time.Second,
		"Sun, 22 Nov 2026 09:00:00 GMT": 0,
	} {
		got, ok := ParseRetryAfter(in, now)
		if !ok || got != want {
			t.Errorf("ParseRetryAfter(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "soon", "-3"} {
		if _, ok := ParseRetryAfter(in, now); ok {
			t.Errorf("ParseRetryAfter(%q) accepted", in)
		}
	}
	if d, ok := ResetAt("1795341660", time.Unix(1795341600, 0)); !ok || d != time.Minute {
		t.Errorf("ResetAt = %v %v", d, ok)
	}
}

func TestSameOrigin(t *testing.T) {
	origin, _ := url.Parse("https://api.example.com")
	for raw, want := range map[string]bool{
		"https://api.example.com/x":      true,
		"https://API.example.com:443/x":  true,
		"http://api.example.com/x":       false,
		"https://api.example.com:8443/x": false,
		"https://evil.example.com/x":     false,
		"https://api.example.com.evil/x": false,
	} {
		u, _ := url.Parse(raw)
		if got := SameOrigin(u, origin); got != want {
			t.Errorf("SameOrigin(%s) = %v", raw, got)
		}
	}
}
