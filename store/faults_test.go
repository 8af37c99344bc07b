package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// The fault tests: bad files, newer versions, read-only files and
// directories, a full disk, a PostgreSQL server that drops the connection
// mid-synchronization, and invalid searches. Each fault must come back as
// the sentinel that names it, in a message that says what happened (and,
// for SQLite, which file), without a panic; where a copy existed before the
// fault it must answer every probe request exactly as before.

// faultN is the number of records of a copy.
const faultN = 400

var faultSpec = store.Spec{Connector: "faults", Entity: "things", Schema: crashSchema, IDField: "id"}

// faultRecords is generation gen of n records.
func faultRecords(gen, n int) [][]byte {
	out := make([][]byte, 0, n)
	for i := range n {
		out = append(out, fmt.Appendf(nil, `{"id":%d,"gen":%d,"subject":"record %d of generation %d: password reset %s"}`, i, gen, i, gen, strings.Repeat("lorem ", i%13)))
	}
	return out
}

// loadRecords runs a full synchronization of recs, 100 a page.
func loadRecords(ctx context.Context, st *store.Store, recs [][]byte) error {
	l, err := st.BeginFull(ctx, faultSpec)
	if err != nil {
		return err
	}
	for i := 0; i < len(recs); i += 100 {
		if err := l.Write(ctx, recs[i:min(i+100, len(recs))], []byte(strconv.Itoa(i))); err != nil {
			_ = l.Abort(ctx)
			return err
		}
	}
	return l.Commit(ctx)
}

// probes are the requests whose answers must survive a fault: every
// record in order, a keyword, a fuzzy search, a range.
var probes = []search.Request{
	{Limit: 1000, Query: search.Query{Sort: []search.SortItem{search.Asc("id")}}},
	{Limit: 20, Query: search.Query{Filter: ptr(search.Keyword("subject", "password lorem")), Sort: []search.SortItem{search.Desc("id")}}},
	{Limit: 20, Query: search.Query{Filter: ptr(search.Fuzzy("subject", "pasword"))}},
	{Limit: 50, Query: search.Query{Filter: ptr(search.And(search.Gte("id", 100), search.Lt("id", 140)))}},
}

func ptr[T any](v T) *T { return &v }

// answers runs the probes (following every cursor) and returns their
// results as JSON, or the first error.
func answers(ctx context.Context, st *store.Store) (string, error) {
	var b strings.Builder
	for _, req := range probes {
		for {
			res, err := st.Search(ctx, faultSpec.Connector, faultSpec.Entity, req)
			if err != nil {
				return "", err
			}
			res.TookMS = 0
			js, _ := json.Marshal(res)
			b.Write(js)
			b.WriteByte('\n')
			if res.NextCursor == nil {
				break
			}
			req.Cursor = *res.NextCursor
		}
	}
	return b.String(), nil
}

// mustAnswer is answers, failing t on an error.
func mustAnswer(t testing.TB, st *store.Store) string {
	t.Helper()
	a, err := answers(context.Background(), st)
	if err != nil {
		t.Fatalf("the probes fail: %v", err)
	}
	if !strings.Contains(a, fmt.Sprintf(`"id":%d,`, faultN-1)) {
		t.Fatalf("the probes find too little: %.300s", a)
	}
	return a
}

// seedSQLite creates a store at path with generation 1 of faultN records,
// closes it, and returns the probes' answers.
func seedSQLite(t testing.TB, path string) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := loadRecords(ctx, st, faultRecords(1, faultN)); err != nil {
		t.Fatal(err)
	}
	return mustAnswer(t, st)
}

// checkIntact opens the store at path and checks that the probes answer
// want.
func checkIntact(t testing.TB, path, want string) {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatalf("the store does not open after the fault: %v", err)
	}
	defer st.Close()
	if got := mustAnswer(t, st); got != want {
		t.Fatalf("the copy changed after the fault:\nbefore: %.400s\nafter:  %.400s", want, got)
	}
}

// wantErr checks that err is a *store.Error with sentinel, whose message
// holds every one of words.
func wantErr(t testing.TB, err error, sentinel error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %v", sentinel)
	}
	var se *store.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v is not a *store.Error", err, err)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("error %q is not %v", err, sentinel)
	}
	t.Logf("as expected: %v", err)
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not say %q", err, w)
		}
	}
}

