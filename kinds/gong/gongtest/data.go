package gongtest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Synthetic data. Every record is a pure function of its index, so any
// volume costs no start-up time.

const (
	numWorkspaces = 3
	numScorecards = 4
	numTrackers   = 6
	foldersPerWS  = 4
	numFolders    = numWorkspaces * foldersPerWS
	reportsPerMgr = 5
	// every scorecardEvery-th call has an answered scorecard.
	scorecardEvery = 4
)

var (
	callBase = time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)
	userBase = time.Date(2022, 1, 3, 9, 0, 0, 0, time.UTC)
	setBase  = time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)

	firstNames = []string{"Avery", "Blake", "Casey", "Drew", "Emery", "Finley", "Gray", "Harper", "Indigo", "Jules",
		"Kai", "Logan", "Morgan", "Noel", "Oakley", "Parker", "Quinn", "Reese", "Sage", "Taylor"}
	lastNames = []string{"Sample", "Placeholder", "Example", "Testcase", "Fixture", "Mock", "Stub", "Dummy"}
)

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Ids: numeric strings of 19 digits with a per-entity prefix.

func callID(i int) string         { return fmt.Sprintf("77823422740%08d", i) }
func userID(i int) string         { return fmt.Sprintf("304185947520%07d", i) }
func workspaceID(i int) string    { return fmt.Sprintf("520193847510293%04d", i) }
func scorecardID(i int) string    { return fmt.Sprintf("684315292907544%04d", i) }
func trackerID(i int) string      { return fmt.Sprintf("684000092907540%04d", i) }
func folderID(i int) string       { return fmt.Sprintf("384315291296892%04d", i) }
func answeredID(j int) string     { return fmt.Sprintf("56351525845%08d", j) }
func questionID(sc, q int) string { return fmt.Sprintf("439552247532%03d%04d", sc, q) }

// parseID returns the index encoded in id when it has the given prefix and
// the index is below n.
func parseID(id, prefix string, digits, n int) (int, bool) {
	if len(id) != len(prefix)+digits || !strings.HasPrefix(id, prefix) {
		return 0, false
	}
	i, err := strconv.Atoi(id[len(prefix):])
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// callIndex and userIndex resolve the id of a live call or user.
func (s *Server) callIndex(id string) (int, bool) {
	i, ok := parseID(id, "77823422740", 8, s.numCalls())
	return i, ok && s.callLive(i)
}

func (s *Server) userIndex(id string) (int, bool) {
	i, ok := parseID(id, "304185947520", 7, s.numUsers())
	return i, ok && s.userLive(i)
}
func workspaceIndex(id string) (int, bool) { return parseID(id, "520193847510293", 4, numWorkspaces) }
func scorecardIndex(id string) (int, bool) { return parseID(id, "684315292907544", 4, numScorecards) }
func folderIndex(id string) (int, bool)    { return parseID(id, "384315291296892", 4, numFolders) }

// mix is a cheap deterministic hash for synthetic numbers.
func mix(vals ...int) int {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range vals {
		h ^= uint64(v) + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h *= 0xbf58476d1ce4e5b9
	}
	return int(h >> 33)
}

func ptr[T any](v T) *T { return &v }

// ---- users ----

// userRecord is a Gong user (UserMetadata).
type userRecord struct {
	ID                    string         `json:"id"`
	EmailAddress          string         `json:"emailAddress"`
	Created               string         `json:"created"`
	Active                bool           `json:"active"`
	EmailAliases          []string       `json:"emailAliases"`
	TrustedEmailAddress   *string        `json:"trustedEmailAddress"`
	FirstName             string         `json:"firstName"`
	LastName              string         `json:"lastName"`
	Title                 *string        `json:"title"`
	PhoneNumber           *string        `json:"phoneNumber"`
	Extension             *string        `json:"extension"`
	PersonalMeetingURLs   []string       `json:"personalMeetingUrls"`
	Settings              map[string]any `json:"settings"`
	ManagerID             *string        `json:"managerId"`
	MeetingConsentPageURL *string        `json:"meetingConsentPageUrl"`
	SpokenLanguages       []spokenLang   `json:"spokenLanguages"`
}

type spokenLang struct {
	Language string `json:"language"`
	Primary  bool   `json:"primary"`
}

func userNames(i int) (first, last string) {
	return firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)]
}

