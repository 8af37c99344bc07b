package slacktest

import "testing"

// TestCmpTS: ts compare as numbers, whatever their number of decimals.
func TestCmpTS(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1700000000.000100", "1700000000.000100", 0}, {"1700000000.000100", "1700000000.0001", 0},
		{"1700000000", "1600000000.000100", 1}, {"999999999.9", "1000000000", -1},
		{"1700000000.000099", "1700000000.0001", -1}, {"1700000000.5", "1700000000.499999", 1},
	} {
		got := cmpTS(c.a, c.b)
		if (got > 0) != (c.want > 0) || (got < 0) != (c.want < 0) {
			t.Errorf("cmpTS(%s, %s) = %d, want the sign of %d", c.a, c.b, got, c.want)
		}
	}
}
