package tributary_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
)

var gongLike = []tributary.Entity{{
	Name:    "calls_extensive",
	Actions: []tributary.Action{tributary.ActionList},
	Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {
		{Name: "filter", Type: tributary.TypeObject, Required: true, Fields: []tributary.Param{
			{Name: "fromDateTime", Type: tributary.TypeString},
			{Name: "callIds", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString}, Max: tributary.Bound(2)},
		}},
		{Name: "contentSelector", Type: tributary.TypeObject, Fields: []tributary.Param{
			{Name: "contextTiming", Type: tributary.TypeArray, Enum: []string{"Now", "TimeOfCall"}},
			{Name: "exposedFields", Type: tributary.TypeObject, Fields: []tributary.Param{{Name: "media", Type: tributary.TypeBoolean}}},
		}},
		{Name: "count", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(1000)},
		{Name: "ratio", Type: tributary.TypeNumber},
	}},
}}

func TestValidateNormalizesDottedAndNested(t *testing.T) {
	got, err := tributary.Validate("gong", gongLike, "calls_extensive", tributary.ActionList, tributary.Params{
		"filter.fromDateTime":                 "2024-01-01T00:00:00Z",
		"filter":                              map[string]any{"callIds": []string{"1"}},
		"contentSelector.exposedFields.media": true,
		"contentSelector.contextTiming":       []any{"Now"},
		"count":                               float64(50),
		"ratio":                               json.Number("0.5"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := tributary.Params{
		"filter":          map[string]any{"fromDateTime": "2024-01-01T00:00:00Z", "callIds": []any{"1"}},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}, "contextTiming": []any{"Now"}},
		"count":           int64(50),
		"ratio":           0.5,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestValidateErrorsNameTheParameter(t *testing.T) {
	cases := []struct {
		p     tributary.Params
		param string
	}{
		{tributary.Params{}, "filter"},
		{tributary.Params{"filter": map[string]any{"callIds": []any{"1", "2", "3"}}}, "filter.callIds"},
		{tributary.Params{"filter": map[string]any{"callIds": []any{7}}}, "filter.callIds[0]"},
		{tributary.Params{"filter": map[string]any{"bogus": 1}}, "filter.bogus"},
		{tributary.Params{"filter": map[string]any{}, "contentSelector.contextTiming": []any{"Later"}}, "contentSelector.contextTiming[0]"},
		{tributary.Params{"filter": map[string]any{}, "count": 1001}, "count"},
		{tributary.Params{"filter": map[string]any{}, "count": 1.5}, "count"},
		{tributary.Params{"filter": map[string]any{}, "count": "10abc"}, "count"},
		{tributary.Params{"filter": map[string]any{}, "count": "1001"}, "count"},
		{tributary.Params{"filter": "x"}, "filter"},
		{tributary.Params{"filter.fromDateTime": "a", "filter": map[string]any{"fromDateTime": "b"}}, "filter.fromDateTime"},
	}
	for _, tc := range cases {
		wantParamError(t, "gong", gongLike, "calls_extensive", tc.p, tc.param, "")
	}
}

// wantParamError checks that Validate refuses the list params p of entity
// with ErrInvalidParams naming the kind, entity, action and param, in a
// message containing msg.
func wantParamError(t *testing.T, kind string, ents []tributary.Entity, entity string, p tributary.Params, param, msg string) {
	t.Helper()
	_, err := tributary.Validate(kind, ents, entity, tributary.ActionList, p)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("%v: err = %v, want ErrInvalidParams", p, err)
		return
	}
	if te.Param != param || te.Entity != entity || te.Action != tributary.ActionList || te.Kind != kind || !strings.Contains(err.Error(), msg) {
		t.Errorf("%v: error names param %q (want %q), entity %q, action %q: %q, want it to contain %q", p, te.Param, param, te.Entity, te.Action, err, msg)
	}
}

func TestValidateDoesNotModifyInput(t *testing.T) {
	in := tributary.Params{"filter": map[string]any{"fromDateTime": "x"}, "filter.callIds": []any{"1"}}
	if _, err := tributary.Validate("gong", gongLike, "calls_extensive", tributary.ActionList, in); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tributary.Params{"filter": map[string]any{"fromDateTime": "x"}, "filter.callIds": []any{"1"}}, in); d != "" {
		t.Errorf("input changed (-want +got):\n%s", d)
	}
}

func TestRecordIsLossless(t *testing.T) {
	raw := `{"id":9007199254740993,"via":{"source":{"from":{"address":"a@b.c"}}},"tags":["x","y"],"unknown_field":{"kept":true}}`
	r := tributary.NewRecord([]byte(raw))
	if string(r.Raw()) != raw {
		t.Errorf("Raw changed")
	}
	if id, ok := r.IntAt("id"); !ok || id != 9007199254740993 {
		t.Errorf("IntAt(id) = %d %v", id, ok)
	}
	if s, ok := r.StringAt("via.source.from.address"); !ok || s != "a@b.c" {
		t.Errorf("StringAt = %q %v", s, ok)
	}
	if s, ok := r.StringAt("tags.1"); !ok || s != "y" {
		t.Errorf("tags.1 = %q %v", s, ok)
	}
	m, err := r.Map()
	if err != nil || m["id"] != int64(9007199254740993) {
		t.Errorf("Map id = %#v %v", m["id"], err)
	}
	var v struct {
		ID int64 `json:"id"`
	}
	if err := r.Decode(&v); err != nil || v.ID != 9007199254740993 {
		t.Errorf("Decode = %d %v", v.ID, err)
	}
	b, _ := json.Marshal(struct{ R tributary.Record }{r})
	if string(b) != `{"R":`+raw+`}` {
		t.Errorf("MarshalJSON = %s", b)
	}
}

func TestEncodeParams(t *testing.T) {
	type Paging struct {
		Page    int `param:"page"`
		PerPage int `param:"per_page"`
	}
	type Filter struct {
		From string   `param:"fromDateTime"`
		IDs  []string `param:"callIds"`
	}
	yes := false
	p, err := tributary.EncodeParams(struct {
		Paging
		Active *bool  `param:"active"`
		Role   string `param:"role"`
		Empty  string `param:"empty"`
		Filter Filter `param:"filter"`
		skip   int
	}{Paging: Paging{Page: 2}, Active: &yes, Role: "agent", Filter: Filter{IDs: []string{"9"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := tributary.Params{"page": 2, "active": false, "role": "agent", "filter": map[string]any{"callIds": []string{"9"}}}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// An entity's rules run after each parameter's own checks and name the
// offending parameter.
func TestValidateRunsEntityRules(t *testing.T) {
	entities := []tributary.Entity{{Name: "call_audio", Actions: []tributary.Action{tributary.ActionDownload},
		Params: map[tributary.Action][]tributary.Param{tributary.ActionDownload: {{Name: "media", Type: tributary.TypeBoolean, Required: true}}},
		Rules: map[tributary.Action]func(tributary.Params) (string, string){tributary.ActionDownload: func(p tributary.Params) (string, string) {
			if p["media"] != true {
				return "media", "must be true"
			}
			return "", ""
		}}}}
	_, err := tributary.Validate("gong", entities, "call_audio", tributary.ActionDownload, tributary.Params{"media": false})
	var te *tributary.Error
	if !errors.As(err, &te) || te.Param != "media" || !errors.Is(err, tributary.ErrInvalidParams) {
		t.Fatalf("err = %v", err)
	}
	if _, err := tributary.Validate("gong", entities, "call_audio", tributary.ActionDownload, tributary.Params{"media": true}); err != nil {
		t.Fatal(err)
	}
}

// idsLike has integer and boolean params, alone and as array elements.
var idsLike = []tributary.Entity{{
	Name:    "article_attachments",
	Actions: []tributary.Action{tributary.ActionGet, tributary.ActionList},
	Params: map[tributary.Action][]tributary.Param{
		tributary.ActionGet: {
			{Name: "article_id", Type: tributary.TypeInteger, Required: true},
			{Name: "attachment_id", Type: tributary.TypeInteger, Required: true},
		},
		tributary.ActionList: {
			{Name: "ids", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeInteger}},
			{Name: "per_page", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(100)},
			{Name: "inline", Type: tributary.TypeBoolean},
		},
	},
}}

// TestValidateAcceptsIntegersAndBooleansAsStrings: a string that spells an
// integer or a boolean exactly is accepted where the catalogue says integer
// or boolean, and normalized to the int64 or bool.
func TestValidateAcceptsIntegersAndBooleansAsStrings(t *testing.T) {
	got, err := tributary.Validate("zendesk-support", idsLike, "article_attachments", tributary.ActionGet,
		tributary.Params{"article_id": "7253394935055", "attachment_id": "14328435003535"})
	if err != nil {
		t.Fatal(err)
	}
	want := tributary.Params{"article_id": int64(7253394935055), "attachment_id": int64(14328435003535)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got, err = tributary.Validate("zendesk-support", idsLike, "article_attachments", tributary.ActionList,
		tributary.Params{"ids": []any{"1", 2, "-3", "9223372036854775807"}, "per_page": "100", "inline": "false"})
	if err != nil {
		t.Fatal(err)
	}
	want = tributary.Params{"ids": []any{int64(1), int64(2), int64(-3), int64(9223372036854775807)}, "per_page": int64(100), "inline": false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestValidateRefusesOtherStrings: anything that is not exactly an integer
// or a boolean is still refused, naming the parameter.
func TestValidateRefusesOtherStrings(t *testing.T) {
	cases := []struct {
		p     tributary.Params
		param string
		msg   string
	}{
		{tributary.Params{"per_page": "12abc"}, "per_page", `parameter "per_page": must be an integer, got a string "12abc"`},
		{tributary.Params{"per_page": "1.5"}, "per_page", `must be an integer, got a string "1.5"`},
		{tributary.Params{"per_page": "1e3"}, "per_page", `must be an integer, got a string "1e3"`},
		{tributary.Params{"per_page": " 12"}, "per_page", `must be an integer, got a string " 12"`},
		{tributary.Params{"per_page": ""}, "per_page", `must be an integer, got a string ""`},
		{tributary.Params{"per_page": "0x10"}, "per_page", `must be an integer, got a string "0x10"`},
		{tributary.Params{"per_page": "1_000"}, "per_page", `must be an integer, got a string "1_000"`},
		{tributary.Params{"per_page": "101"}, "per_page", "101 is above the maximum 100"},
		{tributary.Params{"per_page": "0"}, "per_page", "0 is below the minimum 1"},
		{tributary.Params{"ids": []any{"1", "99999999999999999999"}}, "ids[1]", `"99999999999999999999" is out of the integer range`},
		{tributary.Params{"inline": "TRUE"}, "inline", `must be a boolean, got a string "TRUE"`},
		{tributary.Params{"inline": "1"}, "inline", `must be a boolean, got a string "1"`},
		{tributary.Params{"inline": "yes"}, "inline", `must be a boolean, got a string "yes"`},
		{tributary.Params{"inline": 3.5}, "inline", "must be a boolean, got a number 3.5"},
		{tributary.Params{"per_page": []any{1, 2}}, "per_page", "must be an integer, got an array [1,2]"},
		{tributary.Params{"per_page": strings.Repeat("x", 100)}, "per_page", `must be an integer, got a string "` + strings.Repeat("x", 40) + `"…`},
	}
	for _, tc := range cases {
		wantParamError(t, "zendesk-support", idsLike, "article_attachments", tc.p, tc.param, tc.msg)
	}
}

// TestValidateHidesSecretValues: a value of the wrong type is echoed in
// the error, except where the parameter's name says it may be a secret.
func TestValidateHidesSecretValues(t *testing.T) {
	ents := []tributary.Entity{{Name: "things", Actions: []tributary.Action{tributary.ActionList},
		Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {
			{Name: "api_key", Type: tributary.TypeString}, {Name: "page_token", Type: tributary.TypeInteger},
			{Name: "opts", Type: tributary.TypeObject, Fields: []tributary.Param{{Name: "client_secret", Type: tributary.TypeBoolean}}},
		}}}}
	for _, tc := range []struct {
		p     tributary.Params
		param string
	}{
		{tributary.Params{"api_key": 12345678}, "api_key"},
		{tributary.Params{"page_token": "sk-live-12345678"}, "page_token"},
		{tributary.Params{"opts": map[string]any{"client_secret": "hunter2-hunter2"}}, "opts.client_secret"},
	} {
		_, err := tributary.Validate("k", ents, "things", tributary.ActionList, tc.p)
		var te *tributary.Error
		if !errors.As(err, &te) || te.Param != tc.param || !strings.Contains(err.Error(), "got a") {
			t.Errorf("%v: %v", tc.p, err)
			continue
		}
		for _, secret := range []string{"12345678", "hunter2"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%v: error %q echoes the value", tc.p, err)
			}
		}
	}
}

// TestValidateSuggestsNearestName: unknown entities, actions and params
// get the nearest valid name in the error text.
func TestValidateSuggestsNearestName(t *testing.T) {
	cases := []struct {
		entity string
		action tributary.Action
		p      tributary.Params
		want   error
		msg    string
	}{
		{"article_attachment", tributary.ActionGet, nil, tributary.ErrUnknownEntity,
			`has no entity "article_attachment"; did you mean "article_attachments"? (entities: article_attachments)`},
		{"Article_Attachments", tributary.ActionGet, nil, tributary.ErrUnknownEntity, `did you mean "article_attachments"?`},
		{"articles", tributary.ActionGet, nil, tributary.ErrUnknownEntity, `has no entity "articles"; did you mean "article_attachments"? (entities: article_attachments)`},
		{"attachments", tributary.ActionGet, nil, tributary.ErrUnknownEntity, `has no entity "attachments"; did you mean "article_attachments"? (entities: article_attachments)`},
		{"comments", tributary.ActionGet, nil, tributary.ErrUnknownEntity, `has no entity "comments" (entities: article_attachments)`},
		{"article_attachments", "lst", nil, tributary.ErrUnsupportedAction,
			`there is no action "lst"; did you mean "list"? (article_attachments offers get, list)`},
		{"article_attachments", tributary.ActionList, tributary.Params{"perpage": 5}, tributary.ErrInvalidParams,
			`parameter "perpage": is not a parameter of this action; did you mean "per_page"? (accepted: ids, per_page, inline)`},
		{"article_attachments", tributary.ActionList, tributary.Params{"id": 5}, tributary.ErrInvalidParams, `did you mean "ids"?`},
		{"article_attachments", tributary.ActionList, tributary.Params{"sort_by": 5}, tributary.ErrInvalidParams,
			`parameter "sort_by": is not a parameter of this action (accepted: ids, per_page, inline)`},
	}
	for _, tc := range cases {
		_, err := tributary.Validate("zendesk-support", idsLike, tc.entity, tc.action, tc.p)
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
			t.Errorf("%s.%s %v: got %v, want %v containing %q", tc.entity, tc.action, tc.p, err, tc.want, tc.msg)
		}
	}
}
