package githubtest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Documentation URLs of the endpoints, as GitHub puts them in 404 bodies.
const (
	docRepo        = docsRoot + "/repos/repos#get-a-repository"
	docUserRepos   = docsRoot + "/repos/repos#list-repositories-for-a-user"
	docOrg         = docsRoot + "/orgs/orgs#get-an-organization"
	docUser        = docsRoot + "/users/users#get-a-user"
	docTeam        = docsRoot + "/teams/teams#get-a-team-by-name"
	docBranch      = docsRoot + "/branches/branches#get-a-branch"
	docCommit      = docsRoot + "/commits/commits#get-a-commit"
	docCommits     = docsRoot + "/commits/commits#list-commits"
	docRelease     = docsRoot + "/releases/releases#get-a-release-by-tag-name"
	docAsset       = docsRoot + "/releases/assets#get-a-release-asset"
	docIssues      = docsRoot + "/issues/issues#list-repository-issues"
	docIssue       = docsRoot + "/issues/issues#get-an-issue"
	docComment     = docsRoot + "/issues/comments#get-an-issue-comment"
	docComments    = docsRoot + "/issues/comments#list-issue-comments"
	docPulls       = docsRoot + "/pulls/pulls#list-pull-requests"
	docPull        = docsRoot + "/pulls/pulls#get-a-pull-request"
	docReviews     = docsRoot + "/pulls/reviews#list-reviews-for-a-pull-request"
	docPRComment   = docsRoot + "/pulls/comments#get-a-review-comment-for-a-pull-request"
	docLabel       = docsRoot + "/issues/labels#get-a-label"
	docMilestone   = docsRoot + "/issues/milestones#get-a-milestone"
	docMilestones  = docsRoot + "/issues/milestones#list-milestones"
	docContent     = docsRoot + "/repos/contents#get-repository-content"
	docOrgMembers  = docsRoot + "/orgs/members#list-organization-members"
	docViewerRepos = docsRoot + "/repos/repos#list-repositories-for-the-authenticated-user"
)

func (s *Server) newRB(r *http.Request) *rb {
	return &rb{jw: jw{b: make([]byte, 0, 16<<10)}, s: s, w: s.w, api: apiURL}
}

// writeList answers a list request: one page of sq, the Link header, a bare
// JSON array.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, sq seq, each func(b *rb, i int)) {
	perPage, page := pageParams(r.URL.Query())
	page = min(page, 1<<30)
	items, total := s.scans.slice(sq, (page-1)*perPage, perPage)
	setLink(w, r, page, lastPage(total, perPage))
	b := s.newRB(r)
	b.arr("")
	for _, i := range items {
		each(b, i)
	}
	b.endArr()
	fakeserver.WriteJSON(w, http.StatusOK, b.bytes())
}

// writeOne answers a get request with one object.
func (s *Server) writeOne(w http.ResponseWriter, r *http.Request, render func(b *rb)) {
	b := s.newRB(r)
	render(b)
	fakeserver.WriteJSON(w, http.StatusOK, b.bytes())
}

// segments splits the escaped path into unescaped segments, so that an
// escaped slash stays inside its segment.
func segments(r *http.Request) []string {
	parts := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	return parts
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	seg := segments(r)
	n := len(seg)
	switch seg[0] {
	case "user":
		switch {
		case n == 1:
			s.writeOne(w, r, func(b *rb) { b.privateUser(viewerAccount()) })
			return
		case n == 2 && seg[1] == "repos":
			s.viewerRepos(w, r)
			return
		case n == 2 && seg[1] == "orgs":
			s.userOrgs(w, r, ViewerLogin)
			return
		}
	case "users":
		switch {
		case n == 2:
			s.getUser(w, r, seg[1])
			return
		case n == 3 && seg[2] == "repos":
			s.userRepos(w, r, seg[1])
			return
		case n == 3 && seg[2] == "orgs":
			s.userOrgs(w, r, seg[1])
			return
		}
	case "orgs":
		if n < 2 {
			break
		}
		if _, ok := orgID(seg[1]); !ok {
			notFound(w, docOrg)
			return
		}
		switch {
		case n == 2:
			s.writeOne(w, r, func(b *rb) { b.orgFull("", seg[1]) })
			return
		case n == 3 && seg[2] == "repos":
			s.orgRepos(w, r, seg[1])
			return
		case n == 3 && seg[2] == "members":
			s.orgMembers(w, r, seg[1])
			return
		case n == 3 && seg[2] == "teams":
			s.teams(w, r, seg[1])
			return
		case n == 4 && seg[2] == "teams":
			s.getTeam(w, r, seg[1], seg[3])
			return
		}
	case "repos":
		if n >= 3 {
			ri, ok := s.w.repoIndex(seg[1], seg[2])
			if !ok {
				notFound(w, docRepo)
				return
			}
			s.routeRepo(w, r, ri, seg[3:])
			return
		}
	case "search":
		if n == 2 {
			switch seg[1] {
			case "issues":
				s.searchIssues(w, r)
				return
			case "repositories":
				s.searchRepos(w, r)
				return
			case "users":
				s.searchUsers(w, r)
				return
			}
		}
	case "rate_limit":
		if n == 1 {
			s.rateLimitStatus(w, r)
			return
		}
	}
	notFound(w, docsRoot)
}

