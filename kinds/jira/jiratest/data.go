package jiratest

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// issue is an issue as the fake keeps it; rendered by issueJSON.
type issue struct {
	ID, Project, Num       int
	Summary                string
	Status, Priority, Type int
	Assignee, Reporter     int // user index; -1: none
	Labels                 []string
	Created, Updated       time.Time
	Attachment             bool
	TimeSpent              int64
	Comments, Worklogs     []string // ids, in creation order
	StoryPoints            float64
	ResolvedAt             time.Time
}

type comment struct {
	ID, Issue, Author int
	Body              string
	Created, Updated  time.Time
}

type worklog struct {
	ID, Issue, Author int
	Started           time.Time
	Seconds           int64
	Comment           string
	Created, Updated  time.Time
}

var (
	projectKeys = []string{"ENG", "OPS", "WEB", "MOB", "DAT"}
	statuses    = []map[string]any{
		status("10000", "To Do", 2, "new", "To Do", "blue-gray"),
		status("3", "In Progress", 4, "indeterminate", "In Progress", "yellow"),
		status("10001", "Done", 3, "done", "Done", "green"),
	}
	priorityNames = []string{"Highest", "High", "Medium", "Low", "Lowest"}
	typeNames     = []string{"Task", "Bug", "Story", "Epic"}
)

func status(id, name string, cat int, key, catName, color string) map[string]any {
	return map[string]any{"id": id, "name": name, "description": "", "iconUrl": "https://acme.atlassian.net/images/icons/statuses/generic.png",
		"self":           "https://acme.atlassian.net/rest/api/3/status/" + id,
		"statusCategory": map[string]any{"id": cat, "key": key, "name": catName, "colorName": color, "self": "https://acme.atlassian.net/rest/api/3/statuscategory/" + strconv.Itoa(cat)}}
}

// generate makes the deterministic data: issue i a pure function of i,
// its dates spread over the time before the clock's start.
func (s *Server) generate() {
	base := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	step := 37 * time.Minute
	if n := s.cfg.issues; n > 0 && time.Duration(n)*step > 300*24*time.Hour {
		step = 300 * 24 * time.Hour / time.Duration(n)
	}
	nums := make([]int, s.cfg.projects)
	for i := range s.cfg.issues {
		p := i % s.cfg.projects
		nums[p]++
		created := base.Add(time.Duration(i)*step + time.Duration(i%1000)*time.Millisecond)
		is := issue{ID: 10000 + i, Project: p, Num: nums[p], Summary: fmt.Sprintf("Issue %d: %s", i, []string{"fix login", "update docs", "speed up search", "handle timeouts"}[i%4]),
			Status: i % 3, Priority: i % 5, Type: i % 4, Assignee: i % (s.cfg.users + 1), Reporter: i % s.cfg.users,
			Labels: []string{[]string{"backend", "frontend", "infra"}[i%3]}, Created: created, Updated: created.Add(time.Duration(i%11) * 13 * time.Minute),
			Attachment: i%4 == 0, StoryPoints: float64(i % 8)}
		if is.Assignee == s.cfg.users {
			is.Assignee = -1
		}
		if is.Status == 2 {
			is.ResolvedAt = is.Updated
		}
		id := strconv.Itoa(is.ID)
		for k := range i % 3 {
			c := comment{ID: 20000 + 3*i + k, Issue: is.ID, Author: (i + k) % s.cfg.users, Body: fmt.Sprintf("Comment %d on issue %d", k, i),
				Created: created.Add(time.Duration(k+1) * time.Minute), Updated: created.Add(time.Duration(k+1) * time.Minute)}
			s.comments.Put(strconv.Itoa(c.ID), c, c.Updated)
			is.Comments = append(is.Comments, strconv.Itoa(c.ID))
		}
		for k := range (i + 1) % 3 {
			wl := worklog{ID: 30000 + 3*i + k, Issue: is.ID, Author: (i + k) % s.cfg.users, Started: created.Add(time.Hour),
				Seconds: int64(1800 * (k + 1)), Comment: "Worked on it", Created: created.Add(2 * time.Hour), Updated: created.Add(2*time.Hour + time.Duration(k)*time.Second)}
			s.worklogs.Put(strconv.Itoa(wl.ID), wl, wl.Updated)
			is.Worklogs = append(is.Worklogs, strconv.Itoa(wl.ID))
			is.TimeSpent += wl.Seconds
		}
		s.issues.Put(id, is, is.Updated)
		s.keys[s.key(is)] = id
	}
	s.nextID = 10000 + s.cfg.issues
}

