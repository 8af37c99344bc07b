// Package race says whether the binary was built with the race detector
// (-race), so that tests can size their heaviest loops to it: the race
// detector makes the pure-Go SQLite five to ten times slower, and a test
// sized for the plain build would measure the detector, not the code.
//
// A test that shrinks under the race detector keeps its full size in the
// README's plain `go test ./...`; only the extra -race step of CI runs
// the smaller size, whose purpose is to find data races, which the
// shared code shows on its first kinds as well as on its eleventh.
package race

// Enabled is whether the race detector is on.
const Enabled = enabled
