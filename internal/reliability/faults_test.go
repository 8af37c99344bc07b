package reliability

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

// walkRecords is how many records each kind's fault walk covers.
const walkRecords = 10_000

// recKey identifies one record of a walk: its id (kept for the fault-free
// walk only, for messages) and a digest of its bytes.
type recKey struct {
	id  string
	sum [sha256.Size]byte
}

// walkTimeout bounds one walk: a hang fails the test instead of blocking it.
// It is generous, for -race on a busy machine, where every kind walks at
// once (eleven kinds' walks of 10,000 records under -race beside other
// builds took up to 3 minutes each).
const walkTimeout = 10 * time.Minute

// walkAll walks kc's entity with tributary.All and returns the records in
// the order they arrived, and the error that ended the walk, if any. ids
// says whether to read each record's id (the digest is enough to compare).
func walkAll(c tributary.Connector, kc kindCase, ids bool) ([]recKey, error) {
	ctx, cancel := context.WithTimeout(context.Background(), walkTimeout)
	defer cancel()
	out := make([]recKey, 0, walkRecords)
	for rec, err := range tributary.All(ctx, c, kc.entity, kc.params.Clone()) {
		if err != nil {
			return out, err
		}
		k := recKey{sum: sha256.Sum256(rec.Raw())}
		if ids {
			raw, _ := rec.Lookup(kc.idPath)
			k.id = string(raw)
		}
		out = append(out, k)
	}
	return out, nil
}

// seedOf is a fixed seed per kind, so that a failure reproduces.
func seedOf(typ string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("reliability/" + typ))
	return h.Sum64()
}

// faultReport is one kind's figures, for the summary.
type faultReport struct {
	kind, run                       string
	records, baseReqs, reqs         int
	injected                        int
	rateLimited, serverErrors, cuts int
	outcome                         string
	elapsed                         time.Duration
}

func (r faultReport) String() string {
	return fmt.Sprintf("%-16s %-11s records %6d  requests %4d (fault-free %4d)  faults %3d = %2d rate-limit + %2d 5xx + %2d cut  %-28s %v",
		r.kind, r.run, r.records, r.reqs, r.baseReqs, r.injected, r.rateLimited, r.serverErrors, r.cuts, r.outcome, r.elapsed.Round(time.Millisecond))
}

// TestFaultsWalk walks 10,000 records of every kind's main entity while 10%
// of the fake's API responses are faults (the kind's own rate-limit answer,
// its 5xx, a connection cut mid-body), and compares the records with a
// fault-free walk of the same fake: every record exactly once, in order, or
// a typed error after the retry budget, never a gap, a duplicate or a hang.
func TestFaultsWalk(t *testing.T) {
	// Parallel with TestFaultsIntercomScroll only: the tests that measure
	// times are not parallel, so they run before these two.
	t.Parallel()
	var mu sync.Mutex
	var reports []faultReport
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		rs := faultWalk(t, kc)
		mu.Lock()
		reports = append(reports, rs...)
		mu.Unlock()
	})
	slices.SortFunc(reports, func(a, b faultReport) int { return strings.Compare(a.kind+a.run, b.kind+b.run) })
	var b strings.Builder
	total := 0
	for _, r := range reports {
		b.WriteString("\n" + r.String())
		total += r.injected
	}
	t.Logf("fault walks (%d faults injected in all):%s", total, b.String())
}

