package reliability

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (a fake's handler, a
// connection's read loop, a retry timer) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
