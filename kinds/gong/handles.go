package gong

import (
	"context"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
)

// Typed params. Zero fields are not sent; nested structs become nested
// objects ({"filter": {...}}); time.Time fields are sent as ISO 8601 in UTC.
// Cursor is the records.cursor of the previous page (Next carries it too).

// NoParams are the params of the lists that take none.
type NoParams struct{}

// UserListParams are the params of users.list.
type UserListParams struct {
	Cursor string `param:"cursor"`
	// IncludeAvatars adds each user's avatar URL.
	IncludeAvatars bool `param:"includeAvatars"`
}

// CallListParams are the params of calls.list: calls that started in
// [FromDateTime, ToDateTime).
type CallListParams struct {
	FromDateTime time.Time `param:"fromDateTime"`
	ToDateTime   time.Time `param:"toDateTime"`
	WorkspaceID  string    `param:"workspaceId"`
	Cursor       string    `param:"cursor"`
}

// CallFilter selects calls for calls_extensive and call_transcripts:
// those that started in [FromDateTime, ToDateTime), or those of CallIDs.
type CallFilter struct {
	FromDateTime time.Time `param:"fromDateTime"`
	ToDateTime   time.Time `param:"toDateTime"`
	WorkspaceID  string    `param:"workspaceId"`
	CallIDs      []string  `param:"callIds"`
	// PrimaryUserIDs keeps the calls hosted by these users
	// (calls_extensive only).
	PrimaryUserIDs []string `param:"primaryUserIds"`
}

// ContentSelector chooses what calls_extensive returns of each call.
type ContentSelector struct {
	// Context is None, Basic (links to external systems such as the CRM)
	// or Extended (their data as well).
	Context string `param:"context"`
	// ContextTiming is Now and/or TimeOfCall; Gong's default is Now.
	ContextTiming []string       `param:"contextTiming"`
	ExposedFields *ExposedFields `param:"exposedFields"`
}

// ExposedFields are the parts of each call calls_extensive adds to its
// metaData.
type ExposedFields struct {
	Parties       bool                 `param:"parties"`
	Media         bool                 `param:"media"`
	Content       *ContentFields       `param:"content"`
	Interaction   *InteractionFields   `param:"interaction"`
	Collaboration *CollaborationFields `param:"collaboration"`
}

// ContentFields are contentSelector.exposedFields.content.
type ContentFields struct {
	Structure          bool `param:"structure"`
	Topics             bool `param:"topics"`
	Trackers           bool `param:"trackers"`
	TrackerOccurrences bool `param:"trackerOccurrences"`
	// PointsOfInterest asks for the call's points of interest.
	//
	// Deprecated: Gong replaced points of interest with Highlights.
	PointsOfInterest bool `param:"pointsOfInterest"`
	Brief            bool `param:"brief"`
	Outline          bool `param:"outline"`
	Highlights       bool `param:"highlights"`
	CallOutcome      bool `param:"callOutcome"`
	KeyPoints        bool `param:"keyPoints"`
}

// InteractionFields are contentSelector.exposedFields.interaction.
type InteractionFields struct {
	PersonInteractionStats bool `param:"personInteractionStats"`
	Questions              bool `param:"questions"`
	Speakers               bool `param:"speakers"`
	Video                  bool `param:"video"`
}

// CollaborationFields are contentSelector.exposedFields.collaboration.
type CollaborationFields struct {
	PublicComments bool `param:"publicComments"`
}

// CallsExtensiveListParams are the params of calls_extensive.list. Gong
// requires Filter; &CallFilter{} selects every call.
type CallsExtensiveListParams struct {
	Filter          *CallFilter      `param:"filter"`
	ContentSelector *ContentSelector `param:"contentSelector"`
	Cursor          string           `param:"cursor"`
}