func userEmail(i int) string {
	f, l := userNames(i)
	return fmt.Sprintf("%s.%s.%d@example.com", strings.ToLower(f), strings.ToLower(l), i)
}

// manager returns the index of user i's manager, or -1 for user 0.
func manager(i int) int {
	if i == 0 {
		return -1
	}
	return (i - 1) / reportsPerMgr
}

// reports returns the indices of user m's direct reports.
func (s *Server) reports(m int) []int {
	var out []int
	for i := m*reportsPerMgr + 1; i <= m*reportsPerMgr+reportsPerMgr && i < s.cfg.users; i++ {
		out = append(out, i)
	}
	return out
}

func (s *Server) userTitle(i int) string {
	switch {
	case i == 0:
		return "VP Sales"
	case len(s.reports(i)) > 0:
		return "Sales Manager"
	case i%3 == 0:
		return "Sales Development Rep"
	}
	return "Account Executive"
}

func (s *Server) user(i int) userRecord {
	first, last := userNames(i)
	email := userEmail(i)
	u := userRecord{
		ID:           userID(i),
		EmailAddress: email,
		Created:      isoTime(userBase.Add(time.Duration(i) * 3 * time.Hour)),
		Active:       i%11 != 10,
		EmailAliases: []string{},
		FirstName:    first,
		LastName:     last,
		Title:        ptr(s.userTitle(i)),
		PersonalMeetingURLs: []string{
			fmt.Sprintf("https://meet.example.com/%s-%s-%d", strings.ToLower(first), strings.ToLower(last), i),
		},
		Settings: map[string]any{
			"webConferencesRecorded":        true,
			"preventWebConferenceRecording": false,
			"telephonyCallsImported":        i%2 == 1,
			"emailsImported":                i%4 != 3,
			"preventEmailImport":            false,
			"nonRecordedMeetingsImported":   true,
			"gongConnectEnabled":            i%5 == 0,
		},
		MeetingConsentPageURL: ptr(fmt.Sprintf("https://join.gong.io/example-co/%s.%s.%d?tkn=PLACEHOLDER%d",
			strings.ToLower(first), strings.ToLower(last), i, i)),
		SpokenLanguages: []spokenLang{{Language: "en-US", Primary: true}},
	}
	if i%3 == 0 {
		u.EmailAliases = append(u.EmailAliases, fmt.Sprintf("%s%d@example.org", strings.ToLower(first), i))
	}
	if i%4 != 2 {
		u.TrustedEmailAddress = ptr(email)
	}
	if i%2 == 0 {
		u.PhoneNumber = ptr(fmt.Sprintf("+1 555-01%02d-%04d", i%100, i%10000))
	}
	if i%6 == 0 {
		u.Extension = ptr(strconv.Itoa(100 + i%900))
	}
	if m := manager(i); m >= 0 {
		u.ManagerID = ptr(userID(m))
	}
	if i%7 == 3 {
		u.SpokenLanguages = append(u.SpokenLanguages, spokenLang{Language: "es-ES"})
	}
	s.patchUser(i, &u)
	return u
}

// ---- calls ----

// callRecord is Gong's basic call data (CallBasicData).
type callRecord struct {
	ID              string  `json:"id"`
	URL             string  `json:"url"`
	Title           string  `json:"title"`
	Scheduled       string  `json:"scheduled"`
	Started         string  `json:"started"`
	Duration        int     `json:"duration"`
	PrimaryUserID   string  `json:"primaryUserId"`
	Direction       string  `json:"direction"`
	System          string  `json:"system"`
	Scope           string  `json:"scope"`
	Media           string  `json:"media"`
	Language        string  `json:"language"`
	WorkspaceID     string  `json:"workspaceId"`
	SDRDisposition  *string `json:"sdrDisposition"`
	ClientUniqueID  *string `json:"clientUniqueId"`
	CustomData      *string `json:"customData"`
	Purpose         *string `json:"purpose"`
	MeetingURL      string  `json:"meetingUrl"`
	IsPrivate       bool    `json:"isPrivate"`
	CalendarEventID *string `json:"calendarEventId"`
}

// callStart is when call i started: strictly increasing in i.
func callStart(i int) time.Time {
	return callBase.Add(time.Duration(i)*time.Hour + time.Duration(i%5)*time.Minute)
}

