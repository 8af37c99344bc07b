package gongtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// fail answers an input error: a badRequest becomes a 400 with its message.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var br badRequest
	if errors.As(err, &br) {
		s.writeError(w, http.StatusBadRequest, string(br))
		return
	}
	s.writeError(w, http.StatusBadRequest, "Malformed request")
}

func parseDateTime(name, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return t, badRequest(fmt.Sprintf("Invalid %s: '%s' is not an ISO-8601 date-time", name, v))
	}
	return t, nil
}

func parseDate(name, v string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return t, badRequest(fmt.Sprintf("Invalid %s: '%s' is not a date in the format YYYY-MM-DD", name, v))
	}
	return t, nil
}

// ---- users ----

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if v := q.Get("includeAvatars"); v != "" && v != "true" && v != "false" {
		s.writeError(w, http.StatusBadRequest, "Invalid includeAvatars: '"+v+"' is not a boolean")
		return
	}
	total, at := s.cfg.users, func(k int) int { return k }
	if live := s.liveUsers(); live != nil {
		total, at = len(live), func(k int) int { return live[k] }
	}
	s.servePage(w, list{
		key:    "users",
		total:  total,
		item:   func(k int) any { return s.user(at(k)) },
		fp:     queryFingerprint(r),
		cursor: q.Get("cursor"),
	})
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	i, ok := s.userIndex(r.PathValue("id"))
	if !ok {
		s.writeError(w, http.StatusNotFound, "User not found")
		return
	}
	fakeserver.WriteJSON(w, http.StatusOK, object(kv{"requestId", s.requestID()}, kv{"user", s.user(i)}))
}

// ---- calls ----

// callFilter holds the call filter shared by GET /v2/calls,
// /v2/calls/extensive and /v2/calls/transcript.
type callFilter struct {
	from, to       string
	workspaceID    string
	callIDs        []string
	hasCallIDs     bool
	primaryUserIDs []string
	hasUsers       bool
}

func (s *Server) callSelection(f callFilter) (selection, error) {
	lo, hi := 0, s.numCalls()
	var from, to time.Time
	if f.from != "" {
		t, err := parseDateTime("fromDateTime", f.from)
		if err != nil {
			return selection{}, err
		}
		from, lo = t, s.firstCallAtOrAfter(t)
	}
	if f.to != "" {
		t, err := parseDateTime("toDateTime", f.to)
		if err != nil {
			return selection{}, err
		}
		to, hi = t, s.firstCallAtOrAfter(t)
	}
	if f.from != "" && f.to != "" && !from.Before(to) {
		return selection{}, badRequest("fromDateTime must be before toDateTime")
	}
	var cons []constraint
	if f.workspaceID != "" {
		ws, ok := workspaceIndex(f.workspaceID)
		if !ok {
			return selection{isList: true}, nil
		}
		cons = append(cons, constraint{numWorkspaces, func(r int) bool { return r == ws }})
	}
	if f.hasUsers {
		hosts := map[int]bool{}
		for _, id := range f.primaryUserIDs {
			if u, ok := s.userIndex(id); ok {
				hosts[u] = true
			}
		}
		cons = append(cons, constraint{s.cfg.users, func(r int) bool { return hosts[r] }})
	}
	var ids []int
	if f.hasCallIDs {
		ids = []int{}
		for _, id := range f.callIDs {
			if i, ok := s.callIndex(id); ok {
				ids = append(ids, i)
			}
		}
	} else if s.callsDeleted() {
		ids = []int{}
		for i := lo; i < hi; i++ {
			if s.callLive(i) {
				ids = append(ids, i)
			}
		}
	}
	return newSelection(lo, hi, cons, ids), nil
}

func (s *Server) listCalls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sel, err := s.callSelection(callFilter{from: q.Get("fromDateTime"), to: q.Get("toDateTime"), workspaceID: q.Get("workspaceId")})
	if err != nil {
		s.fail(w, err)
		return
	}
	s.servePage(w, list{
		key:    "calls",
		total:  sel.count(),
		item:   func(k int) any { return s.call(sel.at(k)) },
		fp:     queryFingerprint(r),
		cursor: q.Get("cursor"),
		empty:  NoCallsFound,
	})
}

func (s *Server) getCall(w http.ResponseWriter, r *http.Request) {
	i, ok := s.callIndex(r.PathValue("id"))
	if !ok {
		s.writeError(w, http.StatusNotFound, "Call not found")
		return
	}
	fakeserver.WriteJSON(w, http.StatusOK, object(kv{"requestId", s.requestID()}, kv{"call", s.call(i)}))
}

