package tributary_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
)

// WithTimeouts sets only the fields it is given; unset fields keep the
// defaults, and a negative field turns its limit off.
func TestWithTimeouts(t *testing.T) {
	d := tributary.DefaultTimeouts
	for _, tc := range []struct {
		name string
		opts []tributary.Option
		want tributary.Timeouts
	}{
		{"none", nil, d},
		{"one field", []tributary.Option{tributary.WithTimeouts(tributary.Timeouts{Stall: 5 * time.Second})},
			tributary.Timeouts{Connect: d.Connect, ResponseHeader: d.ResponseHeader, Stall: 5 * time.Second, Attempt: d.Attempt}},
		{"two calls merge, negative is off", []tributary.Option{
			tributary.WithTimeouts(tributary.Timeouts{Stall: 5 * time.Second}),
			tributary.WithTimeouts(tributary.Timeouts{Attempt: -1, Connect: time.Second})},
			tributary.Timeouts{Connect: time.Second, ResponseHeader: d.ResponseHeader, Stall: 5 * time.Second, Attempt: -1}},
	} {
		if got := tributary.NewOptions(tc.opts...).Timeouts.WithDefaults(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestPageLimit(t *testing.T) {
	if got := tributary.NewOptions().PageLimit(); got != tributary.DefaultMaxPageBytes {
		t.Errorf("default: %d", got)
	}
	if got := tributary.NewOptions(tributary.WithMaxPageBytes(1 << 20)).PageLimit(); got != 1<<20 {
		t.Errorf("set: %d", got)
	}
	if got := tributary.NewOptions(tributary.WithMaxPageBytes(-5)).PageLimit(); got != tributary.DefaultMaxPageBytes {
		t.Errorf("negative: %d", got)
	}
}

type fakeStore struct{}

func (fakeStore) Refresh(context.Context, *oauth2.Token, func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	return nil, nil
}

func TestWithTokenStore(t *testing.T) {
	if o := tributary.NewOptions(); o.TokenStore != nil {
		t.Errorf("default TokenStore %v", o.TokenStore)
	}
	if o := tributary.NewOptions(tributary.WithTokenStore(fakeStore{})); o.TokenStore != (fakeStore{}) {
		t.Errorf("TokenStore %v", o.TokenStore)
	}
}
