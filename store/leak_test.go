package store_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/internal/testmain"
)

func TestMain(m *testing.M) {
	testmain.WaitingParallel(4)
	goleak.VerifyTestMain(pgtest.Main(m))
}