func (s *Server) routeRepo(w http.ResponseWriter, r *http.Request, ri int, rest []string) {
	n := len(rest)
	if n == 0 {
		s.writeOne(w, r, func(b *rb) { b.repo("", ri, repoFull) })
		return
	}
	tail := strings.Join(rest[1:], "/")
	switch rest[0] {
	case "branches":
		if n == 1 {
			s.branches(w, r, ri)
		} else {
			s.getBranch(w, r, ri, tail)
		}
		return
	case "commits":
		if n == 1 {
			s.commits(w, r, ri)
		} else {
			s.getCommit(w, r, ri, tail)
		}
		return
	case "releases":
		s.routeReleases(w, r, ri, rest[1:])
		return
	case "issues":
		switch {
		case n == 1:
			s.issues(w, r, ri)
			return
		case n == 2 && rest[1] == "comments":
			s.repoCommentList(w, r, ri)
			return
		case n == 3 && rest[1] == "comments":
			s.getComment(w, r, ri, rest[2])
			return
		case n == 2:
			s.getIssue(w, r, ri, rest[1])
			return
		case n == 3 && rest[2] == "comments":
			s.issueComments(w, r, ri, rest[1])
			return
		}
	case "pulls":
		switch {
		case n == 1:
			s.pulls(w, r, ri)
			return
		case n == 3 && rest[1] == "comments":
			s.getPRComment(w, r, ri, rest[2])
			return
		case n == 2:
			s.getPull(w, r, ri, rest[1])
			return
		case n == 3 && rest[2] == "reviews":
			s.reviews(w, r, ri, rest[1])
			return
		case n == 3 && rest[2] == "comments":
			s.prComments(w, r, ri, rest[1])
			return
		}
	case "labels":
		if n == 1 {
			sq := seq{n: s.labelCount(ri), at: ident}
			if key := s.genKey(ri); key != "" {
				sq.key = "labels" + key
				sq.keep = func(li int) bool { _, ok := s.labelView(ri, li); return ok }
			}
			s.writeList(w, r, sq, func(b *rb, i int) { b.label("", ri, i) })
		} else {
			s.getLabel(w, r, ri, tail)
		}
		return
	case "tags":
		if n == 1 {
			s.writeList(w, r, seq{n: s.cfg.releases, at: reversed(s.cfg.releases)}, func(b *rb, i int) { b.tag(ri, i) })
			return
		}
	case "milestones":
		switch n {
		case 1:
			s.milestones(w, r, ri)
			return
		case 2:
			s.getMilestone(w, r, ri, rest[1])
			return
		}
	case "stargazers":
		if n == 1 {
			s.writeList(w, r, seq{n: s.cfg.users, at: ident}, func(b *rb, u int) { b.poolUser("", u) })
			return
		}
	case "contents":
		s.contents(w, r, ri, tail)
		return
	}
	notFound(w, docsRoot)
}

// ---- parameter helpers

// enum reads an enumerated parameter; ok is false (and a 422 written) when
// the value is not allowed.
func enum(w http.ResponseWriter, q url.Values, name, def, resource string, allowed ...string) (string, bool) {
	v := q.Get(name)
	if v == "" {
		return def, true
	}
	if slices.Contains(allowed, v) {
		return v, true
	}
	writeValidation(w, docsRoot, fieldError{resource: resource, field: name, code: "invalid"})
	return "", false
}

// timeParam reads an ISO 8601 timestamp parameter.
func timeParam(w http.ResponseWriter, q url.Values, name, resource string) (time.Time, bool, bool) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, false, true
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true, true
		}
	}
	writeValidation(w, docsRoot, fieldError{resource: resource, field: name, code: "invalid"})
	return time.Time{}, false, false
}

func number(v string) (int, bool) {
	i, err := strconv.Atoi(v)
	return i, err == nil && i > 0 && strconv.Itoa(i) == v
}

// order is the index ordering of n candidates, descending when desc.
func order(n int, desc bool) func(int) int {
	if desc {
		return reversed(n)
	}
	return ident
}

// ---- accounts

func (s *Server) getUser(w http.ResponseWriter, r *http.Request, login string) {
	a, ok := s.w.lookupAccount(login)
	if !ok {
		notFound(w, docUser)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.publicUser(a) })
}

