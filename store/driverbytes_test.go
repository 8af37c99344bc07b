package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// TestDriverBytesKept: the bytes of every row read into a driverBytes stay
// that row's after the next rows are read and the rows closed, for blob
// and text values alike. Searches keep a page's records so (one copy, not
// two); a driver that reused its buffer from row to row would fail here,
// the first hit's data become the last one's.
func TestDriverBytesKept(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/bytes.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (rid INTEGER PRIMARY KEY, raw BLOB NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 5 {
		v := fmt.Sprintf(`{"id":%d,"subject":"record %d"}`, i, i)
		want = append(want, v)
		var arg any = []byte(v)
		if i == 3 {
			arg = v // stored as text
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO t (rid, raw) VALUES (?, ?)", i, arg); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(ctx, "SELECT raw FROM t ORDER BY rid")
	if err != nil {
		t.Fatal(err)
	}
	var got []driverBytes
	var raw driverBytes
	for rows.Next() {
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		got = append(got, raw)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if len(got) != len(want) {
		t.Fatalf("read %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("row %d reads %q after the others, want %q", i, got[i], want[i])
		}
	}
}
