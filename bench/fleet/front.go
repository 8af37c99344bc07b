package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// front is one kind's vendor as the fleet's processes see it: a listener
// per process (so that a request says which process sent it), in front of
// one fake per account, each started on its first request. A request names
// its account by the marker in its credential; the front strips it,
// forwards the request in-process to the account's fake, which enforces
// the account's own rate budget, and answers after the request's latency.
// The fake sees the request when it was sent: a vendor counts a request
// against its budget on arrival, and most of a request's time is the
// vendor's work after that. (Waiting first let requests paced to Gong's 3
// a second reach the fake 4 in a second, its latency drawn from 80 ms to
// more than a second: 1 to 6 answers 429 a run.)
type front struct {
	spec    kindSpec
	latency func() time.Duration
	sizeOf  func(account int) int
	urls    []string // by process
	servers []*http.Server

	mu       sync.Mutex
	accounts map[int]*account

	requests, throttled, unmarked atomic.Int64
	// overlaps counts requests that arrived for an account while another
	// process had a request of that account in flight: two processes
	// talking to one vendor account at once.
	overlaps atomic.Int64
	overlapN map[string]int // by account, for the report (under mu)
}

// account is one account's fake and who is talking to it.
type account struct {
	once sync.Once
	fake fakeserver.Fake
	tr   http.RoundTripper
	host string

	mu       sync.Mutex
	inflight []int // by process
}

// newFront starts the listeners of spec's front, one per process.
func newFront(spec kindSpec, procs int, latency func() time.Duration, sizeOf func(int) int) (*front, error) {
	f := &front{spec: spec, latency: latency, sizeOf: sizeOf, accounts: map[int]*account{}, overlapN: map[string]int{}}
	for p := range procs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f.close()
			return nil, err
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, p, procs) }),
			ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		f.servers = append(f.servers, srv)
		f.urls = append(f.urls, "http://"+ln.Addr().String())
	}
	return f, nil
}

// close stops the listeners and every account's fake.
func (f *front) close() {
	for _, s := range f.servers {
		_ = s.Close()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.accounts {
		if a.fake != nil {
			a.fake.Close()
		}
	}
}

// get returns account i's fake, started on first use.
func (f *front) get(i int) *account {
	f.mu.Lock()
	a := f.accounts[i]
	if a == nil {
		a = &account{}
		f.accounts[i] = a
	}
	f.mu.Unlock()
	a.once.Do(func() {
		a.fake = f.spec.start(f.sizeOf(i))
		// The front reaches the fake in process only: its two
		// listeners would be two open files an account.
		a.fake.Core().CloseListeners()
		a.tr = a.fake.Transport()
		a.host = strings.TrimPrefix(a.fake.BaseURL(), "http://")
	})
	return a
}

// started returns the accounts whose fake runs, by number.
func (f *front) started() map[int]*account {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[int]*account, len(f.accounts))
	for i, a := range f.accounts {
		out[i] = a
	}
	return out
}

// trimLogs empties every fake's request log, which would otherwise hold
// every request of the run.
func (f *front) trimLogs() {
	for _, a := range f.started() {
		a.once.Do(func() {}) // wait for a start under way
		if a.fake != nil {
			a.fake.Core().ResetRequests()
		}
	}
}

