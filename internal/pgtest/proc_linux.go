package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr runs a server process as the account (nil: the current user)
// and has the kernel send it SIGQUIT (PostgreSQL's immediate shutdown) when
// the thread that started it ends, so that a test binary that dies does not
// leave a server behind.
func sysProcAttr(as *account) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGQUIT}
	if as != nil {
		attr.Credential = &syscall.Credential{Uid: as.uid, Gid: as.gid, NoSetGroups: true}
	}
	return attr
}

// removeStale removes the directories of throwaway servers whose test binary
// and server have both gone (a binary that was killed, or crashed in
// TestMain). Nothing else is touched; errors are ignored.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		if alive(filepath.Join(dir, "owner")) || alive(filepath.Join(dir, "data", "postmaster.pid")) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "owner")); err != nil {
			continue // not (or not yet) one of ours
		}
		_ = os.RemoveAll(dir)
	}
}

// alive reports whether the process whose id is the first line of file runs.
func alive(file string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	return err == nil && running(pid)
}

// running reports whether process pid exists and is not a zombie (a
// container's init may never reap a server whose parent died).
func running(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
