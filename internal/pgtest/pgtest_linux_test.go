package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A test binary that dies without stopping its server (here: os.Exit in a
// test) takes the server with it, and the next server start removes the
// directory it left.
func TestCrashedBinaryLeavesNoServer(t *testing.T) {
	if os.Getenv("PGTEST_CRASH_CHILD") != "" {
		DSN(t)
		state.mu.Lock()
		srv := state.srv
		state.mu.Unlock()
		fmt.Printf("server %d %s\n", srv.pid, srv.dir)
		os.Exit(3) // no stop, no cleanup: as if the binary had crashed
	}
	if os.Getenv(envServer) != "" {
		t.Skipf("%s is set: no throwaway server", envServer)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestCrashedBinaryLeavesNoServer$", "-test.count=1")
	child.Env = append(os.Environ(), "PGTEST_CRASH_CHILD=1")
	out, err := child.Output()
	var pid int
	var dir string
	if _, scanErr := fmt.Sscanf(string(out), "server %d %s", &pid, &dir); scanErr != nil {
		t.Fatalf("child test binary: %v\n%s", err, out)
	}
	if child.ProcessState.ExitCode() != 3 {
		t.Fatalf("child exited with %v, want 3\n%s", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); running(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("postgres %d still runs 10 s after its test binary died", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "owner")); err != nil {
		t.Fatalf("the crashed binary's directory: %v", err)
	}
	removeStale()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left behind after removeStale (%v)", dir, err)
	}
}

func TestRemoveStaleKeepsLiveDirectories(t *testing.T) {
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	removeStale()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a live binary's directory was removed: %v", err)
	}
}
