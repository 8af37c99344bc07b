package lineartest

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// epoch is when the generated workspace begins.
var epoch = time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)

// timeLayout is how Linear writes a DateTime.
const timeLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(timeLayout) }

// record is one record as the fake keeps it: its fields by their GraphQL
// names; a related record is a func() any that reads it when selected.
type record = map[string]any

// kind describes one entity of the fake: its GraphQL type, its records
// and how one is made.
type kind struct {
	entity, typeName string
	// listField and getField are its root fields.
	listField, getField string
	// text is the field an update changes.
	text  string
	count int
	table *fakeserver.Table[record]
	// mu guards version, which every change moves on, and the cached
	// orders of the unfiltered lists.
	mu      sync.Mutex
	version int
	cache   map[string]ordering
	// gen makes record i, created at created.
	gen func(d *data, i int, created time.Time) record
}

// data holds the workspace.
type data struct {
	mu     sync.Mutex // counts of Create
	kinds  []*kind
	byName map[string]*kind // by entity, list field and get field
}

var (
	teamKeys   = []string{"ENG", "DES", "OPS", "SUP", "MKT", "FIN"}
	stateNames = []struct{ name, typ, color string }{
		{"Backlog", "backlog", "#bec2c8"}, {"Todo", "unstarted", "#e2e2e2"}, {"In Progress", "started", "#f2c94c"},
		{"Done", "completed", "#5e6ad2"}, {"Canceled", "canceled", "#95a2b3"},
	}
	people = []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson",
		"Margaret Hamilton", "Donald Knuth", "Frances Allen", "John Backus"}
	words = []string{"login", "billing", "search", "export", "sync", "onboarding", "dashboard", "webhook", "invoice", "API"}
	verbs = []string{"Fix", "Improve", "Add", "Refactor", "Investigate", "Document"}
)

func newData(counts map[string]int, now time.Time) *data {
	d := &data{byName: map[string]*kind{}}
	def := func(entity, typeName, list, get, text string, n int, gen func(*data, int, time.Time) record) {
		if c, ok := counts[entity]; ok {
			n = c
		}
		k := &kind{entity: entity, typeName: typeName, listField: list, getField: get, text: text, count: n,
			table: &fakeserver.Table[record]{}, gen: gen}
		d.kinds = append(d.kinds, k)
		d.byName[entity], d.byName[list], d.byName[get] = k, k, k
	}
	// Referenced kinds first: a record's references exist when it is
	// made.
	def("teams", "Team", "teams", "team", "description", 3, genTeam)
	d.byName["teams"].count = max(d.byName["teams"].count, 1)
	def("users", "User", "users", "user", "title", 8, genUser)
	def("workflow_states", "WorkflowState", "workflowStates", "workflowState", "description", len(stateNames)*d.kind("teams").count, genState)
	def("labels", "IssueLabel", "issueLabels", "issueLabel", "description", 6, genLabel)
	def("projects", "Project", "projects", "project", "description", 4, genProject)
	def("cycles", "Cycle", "cycles", "cycle", "description", 3*d.kind("teams").count, genCycle)
	def("issues", "Issue", "issues", "issue", "title", 120, genIssue)
	def("comments", "Comment", "comments", "comment", "body", 200, genComment)
	def("attachments", "Attachment", "attachments", "attachment", "title", 40, genAttachment)
	for _, k := range d.kinds {
		// Record i was created i minutes after the epoch, and changed a
		// few seconds later: the same records in every fake (before now,
		// on a clock that starts before the epoch).
		start := epoch
		if end := start.Add(time.Duration(k.count) * time.Minute); end.After(now) {
			start = now.Add(-time.Duration(k.count) * time.Minute)
		}
		for i := range k.count {
			created := start.Add(time.Duration(i) * time.Minute)
			rec := k.gen(d, i, created)
			k.table.Put(rec["id"].(string), rec, created)
		}
	}
	return d
}

func (d *data) kind(name string) *kind { return d.byName[name] }

