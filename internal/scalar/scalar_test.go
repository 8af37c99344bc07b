package scalar

import (
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestInt(t *testing.T) {
	ok := map[string]int64{"0": 0, "42": 42, "-7": -7, "+7": 7, "007": 7, "7253394935055": 7253394935055,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808}
	for s, want := range ok {
		if n, err := Int(s); err != nil || n != want {
			t.Errorf("Int(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"", " 1", "1 ", "12abc", "1.5", "1.0", "1e3", "0x10", "1_000", "--1", "٣", "+", "-"} {
		if _, err := Int(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("Int(%q): err = %v, want ErrSyntax", s, err)
		}
	}
	for _, s := range []string{"9223372036854775808", "-9223372036854775809", "99999999999999999999999"} {
		if _, err := Int(s); !errors.Is(err, ErrRange) {
			t.Errorf("Int(%q): err = %v, want ErrRange", s, err)
		}
	}
}

func TestBool(t *testing.T) {
	if b, ok := Bool("true"); !b || !ok {
		t.Error(`Bool("true")`)
	}
	if b, ok := Bool("false"); b || !ok {
		t.Error(`Bool("false")`)
	}
	for _, s := range []string{"", "TRUE", "True", "1", "0", "t", "yes", " true"} {
		if _, ok := Bool(s); ok {
			t.Errorf("Bool(%q) accepted", s)
		}
	}
}