func callIsVideo(i int) bool    { return i%5 != 2 }
func callHost(i, users int) int { return i % users }
func callWorkspace(i int) int   { return i % numWorkspaces }
func callDuration(i int) int    { return 300 + (i*7919)%3300 }

func (s *Server) call(i int) callRecord {
	c := callRecord{
		ID:            callID(i),
		URL:           "https://app.gong.io/call?id=" + callID(i),
		Title:         fmt.Sprintf("Call %d with Account %d", i, mix(i)%500),
		Scheduled:     isoTime(callBase.Add(time.Duration(i) * time.Hour)),
		Started:       isoTime(callStart(i)),
		Duration:      callDuration(i),
		PrimaryUserID: userID(callHost(i, s.cfg.users)),
		Scope:         "External",
		Language:      "eng",
		WorkspaceID:   workspaceID(callWorkspace(i)),
		IsPrivate:     i%23 == 22,
	}
	if i%7 == 6 {
		c.Scope = "Internal"
	}
	if callIsVideo(i) {
		c.Media = "Video"
		c.Direction = "Conference"
		c.System = []string{"Zoom", "Google Meet", "Microsoft Teams"}[i%3]
		c.MeetingURL = fmt.Sprintf("https://meet.example.com/j/%d", 900000000+i)
		c.CalendarEventID = ptr(fmt.Sprintf("evt-%d@calendar.example.com", i))
	} else {
		c.Media = "Audio"
		c.Direction = []string{"Outbound", "Inbound"}[i%2]
		c.System = "Outreach"
		c.SDRDisposition = ptr([]string{"Connected", "Left voicemail", "Got the gatekeeper"}[i%3])
		c.ClientUniqueID = ptr(fmt.Sprintf("CUID-%08d", i))
	}
	if i%4 == 0 {
		c.Purpose = ptr("Discovery")
	}
	if i%9 == 4 {
		c.CustomData = ptr(fmt.Sprintf("batch-%d", i/9))
	}
	s.patchCall(i, &c)
	return c
}

func speakerID(i, p int) string { return fmt.Sprintf("64323456%07d%04d", i%10000000, p) }
func partyID(i, p int) string   { return fmt.Sprintf("56825452%07d%04d", i%10000000, p) }

// ---- workspaces ----

type workspaceRecord struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspaceId"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

var workspaceNames = [numWorkspaces][2]string{
	{"North America Sales", "Field and inside sales, NA"},
	{"EMEA Sales", "Sales teams in Europe"},
	{"Customer Success", "Renewals and onboarding"},
}

func workspace(w int) workspaceRecord {
	return workspaceRecord{ID: workspaceID(w), WorkspaceID: workspaceID(w), Name: workspaceNames[w][0], Description: workspaceNames[w][1]}
}

// ---- settings ----

var scorecardNames = [numScorecards]string{"SDR Call Scorecard", "Demo Quality", "Discovery Excellence", "Renewal Review"}

func scorecardWorkspace(k int) int { return k % numWorkspaces }

func (s *Server) scorecard(k int) map[string]any {
	updated := setBase.Add(time.Duration(k*41) * 24 * time.Hour)
	qs := make([]map[string]any, 0, 3)
	for q := range 3 {
		question := map[string]any{
			"questionId":         questionID(k, q),
			"questionRevisionId": questionID(k, 100+q),
			"questionText":       []string{"How would you rate the overall call?", "Which next step was agreed?", "Did the rep confirm the budget?"}[q],
			"questionType":       []string{"RANGE", "SINGLE_SELECT", "YES_NO"}[q],
			"isRequired":         q != 2,
			"isOverall":          q == 0,
			"updaterUserId":      userID(0),
			"answerGuide":        nil,
			"minRange":           nil,
			"maxRange":           nil,
			"created":            isoTime(setBase),
			"updated":            isoTime(updated),
			"answerOptions":      []map[string]any{},
		}
		switch q {
		case 0:
			question["minRange"], question["maxRange"] = 1, 5
		case 1:
			question["answerGuide"] = "Listen to the last five minutes"
			question["answerOptions"] = []map[string]any{{"id": 1, "text": "Demo booked"}, {"id": 2, "text": "Proposal requested"}, {"id": 3, "text": "None"}}
		}
		qs = append(qs, question)
	}
	return map[string]any{
		"scorecardId":   scorecardID(k),
		"scorecardName": scorecardNames[k],
		"workspaceId":   workspaceID(scorecardWorkspace(k)),
		"enabled":       k != 3,
		"updaterUserId": userID(0),
		"created":       isoTime(setBase),
		"updated":       isoTime(updated),
		"reviewMethod":  "MANUAL",
		"questions":     qs,
	}
}

