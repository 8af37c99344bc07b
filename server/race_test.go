//go:build race

package server_test

// underRace is whether the race detector is on (-race).
const underRace = true
