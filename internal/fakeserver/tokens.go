package fakeserver

import (
	"fmt"
	"sync"
	"time"
)

// Tokens is the OAuth token bookkeeping of a fake vendor's API: the access
// tokens it accepts, which expire on the fake's clock, and the refresh
// tokens its token endpoint redeems, single-use unless Reusable. The fake
// keeps what is the vendor's own: the token answer's fields, its error
// bodies and statuses, and any static credential (an API key) it accepts
// beside these tokens. The zero value mints tokens that live until
// ExpireAll; set the fields before first use. It is safe for concurrent
// use.
type Tokens struct {
	// Now reads the fake's clock (time.Now when nil), so that a test
	// expires tokens by advancing it.
	Now func() time.Time
	// TTL is how long a minted access token lives; zero (or less): until
	// ExpireAll, as a vendor's whose token answer has no expires_in
	// (Notion's).
	TTL time.Duration
	// AccessFormat and RefreshFormat name minted tokens in the vendor's
	// style: a fmt format with one %d, the mint's sequence number, which
	// the access and refresh tokens of one mint share ("fake-access-%d"
	// and "fake-refresh-%d" when empty).
	AccessFormat, RefreshFormat string
	// Reusable keeps a refresh token valid after Redeem, as vendors that
	// do not rotate refresh tokens (Google) do; otherwise a refresh token
	// is spent by its first redemption.
	Reusable bool

	mu      sync.Mutex
	access  map[string]accessToken
	refresh map[string]bool
	seq     int
}

// accessToken is what Tokens knows of an access token.
type accessToken struct {
	expires time.Time // zero: never
	expired bool      // by ExpireAll
}

// Accept makes the fake accept access, an access token that does not
// expire until ExpireAll, and refresh, a refresh token (the fake's
// defaults, which a connector is configured with rather than issued). An
// empty string is not a token: it adds nothing.
func (t *Tokens) Accept(access, refresh string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	if access != "" {
		t.access[access] = accessToken{}
	}
	if refresh != "" {
		t.refresh[refresh] = true
	}
}

// Mint issues an access token that expires TTL from now (never, without a
// TTL) and a refresh token.
func (t *Tokens) Mint() (access, refresh string) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	access, n := t.mintAccessLocked(now)
	refresh = fmt.Sprintf(orDefault(t.RefreshFormat, "fake-refresh-%d"), n)
	t.refresh[refresh] = true
	return access, refresh
}

// MintAccess issues an access token that expires TTL from now, without a
// refresh token (a refresh grant of a vendor that keeps the refresh token,
// or a grant that never carries one).
func (t *Tokens) MintAccess() string {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	access, _ := t.mintAccessLocked(now)
	return access
}

// mintAccessLocked records the next access token and returns it with its
// sequence number. t.mu is held.
func (t *Tokens) mintAccessLocked(now time.Time) (string, int) {
	t.init()
	t.seq++
	access := fmt.Sprintf(orDefault(t.AccessFormat, "fake-access-%d"), t.seq)
	var expires time.Time
	if t.TTL > 0 {
		expires = now.Add(t.TTL)
	}
	t.access[access] = accessToken{expires: expires}
	return access, t.seq
}

// Valid reports whether access is an access token the fake accepts now:
// accepted or minted, and neither past its expiry nor expired by
// ExpireAll.
func (t *Tokens) Valid(access string) bool {
	t.mu.Lock()
	a, ok := t.access[access]
	t.mu.Unlock()
	if !ok || a.expired {
		return false
	}
	return a.expires.IsZero() || t.now().Before(a.expires)
}

// Redeem reports whether refresh is a refresh token the fake accepts, and
// spends it unless Reusable: a rotated refresh token is redeemed once,
// even by requests that race.
func (t *Tokens) Redeem(refresh string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ok := t.refresh[refresh]
	if ok && !t.Reusable {
		delete(t.refresh, refresh)
	}
	return ok
}

// ExpireAll makes every access token accepted or minted so far invalid:
// the next request with one is refused, as with a token past its expiry.
// Refresh tokens stay valid, so that a client recovers by refreshing.
func (t *Tokens) ExpireAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, a := range t.access {
		a.expired = true
		t.access[k] = a
	}
}

func (t *Tokens) init() {
	if t.access == nil {
		t.access, t.refresh = map[string]accessToken{}, map[string]bool{}
	}
}

func (t *Tokens) now() time.Time {
	if t.Now == nil {
		return time.Now()
	}
	return t.Now()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
