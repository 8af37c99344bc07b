package tributary

import (
	"testing"
	"time"
)

// TestParseChangedDecimalSeconds: Slack's ts, Unix seconds with
// microseconds in a string, reads to the microsecond; what is not one is
// refused.
func TestParseChangedDecimalSeconds(t *testing.T) {
	got, ok := ParseChanged("1700000000.000100")
	if want := time.Unix(1700000000, 100_000).UTC(); !ok || !got.Equal(want) {
		t.Errorf("ParseChanged(1700000000.000100) = %v, %v; want %v", got, ok, want)
	}
	for _, bad := range []string{"1700000000.", ".5", "-1.5", "17x.000100", "1700000000.0001000000"} {
		if got, ok := ParseChanged(bad); ok {
			t.Errorf("ParseChanged(%q) = %v, want refused", bad, got)
		}
	}
}
