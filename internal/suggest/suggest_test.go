package suggest

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNearest(t *testing.T) {
	names := []string{"tickets", "ticket_fields", "users", "companies", "status", "addresses", "id", "q"}
	cases := []struct{ in, want string }{
		{"tickts", "tickets"},    // a letter missing
		{"tikcets", "tickets"},   // two letters swapped
		{"Tickets", "tickets"},   // case
		{"ticket", "tickets"},    // singular
		{"company", "companies"}, // -ies
		{"address", "addresses"}, // -es
		{"statuses", "status"},   // plural of -s
		{"ticket_field", "ticket_fields"},
		{"ids", "id"},
		{"organizations", ""}, // nothing close
		{"x", "q"},            // the limit is at least 1
		{"", ""},
		{"tickets", ""}, // an exact name is not suggested to itself
	}
	for _, tc := range cases {
		got := Nearest(tc.in, names)
		if got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Nearest("tickest", []string{"pickets", "tickets"}); got != "tickets" {
		t.Errorf("closest wins: got %q", got)
	}
	if got := Nearest("ab", []string{"ac", "ad"}); got != "ac" {
		t.Errorf("ties go to the first name: got %q", got)
	}
}

func TestHint(t *testing.T) {
	if got := Hint("tickts", []string{"tickets"}); got != `; did you mean "tickets"?` {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzz", []string{"tickets"}); got != "" {
		t.Errorf("Hint with nothing close = %q", got)
	}
	// Nothing close by spelling: the names the word is part of.
	mailchimp := []string{"campaigns", "lists", "list_members", "reports", "email_activity", "segments", "segment_members", "unsubscribes"}
	if got := Hint("members", mailchimp); got != `; did you mean "list_members" or "segment_members"?` {
		t.Errorf("Hint(members) = %q", got)
	}
	if got := Hint("member", mailchimp); got != `; did you mean "list_members" or "segment_members"?` {
		t.Errorf("Hint(member) = %q", got)
	}
	if got := Hint("activity", mailchimp); got != `; did you mean "email_activity"?` {
		t.Errorf("Hint(activity) = %q", got)
	}
	if got := Hint("a", []string{"a_b", "c_a"}); got != "" {
		t.Errorf("a one-letter word suggests %q", got)
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"café", "cafe", 1}}
	for _, tc := range cases {
		if d := distance(tc.a, tc.b); d != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