// uuid is a stable id, Linear-shaped, of record i of an entity.
func uuid(entity string, i int) string {
	h := fnv.New64a()
	h.Write([]byte(entity))
	x := h.Sum64() ^ uint64(i)*0x9e3779b97f4a7c15
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], x)
	binary.BigEndian.PutUint64(raw[8:], uint64(i))
	raw[6], raw[8] = 0x40|raw[6]&0x0f, 0xa0|raw[8]&0x0f // version 4, variant
	var out [36]byte
	hex.Encode(out[:], raw[:4])
	out[8] = '-'
	hex.Encode(out[9:13], raw[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], raw[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], raw[8:10])
	out[23] = '-'
	hex.Encode(out[24:], raw[10:])
	return string(out[:])
}

// ref is a reference to record i of an entity (i modulo its count), read
// when selected; nil when the entity has none.
func (d *data) ref(entity string, i int) any {
	k := d.kind(entity)
	if k.count == 0 {
		return nil
	}
	id := uuid(entity, i%k.count)
	return func() any {
		if r, ok := k.table.Live(id); ok {
			return r
		}
		return nil
	}
}

// base is what every record has.
func base(entity string, i int, created time.Time) record {
	return record{"id": uuid(entity, i), "createdAt": stamp(created), "updatedAt": stamp(created.Add(time.Duration(i%5) * 7 * time.Second)),
		"archivedAt": nil}
}

// with sets fields on r.
func with(r, fields record) record {
	maps.Copy(r, fields)
	return r
}

func pick[T any](list []T, i int) T { return list[i%len(list)] }

// teamKey is the key of team i: ENG, DES, ..., ENG1, ...
func teamKey(i int) string {
	key := pick(teamKeys, i)
	if i >= len(teamKeys) {
		key += strconv.Itoa(i / len(teamKeys))
	}
	return key
}

func genTeam(_ *data, i int, created time.Time) record {
	r := base("teams", i, created)
	key := teamKey(i)
	name := map[string]string{"ENG": "Engineering", "DES": "Design", "OPS": "Operations", "SUP": "Support", "MKT": "Marketing", "FIN": "Finance"}[pick(teamKeys, i)]
	r = with(r, record{"name": name, "key": key, "displayName": name, "description": "The " + name + " team", "color": "#5e6ad2",
		"icon": nil, "timezone": "Europe/Berlin", "visibility": "public", "cyclesEnabled": i%2 == 0, "cycleDuration": 2.0, "triageEnabled": i == 0})
	return r
}

func genUser(_ *data, i int, created time.Time) record {
	r := base("users", i, created)
	name := pick(people, i)
	if i >= len(people) {
		name += fmt.Sprint(" ", i/len(people)+1)
	}
	handle := strings.ToLower(strings.ReplaceAll(name, " ", "."))
	r = with(r, record{"name": name, "displayName": strings.Fields(name)[0] + fmt.Sprint(i), "email": handle + "@example.com",
		"avatarUrl": nil, "active": true, "admin": i == 0, "guest": false, "timezone": "Europe/Berlin", "lastSeen": stamp(created),
		"url": "https://linear.app/acme/profiles/" + strings.ReplaceAll(handle, ".", ""), "title": nil})
	return r
}

func genState(d *data, i int, created time.Time) record {
	r := base("workflow_states", i, created)
	s := pick(stateNames, i)
	r = with(r, record{"name": s.name, "type": s.typ, "color": s.color, "description": nil,
		"position": float64(i % len(stateNames)), "team": d.ref("teams", i/len(stateNames))})
	return r
}

func genLabel(d *data, i int, created time.Time) record {
	r := base("labels", i, created)
	var team any
	if i%3 == 2 {
		team = d.ref("teams", i)
	}
	r = with(r, record{"name": pick([]string{"Bug", "Feature", "Improvement", "Security", "Performance", "Docs"}, i),
		"description": nil, "color": "#eb5757", "isGroup": false, "team": team, "parent": nil})
	return r
}

