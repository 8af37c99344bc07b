package doctest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine running, and
// removes the tributary command the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if bin.dir != "" {
			_ = os.RemoveAll(bin.dir)
		}
	}))
}
