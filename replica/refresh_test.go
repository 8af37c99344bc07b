package replica_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/tributary-dev/tributary/replica"
)

// A small copy of an entity without a change feed (Asana's projects) is
// refreshed in place at its next sync: the same table, with the project
// updated, the one deleted and the one created at the source, counted as
// a full load counts them, and nothing else touched.
func TestFeedlessCopyRefreshedInPlace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kc := kindCaseOf("asana")
	fake, url := kc.start()
	defer fake.Close()
	conn := openKind(t, kc, url)
	path := t.TempDir() + "/refresh.db"
	r, err := replica.Open(ctx, conn, replica.SQLite(path))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "projects"); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	live := func() (id int64) {
		if err := db.QueryRow("SELECT live_table FROM tributary_entities WHERE entity = 'projects'").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := live()
	ids := fake.IDs("projects")
	if err := fake.Update("projects", ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := fake.Delete("projects", ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Create("projects"); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Sync(ctx, "projects")
	if err != nil {
		t.Fatal(err)
	}
	er := rep.Entities[0]
	if er.Mode != replica.Full || er.Inserted != 1 || er.Updated != 1 || er.Deleted != 1 || er.Unchanged != int64(len(ids)-2) {
		t.Fatalf("second sync: %+v, want a full walk with 1 inserted, 1 updated, 1 deleted, %d unchanged", er, len(ids)-2)
	}
	if after := live(); after != before {
		t.Fatalf("the copy was loaded anew (table %d, then %d), not refreshed in place", before, after)
	}
	if n := r.Len("projects"); n != len(fake.IDs("projects")) {
		t.Fatalf("the copy holds %d projects, the source %d", n, len(fake.IDs("projects")))
	}
}
