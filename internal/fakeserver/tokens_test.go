package fakeserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// A minted access token lives TTL on the fake's clock; an accepted one
// until ExpireAll, which expires every access token but no refresh token.
func TestTokensExpiry(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	tk := &fakeserver.Tokens{Now: clock.Now, TTL: time.Hour, AccessFormat: "at_%d", RefreshFormat: "rt_%d"}
	tk.Accept("DEFAULT_ACCESS", "DEFAULT_REFRESH")
	at, rt := tk.Mint()
	if at != "at_1" || rt != "rt_1" {
		t.Errorf("minted %q, %q; want at_1, rt_1", at, rt)
	}
	if only := tk.MintAccess(); only != "at_2" {
		t.Errorf("MintAccess = %q, want at_2", only)
	}
	for _, tok := range []string{"DEFAULT_ACCESS", "at_1", "at_2"} {
		if !tk.Valid(tok) {
			t.Errorf("%s refused at once", tok)
		}
	}
	for _, tok := range []string{"", "at_3", "DEFAULT_REFRESH", "rt_1"} {
		if tk.Valid(tok) {
			t.Errorf("%q accepted as an access token", tok)
		}
	}
	clock.Advance(time.Hour - time.Second)
	if !tk.Valid("at_1") {
		t.Error("at_1 refused a second before its hour is up")
	}
	clock.Advance(time.Second)
	if tk.Valid("at_1") || tk.Valid("at_2") {
		t.Error("minted tokens accepted after their hour")
	}
	if !tk.Valid("DEFAULT_ACCESS") {
		t.Error("the accepted token expired with the clock")
	}
	fresh, _ := tk.Mint()
	tk.ExpireAll()
	if tk.Valid("DEFAULT_ACCESS") || tk.Valid(fresh) {
		t.Error("an access token accepted after ExpireAll")
	}
	if !tk.Redeem("DEFAULT_REFRESH") || !tk.Redeem(rt) {
		t.Error("ExpireAll spent refresh tokens")
	}
}

// Without a TTL a minted access token lives until ExpireAll, as a
// vendor's whose token answer has no expires_in (Notion's).
func TestTokensWithoutTTL(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	tk := &fakeserver.Tokens{Now: clock.Now}
	at, _ := tk.Mint()
	only := tk.MintAccess()
	clock.Advance(24 * 365 * time.Hour)
	if !tk.Valid(at) || !tk.Valid(only) {
		t.Fatal("a token minted without a TTL expired with the clock")
	}
	tk.ExpireAll()
	if tk.Valid(at) || tk.Valid(only) {
		t.Error("a token minted without a TTL accepted after ExpireAll")
	}
}

// A refresh token is spent by its first redemption, unless Reusable; the
// empty string is never a token.
func TestTokensRotation(t *testing.T) {
	tk := &fakeserver.Tokens{TTL: time.Hour}
	tk.Accept("", "DEFAULT_REFRESH")
	if tk.Valid("") || tk.Redeem("") {
		t.Error("the empty string accepted as a token")
	}
	if !tk.Redeem("DEFAULT_REFRESH") {
		t.Fatal("the accepted refresh token refused")
	}
	if tk.Redeem("DEFAULT_REFRESH") {
		t.Error("a redeemed refresh token redeemed again")
	}
	at, rt := tk.Mint()
	if at != "fake-access-1" || rt != "fake-refresh-1" {
		t.Errorf("default names %q, %q", at, rt)
	}
	if !tk.Redeem(rt) || tk.Redeem(rt) {
		t.Error("a minted refresh token not redeemed exactly once")
	}

	google := &fakeserver.Tokens{TTL: time.Hour, Reusable: true}
	google.Accept("", "KEPT")
	for i := range 3 {
		if !google.Redeem("KEPT") {
			t.Errorf("reusable refresh token refused at redemption %d", i+1)
		}
	}
}

// Requests that race to redeem one rotated refresh token: exactly one
// wins; mints racing each other never repeat a name. Run with -race.
func TestTokensConcurrent(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	tk := &fakeserver.Tokens{Now: clock.Now, TTL: time.Minute}
	tk.Accept("A", "R")
	const n = 16
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		wins   int
		minted = map[string]bool{}
	)
	for range n {
		wg.Go(func() {
			if tk.Redeem("R") {
				mu.Lock()
				wins++
				mu.Unlock()
			}
			at, rt := tk.Mint()
			_ = tk.Valid(at)
			tk.ExpireAll()
			_ = tk.Redeem(rt)
			mu.Lock()
			minted[at], minted[rt] = true, true
			mu.Unlock()
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("refresh token R redeemed %d times by %d racing requests, want once", wins, n)
	}
	if len(minted) != 2*n {
		t.Errorf("%d distinct tokens from %d mints, want %d", len(minted), n, 2*n)
	}
}

// JSON answers v encoded, with its length; ReadJSON reads a body up to
// 1 MiB and refuses what is not JSON.
func TestJSONAndReadJSON(t *testing.T) {
	w := httptest.NewRecorder()
	fakeserver.JSON(w, http.StatusTeapot, map[string]any{"error": "x"})
	if w.Code != http.StatusTeapot || w.Body.String() != `{"error":"x"}` ||
		w.Header().Get("Content-Type") != "application/json; charset=utf-8" || w.Header().Get("Content-Length") != "13" {
		t.Errorf("JSON wrote %d %v %q", w.Code, w.Header(), w.Body)
	}
	var v struct{ IDs []int }
	if err := fakeserver.ReadJSON(httptest.NewRequest("POST", "/", strings.NewReader(`{"ids":[1,2]}`)), &v); err != nil || len(v.IDs) != 2 {
		t.Errorf("ReadJSON: %v, %+v", err, v)
	}
	if err := fakeserver.ReadJSON(httptest.NewRequest("POST", "/", strings.NewReader(`{"ids":`)), &v); err == nil {
		t.Error("ReadJSON took a truncated body")
	}
	big := `{"s":"` + strings.Repeat("a", 1<<20) + `"}`
	if err := fakeserver.ReadJSON(httptest.NewRequest("POST", "/", strings.NewReader(big)), &v); err == nil {
		t.Error("ReadJSON read past 1 MiB")
	}
}