// fileState is a file's bytes and modification time.
type fileState struct {
	data  []byte
	mtime time.Time
}

func stateOf(t testing.TB, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{b, fi.ModTime()}
}

func (a fileState) check(t testing.TB, path string) {
	t.Helper()
	b := stateOf(t, path)
	if !bytes.Equal(a.data, b.data) || !a.mtime.Equal(b.mtime) {
		t.Fatalf("%s was changed (%d bytes, %v before; %d bytes, %v after)", path, len(a.data), a.mtime, len(b.data), b.mtime)
	}
}

func TestOpenNotADatabase(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 16<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	for name, content := range map[string][]byte{
		"random.db": random,
		"notes.txt": []byte(strings.Repeat("These are my notes; they are not a database.\n", 200)),
		"short.txt": []byte("hello\n"),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			before := stateOf(t, path)
			st, err := store.OpenSQLite(context.Background(), path)
			if err == nil {
				st.Close()
			}
			wantErr(t, err, store.ErrCorrupt, path, "not a SQLite database")
			before.check(t, path)
		})
	}
}

// walkAll reads every record of the copy, page by page, and returns the
// first error.
func walkAll(ctx context.Context, st *store.Store) error {
	if _, err := answers(ctx, st); err != nil {
		return err
	}
	_, err := st.Stats(ctx)
	return err
}

func TestOpenTruncatedStore(t *testing.T) {
	t.Parallel()
	for _, cut := range []string{"half", "first page"} {
		t.Run(cut, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			seedSQLite(t, path)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			size := fi.Size() / 2
			if cut == "first page" {
				size = 4096
			}
			if fi.Size() < 4*4096 {
				t.Fatalf("the store is only %d bytes", fi.Size())
			}
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			st, err := store.OpenSQLite(ctx, path)
			if err == nil {
				err = walkAll(ctx, st)
				st.Close()
			}
			wantErr(t, err, store.ErrCorrupt, path, "damaged")
		})
	}
}

// pagesOf returns the page numbers of table's B-tree, from SQLite's dbstat.
func pagesOf(t testing.TB, path, table string) []int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSearchCorruptPage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store.db")
	seedSQLite(t, path)
	// A leaf page of the records' JSON, in the middle of the table,
	// overwritten with garbage (as a bad sector or a stray write would).
	pages := pagesOf(t, path, "tributary_t1_raw")
	if len(pages) < 3 {
		t.Fatalf("the records' table has %d leaf pages", len(pages))
	}
	page := pages[len(pages)/2]
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024)
	if _, err := f.WriteAt(garbage, (page-1)*4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatalf("the store does not open (the damage is in a records page, not the catalogue): %v", err)
	}
	defer st.Close()
	// Every record, in order: the search reads the damaged page.
	_, err = st.Search(ctx, faultSpec.Connector, faultSpec.Entity, probes[0])
	wantErr(t, err, store.ErrCorrupt, path, "damaged")
	var se *store.Error
	errors.As(err, &se)
	if se.Op != "search" || se.Entity != faultSpec.Entity {
		t.Errorf("the error names op %q, entity %q", se.Op, se.Entity)
	}
}

// setMeta changes the schema version of the SQLite store at path behind
// the library's back.
func setMeta(t testing.TB, db *sql.DB, version string) {
	t.Helper()
	if _, err := db.Exec("UPDATE tributary_meta SET value = '" + version + "' WHERE name = 'schema_version'"); err != nil {
		t.Fatal(err)
	}
}

func TestOpenNewerVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store.db")
	seedSQLite(t, path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	newer := strconv.Itoa(store.SchemaVersion + 1)
	setMeta(t, db, newer)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, path)
	_, err = store.OpenSQLite(context.Background(), path)
	wantErr(t, err, store.ErrVersion, path, "newer version", "schema "+newer, "up to "+strconv.Itoa(store.SchemaVersion))
	before.check(t, path)
	for _, ext := range []string{"-wal", "-journal"} {
		if fi, err := os.Stat(path + ext); err == nil && fi.Size() > 0 {
			t.Errorf("the refused open left %s%s of %d bytes", path, ext, fi.Size())
		}
	}
}

func TestOpenNewerVersionPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadRecords(ctx, st, faultRecords(1, 300)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	newer := strconv.Itoa(store.SchemaVersion + 1)
	if _, err := conn.Exec(ctx, "UPDATE tributary_meta SET value = $1 WHERE name = 'schema_version'", newer); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenPostgres(ctx, dsn)
	wantErr(t, err, store.ErrVersion, "newer version", "schema "+newer, "up to "+strconv.Itoa(store.SchemaVersion))
	var v string
	if err := conn.QueryRow(ctx, "SELECT value FROM tributary_meta WHERE name = 'schema_version'").Scan(&v); err != nil || v != newer {
		t.Fatalf("the refused open changed the version to %q (%v)", v, err)
	}
}

func TestOpenOtherApplication(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
		"INSERT INTO notes (body) VALUES ('buy milk')",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, path)
	_, err = store.OpenSQLite(context.Background(), path)
	wantErr(t, err, store.ErrVersion, path, "not a Tributary store")
	before.check(t, path)
}

func TestOpenOtherApplicationPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT)"); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenPostgres(ctx, dsn)
	wantErr(t, err, store.ErrVersion, "not a Tributary store")
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the refused open left %d tables (%v)", n, err)
	}
}

// The read-only tests run their fault as a user that file permissions
// bind: as root (here and in CI), root ignores them, so the test binary
// runs itself again, as the unprivileged "nobody" user, for that part.

// unprivileged are the parts of tests run in a child process (as a user
// without privileges, or under a resource limit), by name.
var unprivileged = map[string]func(t *testing.T, dir string){}

// TestFaultChild runs one part of a test (TRIBUTARY_FAULT_PART) on
// the directory TRIBUTARY_FAULT_DIR; the tests below start it.
func TestFaultChild(t *testing.T) {
	part := os.Getenv("TRIBUTARY_FAULT_PART")
	if part == "" {
		t.Skip("run by the read-only and file size tests")
	}
	if os.Getenv("TRIBUTARY_FAULT_AS_NOBODY") != "" && os.Geteuid() == 0 {
		t.Fatal("the child runs as root")
	}
	unprivileged[part](t, os.Getenv("TRIBUTARY_FAULT_DIR"))
}

// asUnprivileged runs part on dir as a user that file permissions bind:
// the current one when it is not root; otherwise a copy of this test
// binary, run as "nobody" (dir and its parents must then be reachable by
// that user).
func asUnprivileged(t *testing.T, part, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		unprivileged[part](t, dir)
		return
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root and there is no unprivileged user to test permissions with: %v", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	// The test binary sits in a directory only root can read: a copy.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "store.test")
	copyFile(t, exe, bin, 0o755)
	reachable(t, filepath.Dir(bin))
	reachable(t, dir)
	inChild(t, bin, part, dir, &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}})
}

// inChild runs part on dir in the test binary bin, with attr.
func inChild(t *testing.T, bin, part, dir string, attr *syscall.SysProcAttr) {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestFaultChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TRIBUTARY_FAULT_PART="+part, "TRIBUTARY_FAULT_DIR="+dir)
	if attr != nil && attr.Credential != nil {
		cmd.Env = append(cmd.Env, "TRIBUTARY_FAULT_AS_NOBODY=1", "HOME=/tmp")
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	t.Logf("child (%s):\n%s", part, out)
	if err != nil {
		t.Fatalf("the child's part %s failed: %v", part, err)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestFaultChild")) {
		t.Fatalf("the child's part %s did not run", part)
	}
}

func copyFile(t testing.TB, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// reachable lets every user through dir's parents that t.TempDir made
// (mode 0700), up to the system's temporary directory.
func reachable(t testing.TB, dir string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Dir(dir); strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o055); err != nil {
			t.Fatal(err)
		}
	}
}