func (s *Server) userOrgs(w http.ResponseWriter, r *http.Request, login string) {
	if _, ok := s.w.lookupAccount(login); !ok {
		notFound(w, docUser)
		return
	}
	orgs := s.w.orgsOf(login)
	s.writeList(w, r, seq{n: len(orgs), at: ident}, func(b *rb, i int) { b.orgSimple(orgs[i]) })
}

func (s *Server) orgMembers(w http.ResponseWriter, r *http.Request, org string) {
	q := r.URL.Query()
	if _, ok := enum(w, q, "filter", "all", "Member", "2fa_disabled", "all"); !ok {
		return
	}
	role, ok := enum(w, q, "role", "all", "Member", "all", "admin", "member")
	if !ok {
		return
	}
	// Candidate 0 is the viewer (an admin), candidate u+1 pool user u.
	sq := seq{n: s.cfg.users + 1, at: ident, key: "members/" + org + "/" + role}
	sq.keep = func(i int) bool {
		if i == 0 {
			return role != "member"
		}
		return role != "admin" && s.w.orgMember(org, i-1)
	}
	s.writeList(w, r, sq, func(b *rb, i int) {
		if i == 0 {
			b.simpleUser("", viewerAccount())
		} else {
			b.poolUser("", i-1)
		}
	})
}

func (s *Server) teams(w http.ResponseWriter, r *http.Request, org string) {
	n := 0
	if org == Owner {
		n = s.cfg.teams
	}
	s.writeList(w, r, seq{n: n, at: ident}, func(b *rb, i int) { b.team(i, false) })
}

func (s *Server) getTeam(w http.ResponseWriter, r *http.Request, org, slug string) {
	i, ok := s.w.teamIndex(slug)
	if org != Owner || !ok {
		notFound(w, docTeam)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.team(i, true) })
}

// ---- repository lists

// repoSeq orders all repositories by sort and direction.
func (s *Server) repoSeq(sortBy, dir string) seq {
	n := s.cfg.repos
	desc := dir == "desc"
	if sortBy == "full_name" {
		byName := s.w.repoByName
		if desc {
			return seq{n: n, at: func(p int) int { return byName[n-1-p] }}
		}
		return seq{n: n, at: func(p int) int { return byName[p] }}
	}
	// created, updated and pushed all decrease with the index.
	return seq{n: n, at: order(n, !desc)}
}

func defaultDirection(sortBy string) string {
	if sortBy == "full_name" {
		return "asc"
	}
	return "desc"
}

func (s *Server) userRepos(w http.ResponseWriter, r *http.Request, login string) {
	if _, ok := s.w.lookupAccount(login); !ok {
		notFound(w, docUserRepos)
		return
	}
	q := r.URL.Query()
	typ, ok := enum(w, q, "type", "owner", "Repository", "all", "owner", "member")
	if !ok {
		return
	}
	sortBy, ok := enum(w, q, "sort", "full_name", "Repository", "created", "updated", "pushed", "full_name")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", defaultDirection(sortBy), "Repository", "asc", "desc")
	if !ok {
		return
	}
	sq := s.repoSeq(sortBy, dir)
	owns := login == Owner
	member := login == ViewerLogin || s.w.orgsOf(login) != nil
	if !(owns && typ != "member" || member && typ != "owner") {
		sq.n = 0
	}
	// GitHub lists a user's public repositories only, whoever asks.
	sq.keep, sq.key = func(ri int) bool { return !repoPrivate(ri) }, "repos/public/"+sortBy+dir
	s.writeList(w, r, sq, func(b *rb, ri int) { b.repo("", ri, repoMinimal) })
}

func (s *Server) orgRepos(w http.ResponseWriter, r *http.Request, org string) {
	q := r.URL.Query()
	typ, ok := enum(w, q, "type", "all", "Repository", "all", "public", "private", "forks", "sources", "member", "internal")
	if !ok {
		return
	}
	sortBy, ok := enum(w, q, "sort", "created", "Repository", "created", "updated", "pushed", "full_name")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", defaultDirection(sortBy), "Repository", "asc", "desc")
	if !ok {
		return
	}
	sq := s.repoSeq(sortBy, dir)
	if org != Owner || typ == "forks" || typ == "internal" {
		sq.n = 0
	}
	switch typ {
	case "public":
		sq.keep, sq.key = func(ri int) bool { return !repoPrivate(ri) }, "repos/public/"+sortBy+dir
	case "private":
		sq.keep, sq.key = repoPrivate, "repos/private/"+sortBy+dir
	}
	s.writeList(w, r, sq, func(b *rb, ri int) { b.repo("", ri, repoMinimal) })
}