func genProject(d *data, i int, created time.Time) record {
	r := base("projects", i, created)
	name := "Project " + pick(words, i)
	status := pick([]string{"planned", "started", "completed"}, i)
	r = with(r, record{"name": name, "description": "The " + name + " project", "slugId": fmt.Sprintf("%x", i+0xa1b2c3),
		"color": "#bec2c8", "icon": nil, "priority": int64(i % 5), "priorityLabel": pick([]string{"No priority", "Urgent", "High", "Medium", "Low"}, i),
		"progress": float64(i%10) / 10, "startDate": created.Format(time.DateOnly), "targetDate": nil, "startedAt": nil,
		"completedAt": nil, "canceledAt": nil, "url": fmt.Sprintf("https://linear.app/acme/project/%x", i+0xa1b2c3), "trashed": nil,
		"status": record{"id": uuid("project_statuses", i%3), "name": strings.ToUpper(status[:1]) + status[1:], "type": status},
		"lead":   d.ref("users", i), "creator": d.ref("users", i+1)})
	return r
}

func genCycle(d *data, i int, created time.Time) record {
	r := base("cycles", i, created)
	teams := d.kind("teams").count
	starts := created.Add(time.Duration(i/teams) * 14 * 24 * time.Hour)
	r = with(r, record{"number": float64(i/teams + 1), "name": nil, "description": nil, "startsAt": stamp(starts),
		"endsAt": stamp(starts.Add(14 * 24 * time.Hour)), "completedAt": nil, "progress": 0.0, "isActive": i/teams == 0,
		"team": d.ref("teams", i)})
	return r
}

func genIssue(d *data, i int, created time.Time) record {
	r := base("issues", i, created)
	teams := d.kind("teams").count
	team := i % teams
	key := teamKey(team)
	number := i/teams + 1
	title := fmt.Sprintf("%s %s %d", pick(verbs, i), pick(words, i/7), i)
	state := team*len(stateNames) + i%len(stateNames)
	var desc, estimate, assignee any
	if i%3 != 0 {
		desc = "Steps to reproduce: open the " + pick(words, i/7) + " page and wait."
	}
	if i%4 != 0 {
		estimate = float64(i%5 + 1)
		assignee = d.ref("users", i)
	}
	labels := []any{}
	if n := d.kind("labels").count; n > 0 {
		labels = append(labels, uuid("labels", i%n))
	}
	r = with(r, record{"identifier": fmt.Sprintf("%s-%d", key, number), "number": float64(number), "title": title,
		"description": desc, "priority": float64(i % 5), "priorityLabel": pick([]string{"No priority", "Urgent", "High", "Medium", "Low"}, i),
		"estimate": estimate, "sortOrder": float64(-i), "branchName": fmt.Sprintf("%s-%d-%s", strings.ToLower(key), number, strings.ToLower(pick(words, i/7))),
		"url": fmt.Sprintf("https://linear.app/acme/issue/%s-%d", key, number), "dueDate": nil, "labelIds": labels, "trashed": nil,
		"startedAt": nil, "completedAt": nil, "canceledAt": nil,
		"team": d.ref("teams", team), "state": d.ref("workflow_states", state), "assignee": assignee, "creator": d.ref("users", i+3),
		"project": d.ref("projects", i), "cycle": d.ref("cycles", i), "parent": nil})
	if i%40 == 39 { // trashed: deleted in Linear, archived with it
		r["trashed"], r["archivedAt"] = true, r["updatedAt"]
	}
	return r
}

func genComment(d *data, i int, created time.Time) record {
	r := base("comments", i, created)
	var issueID any
	if n := d.kind("issues").count; n > 0 {
		issueID = uuid("issues", i%n)
	}
	r = with(r, record{"body": fmt.Sprintf("Comment %d: I can reproduce this on the %s page.", i, pick(words, i)),
		"url": fmt.Sprintf("https://linear.app/acme/comment/%d", i), "editedAt": nil, "issueId": issueID, "parentId": nil,
		"user": d.ref("users", i)})
	return r
}

func genAttachment(d *data, i int, created time.Time) record {
	r := base("attachments", i, created)
	r = with(r, record{"title": fmt.Sprintf("Pull request #%d", 1000+i), "subtitle": "Merged", "url": fmt.Sprintf("https://github.com/acme/app/pull/%d", 1000+i),
		"sourceType": "github", "metadata": record{"status": "merged", "number": float64(1000 + i)},
		"issue": d.ref("issues", i), "creator": d.ref("users", i)})
	return r
}
