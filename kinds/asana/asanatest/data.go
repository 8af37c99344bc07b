package asanatest

import (
	"fmt"
	"strings"
	"time"
)

// epoch is when the generated data begins: a fixed date, so that two
// fakes serve the same records whenever they start.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Kinds of gid: a gid is "12", the kind's two digits and a sequence.
const (
	kWorkspace = 1 + iota
	kUser
	kTeam
	kProject
	kSection
	kTask
	kStory
	kTag
	kAttachment
)

// GID returns the gid of the i-th record of a kind of records ("task",
// "project", ...), as the fake numbers them.
func GID(kind string, i int) string {
	k := map[string]int{"workspace": kWorkspace, "user": kUser, "team": kTeam, "project": kProject, "section": kSection,
		"task": kTask, "story": kStory, "tag": kTag, "attachment": kAttachment}[kind]
	return gid(k, i)
}

func gid(kind, i int) string { return fmt.Sprintf("12%02d%012d", kind, i+1) }

// stamp writes a time as Asana does (milliseconds, Z).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ref is a compact record of rec, as other records name it.
func ref(rec obj) obj {
	return obj{"gid": rec["gid"], "resource_type": rec["resource_type"], "name": rec["name"]}
}

// compact is a record as a list answers without opt_fields.
func compact(rec obj) obj {
	out := obj{"gid": rec["gid"], "resource_type": rec["resource_type"]}
	keys := []string{"name"}
	switch rec["resource_type"] {
	case "task", "attachment":
		keys = append(keys, "resource_subtype")
	case "story":
		keys = []string{"created_at", "created_by", "resource_subtype", "text"}
	}
	for _, k := range keys {
		if v, ok := rec[k]; ok {
			out[k] = v
		}
	}
	return out
}

// fields is rec with the fields opt_fields names ("projects.name" keeps
// projects), gid and resource_type always.
func fields(rec obj, opt string) obj {
	out := obj{"gid": rec["gid"], "resource_type": rec["resource_type"]}
	for f := range strings.SplitSeq(opt, ",") {
		top, _, _ := strings.Cut(strings.TrimSpace(f), ".")
		if v, ok := rec[top]; ok {
			out[top] = v
		}
	}
	return out
}

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis"}
	verbs      = []string{"Draft", "Review", "Ship", "Plan", "Fix", "Design", "Test", "Document"}
	things     = []string{"launch plan", "pricing page", "onboarding flow", "release notes", "billing bug", "Q3 roadmap", "API docs", "search index"}
)

// generate fills the tables: one organization, its users and two teams,
// the projects (three sections each, in turn in each team), the tasks in
// turn in each project and section, a subtask under every fifth task of
// each project (its second, seventh, ...),
// two stories on each of the first 50 tasks, three tags, and an
// attachment on every third of the first 30 tasks.
func (s *Server) generate() {
	at := func(i int) time.Time { return epoch.Add(time.Duration(i) * time.Minute) }
	ws := obj{"gid": gid(kWorkspace, 0), "resource_type": "workspace", "name": "Acme", "email_domains": []any{"example.com"}, "is_organization": true}
	s.workspaces.Put(ws["gid"].(string), ws, epoch)
	for i := range s.cfg.users {
		name := firstNames[i%len(firstNames)]
		if i >= len(firstNames) {
			name += fmt.Sprintf(" %d", i/len(firstNames)+1)
		}
		u := obj{"gid": gid(kUser, i), "resource_type": "user", "name": name,
			"email": fmt.Sprintf("%s%d@example.com", strings.ToLower(firstNames[i%len(firstNames)]), i), "photo": nil, "workspaces": []any{ref(ws)}}
		s.users.Put(u["gid"].(string), u, epoch)
	}
	teams := []obj{}
	for i, name := range []string{"Engineering", "Marketing"} {
		t := obj{"gid": gid(kTeam, i), "resource_type": "team", "name": name, "description": name + " team", "organization": ref(ws),
			"permalink_url": "https://app.asana.com/0/" + gid(kTeam, i), "visibility": "secret"}
		s.teams.Put(t["gid"].(string), t, epoch)
		teams = append(teams, t)
	}
	var tags []obj
	for i, name := range []string{"urgent", "customer", "blocked"} {
		t := obj{"gid": gid(kTag, i), "resource_type": "tag", "name": name, "color": []string{"dark-red", "light-blue", "dark-orange"}[i],
			"notes": "", "created_at": stamp(epoch), "workspace": ref(ws), "permalink_url": "https://app.asana.com/0/" + gid(kTag, i) + "/list"}
		s.tags.Put(t["gid"].(string), t, epoch)
		tags = append(tags, t)
	}
	for i := range s.cfg.projects {
		s.putProject(i, teams[i%len(teams)], at(i))
	}
	projects := s.projects.Rows(nil)
	if len(projects) == 0 {
		return
	}
	sections := map[any][]obj{} // by project gid
	for _, r := range s.sections.Rows(nil) {
		pg := r.Rec["project"].(obj)["gid"]
		sections[pg] = append(sections[pg], r.Rec)
	}
	n := 0
	for i := range s.cfg.tasks {
		p := projects[i%len(projects)].Rec
		secs := sections[p["gid"]]
		sec := secs[(i/len(projects))%len(secs)]
		t := s.newTask(gid(kTask, n), fmt.Sprintf("%s %s", verbs[i%len(verbs)], things[(i/len(verbs))%len(things)]), p, sec, at(i))
		if i%7 == 0 {
			t["tags"] = []any{ref(tags[i%len(tags)])}
		}
		s.tasks.Put(t["gid"].(string), t, at(i))
		n++
		if (i/len(projects))%5 == 1 {
			sub := s.newTask(gid(kTask, n), "Subtask of "+t["name"].(string), nil, nil, at(i))
			sub["parent"] = ref(t)
			t["num_subtasks"] = 1
			s.tasks.Put(sub["gid"].(string), sub, at(i))
			n++
		}
		if i < 50 {
			for j := range 2 {
				s.putStory(t, j, at(i).Add(time.Duration(j+1)*time.Minute))
			}
		}
		if i < 30 && i%3 == 0 {
			s.putAttachment(t, i/3, at(i))
		}
	}
	s.nextTask = n
}

