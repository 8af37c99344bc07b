package pagination

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// lastResp is resp with the page's last record set, as the engine sets it.
func lastResp(t *testing.T, body string, params map[string]any) *Response {
	t.Helper()
	r := resp(t, body, "data", params, nil)
	p, err := jsonx.SplitPage([]byte(body), "data")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Records); n > 0 {
		r.Last = p.Records[n-1]
	}
	return r
}

func TestLastIDPagesOnTheLastRecordsID(t *testing.T) {
	s := LastID{Param: "starting_after", ID: "id", More: "has_more"}
	tests := []struct {
		name     string
		body     string
		wantMeta map[string]any
		wantNext map[string]any
	}{
		{"more", `{"object":"list","url":"/v1/customers","has_more":true,"data":[{"id":"cus_1"},{"id":"cus_2"}]}`,
			map[string]any{"has_more": true, "starting_after": "cus_2"}, map[string]any{"limit": int64(2), "starting_after": "cus_2"}},
		{"last", `{"object":"list","url":"/v1/customers","has_more":false,"data":[{"id":"cus_3"}]}`,
			map[string]any{"has_more": false, "starting_after": "cus_3"}, nil},
		{"empty though more", `{"object":"list","url":"/v1/customers","has_more":true,"data":[]}`,
			map[string]any{"has_more": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := lastResp(t, tt.body, map[string]any{"limit": int64(2)})
			meta, next, err := s.Page(r)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.wantMeta, meta); d != "" {
				t.Errorf("meta (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantNext, next); d != "" {
				t.Errorf("next (-want +got):\n%s", d)
			}
			// A client that sees only Meta resumes the same way.
			if d := cmp.Diff(tt.wantNext, s.Next(r.Params, meta, r.Count)); d != "" {
				t.Errorf("Next from meta (-want +got):\n%s", d)
			}
		})
	}
}

func TestLastIDRefusesAPageItCannotPageOnFrom(t *testing.T) {
	s := LastID{Param: "starting_after", ID: "id", More: "has_more"}
	for name, body := range map[string]string{
		"no has_more":        `{"data":[{"id":"cus_1"}]}`,
		"has_more not bool":  `{"has_more":"yes","data":[{"id":"cus_1"}]}`,
		"last record no id":  `{"has_more":true,"data":[{"name":"x"}]}`,
		"last record num id": `{"has_more":true,"data":[{"id":7}]}`,
	} {
		if _, _, err := s.Page(lastResp(t, body, map[string]any{})); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