// readCallFilter reads the required "filter" object of a POST call endpoint.
func (s *Server) readCallFilter(body map[string]any, withUsers bool) (callFilter, error) {
	var f callFilter
	filter, err := objField(body, "", "filter")
	if err != nil {
		return f, err
	}
	if filter == nil {
		return f, badRequest("filter is required")
	}
	if f.from, err = strField(filter, "filter.", "fromDateTime"); err != nil {
		return f, err
	}
	if f.to, err = strField(filter, "filter.", "toDateTime"); err != nil {
		return f, err
	}
	if f.workspaceID, err = strField(filter, "filter.", "workspaceId"); err != nil {
		return f, err
	}
	if f.callIDs, f.hasCallIDs, err = strList(filter, "filter.", "callIds"); err != nil {
		return f, err
	}
	if withUsers {
		if f.primaryUserIDs, f.hasUsers, err = strList(filter, "filter.", "primaryUserIds"); err != nil {
			return f, err
		}
	}
	return f, nil
}

func (s *Server) listCallsExtensive(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	f, err := s.readCallFilter(body, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	cs, err := readSelector(body)
	if err != nil {
		s.fail(w, err)
		return
	}
	cursor, err := strField(body, "", "cursor")
	if err != nil {
		s.fail(w, err)
		return
	}
	sel, err := s.callSelection(f)
	if err != nil {
		s.fail(w, err)
		return
	}
	stamp := s.cfg.now()
	s.servePage(w, list{
		key:    "calls",
		total:  sel.count(),
		item:   func(k int) any { return s.extensiveCall(sel.at(k), cs, stamp) },
		fp:     bodyFingerprint(r, body),
		cursor: cursor,
		empty:  NoCallsFound,
	})
}

func (s *Server) listTranscripts(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	f, err := s.readCallFilter(body, false)
	if err != nil {
		s.fail(w, err)
		return
	}
	cursor, err := strField(body, "", "cursor")
	if err != nil {
		s.fail(w, err)
		return
	}
	sel, err := s.callSelection(f)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.servePage(w, list{
		key:    "callTranscripts",
		total:  sel.count(),
		item:   func(k int) any { return s.transcript(sel.at(k)) },
		fp:     bodyFingerprint(r, body),
		cursor: cursor,
		empty:  NoCallsFound,
	})
}

func (s *Server) transcript(i int) map[string]any {
	lines := [][2]string{
		{"Call Setup", "Thanks for joining today."},
		{"Call Setup", "Shall we start with a quick agenda?"},
		{"Pricing", "Could you walk us through the pricing tiers?"},
		{"Pricing", "Sure, there are three plans."},
		{"Next Steps", "I will send a proposal by Friday."},
		{"Next Steps", "Great, talk to you next week."},
	}
	mono := make([]map[string]any, 0, 3)
	start := 1200 + (i%7)*100
	for m := range 3 {
		sentences := make([]map[string]any, 0, 2)
		for k := range 2 {
			text := lines[2*m+k][1]
			end := start + 500*len(strings.Fields(text))
			sentences = append(sentences, map[string]any{"start": start, "end": end, "text": text})
			start = end + 250
		}
		mono = append(mono, map[string]any{
			"speakerId": speakerID(i, 1+m%2),
			"topic":     lines[2*m][0],
			"sentences": sentences,
		})
	}
	return map[string]any{"callId": callID(i), "transcript": mono}
}

// ---- extensive call data ----

// selector is the contentSelector of /v2/calls/extensive.
type selector struct {
	context        string
	timing         []string
	parties        bool
	content        map[string]bool
	interaction    map[string]bool
	publicComments bool
	media          bool
}

var (
	contentFields     = []string{"structure", "topics", "trackers", "trackerOccurrences", "pointsOfInterest", "brief", "outline", "highlights", "callOutcome", "keyPoints"}
	interactionFields = []string{"speakers", "video", "personInteractionStats", "questions"}
)

func readSelector(body map[string]any) (selector, error) {
	cs := selector{content: map[string]bool{}, interaction: map[string]bool{}}
	sel, err := objField(body, "", "contentSelector")
	if err != nil || sel == nil {
		return cs, err
	}
	if cs.context, err = strField(sel, "contentSelector.", "context"); err != nil {
		return cs, err
	}
	switch cs.context {
	case "", "None", "Basic", "Extended":
	default:
		return cs, badRequest("contentSelector.context must be one of None, Basic, Extended")
	}
	if cs.timing, _, err = strList(sel, "contentSelector.", "contextTiming"); err != nil {
		return cs, err
	}
	for _, t := range cs.timing {
		if t != "Now" && t != "TimeOfCall" {
			return cs, badRequest("contentSelector.contextTiming values must be Now or TimeOfCall")
		}
	}
	ef, err := objField(sel, "contentSelector.", "exposedFields")
	if err != nil || ef == nil {
		return cs, err
	}
	const p = "contentSelector.exposedFields."
	if cs.parties, err = boolField(ef, p, "parties"); err != nil {
		return cs, err
	}
	if cs.media, err = boolField(ef, p, "media"); err != nil {
		return cs, err
	}
	groups := []struct {
		name   string
		fields []string
		into   map[string]bool
	}{{"content", contentFields, cs.content}, {"interaction", interactionFields, cs.interaction}}
	for _, g := range groups {
		o, err := objField(ef, p, g.name)
		if err != nil {
			return cs, err
		}
		for _, f := range g.fields {
			if o == nil {
				break
			}
			if g.into[f], err = boolField(o, p+g.name+".", f); err != nil {
				return cs, err
			}
		}
	}
	coll, err := objField(ef, p, "collaboration")
	if err != nil {
		return cs, err
	}
	if coll != nil {
		if cs.publicComments, err = boolField(coll, p+"collaboration.", "publicComments"); err != nil {
			return cs, err
		}
	}
	return cs, nil
}

func anyTrue(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

// extensiveCall builds one item of /v2/calls/extensive with the parts the
// selector asks for; metaData is always there.
func (s *Server) extensiveCall(i int, cs selector, stamp time.Time) json.RawMessage {
	c := s.call(i)
	host := callHost(i, s.cfg.users)
	members := []kv{{"metaData", c}}
	if cs.context == "Basic" || cs.context == "Extended" {
		timing := cs.timing
		if len(timing) == 0 {
			timing = []string{"Now"}
		}
		ctx := make([]map[string]any, 0, len(timing))
		for _, t := range timing {
			obj := map[string]any{"objectType": "Opportunity", "objectId": fmt.Sprintf("006FAKE%011d", i), "timing": t}
			if cs.context == "Extended" {
				obj["fields"] = []map[string]any{
					{"name": "StageName", "value": []string{"Discovery", "Demo", "Negotiation"}[i%3]},
					{"name": "Amount", "value": 5000 + (mix(i) % 95000)},
				}
			}
			ctx = append(ctx, map[string]any{"system": "Salesforce", "objects": []map[string]any{obj}})
		}
		members = append(members, kv{"context", ctx})
	}
	if cs.parties {
		members = append(members, kv{"parties", s.parties(i, host)})
	}
	if anyTrue(cs.content) {
		members = append(members, kv{"content", s.content(i, cs)})
	}
	if anyTrue(cs.interaction) {
		members = append(members, kv{"interaction", s.interaction(i, host, cs)})
	}
	if cs.publicComments {
		members = append(members, kv{"collaboration", map[string]any{"publicComments": []map[string]any{{
			"id":              fmt.Sprintf("68431529%011d", i),
			"audioStartTime":  float64(60 + i%600),
			"audioEndTime":    float64(72 + i%600),
			"commenterUserId": userID(max(manager(host), 0)),
			"comment":         "Good discovery question here.",
			"posted":          isoTime(callStart(i).Add(20 * time.Hour)),
			"inReplyTo":       nil,
			"duringCall":      false,
		}}}})
	}
	if cs.media {
		m := map[string]string{"audioUrl": s.mediaURL(i, false, stamp)}
		if callIsVideo(i) {
			m["videoUrl"] = s.mediaURL(i, true, stamp)
		}
		members = append(members, kv{"media", m})
	}
	return object(members...)
}

func (s *Server) parties(i, host int) []map[string]any {
	first, last := userNames(host)
	ps := []map[string]any{{
		"id": partyID(i, 1), "emailAddress": userEmail(host), "name": first + " " + last, "title": s.userTitle(host),
		"userId": userID(host), "speakerId": speakerID(i, 1), "context": []any{}, "affiliation": "Internal",
		"phoneNumber": nil, "methods": []string{"Invitee"},
	}}
	ps = append(ps, map[string]any{
		"id": partyID(i, 2), "emailAddress": fmt.Sprintf("buyer%d@customer%d.example", i%97, mix(i)%500), "name": "Buyer Person",
		"title": "Director of Operations", "speakerId": speakerID(i, 2),
		"context": []map[string]any{{"system": "Salesforce", "objects": []map[string]any{{
			"objectType": "Contact", "objectId": fmt.Sprintf("003FAKE%011d", i), "fields": []any{}, "timing": "Now",
		}}}},
		"affiliation": "External", "phoneNumber": "+1 555-0199-0000", "methods": []string{"Invitee", "Attendee"},
	})
	if i%2 == 0 && s.cfg.users > 1 {
		o := (host + 1) % s.cfg.users
		f, l := userNames(o)
		ps = append(ps, map[string]any{
			"id": partyID(i, 3), "emailAddress": userEmail(o), "name": f + " " + l, "title": s.userTitle(o),
			"userId": userID(o), "context": []any{}, "affiliation": "Internal", "phoneNumber": nil, "methods": []string{"Attendee"},
		})
	}
	return ps
}

func (s *Server) content(i int, cs selector) map[string]any {
	out := map[string]any{}
	d := callDuration(i)
	if cs.content["structure"] {
		out["structure"] = []map[string]any{{"name": "Meeting Setup", "duration": 60 + i%60}, {"name": "Discovery", "duration": d / 2}}
	}
	if cs.content["topics"] {
		out["topics"] = []map[string]any{{"name": "Pricing", "duration": d / 5}, {"name": "Next Steps", "duration": d / 10}}
	}
	if cs.content["trackers"] {
		k := i % numTrackers
		t := map[string]any{"id": trackerID(k), "name": trackerNames[k], "count": 1 + i%4, "type": "KEYWORD",
			"phrases": []map[string]any{{"phrase": strings.ToLower(trackerNames[k]), "count": 1 + i%4}}}
		if cs.content["trackerOccurrences"] {
			occ := []map[string]any{{"startTime": float64(d / 3), "speakerId": speakerID(i, 2)}}
			t["occurrences"] = occ
			t["phrases"].([]map[string]any)[0]["occurrences"] = occ
		}
		out["trackers"] = []map[string]any{t}
	}
	if cs.content["pointsOfInterest"] {
		out["pointsOfInterest"] = map[string]any{"actionItems": []map[string]any{{
			"snippetStartTime": float64(d - 120), "snippetEndTime": float64(d - 108), "speakerID": speakerID(i, 1),
			"snippet": "I will send the proposal by Friday.",
		}}}
	}
	if cs.content["brief"] {
		out["brief"] = "The customer evaluated the product and asked for a pricing proposal."
	}
	if cs.content["outline"] {
		out["outline"] = []map[string]any{{"section": "Introduction", "startTime": 0.0, "duration": 120.0,
			"items": []map[string]any{{"text": "Agenda and introductions", "startTime": 15.0}}}}
	}
	if cs.content["highlights"] {
		out["highlights"] = []map[string]any{{"title": "Next steps",
			"items": []map[string]any{{"text": "Send the pricing proposal by Friday.", "startTimes": []float64{float64(d - 120)}}}}}
	}
	if cs.content["callOutcome"] {
		out["callOutcome"] = map[string]any{"id": "MEETING_BOOKED", "category": "Answered", "name": "Meeting booked"}
	}
	if cs.content["keyPoints"] {
		out["keyPoints"] = []map[string]any{{"text": "Budget is approved for this quarter."}}
	}
	return out
}

func (s *Server) interaction(i, host int, cs selector) map[string]any {
	out := map[string]any{}
	d := float64(callDuration(i))
	if cs.interaction["speakers"] {
		out["speakers"] = []map[string]any{
			{"id": partyID(i, 1), "userId": userID(host), "talkTime": d * 0.55},
			{"id": partyID(i, 2), "talkTime": d * 0.4},
		}
	}
	if cs.interaction["personInteractionStats"] {
		out["interactionStats"] = []map[string]any{
			{"name": "Talk Ratio", "value": 0.55}, {"name": "Longest Monologue", "value": 60 + i%120},
			{"name": "Interactivity", "value": float64(mix(i)%100) / 10}, {"name": "Patience", "value": 0.8},
		}
	}
	if cs.interaction["video"] && callIsVideo(i) {
		out["video"] = []map[string]any{{"name": "Presentation", "duration": d / 3}, {"name": "WebcamPrimaryUser", "duration": d / 2}}
	}
	if cs.interaction["questions"] {
		out["questions"] = map[string]any{"companyCount": 3 + i%7, "nonCompanyCount": 1 + i%5}
	}
	return out
}