func (s *Server) viewerRepos(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	vis, ok := enum(w, q, "visibility", "all", "Repository", "all", "public", "private")
	if !ok {
		return
	}
	typ, ok := enum(w, q, "type", "all", "Repository", "all", "owner", "public", "private", "member")
	if !ok {
		return
	}
	if (q.Has("type")) && (q.Has("visibility") || q.Has("affiliation")) {
		writeValidation(w, docViewerRepos, fieldError{resource: "Repository", field: "type", code: "invalid",
			message: "If you specify visibility or affiliation, you cannot specify type."})
		return
	}
	sortBy, ok := enum(w, q, "sort", "full_name", "Repository", "created", "updated", "pushed", "full_name")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", defaultDirection(sortBy), "Repository", "asc", "desc")
	if !ok {
		return
	}
	sq := s.repoSeq(sortBy, dir)
	affiliation := q.Get("affiliation")
	if affiliation != "" && !strings.Contains(affiliation, "organization_member") || typ == "owner" {
		sq.n = 0 // every repository belongs to the organization, none to the viewer
	}
	switch {
	case vis == "public" || typ == "public":
		sq.keep, sq.key = func(ri int) bool { return !repoPrivate(ri) }, "repos/public/"+sortBy+dir
	case vis == "private" || typ == "private":
		sq.keep, sq.key = repoPrivate, "repos/private/"+sortBy+dir
	}
	s.writeList(w, r, sq, func(b *rb, ri int) { b.repo("", ri, repoPlain) })
}

// ---- branches, commits

func (s *Server) branches(w http.ResponseWriter, r *http.Request, ri int) {
	sq := seq{n: len(s.w.branches), at: ident}
	switch r.URL.Query().Get("protected") {
	case "true":
		sq.keep, sq.key = func(i int) bool { return s.w.branches[i].protected }, "branches/protected"
	case "false":
		sq.keep, sq.key = func(i int) bool { return !s.w.branches[i].protected }, "branches/unprotected"
	}
	s.writeList(w, r, sq, func(b *rb, i int) { b.shortBranch(ri, i) })
}

func (s *Server) getBranch(w http.ResponseWriter, r *http.Request, ri int, name string) {
	i, ok := s.w.branchIndex[name]
	if !ok {
		writeError(w, http.StatusNotFound, "Branch not found", docBranch)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.fullBranch(ri, i) })
}

func (s *Server) commits(w http.ResponseWriter, r *http.Request, ri int) {
	q := r.URL.Query()
	start := 0
	if ref := q.Get("sha"); ref != "" {
		k, ok := s.w.resolveRef(ri, ref)
		if !ok {
			writeError(w, http.StatusNotFound, "Not Found", docCommits)
			return
		}
		start = k
	}
	since, hasSince, ok := timeParam(w, q, "since", "Commit")
	if !ok {
		return
	}
	until, hasUntil, ok := timeParam(w, q, "until", "Commit")
	if !ok {
		return
	}
	path := strings.Trim(q.Get("path"), "/")
	author, committer := q.Get("author"), q.Get("committer")
	// Commits a test created sit on main, before (newer than) commit 0.
	var created []newCommit
	if ref := strings.TrimPrefix(q.Get("sha"), "refs/heads/"); ref == "" || ref == "main" {
		created = s.newCommits(ri)
	} else if nc, ok := s.newCommitBySHA(ri, ref); ok {
		all := s.newCommits(ri)
		i := slices.IndexFunc(all, func(c newCommit) bool { return c.sha == nc.sha })
		created = all[i:]
	}
	if len(created) > 0 {
		s.commitsWithCreated(w, r, ri, created, since, hasSince, until, hasUntil, path, author, committer)
		return
	}
	sq := seq{n: s.cfg.commits - start, at: func(p int) int { return start + p }}
	if hasSince || hasUntil || path != "" || author != "" || committer != "" {
		sq.key = "commits/" + q.Get("since") + "/" + q.Get("until") + "/" + path + "/" + author + "/" + committer + "/" + strconv.Itoa(start)
		matches := func(who string, k int) bool {
			u := s.w.commitAuthor(k)
			return who == userLogin(u) || strings.EqualFold(who, userLogin(u)+"@example.com")
		}
		sq.keep = func(k int) bool {
			t := s.w.commitDate(k)
			if hasSince && t.Before(since) || hasUntil && t.After(until) {
				return false
			}
			if path != "" {
				f := s.w.commitFile(k)
				if f != path && !strings.HasPrefix(f, path+"/") {
					return false
				}
			}
			return (author == "" || matches(author, k)) && (committer == "" || matches(committer, k))
		}
	}
	s.writeList(w, r, sq, func(b *rb, k int) { b.commit("", ri, k, false) })
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, ri int, ref string) {
	if nc, ok := s.newCommitBySHA(ri, ref); ok {
		s.writeOne(w, r, func(b *rb) { b.commitOf("", ri, newCommitView(ri, nc), true) })
		return
	}
	k, ok := s.w.resolveRef(ri, ref)
	if !ok {
		writeValidation(w, docCommit, fieldError{resource: "Commit", field: "ref", code: "invalid",
			message: "No commit found for SHA: " + ref})
		return
	}
	s.writeOne(w, r, func(b *rb) { b.commit("", ri, k, true) })
}

