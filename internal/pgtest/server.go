package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// dirPrefix names the temporary directories of throwaway servers, so that
// those of crashed test binaries can be found and removed.
const dirPrefix = "tributary-pgtest-"

// superuser is the role initdb creates; the server trusts every local
// connection, so no password is involved.
const superuser = "tributary"

// binaries are the programs a throwaway server is made with.
type binaries struct{ initdb, postgres string }

// findBinaries looks for initdb on PATH, then in the highest
// /usr/lib/postgresql/<version>/bin, and takes postgres from the same
// directory (symbolic links resolved), so that both are of one version.
func findBinaries() (binaries, error) {
	return findBinariesIn(exec.LookPath, filepath.Glob)
}

func findBinariesIn(lookPath func(string) (string, error), glob func(string) ([]string, error)) (binaries, error) {
	var dirs []string
	if p, err := lookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	found, _ := glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { // highest version first
		return compareVersions(filepath.Base(filepath.Dir(filepath.Dir(b))), filepath.Base(filepath.Dir(filepath.Dir(a))))
	})
	for _, p := range found {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, dir := range dirs {
		b := binaries{initdb: filepath.Join(dir, "initdb"), postgres: filepath.Join(dir, "postgres")}
		if isExecutable(b.initdb) && isExecutable(b.postgres) {
			return b, nil
		}
	}
	return binaries{}, errors.New("no initdb found (install Debian's postgresql)")
}

// compareVersions orders "9.6", "15", "17" numerically.
func compareVersions(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// server is a running throwaway server. Its processes are started, waited
// for and stopped by one goroutine locked to its OS thread: on Linux they get
// a signal when the thread that started them ends, and the Go runtime ends a
// thread only when its locked goroutine returns.
type server struct {
	dsn  string        // of its "postgres" database
	dir  string        // its temporary directory
	pid  int           // the postmaster's process id
	quit chan struct{} // closed by stop
	done chan error    // the goroutine's result, once stopped
}

// start makes and starts a throwaway server from bins, and waits until it
// accepts connections.
func start(bins binaries) (*server, error) {
	removeStale()
	ready := make(chan error, 1)
	s := &server{quit: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		runtime.LockOSThread() // never unlocked: see server
		s.done <- s.run(bins, ready)
	}()
	if err := <-ready; err != nil {
		<-s.done
		return nil, err
	}
	return s, nil
}

// stop shuts the server down (fast shutdown, then a kill after 10 s) and
// removes its directory.
func (s *server) stop() error {
	close(s.quit)
	return <-s.done
}

// run is the server's goroutine: it reports on ready whether the server
// started, then runs it until stop.
func (s *server) run(bins binaries, ready chan<- error) (err error) {
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		ready <- err
		return nil
	}
	s.dir = dir
	defer func() {
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	as, err := prepare(dir)
	if err != nil {
		ready <- err
		return nil
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(bins.initdb, "-D", data, "-A", "trust", "-U", superuser, "--no-sync",
		"-E", "UTF8", "--locale=C.UTF-8", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = sysProcAttr(as)
	if out, err := initdb.CombinedOutput(); err != nil {
		ready <- fmt.Errorf("%s: %v\n%s", bins.initdb, err, out)
		return nil
	}

	// The port is free when chosen but could be taken before postgres binds
	// it: try again with another.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			ready <- err
			return nil
		}
		proc, exited, err := s.startPostgres(bins, dir, data, as, port)
		if err != nil {
			ready <- err
			return nil
		}
		s.pid = proc.Pid
		s.dsn = fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, port)
		err = waitReady(s.dsn, exited, 30*time.Second)
		if err == nil {
			ready <- nil
			select {
			case <-s.quit:
				return shutdown(proc, exited)
			case err := <-exited:
				return fmt.Errorf("postgres exited while tests ran: %v\n%s", err, logTail(dir))
			}
		}
		if errors.Is(err, errExited) && attempt < 3 && strings.Contains(logTail(dir), "could not bind") {
			continue
		}
		_ = shutdown(proc, exited)
		ready <- fmt.Errorf("%s: %v\n%s", bins.postgres, err, logTail(dir))
		return nil
	}
}

// startPostgres starts the server on port; exited receives its Wait result.
func (s *server) startPostgres(bins binaries, dir, data string, as *account, port int) (*os.Process, <-chan error, error) {
	log, err := os.OpenFile(filepath.Join(dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer log.Close() // the child has its own descriptor
	cmd := exec.Command(bins.postgres, "-D", data,
		"-c", "listen_addresses=127.0.0.1", "-c", "port="+strconv.Itoa(port), "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log // *os.File: no copying goroutine
	cmd.SysProcAttr = sysProcAttr(as)
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return cmd.Process, exited, nil
}

var errExited = errors.New("postgres exited before accepting connections")

// waitReady polls dsn until the server accepts a connection, the process
// exits, or the timeout passes.
func waitReady(dsn string, exited <-chan error, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgconn.Connect(ctx, dsn)
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting connections after %v: %w", timeout, err)
		}
		select {
		case err := <-exited:
			return fmt.Errorf("%w (%v)", errExited, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// shutdown asks for a fast shutdown, and kills the server if it has not
// exited 10 s later.
func shutdown(proc *os.Process, exited <-chan error) error {
	_ = proc.Signal(os.Interrupt)
	select {
	case <-exited:
		return nil
	case <-time.After(10 * time.Second):
		_ = proc.Kill()
		<-exited
		return errors.New("postgres did not shut down within 10 s; killed")
	}
}

// account is a user the server's processes run as.
type account struct{ uid, gid uint32 }

// prepare makes dir usable by the user the server runs as, and returns that
// user, or nil for the current user. PostgreSQL refuses to run as root; as
// root it runs as "postgres" (Debian's package creates that user).
func prepare(dir string) (*account, error) {
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if runtime.GOOS != "linux" {
		return nil, errors.New("running as root, and PostgreSQL refuses to: run the tests as another user")
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL refuses to: no \"postgres\" user to run it as (%v)", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		return nil, err
	}
	return &account{uid: uint32(uid), gid: uint32(gid)}, nil
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// logTail returns the end of the server's log, for error messages.
func logTail(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(bytes.TrimSpace(b))
}
