package replica

import (
	"context"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// SyncClaimedRenewing is SyncClaimed renewing c for ttl every renewEvery:
// a test stalls the renewer with a long renewEvery, as a process that
// stopped for a while would.
func SyncClaimedRenewing(ctx context.Context, r *Replica, c *store.Claim, ttl, renewEvery time.Duration) (EntityReport, error) {
	return r.syncClaimed(ctx, c, ttl, renewEvery)
}