func faultWalk(t testing.TB, kc kindCase) []faultReport {
	f := kc.start(t, walkRecords)
	obs := newObserver()
	t.Cleanup(obs.close)
	c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))

	// One page first, so that one-time requests (an OAuth token) are not
	// counted in the fault-free walk.
	if _, err := c.List(context.Background(), kc.entity, kc.params.Clone()); err != nil {
		t.Fatalf("first page: %v", err)
	}
	f.srv.ResetRequests()
	start := time.Now()
	base, err := walkAll(c, kc, true)
	if err != nil {
		t.Fatalf("fault-free walk: %v", err)
	}
	if len(base) < walkRecords {
		t.Fatalf("fault-free walk: %d records, want at least %d", len(base), walkRecords)
	}
	if dup := firstDuplicate(base); dup >= 0 {
		t.Fatalf("fault-free walk: record %s appears twice (at %d)", base[dup].id, dup)
	}
	baseReqs := apiRequests(f)
	t.Logf("fault-free walk: %d records in %d requests, %v", len(base), baseReqs, time.Since(start).Round(time.Millisecond))

	seed := seedOf(kc.typ)
	mix := fakeserver.Faults{RateLimitRate: 0.03, ServerErrorRate: 0.035, CutRate: 0.035, Seed: seed, RetryAfter: time.Millisecond}
	runs := []faultRun{{name: "mixed", faults: mix, conn: c}}
	if kc.rateLimitFatal {
		// The kind's rate-limit answer is a quota that ends the walk; a
		// second run shows that the other faults are all survived.
		runs[0].mustFail, runs[0].mustFailIfRateLimited = tributary.ErrRateLimited, true
		runs = append(runs, faultRun{name: "5xx+cut", conn: c,
			faults: fakeserver.Faults{ServerErrorRate: 0.05, CutRate: 0.05, Seed: seed}})
	}
	// The retry budget: with one retry and 60% of the responses broken, a
	// page soon fails twice in a row; the walk must end with a typed,
	// retryable ErrServer after the records before that page, no others.
	tight := tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRateLimitWait: 2 * time.Second}
	runs = append(runs, faultRun{name: "budget", conn: open(t, kc, f, obs, tributary.WithRetry(tight)), mustFail: tributary.ErrServer,
		faults: fakeserver.Faults{ServerErrorRate: 0.3, CutRate: 0.3, Seed: seed}})

	var out []faultReport
	for _, run := range runs {
		f.srv.ResetRequests()
		obs.reset()
		f.srv.SetFaults(run.faults)
		start := time.Now()
		got, err := walkAll(run.conn, kc, false)
		elapsed := time.Since(start)
		f.srv.SetFaults(fakeserver.Faults{})
		seen := obs.snapshot()
		rep := faultReport{kind: kc.typ, run: run.name, records: len(got), baseReqs: baseReqs, reqs: apiRequests(f), elapsed: elapsed,
			rateLimited: seen.statuses[http.StatusTooManyRequests], cuts: seen.cuts}
		if kc.rateLimitStatus != 0 {
			rep.rateLimited += seen.statuses[kc.rateLimitStatus]
		}
		for st, n := range seen.statuses {
			if st >= 500 {
				rep.serverErrors += n
			}
		}
		rep.injected = rep.rateLimited + rep.serverErrors + rep.cuts
		mustFail := run.mustFail
		if run.mustFailIfRateLimited && rep.rateLimited == 0 {
			mustFail = nil
		}

		// Whatever arrived is a prefix of the fault-free walk: no gap, no
		// duplicate, nothing reordered, the same bytes.
		checkPrefix(t, run.name, base, got)
		switch {
		case err == nil:
			rep.outcome = "complete"
			if len(got) != len(base) {
				t.Errorf("%s: walk ended without error after %d of %d records", run.name, len(got), len(base))
			}
			// Every fault cost exactly one extra request.
			if extra := rep.reqs - baseReqs; extra != rep.injected {
				t.Errorf("%s: %d requests more than the fault-free walk, but the client saw %d faults (%d rate-limit, %d 5xx, %d cut)",
					run.name, extra, rep.injected, rep.rateLimited, rep.serverErrors, rep.cuts)
			}
			if mustFail != nil {
				t.Errorf("%s: the walk completed; it must end with %v", run.name, mustFail)
			}
		default:
			var te *tributary.Error
			if !errors.As(err, &te) {
				t.Fatalf("%s: walk ended with an untyped error %T: %v", run.name, err, err)
			}
			rep.outcome = "stopped: " + sentinelName(err)
			switch {
			case mustFail != nil && errors.Is(err, mustFail):
				if errors.Is(mustFail, tributary.ErrServer) && !te.Retryable {
					t.Errorf("%s: %v is not marked retryable", run.name, err)
				}
			case mustFail == nil && (errors.Is(err, tributary.ErrServer) || errors.Is(err, tributary.ErrRateLimited)):
				// The retry budget ran out: legitimate, but with 8
				// retries at 10% it should not happen with this seed.
				t.Errorf("%s: walk stopped after %d records: %v", run.name, len(got), err)
			default:
				t.Errorf("%s: walk stopped after %d records with the wrong error: %v", run.name, len(got), err)
			}
			// The records before the error are whole pages (the
			// fault-free walk's pages are all full but the last).
			if pageSize := (len(base) + baseReqs - 1) / baseReqs; len(got)%pageSize != 0 {
				t.Errorf("%s: the walk stopped in the middle of a page (%d records, pages of %d)", run.name, len(got), pageSize)
			}
		}
		if rep.injected == 0 {
			t.Errorf("%s: no fault reached the client; the test proves nothing", run.name)
		}
		if seen.errs > 0 {
			t.Errorf("%s: %d attempts failed before any response (the fakes inject none)", run.name, seen.errs)
		}
		t.Log(rep.String())
		out = append(out, rep)
	}
	return out
}

// faultRun is one faulty walk of a kind.
type faultRun struct {
	name   string
	faults fakeserver.Faults
	conn   tributary.Connector
	// mustFail: the walk must end with an error matching it...
	mustFail error
	// ... only if the client saw a rate-limit answer.
	mustFailIfRateLimited bool
}

// checkPrefix reports the first place where got is not a prefix of want.
func checkPrefix(t testing.TB, run string, want, got []recKey) {
	t.Helper()
	if len(got) > len(want) {
		t.Errorf("%s: %d records, the fault-free walk had %d", run, len(got), len(want))
	}
	at := make(map[[sha256.Size]byte]int, len(want))
	for i, k := range want {
		at[k.sum] = i
	}
	for i := range min(len(got), len(want)) {
		if got[i].sum == want[i].sum {
			continue
		}
		j, known := at[got[i].sum]
		switch {
		case !known:
			t.Errorf("%s: record %d differs in its bytes from the fault-free walk's (%s)", run, i, want[i].id)
		case j < i:
			t.Errorf("%s: record %d is %s again (first delivered at %d): a duplicate", run, i, want[j].id, j)
		default:
			t.Errorf("%s: record %d is %s, the fault-free walk's record %d: %d records skipped or reordered", run, i, want[j].id, j, j-i)
		}
		return
	}
}

