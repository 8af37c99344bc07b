package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
)

// tierSource answers every request with an empty list and records when
// each method was called.
type tierSource struct {
	mu    sync.Mutex
	calls map[string][]time.Time
}

func (s *tierSource) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.calls[r.URL.Path] = append(s.calls[r.URL.Path], time.Now())
	s.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"items":[]}`)), Request: r}, nil
}

func tierKind(tiers map[string]Rate) *Kind {
	rt := func(path, tier string) []Route { return []Route{{Path: path, Records: "items", Tier: tier}} }
	return &Kind{Type: "tiered", Tiers: tiers, Entities: []Entity{
		{Entity: tributary.Entity{Name: "slow", Actions: []tributary.Action{tributary.ActionList, tributary.ActionGet}},
			Routes: map[tributary.Action][]Route{tributary.ActionList: rt("/slow.list", "t1"), tributary.ActionGet: {{Path: "/slow.list", Records: "items.0", Tier: "t1"}}}},
		{Entity: tributary.Entity{Name: "other", Actions: []tributary.Action{tributary.ActionList}},
			Routes: map[tributary.Action][]Route{tributary.ActionList: rt("/other.list", "t1")}},
		{Entity: tributary.Entity{Name: "fast", Actions: []tributary.Action{tributary.ActionList}},
			Routes: map[tributary.Action][]Route{tributary.ActionList: rt("/fast.list", "t2")}},
		{Entity: tributary.Entity{Name: "free", Actions: []tributary.Action{tributary.ActionList}},
			Routes: map[tributary.Action][]Route{tributary.ActionList: rt("/free.list", "")}},
	}}
}

// TestTierPaces: each method of a tier is paced on its own at the tier's
// rate (a list and a get of one method share its pace; another method of
// the same tier has its own), a setting replaces a tier's rate, a route
// without a tier is not paced, and WithoutPacing turns every tier off.
func TestTierPaces(t *testing.T) {
	tiers := map[string]Rate{"t1": {N: 1, Per: time.Minute}, "t2": {N: 20, Per: time.Minute}}
	run := func(t *testing.T, opts ...tributary.Option) map[string]time.Duration {
		src := &tierSource{calls: map[string][]time.Time{}}
		c, err := Open(Setup{Kind: tierKind(tiers), DefaultBaseURL: "https://api.example.com",
			Options: tributary.NewOptions(append(opts, tributary.WithHTTPClient(&http.Client{Transport: src}))...)})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		start := time.Now()
		for range 3 {
			for _, e := range []string{"slow", "other", "fast", "free"} {
				if _, err := c.List(ctx, e, nil); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Get(ctx, "slow", nil); !errors.Is(err, tributary.ErrNotFound) {
				t.Fatal(err)
			}
		}
		took := map[string]time.Duration{}
		for p, ts := range src.calls {
			took[p] = ts[len(ts)-1].Sub(start)
		}
		return took
	}
	synctest.Test(t, func(t *testing.T) {
		// slow.list: 6 requests (3 lists, 3 gets) at 0.95 a minute:
		// 5 waits of 63.2s. other.list: its own pace, 2 waits, sent
		// while slow.list waits.
		took := run(t)
		minute := time.Minute * 100 / 95
		if got := took["/slow.list"]; got < 5*minute || got > 5*minute+time.Millisecond {
			t.Errorf("slow.list's last request at %v, want %v", got, 5*minute)
		}
		if got := took["/other.list"]; got > 5*minute {
			t.Errorf("other.list's last request at %v: paced with slow.list's", got)
		}
		if got := took["/free.list"]; got > 5*minute {
			t.Errorf("free.list's last at %v", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		took := run(t, tributary.WithSetting("tiered.tier.t1", "60/1m"))
		if got := took["/slow.list"]; got > 10*time.Second {
			t.Errorf("t1 at 60 a minute: slow.list's last request at %v", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		if took := run(t, tributary.WithoutPacing()); took["/slow.list"] != 0 || took["/fast.list"] != 0 {
			t.Errorf("WithoutPacing: the last requests at %v", took)
		}
		// t1 off; t2 (fast.list, sent in the same loop) still paced: two
		// waits of 60s/19.
		if got := run(t, tributary.WithSetting("tiered.tier.t1", "0"))["/slow.list"]; got > 7*time.Second {
			t.Errorf("t1 off: slow.list's last request at %v", got)
		}
	})
	for _, bad := range []struct {
		kind *Kind
		opt  tributary.Option
		want string
	}{
		{tierKind(map[string]Rate{"t1": {N: 1, Per: time.Minute}}), nil, `names tier "t2"`},
		{tierKind(tiers), tributary.WithSetting("tiered.tier.t2", "fast"), "tiered.tier.t2"},
	} {
		opts := []tributary.Option{}
		if bad.opt != nil {
			opts = append(opts, bad.opt)
		}
		_, err := Open(Setup{Kind: bad.kind, DefaultBaseURL: "https://api.example.com", Options: tributary.NewOptions(opts...)})
		if err == nil || !strings.Contains(fmt.Sprint(err), bad.want) {
			t.Errorf("Open: %v, want an error naming %s", err, bad.want)
		}
	}
}