var trackerNames = [numTrackers]string{"Competitors", "Pricing", "Next Steps", "Security Review", "Budget", "Timeline"}

func trackerWorkspace(k int) int { return k % numWorkspaces }

func tracker(k int) map[string]any {
	t := map[string]any{
		"trackerId":   trackerID(k),
		"trackerName": trackerNames[k],
		"workspaceId": workspaceID(trackerWorkspace(k)),
		"languageKeywords": []map[string]any{{
			"language": "eng", "keywords": []string{strings.ToLower(trackerNames[k]), "keyword " + strconv.Itoa(k)}, "includeRelatedForms": k%2 == 0,
		}},
		"affiliation":     []string{"NonCompany", "Anyone", "Company"}[k%3],
		"partOfQuestion":  k%4 == 1,
		"saidAt":          "Anytime",
		"saidAtInterval":  nil,
		"saidAtUnit":      nil,
		"saidInTopics":    []string{},
		"saidInCallParts": []string{},
		"filterQuery":     "",
		"created":         isoTime(setBase.Add(time.Duration(k) * 24 * time.Hour)),
		"creatorUserId":   nil,
		"updated":         isoTime(setBase.Add(time.Duration(k*10) * 24 * time.Hour)),
		"updaterUserId":   nil,
	}
	if k%3 == 1 {
		t["saidAt"], t["saidAtInterval"], t["saidAtUnit"] = "First", 10, "minutes"
		t["saidInTopics"] = []string{"Pricing"}
	}
	if k%2 == 0 {
		t["creatorUserId"], t["updaterUserId"] = userID(0), userID(0)
		t["filterQuery"] = `{"type":"And","filters":[{"type":"CallDirection","direction":"Outbound"}]}`
	}
	return t
}

// ---- library ----

var folderNames = [foldersPerWS]string{"Sales Onboarding", "Great Discovery Calls", "Objection Handling", "Demo Best Practices"}

func folderWorkspace(f int) int { return f / foldersPerWS }

func folder(f int) map[string]any {
	var parent, createdBy any
	if f%foldersPerWS != 0 {
		parent = folderID(f - f%foldersPerWS)
	}
	if f%3 != 2 {
		createdBy = userID(0)
	}
	return map[string]any{
		"id":             folderID(f),
		"name":           folderNames[f%foldersPerWS],
		"parentFolderId": parent,
		"createdBy":      createdBy,
		"updated":        isoTime(setBase.Add(time.Duration(f*5) * 24 * time.Hour)),
	}
}

// folderCalls returns the indices of the calls saved in folder f.
func (s *Server) folderCalls(f int) []int {
	if s.cfg.calls == 0 {
		return nil
	}
	n := min(3+f%3, s.cfg.calls)
	out := make([]int, 0, n)
	seen := map[int]bool{}
	for k := 0; len(out) < n && k < 4*n; k++ {
		i := (f*37 + k*11) % s.cfg.calls
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

func (s *Server) folderCall(f, k, i int) map[string]any {
	c := s.call(i)
	// Gong's LibraryCall: id, title, note, addedBy, created, url, snippet
	// (not the catalogue's callId, started, duration, primaryUserId).
	item := map[string]any{
		"id":      c.ID,
		"title":   c.Title,
		"url":     c.URL,
		"addedBy": userID(0),
		"created": isoTime(callStart(i).Add(48 * time.Hour)),
	}
	if k%2 == 0 {
		item["note"] = fmt.Sprintf("Example %d of %s", k+1, folderNames[f%foldersPerWS])
	}
	if k%3 == 1 {
		from := 60 * (1 + k)
		item["snippet"] = map[string]any{"fromSec": from, "toSec": from + 120}
		item["url"] = fmt.Sprintf("%s&highlights=%%5B%%7B%%22from%%22%%3A%d%%2C%%22to%%22%%3A%d%%7D%%5D", c.URL, from, from+120)
	}
	return item
}