// ---- releases and assets

func (s *Server) routeReleases(w http.ResponseWriter, r *http.Request, ri int, rest []string) {
	n := len(rest)
	switch {
	case n == 0:
		s.writeList(w, r, seq{n: s.cfg.releases, at: reversed(s.cfg.releases)}, func(b *rb, i int) { b.release(ri, i) })
		return
	case n >= 2 && rest[0] == "tags":
		i, ok := s.w.releaseByTag(strings.Join(rest[1:], "/"))
		if !ok {
			notFound(w, docRelease)
			return
		}
		s.writeOne(w, r, func(b *rb) { b.release(ri, i) })
		return
	case n == 1 && rest[0] == "latest":
		for i := s.cfg.releases - 1; i >= 0; i-- {
			if !releasePre(i) {
				s.writeOne(w, r, func(b *rb) { b.release(ri, i) })
				return
			}
		}
		notFound(w, docRelease)
		return
	case n == 2 && rest[0] == "assets":
		s.getAsset(w, r, ri, rest[1])
		return
	case n == 1 || n == 2 && rest[1] == "assets":
		id, err := strconv.ParseInt(rest[0], 10, 64)
		i, ok := s.w.releaseIndex(ri, id)
		if err != nil || !ok {
			notFound(w, docRelease)
			return
		}
		if n == 1 {
			s.writeOne(w, r, func(b *rb) { b.release(ri, i) })
			return
		}
		s.writeList(w, r, seq{n: s.cfg.assets, at: ident}, func(b *rb, a int) { b.asset("", ri, i, a) })
		return
	}
	notFound(w, docsRoot)
}

func (s *Server) getAsset(w http.ResponseWriter, r *http.Request, ri int, idText string) {
	id, err := strconv.ParseInt(idText, 10, 64)
	ari, i, a, ok := s.w.assetIndex(id)
	if err != nil || !ok || ari != ri {
		notFound(w, docAsset)
		return
	}
	if strings.Contains(strings.ToLower(r.Header.Get("Accept")), "application/octet-stream") {
		http.Redirect(w, r, s.signedAssetURL(ri, i, a), http.StatusFound)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.asset("", ri, i, a) })
}

// ---- issues, pull requests, comments

// issueFilter holds the filters of issues.list, applied to number x.
type issueFilter struct {
	state                  string
	milestone, assignee    string
	creator, mentioned     string
	labels                 []int
	since                  time.Time
	hasSince, unknownLabel bool
}

func (f *issueFilter) match(w *world, x int, v issueView) bool {
	closed := v.closed
	if f.state == "open" && closed || f.state == "closed" && !closed {
		return false
	}
	if f.unknownLabel {
		return false
	}
	if len(f.labels) > 0 {
		have := w.issueLabels(x)
		for _, l := range f.labels {
			if !slices.Contains(have, l) {
				return false
			}
		}
	}
	if f.milestone != "" {
		m := w.milestoneOf(x)
		switch f.milestone {
		case "*":
			if m == 0 {
				return false
			}
		case "none":
			if m != 0 {
				return false
			}
		default:
			if strconv.Itoa(m) != f.milestone {
				return false
			}
		}
	}
	if f.assignee != "" {
		as := w.assignees(x)
		switch f.assignee {
		case "none":
			if len(as) > 0 {
				return false
			}
		case "*":
			if len(as) == 0 {
				return false
			}
		default:
			if !slices.ContainsFunc(as, func(a int) bool { return userLogin(a) == f.assignee }) {
				return false
			}
		}
	}
	if f.creator != "" && userLogin(w.creator(x)) != f.creator {
		return false
	}
	if f.mentioned != "" && userLogin(w.mentioned(x)) != f.mentioned {
		return false
	}
	return !f.hasSince || !v.updated.Before(f.since)
}

