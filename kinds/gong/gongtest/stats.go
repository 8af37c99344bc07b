package gongtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Activity statistics, answered scorecards and coaching metrics.

// statsFilter is the filter of the /v2/stats/activity/* and /v2/stats/interaction endpoints.
type statsFilter struct {
	from, to time.Time
	users    selection
	byID     bool
}

func (s *Server) readStatsFilter(body map[string]any) (statsFilter, error) {
	var f statsFilter
	filter, err := objField(body, "", "filter")
	if err != nil {
		return f, err
	}
	if filter == nil {
		return f, badRequest("filter is required")
	}
	for _, name := range []string{"fromDate", "toDate"} {
		v, err := strField(filter, "filter.", name)
		if err != nil {
			return f, err
		}
		if v == "" {
			return f, badRequest("filter." + name + " is required")
		}
		t, err := parseDate("filter."+name, v)
		if err != nil {
			return f, err
		}
		if name == "fromDate" {
			f.from = t
		} else {
			f.to = t
		}
	}
	if !f.from.Before(f.to) {
		return f, badRequest("filter.fromDate must be before filter.toDate")
	}
	ids, has, err := strList(filter, "filter.", "userIds")
	if err != nil {
		return f, err
	}
	var list []int
	if has {
		f.byID = true
		list = []int{}
		for _, id := range ids {
			if u, ok := s.userIndex(id); ok {
				list = append(list, u)
			}
		}
	}
	f.users = newSelection(0, s.cfg.users, nil, list)
	return f, nil
}

// statsRequest reads a stats request; ok is false when an answer was written.
func (s *Server) statsRequest(w http.ResponseWriter, r *http.Request) (statsFilter, map[string]any, string, bool) {
	body, ok := s.readBody(w, r)
	if !ok {
		return statsFilter{}, nil, "", false
	}
	f, err := s.readStatsFilter(body)
	if err != nil {
		s.fail(w, err)
		return f, nil, "", false
	}
	cursor, err := strField(body, "", "cursor")
	if err != nil {
		s.fail(w, err)
		return f, nil, "", false
	}
	return f, body, cursor, true
}

// hostedIn counts the calls in [a, b) hosted by user u.
func (s *Server) hostedIn(a, b, u int) int {
	below := func(x int) int {
		n := x / s.cfg.users
		if x%s.cfg.users > u {
			n++
		}
		return n
	}
	if b <= a {
		return 0
	}
	return below(b) - below(a)
}

func (s *Server) statsAggregate(w http.ResponseWriter, r *http.Request) {
	f, body, cursor, ok := s.statsRequest(w, r)
	if !ok {
		return
	}
	a, b := s.firstCallAtOrAfter(f.from), s.firstCallAtOrAfter(f.to)
	item := func(k int) any {
		u := f.users.at(k)
		hosted := s.hostedIn(a, b, u)
		h := mix(u, a, b)
		names := []string{"callsAsHost", "callsGaveFeedback", "callsRequestedFeedback", "callsReceivedFeedback",
			"ownCallsListenedTo", "othersCallsListenedTo", "callsSharedInternally", "callsSharedExternally",
			"callsScorecardsFilled", "callsScorecardsReceived", "callsAttended", "callsCommentsGiven",
			"callsCommentsReceived", "callsMarkedAsFeedbackGiven", "callsMarkedAsFeedbackReceived"}
		stats := make(map[string]int, len(names))
		for n, name := range names {
			stats[name] = (h >> (2 * n)) % 5
		}
		stats["callsAsHost"] = hosted
		stats["ownCallsListenedTo"] = min(hosted, stats["ownCallsListenedTo"])
		stats["callsScorecardsReceived"] = min(hosted, (hosted+3)/scorecardEvery)
		stats["callsAttended"] += hosted / 2
		return object(kv{"userId", userID(u)}, kv{"userEmailAddress", userEmail(u)}, kv{"userAggregateActivityStats", stats})
	}
	s.serveStats(w, r, f, body, cursor, "usersAggregateActivityStats", item, true)
}

