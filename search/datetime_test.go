package search

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// datedIndex holds records whose created_at is a date-time field, written
// as RFC 3339 and as Salesforce writes it (+0000, no colon).
func datedIndex(t *testing.T) (*Index, Schema) {
	t.Helper()
	s := Schema{"id": TypeInteger, "created_at": TypeDateTime}
	recs := [][]byte{
		[]byte(`{"id":1,"created_at":"2024-01-30T23:00:00Z"}`),
		[]byte(`{"id":2,"created_at":"2024-01-31T08:00:00.000+0000"}`),
		[]byte(`{"id":3,"created_at":"2024-02-01T01:00:00+02:00"}`),
		[]byte(`{"id":4,"created_at":null}`),
	}
	ix, err := NewIndex(s, "id", recs)
	if err != nil {
		t.Fatal(err)
	}
	return ix, s
}

// A comparison of a date-time field with a value that is not a date-time
// is refused before anything runs, naming the field and the format.
func TestDateTimeRefusesOtherValues(t *testing.T) {
	ix, s := datedIndex(t)
	for _, f := range []string{
		`{"gt":{"created_at":"yesterday"}}`,
		`{"eq":{"created_at":"yesterday"}}`,
		`{"neq":{"created_at":"yesterday"}}`,
		`{"gte":{"created_at":"2024-13-01"}}`,
		`{"lt":{"created_at":"31/01/2024"}}`,
		`{"lte":{"created_at":1706659200}}`,
		`{"in":{"created_at":["2024-01-31T08:00:00Z","yesterday"]}}`,
		`{"not":{"gt":{"created_at":"yesterday"}}}`,
	} {
		r := mustDecode(t, `{"query":{"filter":`+f+`}}`)
		err := r.Validate(s)
		var se *Error
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalidQuery) || se.Field != "created_at" {
			t.Errorf("%s: %v, want an *Error on created_at", f, err)
			continue
		}
		if !strings.Contains(err.Error(), "created_at is a date-time: ") || !strings.Contains(err.Error(), "is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)") {
			t.Errorf("%s: %v", f, err)
		}
		if _, err := ix.Search(r); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%s: Search: %v", f, err)
		}
	}
	r := mustDecode(t, `{"query":{"filter":{"gt":{"created_at":"yesterday"}}}}`)
	err := r.Validate(s)
	if want := `search: invalid query: gt on "created_at": created_at is a date-time: "yesterday" is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)`; err == nil || err.Error() != want {
		t.Errorf("message %v, want %s", err, want)
	}
}

// RFC 3339 values, plain dates (midnight UTC) and null compare; instants
// compare as instants whatever their offset, Salesforce's +0000 included.
func TestDateTimeComparesInstants(t *testing.T) {
	ix, _ := datedIndex(t)
	cases := map[string][]string{
		`{"gte":{"created_at":"2024-01-31"}}`:                                   {"2", "3"},
		`{"lt":{"created_at":"2024-01-31"}}`:                                    {"1"},
		`{"eq":{"created_at":"2024-01-31T08:00:00Z"}}`:                          {"2"},
		`{"eq":{"created_at":"2024-01-31T08:00:00.000+0000"}}`:                  {"2"},
		`{"in":{"created_at":["2024-01-31T08:00:00Z","2024-01-31T23:00:00Z"]}}`: {"2", "3"},
		`{"gt":{"created_at":"2024-01-31T09:00:00+01:00"}}`:                     {"3"},
		`{"eq":{"created_at":"2024-01-30"}}`:                                    {},
		`{"eq":{"created_at":null}}`:                                            {"4"},
		`{"like":{"created_at":"2024-01-3%"}}`:                                  {"1", "2"},
	}
	for f, want := range cases {
		res, err := ix.Search(mustDecode(t, `{"query":{"filter":`+f+`,"sort":[{"id":"asc"}]}}`))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if got := ids(res); !slices.Equal(got, want) {
			t.Errorf("%s: ids %v, want %v", f, got, want)
		}
	}
	res, err := ix.Search(mustDecode(t, `{"query":{"sort":[{"created_at":"desc"}]}}`))
	if err != nil || !slices.Equal(ids(res), []string{"3", "2", "1", "4"}) {
		t.Errorf("sort by created_at desc: %v %v", ids(res), err)
	}
}

func TestCanonicalPlainDate(t *testing.T) {
	r := mustDecode(t, `{"query":{"filter":{"and":[{"gte":{"created_at":"2024-01-31"}},{"in":{"created_at":["2024-02-01"]}}]}}}`)
	got := mustJSON(t, r.Canonical(Schema{"created_at": TypeDateTime}))
	if !strings.Contains(got, `"gte":{"created_at":"2024-01-31T00:00:00Z"}`) || !strings.Contains(got, `["2024-02-01T00:00:00Z"]`) {
		t.Errorf("Canonical: %s", got)
	}
	if s := mustJSON(t, r.Canonical(Schema{"created_at": TypeString})); strings.Contains(s, "T00:00:00Z") {
		t.Errorf("a string field keeps its dates: %s", s)
	}
}
