package reliability

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/race"
	"github.com/tributary-dev/tributary/internal/testmain"
)

// TestMain fails the package if any goroutine (a fake's handler, a
// connection's read loop, a retry timer) outlives the tests.
func TestMain(m *testing.M) {
	testmain.WaitingParallel(2)
	goleak.VerifyTestMain(m)
}

// parallelWhenWaiting runs t beside the package's other parallel tests:
// tests that mostly wait out latencies, timeouts and Retry-After on the
// real clock, whose bounds hold on a loaded machine. They run alone under
// TRIBUTARY_STRICT_TIMING (their figures are then targets) and under the
// race detector (whose slowdown would eat into those bounds).
func parallelWhenWaiting(t *testing.T) {
	if !strictTiming() && !race.Enabled {
		t.Parallel()
	}
}
