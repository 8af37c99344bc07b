package pgtest

import "errors"

// Start starts a throwaway server outside of a test, as DSN does inside
// one (the same binaries, settings and directory; see the package
// comment), for a program that needs a PostgreSQL of its own for a while:
// a benchmark. It returns the connection string of the server's
// "postgres" database and stop, which shuts the server down and removes
// its directory. Should the program die without calling stop, the server
// gets a parent-death signal and shuts down with it. TRIBUTARY_TEST_POSTGRES
// is not read: the caller that has a server passes its DSN itself.
func Start() (dsn string, stop func() error, err error) {
	bins, err := findBinaries()
	if err != nil {
		return "", nil, err
	}
	s, err := start(bins)
	if err != nil {
		return "", nil, err
	}
	stopped := false
	return s.dsn, func() error {
		if stopped {
			return errors.New("pgtest: server already stopped")
		}
		stopped = true
		return s.stop()
	}, nil
}
