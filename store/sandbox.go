package store

import (
	"context"
	"database/sql"
	"errors"
)

// SandboxKey returns the key line `tributary serve --sandbox` seals its
// connectors' credentials with when it is given no keys, kept in the
// store (the tributary_meta row sandbox_key) so that they open again after
// a restart. The first call stores newKey's line; every later call, from
// any process, returns that line. A sandbox's credentials are the fakes'
// published test values, so a key kept next to them reveals nothing; no
// other mode reads it. The line is a secret all the same: never log it.
func (s *Store) SandboxKey(ctx context.Context, newKey func() (string, error)) (string, error) {
	const op = "sandbox key"
	d := s.d
	read := func() (string, error) {
		var line string
		err := s.r.QueryRowContext(ctx, "SELECT value FROM tributary_meta WHERE name = 'sandbox_key'").Scan(&line)
		return line, err
	}
	line, err := read()
	if err == nil {
		return line, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", d.wrap(op, err)
	}
	fresh, err := newKey()
	if err != nil {
		return "", err
	}
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return "", d.wrap(op, err)
	}
	defer tx.Rollback()
	// Another process may have stored one meanwhile: its line wins.
	if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_meta (name, value) VALUES ('sandbox_key', "+d.ph(1)+") ON CONFLICT (name) DO NOTHING", fresh); err != nil {
		return "", d.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return "", d.wrap(op, err)
	}
	line, err = read()
	return line, d.wrap(op, err)
}