func init() {
	unprivileged["new store in a read-only directory"] = func(t *testing.T, dir string) {
		path := filepath.Join(dir, "store.db")
		_, err := store.OpenSQLite(context.Background(), path)
		wantErr(t, err, store.ErrReadOnly, path)
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s was created", path)
		}
	}
	unprivileged["sync into a read-only store"] = func(t *testing.T, dir string) {
		path := filepath.Join(dir, "store.db")
		ctx := context.Background()
		st, err := store.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatalf("a read-only store does not open for reading: %v", err)
		}
		defer st.Close()
		want, err := os.ReadFile(filepath.Join(dir, "answers"))
		if err != nil {
			t.Fatal(err)
		}
		if got := mustAnswer(t, st); got != string(want) {
			t.Fatalf("the read-only store answers otherwise:\n%.300s\n%.300s", want, got)
		}
		err = loadRecords(ctx, st, faultRecords(2, faultN))
		wantErr(t, err, store.ErrReadOnly, path)
		if got := mustAnswer(t, st); got != string(want) {
			t.Fatalf("the copy changed after the failed sync:\n%.300s\n%.300s", want, got)
		}
	}
}

func init() {
	unprivileged["store in a read-only directory"] = func(t *testing.T, dir string) {
		// SQLite reads a WAL database only with its -shm file, which it
		// cannot create here: the open is refused, saying why.
		path := filepath.Join(dir, "store.db")
		_, err := store.OpenSQLite(context.Background(), path)
		wantErr(t, err, store.ErrReadOnly, path, "directory is read-only")
	}
}

func TestReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	asUnprivileged(t, "new store in a read-only directory", dir)
}

func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	for _, dirMode := range []os.FileMode{0o777, 0o555} {
		t.Run(fmt.Sprintf("directory %o", dirMode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ro")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "store.db")
			want := seedSQLite(t, path)
			if err := os.WriteFile(filepath.Join(dir, "answers"), []byte(want), 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, dirMode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			before := stateOf(t, path)
			part := "sync into a read-only store"
			if dirMode == 0o555 {
				part = "store in a read-only directory"
			}
			asUnprivileged(t, part, dir)
			before.check(t, path)
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			checkIntact(t, path, want)
		})
	}
}

func TestSyncOnFullDisk(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("a small file system to fill is mounted as root (CI runs the tests as root)")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tributary-full", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=8m"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	path := filepath.Join(dir, "store.db")
	want := seedSQLite(t, path)
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// Fill the disk to the last byte.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()

	err = loadRecords(ctx, st, faultRecords(2, faultN))
	wantErr(t, err, store.ErrFull, path, "disk is full")
	if got := mustAnswer(t, st); got != want {
		t.Fatalf("the copy changed after the failed sync:\n%.300s\n%.300s", want, got)
	}

	// Room again: the next synchronization completes and is live.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := loadRecords(ctx, st, faultRecords(2, faultN)); err != nil {
		t.Fatalf("the sync after space was freed: %v", err)
	}
	got := mustAnswer(t, st)
	if !strings.Contains(got, `"gen":2`) || strings.Contains(got, `"gen":1`) {
		t.Fatalf("after the second sync the copy is not generation 2: %.300s", got)
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Entities) != 1 || stats.Entities[0].Records != faultN || stats.Entities[0].Syncing {
		t.Fatalf("stats after the second sync: %+v", stats.Entities)
	}
}

// liveTable returns the name of the live table of the copy.
func liveTable(t testing.TB, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) string {
	t.Helper()
	var id int64
	if err := q.QueryRow(context.Background(), "SELECT live_table FROM tributary_entities").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return "tributary_t" + strconv.FormatInt(id, 10)
}