// firstDuplicate returns the index of the first record whose id appeared
// before, or -1.
func firstDuplicate(ks []recKey) int {
	seen := make(map[string]struct{}, len(ks))
	for i, k := range ks {
		if _, ok := seen[k.id]; ok {
			return i
		}
		seen[k.id] = struct{}{}
	}
	return -1
}

func sentinelName(err error) string {
	for _, s := range []struct {
		err  error
		name string
	}{
		{tributary.ErrRateLimited, "ErrRateLimited"}, {tributary.ErrServer, "ErrServer"}, {tributary.ErrPaging, "ErrPaging"},
		{tributary.ErrUnexpectedResponse, "ErrUnexpectedResponse"}, {context.Canceled, "context.Canceled"},
		{context.DeadlineExceeded, "context.DeadlineExceeded"}, {tributary.ErrInvalidParams, "ErrInvalidParams"},
		{tributary.ErrUnauthorized, "ErrUnauthorized"}, {tributary.ErrForbidden, "ErrForbidden"}, {tributary.ErrNotFound, "ErrNotFound"},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "other"
}

// TestFaultsIntercomScroll walks Intercom companies past the list's 10,000
// limit, where the walk goes on with the scroll API, through the same 10%
// of faults. A scroll page cannot be asked for twice (Intercom moves the
// scroll on as it answers), so the walk reopens the scroll and skips the
// companies it has yielded: every company must still arrive exactly once,
// in the fault-free walk's order, or the walk ends with a typed error.
func TestFaultsIntercomScroll(t *testing.T) {
	t.Parallel()
	const companies = 10_600
	// The fake's clock is counted in requests, not in wall time: every
	// reading moves it on by 45s (the fake reads it once a scroll request), so
	// the scroll in use (read every request) never idles for Intercom's
	// minute, while one a cut connection left behind expires after a
	// couple of the walk's attempts to open a new one, however slow the
	// machine is.
	clock := fakeserver.NewClock(time.Unix(1_800_000_000, 0))
	clock.SetStep(45 * time.Second)
	s := intercomtest.New(intercomtest.WithCompanies(companies), intercomtest.WithScrollClock(clock.Now))
	defer s.Close()
	f := fake{srv: s.Server, creds: map[string]any{"access_token": intercomtest.DefaultAccessToken}}
	kc := kindCaseOf("intercom")
	kc.entity, kc.params = "companies", nil
	obs := newObserver()
	defer obs.close()
	c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))
	base, err := walkAll(c, kc, true)
	if err != nil {
		t.Fatalf("fault-free walk: %v", err)
	}
	if len(base) != companies {
		t.Fatalf("fault-free walk: %d companies, want %d", len(base), companies)
	}
	if dup := firstDuplicate(base); dup >= 0 {
		t.Fatalf("fault-free walk: company %s appears twice (at %d)", base[dup].id, dup)
	}
	// Let the fault-free walk's scroll expire before the next one opens.
	clock.Advance(intercomtest.ScrollIdleTimeout + time.Second)
	f.srv.ResetRequests()

	// The faults start with the scroll: the plain list before it is the
	// code TestFaultsWalk covers.
	faults := fakeserver.Faults{RateLimitRate: 0.03, ServerErrorRate: 0.035, CutRate: 0.035, Seed: seedOf("intercom/scroll"), RetryAfter: time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), walkTimeout)
	defer cancel()
	start := time.Now()
	got := make([]recKey, 0, companies)
	for rec, err := range tributary.All(ctx, c, kc.entity, nil) {
		if err != nil {
			var te *tributary.Error
			if !errors.As(err, &te) {
				t.Fatalf("walk ended with an untyped error %T: %v", err, err)
			}
			t.Logf("walk ended after %d of %d companies with %v", len(got), companies, err)
			break
		}
		got = append(got, recKey{sum: sha256.Sum256(rec.Raw())})
		if len(got) == 10_000 {
			obs.reset()
			f.srv.SetFaults(faults)
		}
	}
	seen := obs.snapshot()
	scrolls, opens := 0, 0
	for _, r := range f.srv.Requests() {
		if r.Path == "/companies/scroll" {
			scrolls++
			if r.Query.Get("scroll_param") == "" {
				opens++
			}
		}
	}
	t.Logf("%d of %d companies; the scroll: %d requests, %d of them opening it, %d rate-limit, %d 5xx, %d cut; %v",
		len(got), companies, scrolls, opens, seen.statuses[http.StatusTooManyRequests], seen.statuses[http.StatusInternalServerError],
		seen.cuts, time.Since(start).Round(time.Millisecond))
	checkPrefix(t, "scroll", base, got)
	if len(got) < 10_000 {
		t.Errorf("the faults reached the plain list: %d companies", len(got))
	}
}
