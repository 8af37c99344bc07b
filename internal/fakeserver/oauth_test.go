package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestOAuthServerRefusals(t *testing.T) {
	o := NewOAuthServer(OAuthConfig{Vendor: "V", AuthorizePath: "/authorize", TokenPath: "/token",
		ClientID: "cid", ClientSecret: "sec", PKCE: true,
		Issue: func(*http.Request, Grant) map[string]any { return map[string]any{"access_token": "tok"} }})
	h := o.Wrap(http.NotFoundHandler())
	do := func(method, target string, form url.Values) *httptest.ResponseRecorder {
		var body *strings.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		} else {
			body = strings.NewReader("")
		}
		r := httptest.NewRequest(method, target, body)
		if form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	cb := "http://127.0.0.1/cb"
	q := url.Values{"client_id": {"cid"}, "redirect_uri": {cb}, "response_type": {"code"}, "state": {"s"}}

	bad := url.Values{"client_id": {"other"}, "redirect_uri": {cb}}
	if w := do("GET", "/authorize?"+bad.Encode(), nil); w.Code != http.StatusBadRequest || w.Header().Get("Location") != "" {
		t.Errorf("unknown client: %d %q", w.Code, w.Header().Get("Location"))
	}
	plain := url.Values{"code_challenge": {"abc"}, "code_challenge_method": {"plain"}}
	for k, v := range q {
		plain[k] = v
	}
	if w := do("GET", "/authorize?"+plain.Encode(), nil); !strings.Contains(w.Header().Get("Location"), "error=invalid_request") {
		t.Errorf("plain PKCE: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := do("GET", "/authorize?"+q.Encode(), nil); w.Code != 200 || !strings.Contains(w.Body.String(), `value="approve"`) {
		t.Errorf("consent page: %d %s", w.Code, w.Body)
	}

	// A code asked with a challenge needs the verifier.
	withPKCE := url.Values{"code_challenge": {s256("verifier-0123456789-0123456789-0123456789")}, "code_challenge_method": {"S256"}}
	for k, v := range q {
		withPKCE[k] = v
	}
	w := do("POST", "/authorize?"+withPKCE.Encode(), url.Values{"decision": {"approve"}})
	loc, _ := url.Parse(w.Header().Get("Location"))
	code := loc.Query().Get("code")
	if w.Code != http.StatusFound || code == "" || loc.Query().Get("state") != "s" {
		t.Fatalf("approve: %d %q", w.Code, loc)
	}
	tok := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "client_id": {"cid"}, "client_secret": {"sec"}}
	if w := do("POST", "/token", tok); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "code_verifier is missing") {
		t.Errorf("no verifier: %d %s", w.Code, w.Body)
	}
	// Other grants go on to the fake's own handler.
	if w := do("POST", "/token", url.Values{"grant_type": {"refresh_token"}}); w.Code != http.StatusNotFound {
		t.Errorf("refresh grant: %d", w.Code)
	}
}

// A token endpoint with JSONBody reads the exchange from a JSON object
// and refuses a form.
func TestOAuthServerJSONBody(t *testing.T) {
	o := NewOAuthServer(OAuthConfig{Vendor: "V", AuthorizePath: "/authorize", TokenPath: "/token", ClientID: "cid", ClientSecret: "sec", BasicOnly: true, JSONBody: true,
		Issue: func(*http.Request, Grant) map[string]any { return map[string]any{"access_token": "tok"} }})
	h := o.Wrap(http.NotFoundHandler())
	cb := "http://127.0.0.1/cb"
	q := url.Values{"client_id": {"cid"}, "redirect_uri": {cb}, "response_type": {"code"}, "state": {"s"}}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/authorize?"+q.Encode(), strings.NewReader("decision=approve"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	h.ServeHTTP(w, r)
	loc, _ := url.Parse(w.Header().Get("Location"))
	code := loc.Query().Get("code")
	token := func(ct, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/token", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		r.SetBasicAuth("cid", "sec")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}}
	if w := token("application/x-www-form-urlencoded", form.Encode()); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "invalid_request") {
		t.Errorf("a form: %d %s", w.Code, w.Body)
	}
	if w := token("application/json", `{"grant_type":"authorization_code","code":"`+code+`","redirect_uri":"`+cb+`"}`); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"tok"`) {
		t.Errorf("JSON: %d %s", w.Code, w.Body)
	}
}