func (s *Server) issues(w http.ResponseWriter, r *http.Request, ri int) {
	q := r.URL.Query()
	f := issueFilter{milestone: q.Get("milestone"), assignee: q.Get("assignee"), creator: q.Get("creator"), mentioned: q.Get("mentioned")}
	var ok bool
	if f.state, ok = enum(w, q, "state", "open", "Issue", "open", "closed", "all"); !ok {
		return
	}
	sortBy, ok := enum(w, q, "sort", "created", "Issue", "created", "updated", "comments")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", "desc", "Issue", "asc", "desc")
	if !ok {
		return
	}
	if f.since, f.hasSince, ok = timeParam(w, q, "since", "Issue"); !ok {
		return
	}
	if f.milestone != "" && f.milestone != "*" && f.milestone != "none" {
		if _, isNum := number(f.milestone); !isNum {
			writeValidation(w, docIssues, fieldError{resource: "Issue", field: "milestone", code: "invalid"})
			return
		}
	}
	if v := q.Get("labels"); v != "" {
		for _, name := range strings.Split(v, ",") {
			if li, found := s.labelByName(ri, strings.TrimSpace(name)); found {
				f.labels = append(f.labels, li)
			} else {
				f.unknownLabel = true
			}
		}
	}
	sq := s.numberSeq(sortBy, dir == "desc")
	if key := s.genKey(ri); key != "" {
		nums := s.issueOrder(ri, sortBy, dir == "desc")
		sq = seq{n: len(nums), at: func(p int) int { return nums[p] }}
	}
	sq.key = "issues/" + sortBy + dir + "/" + q.Get("state") + "/" + q.Get("labels") + "/" + f.milestone + "/" +
		f.assignee + "/" + f.creator + "/" + f.mentioned + "/" + q.Get("since") + s.genKey(ri)
	sq.keep = func(x int) bool {
		v, ok := s.issueView(ri, x)
		return ok && f.match(s.w, x, v)
	}
	s.writeList(w, r, sq, func(b *rb, x int) { b.issue(ri, x, false) })
}

// numberSeq orders the issue and pull request numbers of a repository.
func (s *Server) numberSeq(sortBy string, desc bool) seq {
	n := s.w.numbers
	switch sortBy {
	case "comments", "popularity":
		return seq{n: n, at: s.w.commentOrder(desc)}
	case "long-running":
		// Oldest first (longest running) for desc.
		desc = !desc
	}
	if desc {
		return seq{n: n, at: func(p int) int { return n - p }}
	}
	return seq{n: n, at: func(p int) int { return p + 1 }}
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, ri int, text string) {
	x, ok := number(text)
	if ok && s.issueGone(ri, x) {
		writeError(w, http.StatusGone, "This issue was deleted", docIssue)
		return
	}
	if _, live := s.issueView(ri, x); !ok || !live {
		notFound(w, docIssue)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.issue(ri, x, false) })
}

func (s *Server) issueComments(w http.ResponseWriter, r *http.Request, ri int, text string) {
	x, ok := number(text)
	if _, live := s.issueView(ri, x); !ok || !live {
		notFound(w, docComments)
		return
	}
	since, hasSince, ok := timeParam(w, r.URL.Query(), "since", "IssueComment")
	if !ok {
		return
	}
	cs := s.commentsOfIssue(ri, x)
	if hasSince {
		cs = slices.DeleteFunc(cs, func(c commentRef) bool { return c.updated.Before(since) })
	}
	s.writeList(w, r, seq{n: len(cs), at: ident}, func(b *rb, i int) { b.comment(ri, cs[i]) })
}

// repoCommentList serves GET /repos/{owner}/{repo}/issues/comments: the
// comments of every issue and pull request, by id ascending unless sort
// (created, updated) is given; direction (default asc) is ignored without
// sort; since keeps the comments updated at or after it.
func (s *Server) repoCommentList(w http.ResponseWriter, r *http.Request, ri int) {
	q := r.URL.Query()
	sortBy, ok := enum(w, q, "sort", "created", "IssueComment", "created", "updated")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", "asc", "IssueComment", "asc", "desc")
	if !ok {
		return
	}
	if !q.Has("sort") {
		dir = "asc"
	}
	since, hasSince, ok := timeParam(w, q, "since", "IssueComment")
	if !ok {
		return
	}
	all := s.repoComments(ri, sortBy)
	if !q.Has("sort") {
		all = slices.Clone(all)
		slices.SortFunc(all, func(a, b commentRef) int { return cmpInt64(a.id, b.id) })
	}
	n := len(all)
	sq := seq{n: n, at: order(n, dir == "desc")}
	if hasSince {
		sq.key = "repo-comments/" + strconv.Itoa(ri) + "/" + sortBy + dir + "/" + since.String() + s.genKey(ri)
		sq.keep = func(i int) bool { return !all[i].updated.Before(since) }
	}
	s.writeList(w, r, sq, func(b *rb, i int) { b.comment(ri, all[i]) })
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request, ri int, text string) {
	id, err := strconv.ParseInt(text, 10, 64)
	c, ok := s.commentByID(ri, id)
	if err != nil || !ok {
		notFound(w, docComment)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.comment(ri, c) })
}

