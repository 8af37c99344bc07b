package sandbox_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
)

func TestResyncFromAnotherFakeChangesNothing(t *testing.T) {
	ctx := context.Background()
	for _, kind := range sandbox.New().Types() {
		t.Run(kind, func(t *testing.T) {
			es, _ := kinds.Catalogue(kind)
			entities := replica.Syncable(es)
			file := filepath.Join(t.TempDir(), "s.db")
			for round := range 2 {
				sb := sandbox.New()
				c, err := sb.Open(kind)
				if err != nil {
					t.Fatal(err)
				}
				r, err := replica.Open(ctx, c, replica.SQLite(file))
				if err != nil {
					t.Fatal(err)
				}
				rep, err := r.Sync(ctx, entities...)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range rep.Entities {
					if round == 1 && (e.Updated != 0 || e.Inserted != 0 || e.Deleted != 0) {
						t.Errorf("%s: second sync from a new fake: %d inserted, %d updated, %d deleted", e.Entity, e.Inserted, e.Updated, e.Deleted)
					}
				}
				r.Close()
				sb.Close()
			}
		})
	}
}