func (s *Server) serveStats(w http.ResponseWriter, r *http.Request, f statsFilter, body map[string]any, cursor, key string, item func(int) any, period bool) {
	l := list{key: key, total: f.users.count(), item: item, fp: bodyFingerprint(r, body), cursor: cursor}
	if f.byID {
		l.empty = "User not found"
	}
	if period {
		l.extra = []kv{{"timeZone", "UTC"}, {"fromDateTime", isoTime(f.from)}, {"toDateTime", isoTime(f.to)}}
	}
	s.servePage(w, l)
}

func (s *Server) statsDayByDay(w http.ResponseWriter, r *http.Request) {
	f, body, cursor, ok := s.statsRequest(w, r)
	if !ok {
		return
	}
	item := func(k int) any {
		u := f.users.at(k)
		days := []map[string]any{}
		for d := f.from; d.Before(f.to); d = d.AddDate(0, 0, 1) {
			next := d.AddDate(0, 0, 1)
			a, b := s.firstCallAtOrAfter(d), s.firstCallAtOrAfter(next)
			lists := map[string][]string{}
			for _, n := range []string{"callsAsHost", "callsGaveFeedback", "callsRequestedFeedback", "callsReceivedFeedback",
				"ownCallsListenedTo", "othersCallsListenedTo", "callsSharedInternally", "callsSharedExternally",
				"callsAttended", "callsCommentsGiven", "callsCommentsReceived", "callsMarkedAsFeedbackGiven",
				"callsMarkedAsFeedbackReceived", "callsScorecardsFilled", "callsScorecardsReceived"} {
				lists[n] = []string{}
			}
			add := func(n string, i int) { lists[n] = append(lists[n], callID(i)) }
			for i := a; i < b; i++ {
				host := callHost(i, s.cfg.users)
				switch {
				case host == u:
					add("callsAsHost", i)
					if i%3 == 0 {
						add("ownCallsListenedTo", i)
					}
					if i%scorecardEvery == 0 {
						add("callsScorecardsReceived", i)
					}
				case mix(i, u)%9 == 0:
					add("callsAttended", i)
				case mix(i, u, 1)%13 == 0:
					add("othersCallsListenedTo", i)
				}
				if i%scorecardEvery == 0 && reviewer(host) == u {
					add("callsScorecardsFilled", i)
				}
			}
			day := map[string]any{"fromDate": isoTime(d), "toDate": isoTime(next)}
			for n, v := range lists {
				day[n] = v
			}
			days = append(days, day)
		}
		return object(kv{"userId", userID(u)}, kv{"userEmailAddress", userEmail(u)}, kv{"userDailyActivityStats", days})
	}
	s.serveStats(w, r, f, body, cursor, "usersDetailedActivities", item, false)
}

func (s *Server) statsInteraction(w http.ResponseWriter, r *http.Request) {
	f, body, cursor, ok := s.statsRequest(w, r)
	if !ok {
		return
	}
	item := func(k int) any {
		u := f.users.at(k)
		h := mix(u, int(f.from.Unix()/86400), int(f.to.Unix()/86400))
		stats := []map[string]any{
			{"name": "Longest Monologue", "value": 60 + h%240},
			{"name": "Longest Customer Story", "value": 30 + (h>>8)%200},
			{"name": "Interactivity", "value": float64((h>>4)%100) / 10},
			{"name": "Patience", "value": float64((h>>12)%150) / 100},
			{"name": "Question Rate", "value": float64((h>>16)%200) / 10},
		}
		return object(kv{"userId", userID(u)}, kv{"userEmailAddress", userEmail(u)}, kv{"personInteractionStats", stats})
	}
	s.serveStats(w, r, f, body, cursor, "peopleInteractionStats", item, true)
}

// ---- answered scorecards ----

// reviewer is the user who fills the scorecards of user u's calls: the
// manager, or the top manager for themself.
func reviewer(u int) int { return max(manager(u), 0) }

func reviewTime(j int) time.Time { return callStart(scorecardEvery * j).Add(26 * time.Hour) }

func (s *Server) answeredScorecards(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	sel, err := s.answeredSelection(body)
	if err != nil {
		s.fail(w, err)
		return
	}
	cursor, err := strField(body, "", "cursor")
	if err != nil {
		s.fail(w, err)
		return
	}
	s.servePage(w, list{
		key:    "answeredScorecards",
		total:  sel.count(),
		item:   func(k int) any { return s.answered(sel.at(k)) },
		fp:     bodyFingerprint(r, body),
		cursor: cursor,
		empty:  "No answered scorecards found corresponding to the provided filters",
	})
}