// putAttachment adds the i-th attachment, to task t.
func (s *Server) putAttachment(t obj, i int, at time.Time) {
	a := obj{"gid": gid(kAttachment, i), "resource_type": "attachment", "resource_subtype": "asana", "name": fmt.Sprintf("spec-%d.pdf", i),
		"created_at": stamp(at), "host": "asana", "parent": ref(t), "size": s.cfg.fileSize,
		"permanent_url": "https://app.asana.com/app/asana/-/get_asset?asset_id=" + gid(kAttachment, i), "view_url": nil}
	s.attachments.Put(a["gid"].(string), a, at)
}

// putProject adds the i-th project of team, with three sections.
func (s *Server) putProject(i int, team obj, at time.Time) obj {
	ws, _ := s.workspaces.Live(gid(kWorkspace, 0))
	owner, _ := s.users.Live(gid(kUser, i%s.cfg.users))
	p := obj{"gid": gid(kProject, i), "resource_type": "project", "name": fmt.Sprintf("Project %d", i+1), "archived": false, "color": "light-green",
		"notes": "", "public": true, "completed": false, "completed_at": nil, "created_at": stamp(at), "modified_at": stamp(at),
		"due_on": nil, "start_on": nil, "owner": ref(owner), "team": ref(team), "workspace": ref(ws), "members": []any{ref(owner)},
		"followers": []any{ref(owner)}, "permalink_url": "https://app.asana.com/0/" + gid(kProject, i) + "/list"}
	s.projects.Put(p["gid"].(string), p, at)
	for j, name := range []string{"To do", "Doing", "Done"} {
		sec := obj{"gid": gid(kSection, 3*i+j), "resource_type": "section", "name": name, "created_at": stamp(at), "project": ref(p)}
		s.sections.Put(sec["gid"].(string), sec, at)
	}
	return p
}

// newTask is a task in project p and section sec (none when nil).
func (s *Server) newTask(id, name string, p, sec obj, at time.Time) obj {
	ws, _ := s.workspaces.Live(gid(kWorkspace, 0))
	n := 0
	fmt.Sscanf(id[4:], "%d", &n)
	user, _ := s.users.Live(gid(kUser, n%s.cfg.users))
	t := obj{"gid": id, "resource_type": "task", "resource_subtype": "default_task", "name": name, "notes": "Notes of " + strings.ToLower(name) + ".",
		"completed": false, "completed_at": nil, "created_at": stamp(at), "modified_at": stamp(at), "due_on": stamp(at.AddDate(0, 0, 14))[:10],
		"due_at": nil, "start_on": nil, "assignee": ref(user), "assignee_status": "upcoming", "num_subtasks": 0, "parent": nil,
		"projects": []any{}, "memberships": []any{}, "tags": []any{}, "followers": []any{ref(user)}, "workspace": ref(ws),
		"permalink_url": "https://app.asana.com/0/0/" + id + "/f"}
	if p != nil {
		t["projects"] = []any{ref(p)}
		t["memberships"] = []any{obj{"project": ref(p), "section": ref(sec)}}
	}
	return t
}

// putStory adds the j-th story of task t: a comment, or a change.
func (s *Server) putStory(t obj, j int, at time.Time) {
	user := t["assignee"].(obj)
	n := s.stories.Len()
	st := obj{"gid": gid(kStory, n), "resource_type": "story", "created_at": stamp(at), "created_by": user, "target": ref(t),
		"is_pinned": false, "is_edited": false}
	if j%2 == 0 {
		st["resource_subtype"], st["type"], st["text"] = "comment_added", "comment", "Looks good to me."
	} else {
		st["resource_subtype"], st["type"], st["text"] = "assigned", "system", "assigned to "+user["name"].(string)
	}
	s.stories.Put(st["gid"].(string), st, at)
}

// me is the user the tokens act as.
func (s *Server) me() obj {
	u, _ := s.users.Live(gid(kUser, 0))
	return u
}

// FileContent returns the bytes of an attachment.
func (s *Server) FileContent(gid string) ([]byte, bool) {
	if _, ok := s.attachments.Live(gid); !ok {
		return nil, false
	}
	b := make([]byte, s.cfg.fileSize)
	for i := range b {
		b[i] = byte((i*31 + int(gid[len(gid)-1])) % 251)
	}
	return b, true
}
