//go:build !linux

package pgtest

import "syscall"

// sysProcAttr: outside Linux the server runs as the current user (prepare
// refuses root there) and has no parent-death signal.
func sysProcAttr(*account) *syscall.SysProcAttr { return nil }

// removeStale does nothing outside Linux.
func removeStale() {}