// answeredSelection reads the filter of /v2/stats/activity/scorecards:
// Gong's callFromDate/callToDate, reviewFromDate/reviewToDate (dates),
// scorecardIds and reviewedUserIds, and also fromDateTime/toDateTime (the
// call window as date-times), reviewerUserIds and callIds.
func (s *Server) answeredSelection(body map[string]any) (selection, error) {
	filter, err := objField(body, "", "filter")
	if err != nil {
		return selection{}, err
	}
	if filter == nil {
		return selection{}, badRequest("filter is required")
	}
	n := (s.cfg.calls + scorecardEvery - 1) / scorecardEvery
	lo, hi := 0, n
	// window narrows [lo, hi) to the answered scorecards whose time lies in
	// [from, to); at(j) is increasing in j.
	window := func(fromName, toName string, at func(int) time.Time, parse func(string, string) (time.Time, error)) error {
		var from, to time.Time
		for _, name := range []string{fromName, toName} {
			v, err := strField(filter, "filter.", name)
			if err != nil {
				return err
			}
			if v == "" {
				continue
			}
			t, err := parse("filter."+name, v)
			if err != nil {
				return err
			}
			if name == fromName {
				from = t
				lo = max(lo, sort.Search(n, func(j int) bool { return !at(j).Before(t) }))
			} else {
				to = t
				hi = min(hi, sort.Search(n, func(j int) bool { return !at(j).Before(t) }))
			}
		}
		if !from.IsZero() && !to.IsZero() && !from.Before(to) {
			return badRequest("filter." + fromName + " must be before filter." + toName)
		}
		return nil
	}
	callAt := func(j int) time.Time { return callStart(scorecardEvery * j) }
	if err := window("callFromDate", "callToDate", callAt, parseDate); err != nil {
		return selection{}, err
	}
	if err := window("fromDateTime", "toDateTime", callAt, parseDateTime); err != nil {
		return selection{}, err
	}
	if err := window("reviewFromDate", "reviewToDate", reviewTime, parseDate); err != nil {
		return selection{}, err
	}
	users := s.cfg.users
	var cons []constraint
	idSet := func(key string, index func(string) (int, bool)) (map[int]bool, bool, error) {
		ids, has, err := strList(filter, "filter.", key)
		if err != nil || !has {
			return nil, false, err
		}
		set := map[int]bool{}
		for _, id := range ids {
			if i, ok := index(id); ok {
				set[i] = true
			}
		}
		return set, true, nil
	}
	if set, has, err := idSet("scorecardIds", scorecardIndex); err != nil {
		return selection{}, err
	} else if has {
		cons = append(cons, constraint{numScorecards, func(r int) bool { return set[r] }})
	}
	if set, has, err := idSet("reviewedUserIds", s.userIndex); err != nil {
		return selection{}, err
	} else if has {
		cons = append(cons, constraint{users, func(r int) bool { return set[callHost(scorecardEvery*r, users)] }})
	}
	if set, has, err := idSet("reviewerUserIds", s.userIndex); err != nil {
		return selection{}, err
	} else if has {
		cons = append(cons, constraint{users, func(r int) bool { return set[reviewer(callHost(scorecardEvery*r, users))] }})
	}
	var list []int
	if set, has, err := idSet("callIds", s.callIndex); err != nil {
		return selection{}, err
	} else if has {
		list = []int{}
		for i := range set {
			if i%scorecardEvery == 0 {
				list = append(list, i/scorecardEvery)
			}
		}
	}
	return newSelection(lo, hi, cons, list), nil
}