// CallTranscriptListParams are the params of call_transcripts.list: a
// Filter with CallIDs, or with FromDateTime and ToDateTime.
type CallTranscriptListParams struct {
	Filter *CallFilter `param:"filter"`
	Cursor string      `param:"cursor"`
}

// StatsFilter is the period (and users) of the activity and interaction
// statistics.
type StatsFilter struct {
	// FromDate (inclusive) and ToDate (exclusive, not after today) are
	// YYYY-MM-DD days in the company's time zone; Gong requires both.
	FromDate string   `param:"fromDate"`
	ToDate   string   `param:"toDate"`
	UserIDs  []string `param:"userIds"`
}

// StatsListParams are the params of stats_activity_aggregate,
// stats_activity_day_by_day and stats_interaction.
type StatsListParams struct {
	Filter *StatsFilter `param:"filter"`
	Cursor string       `param:"cursor"`
}

// AnsweredScorecardFilter selects answered scorecards. FromDateTime,
// ToDateTime, ReviewerUserIDs and CallIDs are the catalogue's names;
// CallFromDate, CallToDate, ReviewFromDate and ReviewToDate (YYYY-MM-DD)
// are the names Gong documents. Each is sent as given.
type AnsweredScorecardFilter struct {
	FromDateTime    time.Time `param:"fromDateTime"`
	ToDateTime      time.Time `param:"toDateTime"`
	ScorecardIDs    []string  `param:"scorecardIds"`
	ReviewedUserIDs []string  `param:"reviewedUserIds"`
	ReviewerUserIDs []string  `param:"reviewerUserIds"`
	CallIDs         []string  `param:"callIds"`
	CallFromDate    string    `param:"callFromDate"`
	CallToDate      string    `param:"callToDate"`
	ReviewFromDate  string    `param:"reviewFromDate"`
	ReviewToDate    string    `param:"reviewToDate"`
}

// AnsweredScorecardListParams are the params of
// stats_activity_scorecards.list.
type AnsweredScorecardListParams struct {
	Filter *AnsweredScorecardFilter `param:"filter"`
	Cursor string                   `param:"cursor"`
}

// WorkspaceParams are the params of settings_scorecards.list and
// settings_trackers.list.
type WorkspaceParams struct {
	WorkspaceID string `param:"workspaceId"`
}

// LibraryFolderListParams are the params of library_folders.list.
type LibraryFolderListParams struct {
	// WorkspaceID is required.
	WorkspaceID string `param:"workspaceId"`
}

// LibraryFolderContentListParams are the params of
// library_folder_content.list.
type LibraryFolderContentListParams struct {
	// FolderID is required.
	FolderID string `param:"folderId"`
	Cursor   string `param:"cursor"`
}

// CoachingListParams are the params of coaching.list; all are required.
type CoachingListParams struct {
	WorkspaceID string    `param:"workspace-id"`
	ManagerID   string    `param:"manager-id"`
	From        time.Time `param:"from"`
	To          time.Time `param:"to"`
}

// Entity is a typed handle on an entity that also has a get by id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
}

// Get reads the record with this Gong id.
func (e Entity[T, P]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{"id": id})
}

func handle[T, P any](c *Client, name string) tributary.Handle[T, P] {
	return tributary.Handle[T, P]{Conn: c, Entity: name}
}

// Users is the typed handle on users.
func (c *Client) Users() Entity[User, UserListParams] {
	return Entity[User, UserListParams]{handle[User, UserListParams](c, "users")}
}

// Calls is the typed handle on calls (basic data).
func (c *Client) Calls() Entity[Call, CallListParams] {
	return Entity[Call, CallListParams]{handle[Call, CallListParams](c, "calls")}
}

// CallsExtensive is the typed handle on calls_extensive.
func (c *Client) CallsExtensive() tributary.Handle[CallExtensive, CallsExtensiveListParams] {
	return handle[CallExtensive, CallsExtensiveListParams](c, "calls_extensive")
}

