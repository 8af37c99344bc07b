package gong_test

import (
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/gong"
)

// flatten lists params as dotted names, nested ones after their object,
// with ":R" on the required ones.
func flatten(prefix string, ps []tributary.Param) []string {
	var out []string
	for _, p := range ps {
		n := prefix + p.Name
		if p.Required {
			out = append(out, n+":R")
		} else {
			out = append(out, n)
		}
		out = append(out, flatten(n+".", p.Fields)...)
	}
	return out
}

// The entities, actions and parameters of the call-analytics section of
// the connector catalogue, names exactly as written there, plus the inputs
// Gong's API also takes (includeAvatars, workspaceId, primaryUserIds, the
// cursor of the stats lists, Gong's own answered-scorecard filter names).
func TestCatalogueMatchesSpec(t *testing.T) {
	selector := "contentSelector contentSelector.context contentSelector.contextTiming contentSelector.exposedFields " +
		"contentSelector.exposedFields.collaboration contentSelector.exposedFields.collaboration.publicComments " +
		"contentSelector.exposedFields.content contentSelector.exposedFields.content.pointsOfInterest contentSelector.exposedFields.content.structure " +
		"contentSelector.exposedFields.content.topics contentSelector.exposedFields.content.trackers contentSelector.exposedFields.content.trackerOccurrences " +
		"contentSelector.exposedFields.content.brief contentSelector.exposedFields.content.outline contentSelector.exposedFields.content.highlights " +
		"contentSelector.exposedFields.content.callOutcome contentSelector.exposedFields.content.keyPoints " +
		"contentSelector.exposedFields.interaction contentSelector.exposedFields.interaction.personInteractionStats " +
		"contentSelector.exposedFields.interaction.questions contentSelector.exposedFields.interaction.speakers contentSelector.exposedFields.interaction.video " +
		"contentSelector.exposedFields.media contentSelector.exposedFields.parties"
	media := "filter:R filter.callIds:R contentSelector:R contentSelector.exposedFields:R contentSelector.exposedFields.media:R range_header"
	stats := "filter:R filter.fromDate:R filter.toDate:R filter.userIds cursor"
	want := map[string]struct{ actions, params string }{
		"users":                     {"list get search", "cursor includeAvatars | id:R"},
		"calls":                     {"list get search", "fromDateTime toDateTime workspaceId cursor | id:R"},
		"calls_extensive":           {"list search", "filter:R filter.fromDateTime filter.toDateTime filter.callIds filter.workspaceId filter.primaryUserIds " + selector + " cursor"},
		"call_audio":                {"download", media},
		"call_video":                {"download", media},
		"workspaces":                {"list", ""},
		"call_transcripts":          {"list", "filter:R filter.fromDateTime filter.toDateTime filter.callIds filter.workspaceId cursor"},
		"stats_activity_aggregate":  {"list", stats},
		"stats_activity_day_by_day": {"list", stats},
		"stats_interaction":         {"list", stats},
		"settings_scorecards":       {"list search", "workspaceId"},
		"settings_trackers":         {"list", "workspaceId"},
		"library_folders":           {"list", "workspaceId:R"},
		"library_folder_content":    {"list", "folderId:R cursor"},
		"coaching":                  {"list", "workspace-id:R manager-id:R from:R to:R"},
		"stats_activity_scorecards": {"list search", "filter filter.fromDateTime filter.toDateTime filter.scorecardIds filter.reviewedUserIds filter.reviewerUserIds filter.callIds " +
			"filter.callFromDate filter.callToDate filter.reviewFromDate filter.reviewToDate cursor"},
	}
	entities := gong.Catalogue()
	if len(entities) != len(want) {
		t.Errorf("%d entities, want %d", len(entities), len(want))
	}
	for _, e := range entities {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("unexpected entity %s", e.Name)
			continue
		}
		var acts, params []string
		for _, a := range e.Actions {
			acts = append(acts, string(a))
			if a == tributary.ActionSearch {
				continue
			}
			if len(params) > 0 {
				params = append(params, "|")
			}
			params = append(params, flatten("", e.Params[a])...)
		}
		if got := strings.Join(acts, " "); got != w.actions {
			t.Errorf("%s actions %q, want %q", e.Name, got, w.actions)
		}
		if got := strings.Join(params, " "); got != w.params {
			t.Errorf("%s params\n got %q\nwant %q", e.Name, got, w.params)
		}
		if e.Supports(tributary.ActionSearch) && len(e.Searchable) == 0 {
			t.Errorf("%s has search but no searchable fields", e.Name)
		}
	}

	ext, _ := tributary.FindEntity(entities, "calls_extensive")
	cs, _ := ext.Param(tributary.ActionList, "contentSelector")
	if ctx := cs.Fields[0]; ctx.Name != "context" || strings.Join(ctx.Enum, ",") != "None,Basic,Extended" {
		t.Errorf("context %+v", ctx)
	}
	if timing := cs.Fields[1]; timing.Items == nil || strings.Join(timing.Items.Enum, ",") != "Now,TimeOfCall" {
		t.Errorf("contextTiming %+v", timing)
	}
	audio, _ := tributary.FindEntity(entities, "call_audio")
	f, _ := audio.Param(tributary.ActionDownload, "filter")
	if ids := f.Fields[0]; ids.Min == nil || *ids.Min != 1 || ids.Max == nil || *ids.Max != 1 {
		t.Errorf("callIds must take exactly one id: %+v", ids)
	}
	searchable := map[string]string{
		"calls_extensive":           "id:integer startdatetime:date-time collaboration:object content:object context:object interaction:object media:object metaData:object parties:array",
		"settings_scorecards":       "created:date-time enabled:boolean questions:array scorecardId:string scorecardName:string updated:date-time updaterUserId:string workspaceId:string",
		"stats_activity_scorecards": "answeredScorecardId:string answers:array callId:string callStartTime:date-time reviewTime:date-time reviewedUserId:string reviewerUserId:string scorecardId:string scorecardName:string visibilityType:string",
		"users":                     "id:string emailAddress:string created:date-time active:boolean emailAliases:array trustedEmailAddress:string firstName:string lastName:string title:string phoneNumber:string extension:string personalMeetingUrls:array settings:object managerId:string meetingConsentPageUrl:string spokenLanguages:array",
		"calls":                     "id:string url:string title:string scheduled:date-time started:date-time duration:integer primaryUserId:string direction:string system:string scope:string media:string language:string workspaceId:string sdrDisposition:string clientUniqueId:string customData:string purpose:string meetingUrl:string isPrivate:boolean calendarEventId:string",
	}
	for name, w := range searchable {
		e, _ := tributary.FindEntity(entities, name)
		var got []string
		for _, f := range e.Searchable {
			got = append(got, f.Name+":"+string(f.Type))
		}
		if strings.Join(got, " ") != w {
			t.Errorf("%s searchable\n got %s\nwant %s", name, strings.Join(got, " "), w)
		}
	}
}