func (s *Server) pulls(w http.ResponseWriter, r *http.Request, ri int) {
	q := r.URL.Query()
	state, ok := enum(w, q, "state", "open", "PullRequest", "open", "closed", "all")
	if !ok {
		return
	}
	sortBy, ok := enum(w, q, "sort", "created", "PullRequest", "created", "updated", "popularity", "long-running")
	if !ok {
		return
	}
	defDir := "asc"
	if sortBy == "created" {
		defDir = "desc"
	}
	dir, ok := enum(w, q, "direction", defDir, "PullRequest", "asc", "desc")
	if !ok {
		return
	}
	head, base := q.Get("head"), q.Get("base")
	headOwner, headRef, hasOwner := strings.Cut(head, ":")
	if !hasOwner {
		headOwner, headRef = Owner, head
	}
	sq := s.numberSeq(sortBy, dir == "desc")
	sq.key = "pulls/" + sortBy + dir + "/" + state + "/" + head + "/" + base
	sq.keep = func(x int) bool {
		if !s.w.isPR(x) {
			return false
		}
		closed := s.w.closed(x)
		if state == "open" && closed || state == "closed" && !closed {
			return false
		}
		if head != "" && (headOwner != Owner || prHead(x) != headRef) {
			return false
		}
		return base == "" || prBase(x) == base
	}
	s.writeList(w, r, sq, func(b *rb, x int) { b.pull(ri, x, false) })
}

// pullNumberOf parses a pull request number.
func (s *Server) pullNumberOf(text string) (int, bool) {
	x, ok := number(text)
	return x, ok && x <= s.w.numbers && s.w.isPR(x)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, ri int, text string) {
	x, ok := s.pullNumberOf(text)
	if !ok {
		notFound(w, docPull)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.pull(ri, x, true) })
}

func (s *Server) reviews(w http.ResponseWriter, r *http.Request, ri int, text string) {
	x, ok := s.pullNumberOf(text)
	if !ok {
		notFound(w, docReviews)
		return
	}
	s.writeList(w, r, seq{n: s.w.reviewCount(x), at: ident}, func(b *rb, j int) { b.review(ri, x, j) })
}

func (s *Server) prComments(w http.ResponseWriter, r *http.Request, ri int, text string) {
	x, ok := s.pullNumberOf(text)
	if !ok {
		notFound(w, docPull)
		return
	}
	q := r.URL.Query()
	if _, ok := enum(w, q, "sort", "created", "PullRequestReviewComment", "created", "updated"); !ok {
		return
	}
	dir, ok := enum(w, q, "direction", "asc", "PullRequestReviewComment", "asc", "desc")
	if !ok {
		return
	}
	since, hasSince, ok := timeParam(w, q, "since", "PullRequestReviewComment")
	if !ok {
		return
	}
	n := s.w.prComments(x)
	sq := seq{n: n, at: order(n, dir == "desc")}
	if hasSince {
		sq.key = "prcomments/" + strconv.Itoa(x) + "/" + dir + "/" + since.String()
		sq.keep = func(j int) bool { return !s.w.created(x).Add(time.Duration(j+1) * 4 * time.Hour).Before(since) }
	}
	s.writeList(w, r, sq, func(b *rb, j int) { b.prComment(ri, x, j) })
}

func (s *Server) getPRComment(w http.ResponseWriter, r *http.Request, ri int, text string) {
	id, err := strconv.ParseInt(text, 10, 64)
	x, j, ok := s.w.prCommentIndex(ri, id)
	if err != nil || !ok {
		notFound(w, docPRComment)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.prComment(ri, x, j) })
}

// ---- labels, milestones

func (s *Server) getLabel(w http.ResponseWriter, r *http.Request, ri int, name string) {
	li, ok := s.labelByName(ri, name)
	if !ok {
		notFound(w, docLabel)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.label("", ri, li) })
}