// Workspaces is the typed handle on workspaces.
func (c *Client) Workspaces() tributary.Handle[Workspace, NoParams] {
	return handle[Workspace, NoParams](c, "workspaces")
}

// CallTranscripts is the typed handle on call_transcripts.
func (c *Client) CallTranscripts() tributary.Handle[CallTranscript, CallTranscriptListParams] {
	return handle[CallTranscript, CallTranscriptListParams](c, "call_transcripts")
}

// StatsActivityAggregate is the typed handle on stats_activity_aggregate.
func (c *Client) StatsActivityAggregate() tributary.Handle[StatsActivityAggregate, StatsListParams] {
	return handle[StatsActivityAggregate, StatsListParams](c, "stats_activity_aggregate")
}

// StatsActivityDayByDay is the typed handle on stats_activity_day_by_day.
func (c *Client) StatsActivityDayByDay() tributary.Handle[StatsActivityDayByDay, StatsListParams] {
	return handle[StatsActivityDayByDay, StatsListParams](c, "stats_activity_day_by_day")
}

// StatsInteraction is the typed handle on stats_interaction.
func (c *Client) StatsInteraction() tributary.Handle[StatsInteraction, StatsListParams] {
	return handle[StatsInteraction, StatsListParams](c, "stats_interaction")
}

// SettingsScorecards is the typed handle on settings_scorecards.
func (c *Client) SettingsScorecards() tributary.Handle[SettingsScorecard, WorkspaceParams] {
	return handle[SettingsScorecard, WorkspaceParams](c, "settings_scorecards")
}

// SettingsTrackers is the typed handle on settings_trackers.
func (c *Client) SettingsTrackers() tributary.Handle[SettingsTracker, WorkspaceParams] {
	return handle[SettingsTracker, WorkspaceParams](c, "settings_trackers")
}

// LibraryFolders is the typed handle on library_folders.
func (c *Client) LibraryFolders() tributary.Handle[LibraryFolder, LibraryFolderListParams] {
	return handle[LibraryFolder, LibraryFolderListParams](c, "library_folders")
}

// LibraryFolderContent is the typed handle on library_folder_content.
func (c *Client) LibraryFolderContent() tributary.Handle[LibraryFolderContent, LibraryFolderContentListParams] {
	return handle[LibraryFolderContent, LibraryFolderContentListParams](c, "library_folder_content")
}

// Coaching is the typed handle on coaching.
func (c *Client) Coaching() tributary.Handle[Coaching, CoachingListParams] {
	return handle[Coaching, CoachingListParams](c, "coaching")
}

// StatsActivityScorecards is the typed handle on stats_activity_scorecards
// (answered scorecards).
func (c *Client) StatsActivityScorecards() tributary.Handle[StatsActivityScorecard, AnsweredScorecardListParams] {
	return handle[StatsActivityScorecard, AnsweredScorecardListParams](c, "stats_activity_scorecards")
}

// CallAudio opens a stream of a call's audio. rangeHeader is "" for the
// whole file, or bytes=<first>-<last> (also bytes=<first>- and bytes=-<n>).
// The caller closes the stream.
func (c *Client) CallAudio(ctx context.Context, callID, rangeHeader string) (*download.Stream, error) {
	return c.Download(ctx, "call_audio", mediaRequest(callID, rangeHeader))
}

// CallVideo opens a stream of a call's video; see CallAudio. A call with
// no video gives an error matching tributary.ErrNotFound.
func (c *Client) CallVideo(ctx context.Context, callID, rangeHeader string) (*download.Stream, error) {
	return c.Download(ctx, "call_video", mediaRequest(callID, rangeHeader))
}

func mediaRequest(callID, rangeHeader string) tributary.Params {
	p := tributary.Params{
		"filter":          map[string]any{"callIds": []string{callID}},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}},
	}
	if rangeHeader != "" {
		p["range_header"] = rangeHeader
	}
	return p
}