// killWhenBlocked waits until a backend of the store, other than conn's,
// waits for a lock that conn holds, then terminates it, as an
// administrator, a failover or a crash of the server would, mid-transaction.
func killWhenBlocked(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute) // not a timing assertion: a bound on a hang
	for {
		// conn is in a transaction, which keeps the first snapshot of
		// pg_stat_activity it reads unless told to drop it: a store that
		// reached the lock after the first look was never seen.
		if _, err := conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		var pid int32
		err := conn.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND pg_backend_pid() = ANY(pg_blocking_pids(pid))").Scan(&pid)
		if err == nil {
			var ok bool
			if err := conn.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
				t.Fatalf("terminating backend %d: %v %v", pid, ok, err)
			}
			return
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the store's transaction never reached the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPostgresGoesAwayMidSync(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := loadRecords(ctx, st, faultRecords(1, faultN)); err != nil {
		t.Fatal(err)
	}
	want := mustAnswer(t, st)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	// blocked runs step while conn holds a lock on tributary_entities
	// that step's transaction needs (after it has written other rows),
	// and terminates step's backend as it waits.
	blocked := func(step func() error) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE tributary_entities IN EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- step() }()
		killWhenBlocked(t, conn)
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		return <-done
	}
	recs := faultRecords(2, faultN)

	// During a page: its records are written, then its checkpoint waits.
	l, err := st.BeginFull(ctx, faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, recs[:200], []byte("200")); err != nil {
		t.Fatal(err)
	}
	err = blocked(func() error { return l.Write(ctx, recs[200:], []byte("400")) })
	wantErr(t, err, store.ErrUnavailable, "went away", "57P01")
	var se *store.Error
	if errors.As(err, &se); se.Op != "sync" || se.Entity != faultSpec.Entity {
		t.Errorf("the error names op %q, entity %q", se.Op, se.Entity)
	}
	if got := mustAnswer(t, st); got != want {
		t.Fatalf("the copy changed after the failed page:\n%.300s\n%.300s", want, got)
	}
	if err := l.Abort(ctx); err != nil {
		t.Fatalf("aborting the load once the server is back: %v", err)
	}

	// During the swap that makes a loaded copy live.
	l, err = st.BeginFull(ctx, faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(recs); i += 200 {
		if err := l.Write(ctx, recs[i:min(i+200, len(recs))], nil); err != nil {
			t.Fatal(err)
		}
	}
	err = blocked(func() error { return l.Commit(ctx) })
	wantErr(t, err, store.ErrUnavailable, "went away", "57P01")
	if got := mustAnswer(t, st); got != want {
		t.Fatalf("the copy changed after the failed commit:\n%.300s\n%.300s", want, got)
	}

	// The next synchronization, on new connections, completes.
	if err := loadRecords(ctx, st, recs); err != nil {
		t.Fatalf("the sync after the server came back: %v", err)
	}
	got := mustAnswer(t, st)
	if !strings.Contains(got, `"gen":2`) || strings.Contains(got, `"gen":1`) {
		t.Fatalf("after the retry the copy is not generation 2: %.300s", got)
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Entities) != 1 || stats.Entities[0].Records != faultN || stats.Entities[0].Syncing {
		t.Fatalf("stats after the retry: %+v", stats.Entities)
	}
	var tables int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM tributary_tables").Scan(&tables); err != nil || tables != 1 {
		t.Fatalf("%d tables registered after the retry (%v): the failed loads were not cleaned up", tables, err)
	}
}

// invalidRequests are requests the search package refuses: unknown
// fields, values of the wrong type, operators on fields that cannot take
// them.
var invalidRequests = []search.Request{
	{Query: search.Query{Filter: ptr(search.Eq("nope", 1))}},
	{Query: search.Query{Filter: ptr(search.And(search.Gte("id", 1), search.Or(search.Keyword("subjekt", "password"))))}},
	{Query: search.Query{Filter: ptr(search.Gt("gen", true))}},
	{Query: search.Query{Filter: ptr(search.Eq("id", "twelve"))}},
	{Query: search.Query{Filter: ptr(search.In("gen", 1, []any{2}))}},
	{Query: search.Query{Filter: ptr(search.Contains("subject", "x"))}},
	{Query: search.Query{Filter: ptr(search.Like("gen", "1%"))}},
	{Query: search.Query{Filter: ptr(search.Eq("subject.deeper", "x"))}},
	{Query: search.Query{Sort: []search.SortItem{search.Asc("missing")}}},
	{Query: search.Query{Filter: ptr(search.Eq("gen", 1))}, Fields: []search.Path{{}}},
}

