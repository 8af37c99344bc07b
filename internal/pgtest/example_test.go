package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/pgtest"
)

// A package whose tests call DSN has this TestMain: the tests run, then the
// throwaway server stops, then goleak looks for goroutines left running.
func ExampleMain() {
	testMain := func(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) } // func TestMain(m *testing.M)
	_ = testMain
}

// Each test gets a database of its own, empty, dropped when the test ends.
func ExampleDSN() {
	testStore := func(t *testing.T) { // func TestStore(t *testing.T)
		conn, err := pgx.Connect(t.Context(), pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(t.Context(), "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
			t.Fatal(err)
		}
		// ...
	}
	_ = testStore
}
