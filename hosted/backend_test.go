package hosted_test

import (
	"os"
	"testing"

	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/internal/pgtest"
)

// envBackend selects the store of the service (package server, through
// hostedtest) that this suite runs against: unset or "sqlite" for a
// throwaway SQLite file, "postgres" for a throwaway PostgreSQL database.
// .ci/run runs the suite once with each.
const envBackend = "TRIBUTARY_HOSTED_BACKEND"

// newService starts the service for t on the selected backend; it is
// closed when t ends.
func newService(t testing.TB, opts ...hostedtest.Option) *hostedtest.Server {
	t.Helper()
	switch b := os.Getenv(envBackend); b {
	case "", "sqlite":
	case "postgres":
		opts = append(opts, hostedtest.WithPostgres(pgtest.DSN(t)))
	default:
		t.Fatalf("%s=%q: want sqlite or postgres", envBackend, b)
	}
	srv := hostedtest.New(opts...)
	t.Cleanup(srv.Close)
	return srv
}
