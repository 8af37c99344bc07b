// Package replicatest opens durable replicas for the tests of the kinds:
// a connector's copies in a SQLite file of the test's own, synchronized.
package replicatest

import (
	"context"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/replica"
)

// Synced opens a durable replica of conn in a SQLite file under
// t.TempDir(), closed when the test ends, and synchronizes entities.
func Synced(t testing.TB, conn tributary.Connector, entities []string, opts ...replica.Option) *replica.Replica {
	t.Helper()
	ctx := context.Background()
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/x.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if _, err := r.Sync(ctx, entities...); err != nil {
		t.Fatal(err)
	}
	return r
}
