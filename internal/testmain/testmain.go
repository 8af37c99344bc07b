// Package testmain holds what a test binary's TestMain sets before its
// tests run.
package testmain

import (
	"flag"
	"runtime"
	"strconv"

	"github.com/tributary-dev/tributary/internal/race"
)

// WaitingParallel raises the number of parallel tests the package runs at
// once (go test's -parallel, GOMAXPROCS by default) to factor times
// GOMAXPROCS, for a package whose tests mostly wait: on loopback fakes,
// PostgreSQL round trips, child processes and retry back-offs. With two
// cores, two such tests at a time left the cores idle half of the time.
// An explicit -parallel wins, and so does the race detector (its tests
// keep the default: under it they are bound by the cores, not by waits).
// Call it from TestMain, before m.Run (which parses the command line:
// a -parallel there replaces the value set here).
func WaitingParallel(factor int) {
	if race.Enabled || factor <= 1 {
		return
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set {
		return
	}
	_ = flag.Set("test.parallel", strconv.Itoa(factor*runtime.GOMAXPROCS(0)))
}
