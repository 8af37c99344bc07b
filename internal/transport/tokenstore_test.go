package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// memStore is the test's TokenStore: fakeserver's (one saved token under
// a mutex, as a database row under a lock would be for several
// processes), its calls counted.
type memStore struct {
	fakeserver.TokenStore
	calls atomic.Int64
}

func (s *memStore) Refresh(ctx context.Context, stale *oauth2.Token, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	s.calls.Add(1)
	return s.TokenStore.Refresh(ctx, stale, refresh)
}

// vendor is an OAuth vendor whose refresh tokens are single-use: the token
// endpoint accepts only the newest refresh token, and answers 400
// invalid_grant to one used before. Its API accepts the access tokens it
// issued, for apiLife after issue.
type vendor struct {
	*httptest.Server
	expiresIn int           // the expires_in of issued tokens, in seconds
	apiLife   time.Duration // how long the API accepts an access token

	mu       sync.Mutex
	current  string         // the refresh token accepted next
	uses     map[string]int // refresh token → times presented
	issued   map[string]time.Time
	n        int
	rejected int                        // refreshes answered invalid_grant
	users    map[string]map[string]bool // access token → processes that used it
}

func newVendor(t *testing.T, expiresIn int, apiLife time.Duration) *vendor {
	v := &vendor{expiresIn: expiresIn, apiLife: apiLife, current: "r-0", uses: map[string]int{}, issued: map[string]time.Time{}, users: map[string]map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", v.token)
	mux.HandleFunc("GET /api", v.api)
	v.Server = httptest.NewServer(mux)
	t.Cleanup(v.Close)
	return v
}

func (v *vendor) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "refresh_token" {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	rt := r.Form.Get("refresh_token")
	v.mu.Lock()
	defer v.mu.Unlock()
	v.uses[rt]++
	if rt != v.current {
		v.rejected++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"refresh token already used"}`)
		return
	}
	v.n++
	access := fmt.Sprintf("a-%d", v.n)
	v.current = fmt.Sprintf("r-%d", v.n)
	v.issued[access] = time.Now()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":%q,"refresh_token":%q,"token_type":"bearer","expires_in":%d}`, access, v.current, v.expiresIn)
}

// used returns how many times the endpoint saw refresh token rt.
func (v *vendor) used(rt string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.uses[rt]
}

func (v *vendor) api(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	v.mu.Lock()
	at, ok := v.issued[tok]
	if ok {
		if v.users[tok] == nil {
			v.users[tok] = map[string]bool{}
		}
		v.users[tok][r.URL.Query().Get("process")] = true
	}
	v.mu.Unlock()
	if !ok || time.Since(at) > v.apiLife {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	io.WriteString(w, "{}")
}

// process is one process's view of the credentials: its own OAuth Auth
// and client, as two `tributary serve` processes would each build.
type process struct {
	name      string
	client    *Client
	refreshed atomic.Int64 // tokens passed to OnRefresh
}

func newProcess(v *vendor, name string, store TokenStore) *process {
	p := &process{name: name}
	u, _ := url.Parse(v.URL)
	auth, _ := OAuth(OAuthConfig{TokenURL: v.URL + "/token", AuthStyle: oauth2.AuthStyleInParams, ClientID: "id", ClientSecret: "secret",
		RefreshToken: "r-0", Store: store, OnRefresh: func(*oauth2.Token) { p.refreshed.Add(1) }})
	p.client = New(Config{Origin: u, Auth: auth, MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	return p
}

// hammer runs workers goroutines per process, each sending requests until
// d has passed, and returns the number of requests and the failures.
func hammer(t *testing.T, v *vendor, procs []*process, workers int, d time.Duration) (int64, []error) {
	t.Helper()
	var n atomic.Int64
	var mu sync.Mutex
	var errs []error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for _, p := range procs {
		for range workers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					req, _ := http.NewRequest(http.MethodGet, v.URL+"/api?process="+p.name, nil)
					resp, err := p.client.Do(req)
					n.Add(1)
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							err = fmt.Errorf("HTTP %d", resp.StatusCode)
						}
					}
					if err != nil {
						mu.Lock()
						errs = append(errs, fmt.Errorf("%s: %w", p.name, err))
						mu.Unlock()
					}
					time.Sleep(2 * time.Millisecond)
				}
			})
		}
	}
	wg.Wait()
	return n.Load(), errs
}