func (s *Server) key(is issue) string {
	return projectKey(is.Project) + "-" + strconv.Itoa(is.Num)
}

func projectKey(p int) string {
	if p < len(projectKeys) {
		return projectKeys[p]
	}
	return "PR" + strconv.Itoa(p)
}

// date writes t as Jira does: milliseconds, in the API user's zone, the
// offset without a colon.
func (s *Server) date(t time.Time) string { return t.In(s.zone).Format("2006-01-02T15:04:05.000-0700") }

func (s *Server) self(path string) string { return s.Origin() + path }

// user renders user u (an app for the last one).
func (s *Server) user(u int) map[string]any {
	if u < 0 {
		return nil
	}
	id := accountID(u)
	m := map[string]any{"self": s.self("/rest/api/3/user?accountId=" + id), "accountId": id, "accountType": "atlassian",
		"displayName": fmt.Sprintf("User %d", u), "active": u%7 != 6, "timeZone": s.zone.String(), "locale": "en_US",
		"avatarUrls": map[string]any{"48x48": "https://avatar-management.example/" + id + "/48"}}
	if u%3 != 2 { // the others hide their email
		m["emailAddress"] = fmt.Sprintf("user%d@example.com", u)
	}
	if u == s.cfg.users-1 && u > 0 {
		m["accountType"], m["displayName"] = "app", "Automation for Jira"
		delete(m, "emailAddress")
	}
	return m
}

// userDetails renders user u as Jira names an author (UserDetails: no
// locale).
func (s *Server) userDetails(u int) map[string]any {
	m := s.user(u)
	delete(m, "locale")
	return m
}

func accountID(u int) string { return fmt.Sprintf("557058:%08x-aaaa-4bbb-8ccc-%012x", u, u) }

func userIndex(id string) (int, bool) {
	var u int
	var rest int
	_, err := fmt.Sscanf(id, "557058:%08x-aaaa-4bbb-8ccc-%012x", &u, &rest)
	return u, err == nil && u == rest
}

func (s *Server) project(p int) map[string]any {
	id := strconv.Itoa(10000 + p)
	return map[string]any{"self": s.self("/rest/api/3/project/" + id), "id": id, "key": projectKey(p), "name": fmt.Sprintf("Project %s", projectKey(p)),
		"projectTypeKey": "software", "simplified": p%2 == 0, "style": []string{"next-gen", "classic"}[p%2], "isPrivate": false,
		"uuid": fmt.Sprintf("%08x-1111-4222-8333-444455556666", p), "lead": s.user(p % s.cfg.users),
		"projectCategory": map[string]any{"self": s.self("/rest/api/3/projectCategory/10000"), "id": "10000", "name": "Product", "description": "Product teams"}}
}

func (s *Server) priority(i int) map[string]any {
	id := strconv.Itoa(i + 1)
	return map[string]any{"self": s.self("/rest/api/3/priority/" + id), "id": id, "name": priorityNames[i], "description": priorityNames[i] + " priority",
		"iconUrl": s.self("/images/icons/priorities/" + priorityNames[i] + ".svg"), "statusColor": "#" + []string{"d04437", "f15c75", "f79232", "707070", "999999"}[i], "isDefault": i == 2}
}

func (s *Server) issueType(i int) map[string]any {
	id := strconv.Itoa(10001 + i)
	return map[string]any{"self": s.self("/rest/api/3/issuetype/" + id), "id": id, "name": typeNames[i], "description": "A " + typeNames[i] + ".",
		"iconUrl": s.self("/rest/api/2/universal_avatar/view/type/issuetype/avatar/1031" + strconv.Itoa(i)), "subtask": false,
		"avatarId": 10310 + i, "hierarchyLevel": map[bool]int{true: 1, false: 0}[i == 3]}
}