func (f *front) serve(w http.ResponseWriter, r *http.Request, proc, procs int) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, "fleet: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	i, ok := unmark(r, &body)
	if !ok {
		f.unmarked.Add(1)
		http.Error(w, "fleet: no account marker in the request's credentials", http.StatusUnauthorized)
		return
	}
	a := f.get(i)
	a.mu.Lock()
	if a.inflight == nil {
		a.inflight = make([]int, procs)
	}
	for q, n := range a.inflight {
		if q != proc && n > 0 {
			f.overlaps.Add(1)
			f.mu.Lock()
			f.overlapN[f.spec.kind+" account "+strconv.Itoa(i)]++
			f.mu.Unlock()
			break
		}
	}
	a.inflight[proc]++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.inflight[proc]--
		a.mu.Unlock()
	}()

	answerAt := time.Now().Add(f.latency())
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = "http", a.host, r.Host, ""
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	res, err := a.tr.RoundTrip(out)
	if err != nil {
		if r.Context().Err() == nil {
			http.Error(w, "fleet: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	defer res.Body.Close()
	f.requests.Add(1)
	if res.StatusCode == http.StatusTooManyRequests {
		f.throttled.Add(1)
	}
	rb, _ := io.ReadAll(res.Body)
	rb = markTokens(rb, i)
	if !waitCtx(r.Context(), time.Until(answerAt)) {
		return
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rb)))
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(rb)
}

// marker returns account i's marker.
func marker(i int) string { return fmt.Sprintf("%s%0*d", markerPrefix, markerDigits, i) }

// cut finds a marker in s and returns s without it and the account.
func cut(s string) (string, int, bool) {
	j := strings.Index(s, markerPrefix)
	for j >= 0 {
		end := j + len(markerPrefix) + markerDigits
		if end <= len(s) {
			if n, err := strconv.Atoi(s[j+len(markerPrefix) : end]); err == nil && n >= 0 {
				return s[:j] + s[end:], n, true
			}
		}
		k := strings.Index(s[j+1:], markerPrefix)
		if k < 0 {
			break
		}
		j += 1 + k
	}
	return s, 0, false
}

// unmark finds the account in r's credentials (its Authorization header,
// a Basic one decoded; else its query; else its body, where a token
// exchange sends a refresh token), removes the marker, and returns the
// account's number.
func unmark(r *http.Request, body *[]byte) (int, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		if enc, ok := strings.CutPrefix(h, "Basic "); ok {
			if dec, err := base64.StdEncoding.DecodeString(enc); err == nil {
				if s, i, ok := cut(string(dec)); ok {
					r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(s)))
					return i, true
				}
			}
		}
		if s, i, ok := cut(h); ok {
			r.Header.Set("Authorization", s)
			return i, true
		}
	}
	if s, i, ok := cut(r.URL.RawQuery); ok {
		r.URL.RawQuery = s
		return i, true
	}
	b := string(*body)
	if s, i, ok := cut(strings.ReplaceAll(b, "%7Ea", markerPrefix)); ok {
		*body = []byte(s)
		return i, true
	}
	return 0, false
}

// markTokens appends account i's marker to the tokens of a token
// exchange's answer (a JSON object with an access_token), so that the
// requests made with them name the account too.
func markTokens(b []byte, i int) []byte {
	if !bytes.Contains(b, []byte(`"access_token"`)) {
		return b
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	changed := false
	for _, k := range []string{"access_token", "refresh_token"} {
		if s, ok := m[k].(string); ok && s != "" {
			if _, _, has := cut(s); !has {
				m[k] = s + marker(i)
				changed = true
			}
		}
	}
	if !changed {
		return b
	}
	out, err := json.Marshal(m)
	if err != nil {
		return b
	}
	return out
}

// logNormal returns a latency drawn from a log-normal distribution of the
// median and sigma, with one request in tailEvery taking tailX times more
// (a slow vendor moment); rng is the draw's source, safe for concurrent
// use. A zero median gives no latency.
func logNormal(median time.Duration, sigma float64, tailEvery int, tailX float64, seed uint64) func() time.Duration {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	return func() time.Duration {
		if median <= 0 {
			return 0
		}
		mu.Lock()
		x, tail := rng.NormFloat64(), tailEvery > 0 && rng.IntN(tailEvery) == 0
		mu.Unlock()
		d := float64(median) * math.Exp(sigma*x)
		if tail {
			d *= tailX
		}
		return time.Duration(d)
	}
}

// waitCtx sleeps d unless ctx ends first.
func waitCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