// Two processes with the same credentials and single-use refresh tokens:
// with a shared TokenStore, access tokens expire (every second: expires_in
// 11 less oauth2's 10 s early renewal) again and again while 16 goroutines
// send requests, and no request fails; every refresh token is presented
// exactly once, one process refreshes where both needed to and the other
// adopts the token (both use it); OnRefresh sees exactly the tokens issued.
// Without the store, the second process spends the refresh token the first
// already spent, and fails.
func TestTokenStoreSharesRefreshesAcrossProcesses(t *testing.T) {
	t.Run("shared store", func(t *testing.T) {
		v := newVendor(t, 11, 5*time.Second)
		store := &memStore{}
		procs := []*process{newProcess(v, "A", store), newProcess(v, "B", store)}
		const d = 3500 * time.Millisecond
		requests, errs := hammer(t, v, procs, 8, d)
		for i, err := range errs {
			if i < 5 {
				t.Errorf("request failed: %v", err)
			}
		}
		if len(errs) > 0 {
			t.Fatalf("%d of %d requests failed", len(errs), requests)
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.rejected != 0 {
			t.Errorf("%d refreshes presented a spent refresh token", v.rejected)
		}
		for rt, n := range v.uses {
			if n != 1 {
				t.Errorf("refresh token %s presented %d times", rt, n)
			}
		}
		// The first token and one per second of expiry: 4 (3 to 5), where two
		// processes refreshing on their own would need twice as many.
		if v.n < 3 || v.n > 5 {
			t.Errorf("%d refreshes in %v with tokens living 1 s, want 3 to 5", v.n, d)
		}
		shared := 0
		for _, users := range v.users {
			if users["A"] && users["B"] {
				shared++
			}
		}
		if shared != v.n {
			t.Errorf("%d of %d access tokens were used by both processes", shared, v.n)
		}
		if got := procs[0].refreshed.Load() + procs[1].refreshed.Load(); got != int64(v.n) {
			t.Errorf("OnRefresh saw %d tokens in all, the endpoint issued %d", got, v.n)
		}
		t.Logf("%d requests, %d refreshes, %d store calls", requests, v.n, store.calls.Load())
	})
	t.Run("without a store the second process fails", func(t *testing.T) {
		v := newVendor(t, 11, 5*time.Second)
		procs := []*process{newProcess(v, "A", nil), newProcess(v, "B", nil)}
		_, errs := hammer(t, v, procs, 8, 300*time.Millisecond)
		if len(errs) == 0 {
			t.Fatal("no request failed: the test cannot tell a shared refresh from two")
		}
		if !errors.Is(errs[0], ErrAuth) || !strings.Contains(errs[0].Error(), "invalid_grant") {
			t.Errorf("failure %v, want ErrAuth with invalid_grant", errs[0])
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.uses["r-0"] < 2 {
			t.Errorf("r-0 presented %d times", v.uses["r-0"])
		}
	})
}

// stubStore returns what a test tells it to, and records the stale tokens.
type stubStore struct {
	mu     sync.Mutex
	stales []*oauth2.Token
	fn     func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error)
}

func (s *stubStore) Refresh(ctx context.Context, stale *oauth2.Token, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	s.mu.Lock()
	s.stales = append(s.stales, stale)
	s.mu.Unlock()
	return s.fn(ctx, refresh)
}

// A token adopted from the store is used, its refresh token is the one the
// process presents next, it does not reach OnRefresh, and a 401 to it
// leads to a refresh (it is of unknown standing), whose stale token is it.
func TestTokenStoreAdoption(t *testing.T) {
	v := newVendor(t, 3600, time.Hour)
	v.current = "r-other"
	var onRefresh, onToken []string
	store := &stubStore{}
	store.fn = func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		return &oauth2.Token{AccessToken: "from-another-process", RefreshToken: "r-other", Expiry: time.Now().Add(time.Hour)}, nil
	}
	auth, ts := OAuth(OAuthConfig{TokenURL: v.URL + "/token", AuthStyle: oauth2.AuthStyleInParams, ClientID: "id", ClientSecret: "secret",
		RefreshToken: "r-mine", Store: store,
		OnRefresh: func(t *oauth2.Token) { onRefresh = append(onRefresh, t.AccessToken) },
		OnToken:   func(t *oauth2.Token) { onToken = append(onToken, t.AccessToken) }})
	tok, err := ts.TokenContext(context.Background())
	if err != nil || tok.AccessToken != "from-another-process" {
		t.Fatalf("token %v, %v", tok, err)
	}
	if len(onRefresh) != 0 || len(onToken) != 1 {
		t.Errorf("OnRefresh %v, OnToken %v after adopting", onRefresh, onToken)
	}
	if !auth.(Rejecter).Reject("Bearer from-another-process") {
		t.Fatal("a 401 to an adopted token does not lead to a refresh")
	}
	// Now the store has nothing newer: it lets the process refresh with ""
	// (its own refresh token, which is now the adopted one).
	store.fn = func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		return refresh(ctx, "")
	}
	tok, err = ts.TokenContext(context.Background())
	if err != nil || tok.AccessToken != "a-1" || tok.RefreshToken != "r-1" {
		t.Fatalf("refresh after the 401: %v, %v", tok, err)
	}
	if v.used("r-other") != 1 || v.used("r-mine") != 0 {
		t.Errorf("refresh tokens presented: r-other %d times, r-mine %d times; want the adopted one once", v.used("r-other"), v.used("r-mine"))
	}
	if len(onRefresh) != 1 || onRefresh[0] != "a-1" || len(onToken) != 2 {
		t.Errorf("OnRefresh %v, OnToken %v", onRefresh, onToken)
	}
	if len(store.stales) != 2 || store.stales[0] != nil || store.stales[1] == nil || store.stales[1].AccessToken != "from-another-process" {
		t.Errorf("stale tokens passed: %v", store.stales)
	}
	// A token this process obtained and that never worked is not refreshed
	// again on a 401 (the existing rule stands with a store).
	if auth.(Rejecter).Reject("Bearer a-1") {
		t.Error("a fresh token of this process that never worked was dropped")
	}
}