// adf is a one-paragraph Atlassian Document Format document.
func adf(text string) map[string]any {
	return map[string]any{"type": "doc", "version": 1, "content": []any{
		map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": text}}}}}
}

// issueJSON renders an issue with the fields sel keeps (nil: all).
func (s *Server) issueJSON(is issue, sel map[string]bool) map[string]any {
	id := strconv.Itoa(is.ID)
	out := map[string]any{"id": id, "self": s.self("/rest/api/3/issue/" + id), "key": s.key(is),
		"expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations"}
	if sel != nil && len(sel) == 0 {
		return map[string]any{"id": id}
	}
	proj := s.project(is.Project)
	f := map[string]any{"summary": is.Summary, "description": adf("Details of " + is.Summary), "issuetype": s.issueType(is.Type),
		"project": map[string]any{"self": proj["self"], "id": proj["id"], "key": proj["key"], "name": proj["name"], "projectTypeKey": "software", "simplified": proj["simplified"]},
		"status":  statuses[is.Status], "priority": s.priority(is.Priority), "assignee": s.user(is.Assignee), "reporter": s.user(is.Reporter),
		"creator": s.user(is.Reporter), "labels": is.Labels, "created": s.date(is.Created), "updated": s.date(is.Updated),
		"resolution": nil, "resolutiondate": nil, "duedate": nil, "timespent": nil, "attachment": []any{}, "customfield_10016": is.StoryPoints}
	if !is.ResolvedAt.IsZero() {
		f["resolution"] = map[string]any{"self": s.self("/rest/api/3/resolution/10000"), "id": "10000", "name": "Done", "description": "Work has been completed."}
		f["resolutiondate"] = s.date(is.ResolvedAt)
	}
	if is.TimeSpent > 0 {
		f["timespent"] = is.TimeSpent
	}
	if is.Attachment {
		f["attachment"] = []any{s.attachment(is, false)}
	}
	for k := range f {
		if sel != nil && !sel[k] {
			delete(f, k)
		}
	}
	out["fields"] = f
	return out
}

// attachment renders the attachment of an issue: in its fields (id a
// string), or as GET attachment/{id} answers (meta: id a number).
func (s *Server) attachment(is issue, meta bool) map[string]any {
	n := 50000 + is.ID
	id := strconv.Itoa(n)
	m := map[string]any{"self": s.self("/rest/api/3/attachment/" + id), "filename": fmt.Sprintf("report-%d.txt", is.ID),
		"author": s.user(is.Reporter), "created": s.date(is.Created), "size": s.cfg.attachmentSize, "mimeType": "text/plain",
		"content": s.self("/rest/api/3/attachment/content/" + id)}
	if meta {
		m["id"] = n
	} else {
		m["id"] = id
	}
	return m
}

// AttachmentID is the id of issue i's attachment (issues 0, 4, 8, ...
// have one).
func AttachmentID(i int) string { return strconv.Itoa(60000 + i) }

// FileContent returns the bytes of attachment id.
func (s *Server) FileContent(id string) ([]byte, bool) {
	f, ok := s.file(id)
	return f.Content, ok
}

// file returns attachment id's bytes: its issue's id repeated.
func (s *Server) file(id string) (fakeserver.File, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return fakeserver.File{}, false
	}
	is, ok := s.issues.Live(strconv.Itoa(n - 50000))
	if !ok || !is.Attachment {
		return fakeserver.File{}, false
	}
	line := []byte(fmt.Sprintf("attachment %d of issue %d\n", n, is.ID))
	content := bytes.Repeat(line, s.cfg.attachmentSize/len(line)+1)[:s.cfg.attachmentSize]
	return fakeserver.File{Name: fmt.Sprintf("report-%d.txt", is.ID), ContentType: "text/plain", ETag: fmt.Sprintf(`"%d-%d"`, n, len(content)),
		ModTime: is.Created, Content: content, CutEvery: s.cfg.cutEvery}, true
}

func (s *Server) commentJSON(c comment) map[string]any {
	id := strconv.Itoa(c.ID)
	return map[string]any{"self": s.self(fmt.Sprintf("/rest/api/3/issue/%d/comment/%s", c.Issue, id)), "id": id,
		"author": s.userDetails(c.Author), "updateAuthor": s.userDetails(c.Author), "body": adf(c.Body), "created": s.date(c.Created), "updated": s.date(c.Updated), "jsdPublic": true}
}

func (s *Server) worklogJSON(wl worklog) map[string]any {
	id := strconv.Itoa(wl.ID)
	return map[string]any{"self": s.self(fmt.Sprintf("/rest/api/3/issue/%d/worklog/%s", wl.Issue, id)), "id": id, "issueId": strconv.Itoa(wl.Issue),
		"author": s.userDetails(wl.Author), "updateAuthor": s.userDetails(wl.Author), "comment": adf(wl.Comment), "created": s.date(wl.Created), "updated": s.date(wl.Updated),
		"started": s.date(wl.Started), "timeSpent": fmt.Sprintf("%dm", wl.Seconds/60), "timeSpentSeconds": wl.Seconds}
}

func (s *Server) board(b int) map[string]any {
	p := (b - 1) % s.cfg.projects
	return map[string]any{"id": b, "self": s.self(fmt.Sprintf("/rest/agile/1.0/board/%d", b)), "name": fmt.Sprintf("%s board", projectKey(p)),
		"type": []string{"kanban", "scrum"}[b%2], "location": map[string]any{"projectId": 10000 + p, "projectKey": projectKey(p),
			"projectName": "Project " + projectKey(p), "projectTypeKey": "software", "displayName": fmt.Sprintf("Project %s (%s)", projectKey(p), projectKey(p))}}
}

// sprint renders sprint k (0 closed, 1 active, 2 future) of board b.
func (s *Server) sprint(b, k int) map[string]any {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).AddDate(0, 0, 14*k)
	m := map[string]any{"id": b*100 + k, "self": s.self(fmt.Sprintf("/rest/agile/1.0/sprint/%d", b*100+k)), "state": []string{"closed", "active", "future"}[k],
		"name": fmt.Sprintf("Sprint %d", k+1), "originBoardId": b, "goal": "Ship it", "createdDate": start.AddDate(0, 0, -3).Format("2006-01-02T15:04:05.000Z")}
	if k < 2 {
		m["startDate"], m["endDate"] = start.Format("2006-01-02T15:04:05.000Z"), start.AddDate(0, 0, 14).Format("2006-01-02T15:04:05.000Z")
	}
	if k == 0 {
		m["completeDate"] = start.AddDate(0, 0, 14).Format("2006-01-02T15:04:05.000Z")
	}
	return m
}

// fields lists the issue fields (GET /rest/api/3/field).
func fields() []any {
	sys := func(id, name, typ string, clause ...string) map[string]any {
		return map[string]any{"id": id, "key": id, "name": name, "custom": false, "orderable": true, "navigable": true, "searchable": true,
			"clauseNames": clause, "schema": map[string]any{"type": typ, "system": id}}
	}
	return []any{
		sys("summary", "Summary", "string", "summary"), sys("status", "Status", "status", "status"),
		sys("priority", "Priority", "priority", "priority"), sys("issuetype", "Issue Type", "issuetype", "issuetype", "type"),
		sys("project", "Project", "project", "project"), sys("assignee", "Assignee", "user", "assignee"),
		sys("created", "Created", "datetime", "created", "createdDate"), sys("updated", "Updated", "datetime", "updated", "updatedDate"),
		map[string]any{"id": "customfield_10016", "key": "customfield_10016", "name": "Story point estimate", "custom": true, "orderable": true,
			"navigable": true, "searchable": true, "clauseNames": []string{"cf[10016]", "Story point estimate"},
			"schema": map[string]any{"type": "number", "custom": "com.pyxis.greenhopper.jira:jsw-story-points", "customId": 10016}},
	}
}