// The invalid requests get the reference's own errors, before any SQL on
// the copy runs: the copy's tables are dropped behind the store's back, so
// that any query of them would fail with a database error instead.
func testInvalidSearch(t *testing.T, st *store.Store, drop func(table string), table string) {
	ix, err := search.NewIndex(crashSchema, "id", faultRecords(1, faultN))
	if err != nil {
		t.Fatal(err)
	}
	drop(table)
	ctx := context.Background()
	_, err = st.Search(ctx, faultSpec.Connector, faultSpec.Entity, probes[0])
	if !errors.Is(err, store.ErrDatabase) {
		t.Fatalf("a valid search of the dropped copy: %v, want ErrDatabase (the sabotage did not work)", err)
	}
	for i, req := range invalidRequests {
		_, werr := ix.Search(req)
		var want *search.Error
		if !errors.As(werr, &want) {
			t.Fatalf("request %d: the reference does not refuse it: %v", i, werr)
		}
		_, gerr := st.Search(ctx, faultSpec.Connector, faultSpec.Entity, req)
		var got *search.Error
		if !errors.As(gerr, &got) || !errors.Is(gerr, search.ErrInvalidQuery) {
			t.Fatalf("request %d: %v (%T), want the reference's %v", i, gerr, gerr, werr)
		}
		if got.Error() != want.Error() || got.Field != want.Field {
			t.Fatalf("request %d:\n store:     %v\n reference: %v", i, got, want)
		}
		if got.Field == "" {
			t.Errorf("request %d: the error names no field: %v", i, got)
		}
	}
}

func TestInvalidSearch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store.db")
	seedSQLite(t, path)
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id int64
	if err := db.QueryRow("SELECT live_table FROM tributary_entities").Scan(&id); err != nil {
		t.Fatal(err)
	}
	testInvalidSearch(t, st, func(table string) {
		for _, suffix := range []string{"_fts", "_vocab", "_raw", ""} {
			if _, err := db.Exec(`DROP TABLE "` + table + suffix + `"`); err != nil {
				t.Fatal(err)
			}
		}
	}, "tributary_t"+strconv.FormatInt(id, 10))
}

func TestInvalidSearchPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := loadRecords(ctx, st, faultRecords(1, faultN)); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	testInvalidSearch(t, st, func(table string) {
		for _, suffix := range []string{"_words", "_vocab", "_raw", ""} {
			if _, err := conn.Exec(ctx, `DROP TABLE "`+table+suffix+`"`); err != nil {
				t.Fatal(err)
			}
		}
	}, liveTable(t, conn))
}

func init() {
	unprivileged["sync over the file size limit"] = func(t *testing.T, dir string) {
		path := filepath.Join(dir, "store.db")
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// No file may grow past the store's present size: the sync's
		// write-ahead log cannot hold the new copy. A write past the limit
		// fails (EFBIG, or short) instead of raising SIGXFSZ.
		signal.Ignore(syscall.SIGXFSZ)
		limit := uint64(fi.Size())
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		st, err := store.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		want, err := os.ReadFile(filepath.Join(dir, "answers"))
		if err != nil {
			t.Fatal(err)
		}
		err = loadRecords(ctx, st, faultRecords(2, faultN))
		if errors.Is(err, store.ErrIO) {
			// A write that starts at the limit fails outright, which SQLite
			// reports as an input/output error.
			wantErr(t, err, store.ErrIO, path, "writing the database file", "size limit")
		} else {
			wantErr(t, err, store.ErrFull, path, "disk is full")
		}
		if got := mustAnswer(t, st); got != string(want) {
			t.Fatalf("the copy changed after the failed sync:\n%.300s\n%.300s", want, got)
		}
	}
}

// TestSyncOverFileSizeLimit is the full disk without privileges: a child
// whose files may not grow (RLIMIT_FSIZE) syncs; the copy stays intact,
// and the next sync, without the limit, completes.
func TestSyncOverFileSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	want := seedSQLite(t, path)
	if err := os.WriteFile(filepath.Join(dir, "answers"), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inChild(t, exe, "sync over the file size limit", dir, nil)
	checkIntact(t, path, want)
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := loadRecords(ctx, st, faultRecords(2, faultN)); err != nil {
		t.Fatalf("the sync without the limit: %v", err)
	}
	if got := mustAnswer(t, st); !strings.Contains(got, `"gen":2`) || strings.Contains(got, `"gen":1`) {
		t.Fatalf("after the second sync the copy is not generation 2: %.300s", got)
	}
}

func TestOpenInMissingDirectory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "store.db")
	_, err := store.OpenSQLite(context.Background(), path)
	wantErr(t, err, store.ErrInvalid, filepath.Dir(path), "does not exist")
}
