package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary/store"
)

// SandboxKey keeps the first key it is given: every later call, from any
// process, even several racing at the first, returns that one.
func TestSandboxKeyIsKept(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		sts := []*store.Store{open(), open()}
		var wg sync.WaitGroup
		got := make([]string, 6)
		for i := range got {
			wg.Go(func() {
				k, err := sts[i%2].SandboxKey(ctx, func() (string, error) { return fmt.Sprintf("sandbox:key-%d", i), nil })
				if err != nil {
					t.Error(err)
				}
				got[i] = k
			})
		}
		wg.Wait()
		for _, k := range got {
			if k != got[0] || k == "" {
				t.Fatalf("racing calls got %q", got)
			}
		}
		again, err := open().SandboxKey(ctx, func() (string, error) { return "sandbox:another", nil })
		if err != nil || again != got[0] {
			t.Errorf("a later call got %q, %v; want %q", again, err, got[0])
		}
	})
}
