package store_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