func (s *Server) milestones(w http.ResponseWriter, r *http.Request, ri int) {
	q := r.URL.Query()
	state, ok := enum(w, q, "state", "open", "Milestone", "open", "closed", "all")
	if !ok {
		return
	}
	sortBy, ok := enum(w, q, "sort", "due_on", "Milestone", "due_on", "completeness")
	if !ok {
		return
	}
	dir, ok := enum(w, q, "direction", "asc", "Milestone", "asc", "desc")
	if !ok {
		return
	}
	nums := make([]int, 0, s.cfg.milestones)
	for m := 1; m <= s.cfg.milestones; m++ {
		closed := milestoneClosed(m)
		if state == "open" && closed || state == "closed" && !closed {
			continue
		}
		nums = append(nums, m)
	}
	if sortBy == "completeness" {
		done := func(m int) float64 {
			c := float64(milestoneClosedIssues(m))
			return c / (c + float64(milestoneOpenIssues(m)))
		}
		slices.SortStableFunc(nums, func(a, b int) int {
			switch da, db := done(a), done(b); {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
	}
	if dir == "desc" {
		slices.Reverse(nums)
	}
	s.writeList(w, r, seq{n: len(nums), at: ident}, func(b *rb, i int) { b.milestone("", ri, nums[i]) })
}

func (s *Server) getMilestone(w http.ResponseWriter, r *http.Request, ri int, text string) {
	m, ok := number(text)
	if !ok || m > s.cfg.milestones {
		notFound(w, docMilestone)
		return
	}
	s.writeOne(w, r, func(b *rb) { b.milestone("", ri, m) })
}

// ---- contents

func isRaw(r *http.Request) bool {
	a := strings.ToLower(r.Header.Get("Accept"))
	return strings.Contains(a, "application/vnd.github.raw") || strings.Contains(a, "application/vnd.github.v3.raw")
}

func contentType(content []byte) string {
	if utf8.Valid(content) && !slices.Contains(content, 0) {
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request, ri int, path string) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	if _, ok := s.w.resolveRef(ri, ref); !ok {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref, docContent)
		return
	}
	path = strings.Trim(path, "/")
	if path == "" {
		s.writeDir(w, r, ri, "", ref)
		return
	}
	f, ok := s.w.fileIndex[path]
	if !ok {
		notFound(w, docContent)
		return
	}
	if f.dir {
		s.writeDir(w, r, ri, path, ref)
		return
	}
	if isRaw(r) {
		media := "github.v3; param=raw"
		if strings.Contains(strings.ToLower(r.Header.Get("Accept")), "raw+json") {
			media += "; format=json"
		}
		w.Header().Set("X-GitHub-Media-Type", media)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fakeserver.ServeFile(w, r, fakeserver.File{
			Name: baseName(f.path), ContentType: contentType(f.content), ETag: `"` + f.sha + `"`,
			ModTime: s.w.commitDate(0), Content: f.content, CutEvery: s.cfg.fileCutEvery,
		})
		return
	}
	s.writeOne(w, r, func(b *rb) { b.contentEntry(ri, f, ref, true) })
}

// writeDir answers a directory with the bare array of its entries; GitHub
// does not paginate it.
func (s *Server) writeDir(w http.ResponseWriter, r *http.Request, ri int, dir, ref string) {
	b := s.newRB(r)
	b.arr("")
	for _, f := range s.w.children(dir) {
		b.contentEntry(ri, f, ref, false)
	}
	b.endArr()
	fakeserver.WriteJSON(w, http.StatusOK, b.bytes())
}

// ---- rate limit status

func (s *Server) rateLimitStatus(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	limit, _ := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	used, _ := strconv.Atoi(h.Get("X-RateLimit-Used"))
	b := s.newRB(r)
	res := func(k string, limit, used int) {
		b.obj(k)
		b.int("limit", int64(limit))
		b.int("used", int64(used))
		b.int("remaining", int64(limit-used))
		b.int("reset", reset)
		b.endObj()
	}
	b.obj("")
	b.obj("resources")
	res("core", limit, used)
	res("search", SearchLimit, 0)
	b.endObj()
	res("rate", limit, used)
	b.endObj()
	fakeserver.WriteJSON(w, http.StatusOK, b.bytes())
}

// commitsWithCreated answers a commits list of main after a test created
// commits: the created ones (newest first), then the generated history,
// with the same filters as commits. It builds the whole list: a test's
// repository is small.
func (s *Server) commitsWithCreated(w http.ResponseWriter, r *http.Request, ri int, created []newCommit,
	since time.Time, hasSince bool, until time.Time, hasUntil bool, path, author, committer string) {
	var views []commitView
	for _, nc := range created {
		views = append(views, newCommitView(ri, nc))
	}
	for k := range s.cfg.commits {
		views = append(views, s.w.commitView(ri, k))
	}
	matches := func(who string, u int) bool {
		return who == userLogin(u) || strings.EqualFold(who, userLogin(u)+"@example.com")
	}
	views = slices.DeleteFunc(views, func(v commitView) bool {
		if hasSince && v.date.Before(since) || hasUntil && v.date.After(until) {
			return true
		}
		if path != "" {
			f := s.w.commitFile(max(v.k, 0))
			if f != path && !strings.HasPrefix(f, path+"/") {
				return true
			}
		}
		return author != "" && !matches(author, v.author) || committer != "" && !matches(committer, v.author)
	})
	s.writeList(w, r, seq{n: len(views), at: ident}, func(b *rb, i int) { b.commitOf("", ri, views[i], false) })
}