func (s *Server) answered(j int) json.RawMessage {
	i := scorecardEvery * j
	k := j % numScorecards
	host := callHost(i, s.cfg.users)
	rev := reviewer(host)
	vis := []string{"PUBLIC", "PRIVATE", "OPT_IN_USERS"}[j%3]
	score := 1 + mix(j)%5
	var editor any
	if j%5 == 0 {
		editor = userID(rev)
	}
	answers := []map[string]any{
		{"questionId": questionID(k, 0), "questionRevisionId": questionID(k, 100), "isOverall": true, "answer": fmt.Sprint(score),
			"answerText": nil, "score": score, "notApplicable": false, "selectedOptions": nil},
		{"questionId": questionID(k, 1), "questionRevisionId": questionID(k, 101), "isOverall": false, "answer": "Demo booked",
			"answerText": nil, "score": nil, "notApplicable": false, "selectedOptions": []string{"1"}},
		{"questionId": questionID(k, 2), "questionRevisionId": questionID(k, 102), "isOverall": false, "answer": "Yes",
			"answerText": "Budget confirmed with the buyer.", "score": nil, "notApplicable": j%7 == 0, "selectedOptions": nil},
	}
	rt := isoTime(reviewTime(j))
	return object(
		kv{"answeredScorecardId", answeredID(j)},
		kv{"scorecardId", scorecardID(k)},
		kv{"scorecardName", scorecardNames[k]},
		kv{"callId", callID(i)},
		kv{"callStartTime", isoTime(callStart(i))},
		kv{"reviewedUserId", userID(host)},
		kv{"reviewerUserId", userID(rev)},
		kv{"reviewMethod", "MANUAL"},
		kv{"editorUserId", editor},
		kv{"answeredDateTime", rt},
		kv{"reviewTime", rt},
		kv{"visibilityType", vis},
		kv{"answers", answers},
		kv{"overallScore", float64(score)},
		kv{"visibility", strings.ToLower(vis)},
	)
}

// ---- coaching ----

func (s *Server) coaching(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for _, p := range []string{"workspace-id", "manager-id", "from", "to"} {
		if q.Get(p) == "" {
			s.writeError(w, http.StatusBadRequest, "Required parameter '"+p+"' is not present")
			return
		}
	}
	ws, ok := workspaceIndex(q.Get("workspace-id"))
	if !ok {
		s.writeError(w, http.StatusBadRequest, "Invalid workspace-id")
		return
	}
	m, ok := s.userIndex(q.Get("manager-id"))
	if !ok {
		s.writeError(w, http.StatusBadRequest, "Invalid manager-id")
		return
	}
	from, err := parseDateTime("from", q.Get("from"))
	if err != nil {
		s.fail(w, err)
		return
	}
	to, err := parseDateTime("to", q.Get("to"))
	if err != nil {
		s.fail(w, err)
		return
	}
	if !from.Before(to) {
		s.writeError(w, http.StatusBadRequest, "from must be before to")
		return
	}
	a, b := s.firstCallAtOrAfter(from), s.firstCallAtOrAfter(to)
	managers := []int{m}
	for _, rep := range s.reports(m) {
		if len(s.reports(rep)) > 0 {
			managers = append(managers, rep)
		}
	}
	out := make([]json.RawMessage, 0, len(managers))
	for _, x := range managers {
		out = append(out, s.coachingItem(x, ws, a, b))
	}
	s.serveAll(w, "coachingData", out)
}

func (s *Server) coachingUser(u int) map[string]any {
	f, l := userNames(u)
	return map[string]any{"id": userID(u), "emailAddress": userEmail(u), "firstName": f, "lastName": l, "title": s.userTitle(u)}
}

// coachingItem is one manager's coaching data as Gong documents it
// (CoachingMetricsData): the manager and the metrics of each direct report.
// The catalogue's per-user fields (userId, coachingMetrics, ...) are not
// part of Gong's answer.
func (s *Server) coachingItem(m, ws, a, b int) json.RawMessage {
	names := []string{"callsListened", "callsAttended", "callsWithFeedback", "callsWithComments", "scorecardsFilled"}
	reps := []map[string]any{}
	for _, rep := range s.reports(m) {
		sel := newSelection(a, b, []constraint{
			{numWorkspaces, func(r int) bool { return r == ws }},
			{s.cfg.users, func(r int) bool { return r == rep }},
		}, nil)
		metrics := map[string][]string{}
		for _, n := range names {
			metrics[n] = []string{}
		}
		for k := 0; k < min(sel.count(), 10); k++ {
			i := sel.at(k)
			for n, name := range names {
				if mix(i, m, n)%(n+2) == 0 || (name == "scorecardsFilled" && i%scorecardEvery == 0) {
					metrics[name] = append(metrics[name], callID(i))
				}
			}
		}
		reps = append(reps, map[string]any{"report": s.coachingUser(rep), "metrics": metrics})
	}
	return object(kv{"manager", s.coachingUser(m)}, kv{"directReportsMetrics", reps})
}
