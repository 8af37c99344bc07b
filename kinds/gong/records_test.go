package gong

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// firstRecord returns the idx-th item of the array under key in the JSON
// body of the first exchange's response of a recorded fixture.
func firstRecord(t *testing.T, fixture, key string, idx int) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gong", fixture))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Exchanges []struct {
			Response struct {
				Body map[string]json.RawMessage `json:"body"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", fixture, err)
	}
	v, ok := doc.Exchanges[0].Response.Body[key]
	if !ok {
		t.Fatalf("%s: no %q in the response body", fixture, key)
	}
	if key == "user" || key == "call" {
		return v
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		t.Fatalf("%s: %q: %v", fixture, key, err)
	}
	if idx >= len(items) {
		t.Fatalf("%s: %q has %d items", fixture, key, len(items))
	}
	return items[idx]
}

func decode[T any](t *testing.T, fixture, key string, idx int) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(firstRecord(t, fixture, key, idx), &v); err != nil {
		t.Fatalf("%s: decode %T: %v", fixture, v, err)
	}
	return v
}

func TestRecordsDecodeFixtures(t *testing.T) {
	t.Run("User", func(t *testing.T) {
		u := decode[User](t, "users.get.json", "user", 0)
		if u.ID != "3041859475201937002" || u.ManagerID == nil || *u.ManagerID != "3041859475201937001" {
			t.Errorf("id %q managerId %v", u.ID, u.ManagerID)
		}
		if u.PhoneNumber != nil || len(u.SpokenLanguages) != 2 || len(u.Settings) == 0 {
			t.Errorf("phoneNumber %v spokenLanguages %d settings %s", u.PhoneNumber, len(u.SpokenLanguages), u.Settings)
		}
	})
	t.Run("Call", func(t *testing.T) {
		c := decode[Call](t, "calls.get.json", "call", 0)
		if c.ID != "7782342274025900103" || c.Duration != 460 || c.Media != "Audio" || c.IsPrivate {
			t.Errorf("%+v", c)
		}
		if c.SDRDisposition == nil || *c.SDRDisposition != "Got the gatekeeper" || c.CustomData != nil {
			t.Errorf("sdrDisposition %v customData %v", c.SDRDisposition, c.CustomData)
		}
	})
	t.Run("CallExtensive", func(t *testing.T) {
		c := decode[CallExtensive](t, "calls_extensive.list.json", "calls", 0)
		var meta Call
		if err := json.Unmarshal(c.MetaData, &meta); err != nil || meta.ID != "7782342274025900101" {
			t.Errorf("metaData id %q: %v", meta.ID, err)
		}
		var media struct {
			AudioURL string `json:"audioUrl"`
			VideoURL string `json:"videoUrl"`
		}
		if err := json.Unmarshal(c.Media, &media); err != nil || media.AudioURL == "" || media.VideoURL == "" {
			t.Errorf("media %s: %v", c.Media, err)
		}
		if len(c.Parties) != 2 || len(c.Context) == 0 || len(c.Interaction) == 0 || len(c.Collaboration) == 0 || len(c.Content) == 0 {
			t.Errorf("parts missing: %+v", c)
		}
	})
	t.Run("Workspace", func(t *testing.T) {
		w := decode[Workspace](t, "workspaces.list.json", "workspaces", 1)
		if w.ID != "5201938475102938472" || w.Name != "EMEA Sales" {
			t.Errorf("%+v", w)
		}
	})
	t.Run("CallTranscript", func(t *testing.T) {
		tr := decode[CallTranscript](t, "call_transcripts.list.json", "callTranscripts", 0)
		if tr.CallID != "7782342274025900101" || len(tr.Transcript) != 2 {
			t.Errorf("%+v", tr)
		}
	})
	t.Run("StatsActivityAggregate", func(t *testing.T) {
		s := decode[StatsActivityAggregate](t, "stats_activity_aggregate.list.json", "usersAggregateActivityStats", 0)
		var a AggregateActivityStats
		if err := json.Unmarshal(s.UserAggregateActivityStats, &a); err != nil {
			t.Fatal(err)
		}
		if s.UserID != "3041859475201937002" || a.CallsAsHost != 21 || a.CallsMarkedAsFeedbackReceived != 37 {
			t.Errorf("%s %+v", s.UserID, a)
		}
	})
	t.Run("StatsActivityDayByDay", func(t *testing.T) {
		s := decode[StatsActivityDayByDay](t, "stats_activity_day_by_day.list.json", "usersDetailedActivities", 0)
		if s.UserID != "3041859475201937002" || len(s.UserDailyActivityStats) != 2 {
			t.Fatalf("%+v", s)
		}
		var d DailyActivityStats
		if err := json.Unmarshal(s.UserDailyActivityStats[0], &d); err != nil {
			t.Fatal(err)
		}
		if len(d.CallsAsHost) != 1 || d.CallsAsHost[0] != "7782342274025900103" || d.FromDate == "" {
			t.Errorf("%+v", d)
		}
	})
	t.Run("StatsInteraction", func(t *testing.T) {
		s := decode[StatsInteraction](t, "stats_interaction.list.json", "peopleInteractionStats", 0)
		var st InteractionStat
		if err := json.Unmarshal(s.PersonInteractionStats[3], &st); err != nil {
			t.Fatal(err)
		}
		if s.UserEmailAddress != "blake.placeholder@example.com" || st.Name != "Question Rate" || st.Value != 9.23 {
			t.Errorf("%+v %+v", s, st)
		}
	})
	t.Run("SettingsScorecard", func(t *testing.T) {
		s := decode[SettingsScorecard](t, "settings_scorecards.list.json", "scorecards", 1)
		if s.ScorecardID != "6843152929075440038" || s.Enabled || s.WorkspaceID == nil || len(s.Questions) != 2 {
			t.Errorf("%+v", s)
		}
	})
	t.Run("SettingsTracker", func(t *testing.T) {
		s := decode[SettingsTracker](t, "settings_trackers.list.json", "keywordTrackers", 1)
		if s.TrackerID != "6840000929075400008" || !s.PartOfQuestion || s.SaidAtInterval == nil || *s.SaidAtInterval != 10 || s.CreatorUserID != nil {
			t.Errorf("%+v", s)
		}
	})
	t.Run("LibraryFolder", func(t *testing.T) {
		f := decode[LibraryFolder](t, "library_folders.list.json", "folders", 0)
		if f.ID != "3843152912968920037" || f.ParentFolderID != nil {
			t.Errorf("%+v", f)
		}
	})
	t.Run("LibraryFolderContent", func(t *testing.T) {
		c := decode[LibraryFolderContent](t, "library_folder_content.list.json", "calls", 1)
		if c.ID != "7782342274025900102" || c.Note != nil || len(c.Snippet) == 0 || c.AddedBy == "" {
			t.Errorf("%+v", c)
		}
	})
	t.Run("Coaching", func(t *testing.T) {
		c := decode[Coaching](t, "coaching.list.json", "coachingData", 0)
		var m struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(c.Manager, &m); err != nil || m.ID != "3041859475201937001" || len(c.DirectReportsMetrics) != 2 {
			t.Errorf("manager %s reports %d: %v", c.Manager, len(c.DirectReportsMetrics), err)
		}
	})
	t.Run("StatsActivityScorecard", func(t *testing.T) {
		s := decode[StatsActivityScorecard](t, "stats_activity_scorecards.list.json", "answeredScorecards", 1)
		if s.AnsweredScorecardID != "5635152584587450002" || s.CallID != "7782342274025900103" || s.VisibilityType != "PRIVATE" || len(s.Answers) != 2 {
			t.Errorf("%+v", s)
		}
	})
}

// TestRecordsDecodeFakeResponses checks that every record the fake serves
// decodes into its typed record.
func TestRecordsDecodeFakeResponses(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	ws, user := s.WorkspaceID(0), s.UserID(0)
	stats := `{"filter":{"fromDate":"2024-01-01","toDate":"2024-01-03"}}`
	cases := []struct {
		method, path, body, key string
		into                    func() any
	}{
		{"GET", "/v2/users", "", "users", func() any { return new(User) }},
		{"GET", "/v2/calls", "", "calls", func() any { return new(Call) }},
		{"POST", "/v2/calls/extensive", `{"filter":{},"contentSelector":{"context":"Extended","exposedFields":{"parties":true,"media":true,` +
			`"content":{"topics":true,"trackers":true,"highlights":true},"interaction":{"speakers":true},"collaboration":{"publicComments":true}}}}`,
			"calls", func() any { return new(CallExtensive) }},
		{"GET", "/v2/workspaces", "", "workspaces", func() any { return new(Workspace) }},
		{"POST", "/v2/calls/transcript", `{"filter":{}}`, "callTranscripts", func() any { return new(CallTranscript) }},
		{"POST", "/v2/stats/activity/aggregate", stats, "usersAggregateActivityStats", func() any { return new(StatsActivityAggregate) }},
		{"POST", "/v2/stats/activity/day-by-day", stats, "usersDetailedActivities", func() any { return new(StatsActivityDayByDay) }},
		{"POST", "/v2/stats/interaction", stats, "peopleInteractionStats", func() any { return new(StatsInteraction) }},
		{"GET", "/v2/settings/scorecards", "", "scorecards", func() any { return new(SettingsScorecard) }},
		{"GET", "/v2/settings/trackers", "", "keywordTrackers", func() any { return new(SettingsTracker) }},
		{"GET", "/v2/library/folders?workspaceId=" + ws, "", "folders", func() any { return new(LibraryFolder) }},
		{"GET", "/v2/library/folder-content?folderId=" + s.FolderID(1), "", "calls", func() any { return new(LibraryFolderContent) }},
		{"GET", "/v2/coaching?workspace-id=" + ws + "&manager-id=" + user + "&from=2024-01-01T00:00:00Z&to=2024-02-01T00:00:00Z", "", "coachingData", func() any { return new(Coaching) }},
		{"POST", "/v2/stats/activity/scorecards", `{"filter":{}}`, "answeredScorecards", func() any { return new(StatsActivityScorecard) }},
	}
	for _, c := range cases {
		req, err := http.NewRequest(c.method, s.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(gongtest.DefaultAccessKey, gongtest.DefaultAccessKeySecret)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page map[string]json.RawMessage
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %v", c.method, c.path, res.StatusCode, err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(page[c.key], &items); err != nil || len(items) == 0 {
			t.Fatalf("%s: %q: %d items, %v", c.path, c.key, len(items), err)
		}
		for _, it := range items {
			if err := json.Unmarshal(it, c.into()); err != nil {
				t.Errorf("%s: %v", c.path, err)
				break
			}
		}
	}
}

// Answered scorecard ids decode whether Gong sends them as strings or as
// numbers (its published descriptions disagree), without losing digits.
func TestAnsweredScorecardIDsAsNumbers(t *testing.T) {
	for _, raw := range []string{
		`{"answeredScorecardId":"56351525845000000001","scorecardId":"6843152929075440000","callId":"7782342274000000004","reviewedUserId":"3041859475200000004","reviewerUserId":"3041859475200000000","editorUserId":null,"scorecardName":"Demo Quality"}`,
		`{"answeredScorecardId":56351525845000000001,"scorecardId":6843152929075440000,"callId":7782342274000000004,"reviewedUserId":3041859475200000004,"reviewerUserId":3041859475200000000,"editorUserId":null,"scorecardName":"Demo Quality"}`,
	} {
		var s StatsActivityScorecard
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if s.AnsweredScorecardID != "56351525845000000001" || s.ScorecardID != "6843152929075440000" || s.CallID != "7782342274000000004" ||
			s.ReviewedUserID != "3041859475200000004" || s.ReviewerUserID != "3041859475200000000" || s.EditorUserID != nil || s.ScorecardName != "Demo Quality" {
			t.Errorf("%s: %+v", raw, s)
		}
	}
	var s StatsActivityScorecard
	if err := json.Unmarshal([]byte(`{"editorUserId":42}`), &s); err != nil || s.EditorUserID == nil || *s.EditorUserID != "42" {
		t.Errorf("editor: %v %v", err, s.EditorUserID)
	}
}