// The given access token is the stale one on the first refresh, and the
// saved refresh token the store passes is the one presented.
func TestTokenStoreStaleAndSavedRefreshToken(t *testing.T) {
	v := newVendor(t, 3600, time.Hour)
	v.current = "r-saved"
	store := &stubStore{}
	store.fn = func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		return refresh(ctx, "r-saved")
	}
	auth, ts := OAuth(OAuthConfig{TokenURL: v.URL + "/token", AuthStyle: oauth2.AuthStyleInParams, ClientID: "id", ClientSecret: "secret",
		AccessToken: "given", RefreshToken: "r-old", Store: store})
	if !auth.(Rejecter).Reject("Bearer given") {
		t.Fatal("the caller's token was not dropped")
	}
	tok, err := ts.TokenContext(context.Background())
	if err != nil || tok.AccessToken != "a-1" {
		t.Fatalf("%v, %v", tok, err)
	}
	if len(store.stales) != 1 || store.stales[0] == nil || store.stales[0].AccessToken != "given" {
		t.Errorf("stale = %v, want the given token", store.stales)
	}
	if v.used("r-saved") != 1 || v.used("r-old") != 0 {
		t.Errorf("presented r-saved %d times, r-old %d times", v.used("r-saved"), v.used("r-old"))
	}
}

// Errors: a refresh's own error passes through the store unchanged (a spent
// refresh token stays a credentials problem, secrets hidden); the store's
// own failure is ErrTokenUnavailable (it may pass); a store that returns
// no token is an error, not a panic; a cancelled context wins.
func TestTokenStoreErrors(t *testing.T) {
	v := newVendor(t, 3600, time.Hour)
	open := func(fn func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error)) TokenSource {
		_, ts := OAuth(OAuthConfig{TokenURL: v.URL + "/token", AuthStyle: oauth2.AuthStyleInParams, ClientID: "id", ClientSecret: "client-secret-value",
			RefreshToken: "refresh-token-value", Store: &stubStore{fn: fn}})
		return ts
	}
	_, err := open(func(ctx context.Context, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		tok, err := refresh(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("my store: %w", err)
		}
		return tok, nil
	}).TokenContext(context.Background())
	if err == nil || errors.Is(err, ErrTokenUnavailable) || !strings.Contains(err.Error(), "invalid_grant") ||
		strings.Contains(err.Error(), "refresh-token-value") || strings.Contains(err.Error(), "client-secret-value") {
		t.Errorf("spent refresh token through the store: %v", err)
	}
	dbDown := errors.New("database is down")
	_, err = open(func(context.Context, func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		return nil, dbDown
	}).TokenContext(context.Background())
	if !errors.Is(err, ErrTokenUnavailable) || !errors.Is(err, dbDown) {
		t.Errorf("store failure: %v", err)
	}
	for _, tok := range []*oauth2.Token{nil, {}} {
		_, err = open(func(context.Context, func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
			return tok, nil
		}).TokenContext(context.Background())
		if !errors.Is(err, ErrTokenUnavailable) {
			t.Errorf("store returned %v: %v", tok, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = open(func(ctx context.Context, _ func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
		return nil, fmt.Errorf("lock: %w", ctx.Err())
	}).TokenContext(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTokenUnavailable) {
		t.Errorf("cancelled: %v", err)
	}
}
