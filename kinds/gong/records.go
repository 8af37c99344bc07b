package gong

import (
	"encoding/json"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// The typed records of the call-analytics (Gong API v2) connector, one struct
// per entity of the catalogue. JSON tags are Gong's wire names. Gong ids are
// numeric strings of up to 20 digits and stay strings here. Gong may add
// fields to its JSON at any time; encoding/json ignores the ones not listed.

// User is a record of the users entity: one Gong user, as listed by
// GET /v2/users (key "users") and returned by GET /v2/users/{id} (key "user").
type User struct {
	// ID is Gong's numeric identifier of the user, as a string.
	ID           string `json:"id"`
	EmailAddress string `json:"emailAddress"`
	// Created is the creation time, ISO 8601.
	Created             string   `json:"created"`
	Active              bool     `json:"active"`
	EmailAliases        []string `json:"emailAliases"`
	TrustedEmailAddress *string  `json:"trustedEmailAddress"`
	FirstName           string   `json:"firstName"`
	LastName            string   `json:"lastName"`
	Title               *string  `json:"title"`
	PhoneNumber         *string  `json:"phoneNumber"`
	Extension           *string  `json:"extension"`
	PersonalMeetingURLs []string `json:"personalMeetingUrls"`
	// Settings holds the user's recording and import switches
	// (webConferencesRecorded, telephonyCallsImported, emailsImported, ...).
	Settings json.RawMessage `json:"settings"`
	// ManagerID is the id of the user's manager, if any.
	ManagerID             *string `json:"managerId"`
	MeetingConsentPageURL *string `json:"meetingConsentPageUrl"`
	// SpokenLanguages lists {language (BCP-47), primary bool} objects.
	SpokenLanguages []json.RawMessage `json:"spokenLanguages"`
}

// Call is a record of the calls entity: Gong's basic call data, as listed by
// GET /v2/calls (key "calls") and returned by GET /v2/calls/{id} (key "call").
type Call struct {
	ID string `json:"id"`
	// URL is the call's page in the Gong web application.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Scheduled and Started are ISO 8601 date-times.
	Scheduled string `json:"scheduled"`
	Started   string `json:"started"`
	// Duration is the call's length in seconds.
	Duration int64 `json:"duration"`
	// PrimaryUserID is the id of the user who hosted the call.
	PrimaryUserID string `json:"primaryUserId"`
	// Direction is one of Inbound, Outbound, Conference, Unknown.
	Direction string `json:"direction"`
	// System is the conferencing or telephony system (Zoom, WebEx, ...).
	System string `json:"system"`
	// Scope is one of Internal, External, Unknown.
	Scope string `json:"scope"`
	// Media is Video or Audio.
	Media string `json:"media"`
	// Language is an ISO 639-2/B code (eng, fre, ...; und, zxx).
	Language       string  `json:"language"`
	WorkspaceID    string  `json:"workspaceId"`
	SDRDisposition *string `json:"sdrDisposition"`
	// ClientUniqueID is the call's id in the recording system it came from.
	ClientUniqueID *string `json:"clientUniqueId"`
	// CustomData is metadata given when the call was uploaded.
	CustomData *string `json:"customData"`
	Purpose    *string `json:"purpose"`
	MeetingURL string  `json:"meetingUrl"`
	IsPrivate  bool    `json:"isPrivate"`
	// CalendarEventID is the meeting's id in Google or Outlook Calendar.
	CalendarEventID *string `json:"calendarEventId"`
}

// CallExtensive is a record of the calls_extensive entity: one item of the
// "calls" array of POST /v2/calls/extensive. Only the parts selected by the
// request's contentSelector are present.
type CallExtensive struct {
	// MetaData is the call's basic data, shaped like Call (the catalogue's
	// service-named object). The call id is MetaData.id.
	MetaData json.RawMessage `json:"metaData"`
	// Context holds the links to external systems (CRM objects), present
	// when contentSelector.context is Basic or Extended. Gong sends an array.
	Context json.RawMessage `json:"context"`
	// Parties are the call's participants (exposedFields.parties).
	Parties []json.RawMessage `json:"parties"`
	// Interaction holds speakers, interactionStats, video and questions
	// (exposedFields.interaction.*).
	Interaction json.RawMessage `json:"interaction"`
	// Collaboration holds publicComments (exposedFields.collaboration).
	Collaboration json.RawMessage `json:"collaboration"`
	// Content holds structure, topics, trackers, brief, outline, highlights,
	// callOutcome, keyPoints (exposedFields.content.*). Its pointsOfInterest
	// part is deprecated by Gong in favour of highlights.
	Content json.RawMessage `json:"content"`
	// Media holds audioUrl and videoUrl (exposedFields.media): pre-signed
	// URLs on another host, valid for 8 hours, fetched without Gong
	// credentials.
	Media json.RawMessage `json:"media"`
}

// Workspace is a record of the workspaces entity (GET /v2/workspaces,
// key "workspaces").
type Workspace struct {
	ID string `json:"id"`
	// WorkspaceID repeats the workspace id under its legacy name. Gong's
	// published schema only has id; the field is empty when Gong omits it.
	WorkspaceID string `json:"workspaceId"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// CallTranscript is a record of the call_transcripts entity
// (POST /v2/calls/transcript, key "callTranscripts").
type CallTranscript struct {
	CallID string `json:"callId"`
	// Transcript is the list of monologues, each {speakerId, topic,
	// sentences: [{start, end, text}]} with start and end in milliseconds
	// from the start of the call.
	Transcript []json.RawMessage `json:"transcript"`
}

// StatsActivityAggregate is a record of the stats_activity_aggregate entity
// (POST /v2/stats/activity/aggregate, key "usersAggregateActivityStats"):
// one user's activity totals over the requested period.
type StatsActivityAggregate struct {
	UserID           string `json:"userId"`
	UserEmailAddress string `json:"userEmailAddress"`
	// UserAggregateActivityStats holds the integer counters; decode it into
	// AggregateActivityStats.
	UserAggregateActivityStats json.RawMessage `json:"userAggregateActivityStats"`
}

// AggregateActivityStats is the content of
// StatsActivityAggregate.UserAggregateActivityStats: counts of calls over the
// requested period.
type AggregateActivityStats struct {
	CallsAsHost                   int64 `json:"callsAsHost"`
	CallsGaveFeedback             int64 `json:"callsGaveFeedback"`
	CallsRequestedFeedback        int64 `json:"callsRequestedFeedback"`
	CallsReceivedFeedback         int64 `json:"callsReceivedFeedback"`
	OwnCallsListenedTo            int64 `json:"ownCallsListenedTo"`
	OthersCallsListenedTo         int64 `json:"othersCallsListenedTo"`
	CallsSharedInternally         int64 `json:"callsSharedInternally"`
	CallsSharedExternally         int64 `json:"callsSharedExternally"`
	CallsScorecardsFilled         int64 `json:"callsScorecardsFilled"`
	CallsScorecardsReceived       int64 `json:"callsScorecardsReceived"`
	CallsAttended                 int64 `json:"callsAttended"`
	CallsCommentsGiven            int64 `json:"callsCommentsGiven"`
	CallsCommentsReceived         int64 `json:"callsCommentsReceived"`
	CallsMarkedAsFeedbackGiven    int64 `json:"callsMarkedAsFeedbackGiven"`
	CallsMarkedAsFeedbackReceived int64 `json:"callsMarkedAsFeedbackReceived"`
}

// StatsActivityDayByDay is a record of the stats_activity_day_by_day entity
// (POST /v2/stats/activity/day-by-day, key "usersDetailedActivities"): one
// user's activity, day by day.
type StatsActivityDayByDay struct {
	UserID           string `json:"userId"`
	UserEmailAddress string `json:"userEmailAddress"`
	// UserDailyActivityStats has one object per day of the period; decode
	// each into DailyActivityStats.
	UserDailyActivityStats []json.RawMessage `json:"userDailyActivityStats"`
}

// DailyActivityStats is one day of StatsActivityDayByDay: for each kind of
// activity, the ids of the calls concerned.
type DailyActivityStats struct {
	CallsAsHost                   []string `json:"callsAsHost"`
	CallsGaveFeedback             []string `json:"callsGaveFeedback"`
	CallsRequestedFeedback        []string `json:"callsRequestedFeedback"`
	CallsReceivedFeedback         []string `json:"callsReceivedFeedback"`
	OwnCallsListenedTo            []string `json:"ownCallsListenedTo"`
	OthersCallsListenedTo         []string `json:"othersCallsListenedTo"`
	CallsSharedInternally         []string `json:"callsSharedInternally"`
	CallsSharedExternally         []string `json:"callsSharedExternally"`
	CallsAttended                 []string `json:"callsAttended"`
	CallsCommentsGiven            []string `json:"callsCommentsGiven"`
	CallsCommentsReceived         []string `json:"callsCommentsReceived"`
	CallsMarkedAsFeedbackGiven    []string `json:"callsMarkedAsFeedbackGiven"`
	CallsMarkedAsFeedbackReceived []string `json:"callsMarkedAsFeedbackReceived"`
	CallsScorecardsFilled         []string `json:"callsScorecardsFilled"`
	CallsScorecardsReceived       []string `json:"callsScorecardsReceived"`
	// FromDate and ToDate bound the day, ISO 8601 date-times in the
	// company's time zone.
	FromDate string `json:"fromDate"`
	ToDate   string `json:"toDate"`
}

// StatsInteraction is a record of the stats_interaction entity
// (POST /v2/stats/interaction, key "peopleInteractionStats"). It covers
// calls that had Gong's real-time guidance (Whisper) turned on.
type StatsInteraction struct {
	UserID           string `json:"userId"`
	UserEmailAddress string `json:"userEmailAddress"`
	// PersonInteractionStats are {name, value} pairs such as "Longest
	// Monologue", "Interactivity", "Patience", "Question Rate"; decode each
	// into InteractionStat.
	PersonInteractionStats []json.RawMessage `json:"personInteractionStats"`
}

// InteractionStat is one item of StatsInteraction.PersonInteractionStats.
type InteractionStat struct {
	Name string `json:"name"`
	// Value is the measurement; Gong sends an integer or a decimal.
	Value float64 `json:"value"`
}

// SettingsScorecard is a record of the settings_scorecards entity
// (GET /v2/settings/scorecards, key "scorecards"): a scorecard definition.
type SettingsScorecard struct {
	ScorecardID   string  `json:"scorecardId"`
	ScorecardName string  `json:"scorecardName"`
	WorkspaceID   *string `json:"workspaceId"`
	Enabled       bool    `json:"enabled"`
	// UpdaterUserID is the user who last updated the scorecard.
	UpdaterUserID string `json:"updaterUserId"`
	Created       string `json:"created"`
	Updated       string `json:"updated"`
	// ReviewMethod tells how the scorecard is filled (e.g. MANUAL,
	// AUTOMATIC).
	ReviewMethod string `json:"reviewMethod"`
	// Questions are {questionId, questionRevisionId, questionText,
	// questionType, isRequired, isOverall, updaterUserId, answerGuide,
	// minRange, maxRange, created, updated, answerOptions} objects.
	Questions []json.RawMessage `json:"questions"`
}

// SettingsTracker is a record of the settings_trackers entity
// (GET /v2/settings/trackers, key "keywordTrackers"): a keyword tracker.
type SettingsTracker struct {
	TrackerID   string  `json:"trackerId"`
	TrackerName string  `json:"trackerName"`
	WorkspaceID *string `json:"workspaceId"`
	// LanguageKeywords are {language, keywords[], includeRelatedForms}
	// objects, one per language.
	LanguageKeywords []json.RawMessage `json:"languageKeywords"`
	// Affiliation is Anyone, Company or NonCompany.
	Affiliation string `json:"affiliation"`
	// PartOfQuestion restricts matches to questions.
	PartOfQuestion bool `json:"partOfQuestion"`
	// SaidAt is Anytime, First or Last.
	SaidAt string `json:"saidAt"`
	// SaidAtInterval is the span, in SaidAtUnit, that SaidAt refers to.
	// Gong sends an integer (the catalogue leaves the type open).
	SaidAtInterval *int64 `json:"saidAtInterval"`
	// SaidAtUnit is minutes or percent of the call.
	SaidAtUnit   *string  `json:"saidAtUnit"`
	SaidInTopics []string `json:"saidInTopics"`
	// FilterQuery is a JSON document, as a string, selecting the calls the
	// tracker applies to.
	FilterQuery string `json:"filterQuery"`
	Created     string `json:"created"`
	// CreatorUserID and UpdaterUserID are null for built-in trackers.
	CreatorUserID *string `json:"creatorUserId"`
	Updated       string  `json:"updated"`
	UpdaterUserID *string `json:"updaterUserId"`
}

// LibraryFolder is a record of the library_folders entity
// (GET /v2/library/folders, key "folders"): a public call-library folder.
type LibraryFolder struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// ParentFolderID is null for a root folder.
	ParentFolderID *string `json:"parentFolderId"`
	// CreatedBy is the id of the user who created the folder.
	CreatedBy *string `json:"createdBy"`
	Updated   string  `json:"updated"`
}

// LibraryFolderContent is a record of the library_folder_content entity: one
// call of a library folder, an item of the "calls" array of
// GET /v2/library/folder-content. Gong documents id, title, note, addedBy,
// created, url and snippet; the catalogue adds callId, started, duration
// and primaryUserId, which are empty when Gong does not send them.
type LibraryFolderContent struct {
	// ID is the call's id (Gong's name for it in this endpoint).
	ID string `json:"id"`
	// CallID is the call's id under the catalogue's name.
	CallID string `json:"callId"`
	Title  string `json:"title"`
	// Started is the call's start time, ISO 8601.
	Started string `json:"started"`
	// Duration is the call's length in seconds.
	Duration      int64  `json:"duration"`
	PrimaryUserID string `json:"primaryUserId"`
	URL           string `json:"url"`
	// Note is the optional note attached to the call in the folder.
	Note *string `json:"note"`
	// AddedBy is the id of the user who added the call to the folder.
	AddedBy string `json:"addedBy"`
	// Created is when the call was added to the folder.
	Created string `json:"created"`
	// Snippet is {fromSec, toSec} when the folder holds only part of the call.
	Snippet json.RawMessage `json:"snippet"`
}

// Coaching is a record of the coaching entity (GET /v2/coaching, key
// "coachingData"). Gong documents each item as one manager's data:
// Manager and DirectReportsMetrics. The catalogue's per-user fields (UserID
// ... CoachingMetrics) are empty when Gong does not send them.
type Coaching struct {
	UserID           string `json:"userId"`
	UserEmailAddress string `json:"userEmailAddress"`
	UserName         string `json:"userName"`
	IsManager        bool   `json:"isManager"`
	// CoachingMetrics holds integer counters: callsListened,
	// callsAttended, callsWithFeedback, callsWithComments, scorecardsFilled.
	CoachingMetrics json.RawMessage `json:"coachingMetrics"`
	// Manager is the manager {id, emailAddress, firstName, lastName, title}.
	Manager json.RawMessage `json:"manager"`
	// DirectReportsMetrics are {report: {id, emailAddress, ...}, metrics}
	// objects, one per direct report of the manager.
	DirectReportsMetrics []json.RawMessage `json:"directReportsMetrics"`
}

// StatsActivityScorecard is a record of the stats_activity_scorecards entity
// (POST /v2/stats/activity/scorecards, key "answeredScorecards"): one
// answered scorecard. Gong's published descriptions disagree on whether its
// ids are JSON strings or numbers; both decode into these string fields.
type StatsActivityScorecard struct {
	AnsweredScorecardID string `json:"answeredScorecardId"`
	ScorecardID         string `json:"scorecardId"`
	ScorecardName       string `json:"scorecardName"`
	CallID              string `json:"callId"`
	CallStartTime       string `json:"callStartTime"`
	// ReviewedUserID is the user being reviewed (the call's host).
	ReviewedUserID string `json:"reviewedUserId"`
	// ReviewerUserID is the user who filled the scorecard.
	ReviewerUserID string `json:"reviewerUserId"`
	// ReviewMethod tells how the scorecard was filled (e.g. MANUAL,
	// AUTOMATIC).
	ReviewMethod     string  `json:"reviewMethod"`
	EditorUserID     *string `json:"editorUserId"`
	AnsweredDateTime string  `json:"answeredDateTime"`
	// ReviewTime is when the review was completed and published.
	ReviewTime string `json:"reviewTime"`
	// VisibilityType is PUBLIC, PRIVATE or OPT_IN_USERS.
	VisibilityType string `json:"visibilityType"`
	// Answers are {questionId, questionRevisionId, isOverall, answer,
	// answerText, score, notApplicable, selectedOptions} objects.
	Answers      []json.RawMessage `json:"answers"`
	OverallScore float64           `json:"overallScore"`
	Visibility   string            `json:"visibility"`
}

// UnmarshalJSON decodes an answered scorecard whose ids Gong may send as
// JSON strings or as numbers.
func (s *StatsActivityScorecard) UnmarshalJSON(b []byte) error {
	type plain StatsActivityScorecard
	aux := struct {
		*plain
		AnsweredScorecardID flexID  `json:"answeredScorecardId"`
		ScorecardID         flexID  `json:"scorecardId"`
		CallID              flexID  `json:"callId"`
		ReviewedUserID      flexID  `json:"reviewedUserId"`
		ReviewerUserID      flexID  `json:"reviewerUserId"`
		EditorUserID        *flexID `json:"editorUserId"`
	}{plain: (*plain)(s)}
	if err := jsonx.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.AnsweredScorecardID = string(aux.AnsweredScorecardID)
	s.ScorecardID = string(aux.ScorecardID)
	s.CallID = string(aux.CallID)
	s.ReviewedUserID = string(aux.ReviewedUserID)
	s.ReviewerUserID = string(aux.ReviewerUserID)
	s.EditorUserID = nil
	if aux.EditorUserID != nil {
		v := string(*aux.EditorUserID)
		s.EditorUserID = &v
	}
	return nil
}

// flexID is a Gong id sent as a JSON string or number, kept as the string
// of its digits (ids have up to 20 digits: more than an int64 holds).
type flexID string

func (id *flexID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := jsonx.Unmarshal(b, &s)
		*id = flexID(s)
		return err
	}
	var n json.Number
	if err := jsonx.Unmarshal(b, &n); err != nil {
		return err
	}
	*id = flexID(n.String())
	return nil
}
