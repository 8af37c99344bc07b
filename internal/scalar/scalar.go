// Package scalar reads integers and booleans written as strings, the way
// callers that hold an operation as JSON send them ("7253394935055",
// "true"). It is the one definition of which strings stand for an integer
// or a boolean, shared by parameter validation, search values and the CLI.
package scalar

import (
	"errors"
	"strconv"
)

// ErrRange is returned by Int for a decimal integer that does not fit in
// 64 bits.
var ErrRange = errors.New("out of range")

// ErrSyntax is returned by Int for a string that is not exactly a decimal
// integer.
var ErrSyntax = errors.New("not a decimal integer")

// Int returns the integer s spells exactly: an optional sign and ASCII
// digits, nothing else (no spaces, fraction, exponent or digit separators).
func Int(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, ErrRange
	}
	return 0, ErrSyntax
}

// Bool returns the boolean s spells: exactly "true" or "false".
func Bool(s string) (b, ok bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}
