package githubtest

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The origins of the URLs inside records are GitHub's own, whatever port
// the fake listens on, so that a record reads the same from every fake (a
// copy synced again from a new fake sees nothing updated) and holds no dead
// loopback URL. No client follows them: the next pages (the Link header) and
// downloads (the redirects of the asset and raw routes) lead to the fake.
const (
	// apiURL is the origin of the API URLs (url, *_url templates).
	apiURL = "https://api.github.com"
	// webURL is the origin of html_url and browser_download_url values.
	webURL = "https://github.com"
	// rawURL is the origin of the contents' download_url values.
	rawURL = "https://raw.githubusercontent.com"
)

// rb renders records; api is the origin of their API URLs (apiURL).
type rb struct {
	jw
	s   *Server
	w   *world
	api string
}

func itoa(i int) string { return strconv.Itoa(i) }

func nodeID(prefix string, id int64) string {
	return prefix + base64.RawURLEncoding.EncodeToString([]byte("0:"+strconv.FormatInt(id, 10)))
}

// account renders a simple-user object.
func (b *rb) account(k string, a account) {
	u := b.api + "/users/" + a.login
	b.obj(k)
	b.str("login", a.login)
	b.int("id", a.id)
	if a.org {
		b.str("node_id", nodeID("O_", a.id))
	} else {
		b.str("node_id", nodeID("U_", a.id))
	}
	b.str("avatar_url", "https://avatars.githubusercontent.com/u/"+strconv.FormatInt(a.id, 10)+"?v=4")
	b.str("gravatar_id", "")
	b.str("url", u)
	b.str("html_url", webURL+"/"+a.login)
	b.str("followers_url", u+"/followers")
	b.str("following_url", u+"/following{/other_user}")
	b.str("gists_url", u+"/gists{/gist_id}")
	b.str("starred_url", u+"/starred{/owner}{/repo}")
	b.str("subscriptions_url", u+"/subscriptions")
	b.str("organizations_url", u+"/orgs")
	b.str("repos_url", u+"/repos")
	b.str("events_url", u+"/events{/privacy}")
	b.str("received_events_url", u+"/received_events")
	if a.org {
		b.str("type", "Organization")
	} else {
		b.str("type", "User")
	}
	b.bool("site_admin", false)
}

func (b *rb) simpleUser(k string, a account) {
	b.account(k, a)
	b.endObj()
}

func (b *rb) poolUser(k string, u int) { b.simpleUser(k, b.w.user(u)) }

// userDetails adds the public-user fields to an open account object.
func (b *rb) userDetails(a account) {
	n := int(a.id)
	b.str("name", displayName(a))
	b.strOrNull("company", ifStr(n%3 == 0, "Example Co"))
	b.str("blog", "")
	b.strOrNull("location", ifStr(n%2 == 0, "Example City"))
	b.null("email")
	b.null("hireable")
	b.str("bio", "Synthetic account of the GitHub fake.")
	b.null("twitter_username")
	b.int("public_repos", int64(n%17))
	b.int("public_gists", int64(n%3))
	b.int("followers", int64(n%41))
	b.int("following", int64(n%7))
	b.time("created_at", epoch.Add(-time.Duration(n%900+30)*24*time.Hour))
	b.time("updated_at", epoch.Add(time.Duration(n%300)*24*time.Hour))
}

// ifStr returns s when c holds, else "".
func ifStr(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

func displayName(a account) string {
	if a.org {
		return "Octo Example Org " + a.login
	}
	if a.login == ViewerLogin {
		return "Octo Viewer"
	}
	return "User " + strings.TrimPrefix(a.login, "user-")
}

// publicUser renders a public-user object.
func (b *rb) publicUser(a account) {
	b.account("", a)
	b.userDetails(a)
	b.endObj()
}

// privateUser renders the private-user object of the authenticated user.
func (b *rb) privateUser(a account) {
	b.account("", a)
	b.userDetails(a)
	b.int("private_gists", 2)
	b.int("total_private_repos", 3)
	b.int("owned_private_repos", 3)
	b.int("disk_usage", 20480)
	b.int("collaborators", 1)
	b.bool("two_factor_authentication", true)
	b.obj("plan")
	b.str("name", "pro")
	b.int("space", 976562499)
	b.int("collaborators", 0)
	b.int("private_repos", 9999)
	b.endObj()
	b.endObj()
}

// searchUser renders a user-search-result-item.
func (b *rb) searchUser(a account) {
	b.account("", a)
	b.float("score", 1)
	b.endObj()
}

// ---- organizations and teams

func (b *rb) orgSimpleFields(login string) {
	id, _ := orgID(login)
	o := b.api + "/orgs/" + login
	b.str("login", login)
	b.int("id", id)
	b.str("node_id", nodeID("O_", id))
	b.str("url", o)
	b.str("repos_url", o+"/repos")
	b.str("events_url", o+"/events")
	b.str("hooks_url", o+"/hooks")
	b.str("issues_url", o+"/issues")
	b.str("members_url", o+"/members{/member}")
	b.str("public_members_url", o+"/public_members{/member}")
	b.str("avatar_url", "https://avatars.githubusercontent.com/u/"+strconv.FormatInt(id, 10)+"?v=4")
	b.str("description", "Synthetic organization "+login)
}

func (b *rb) orgSimple(login string) {
	b.obj("")
	b.orgSimpleFields(login)
	b.endObj()
}

// orgFull renders organization-full as an owner of the organization sees it.
func (b *rb) orgFull(k, login string) {
	id, _ := orgID(login)
	b.obj(k)
	b.orgSimpleFields(login)
	b.str("name", displayName(account{login: login, org: true}))
	b.str("company", "Example Co")
	b.str("blog", "https://example.com")
	b.str("location", "Example City")
	b.str("email", login+"@example.com")
	b.null("twitter_username")
	b.bool("is_verified", false)
	b.bool("has_organization_projects", true)
	b.bool("has_repository_projects", true)
	repos := 0
	if login == Owner {
		repos = b.w.cfg.repos
	}
	b.int("public_repos", int64(repos))
	b.int("public_gists", 0)
	b.int("followers", int64(b.w.cfg.users))
	b.int("following", 0)
	b.str("html_url", webURL+"/"+login)
	b.time("created_at", epoch.Add(-time.Duration(400+id%100)*24*time.Hour))
	b.str("type", "Organization")
	b.int("total_private_repos", int64(repos/4))
	b.int("owned_private_repos", int64(repos/4))
	b.int("private_gists", 0)
	b.int("disk_usage", int64(repos)*1024)
	b.int("collaborators", 2)
	b.str("billing_email", "billing@example.com")
	b.obj("plan")
	b.str("name", "team")
	b.int("space", 976562499)
	b.int("private_repos", 999999)
	b.int("filled_seats", int64(b.w.cfg.users+1))
	b.int("seats", int64(b.w.cfg.users+10))
	b.endObj()
	b.str("default_repository_permission", "read")
	b.bool("members_can_create_repositories", true)
	b.bool("two_factor_requirement_enabled", true)
	b.str("members_allowed_repository_creation_type", "all")
	b.bool("members_can_create_public_repositories", true)
	b.bool("members_can_create_private_repositories", true)
	b.bool("members_can_create_internal_repositories", false)
	b.bool("members_can_create_pages", true)
	b.bool("members_can_create_public_pages", true)
	b.bool("members_can_create_private_pages", true)
	b.time("updated_at", epoch.Add(time.Duration(id%100)*24*time.Hour))
	b.endObj()
}

func (b *rb) teamFields(i int) {
	id := teamID(i)
	t := b.api + "/organizations/" + strconv.Itoa(OwnerID) + "/team/" + strconv.FormatInt(id, 10)
	b.int("id", id)
	b.str("node_id", nodeID("T_", id))
	b.str("url", t)
	b.str("html_url", webURL+"/orgs/"+Owner+"/teams/"+teamSlug(i))
	b.str("name", teamName(i))
	b.str("slug", teamSlug(i))
	b.str("description", teamName(i)+" team")
	b.str("privacy", "closed")
	b.str("permission", "pull")
	b.str("members_url", t+"/members{/member}")
	b.str("repositories_url", t+"/repos")
}

// team renders a team object (full adds the team-full fields).
func (b *rb) team(i int, full bool) {
	b.obj("")
	b.teamFields(i)
	if i >= 2 {
		b.obj("parent")
		b.teamFields(0)
		b.endObj()
	} else {
		b.null("parent")
	}
	if full {
		b.int("members_count", int64(min(b.w.cfg.users, 3+i)))
		b.int("repos_count", int64(min(b.w.cfg.repos, 1+i)))
		b.time("created_at", epoch.Add(time.Duration(i)*24*time.Hour))
		b.time("updated_at", epoch.Add(time.Duration(i+30)*24*time.Hour))
		b.orgFull("organization", Owner)
	}
	b.endObj()
}

// ---- repositories

type repoVariant int

const (
	repoMinimal repoVariant = iota // minimal-repository: lists
	repoPlain                      // repository: /user/repos, pull request head and base
	repoFull                       // full-repository: repositories.get
	repoSearch                     // repo-search-result-item
)

func (b *rb) repo(k string, ri int, v repoVariant) {
	name := repoName(ri)
	full := Owner + "/" + name
	u := b.api + "/repos/" + full
	id := int64(RepoID + ri)
	b.obj(k)
	b.int("id", id)
	b.str("node_id", nodeID("R_", id))
	b.str("name", name)
	b.str("full_name", full)
	b.bool("private", repoPrivate(ri))
	b.simpleUser("owner", ownerAccount())
	b.str("html_url", webURL+"/"+full)
	b.str("description", "Synthetic repository "+name)
	b.bool("fork", false)
	b.str("url", u)
	b.str("forks_url", u+"/forks")
	b.str("keys_url", u+"/keys{/key_id}")
	b.str("collaborators_url", u+"/collaborators{/collaborator}")
	b.str("teams_url", u+"/teams")
	b.str("hooks_url", u+"/hooks")
	b.str("issue_events_url", u+"/issues/events{/number}")
	b.str("events_url", u+"/events")
	b.str("assignees_url", u+"/assignees{/user}")
	b.str("branches_url", u+"/branches{/branch}")
	b.str("tags_url", u+"/tags")
	b.str("blobs_url", u+"/git/blobs{/sha}")
	b.str("git_tags_url", u+"/git/tags{/sha}")
	b.str("git_refs_url", u+"/git/refs{/sha}")
	b.str("trees_url", u+"/git/trees{/sha}")
	b.str("statuses_url", u+"/statuses/{sha}")
	b.str("languages_url", u+"/languages")
	b.str("stargazers_url", u+"/stargazers")
	b.str("contributors_url", u+"/contributors")
	b.str("subscribers_url", u+"/subscribers")
	b.str("subscription_url", u+"/subscription")
	b.str("commits_url", u+"/commits{/sha}")
	b.str("git_commits_url", u+"/git/commits{/sha}")
	b.str("comments_url", u+"/comments{/number}")
	b.str("issue_comment_url", u+"/issues/comments{/number}")
	b.str("contents_url", u+"/contents/{+path}")
	b.str("compare_url", u+"/compare/{base}...{head}")
	b.str("merges_url", u+"/merges")
	b.str("archive_url", u+"/{archive_format}{/ref}")
	b.str("downloads_url", u+"/downloads")
	b.str("issues_url", u+"/issues{/number}")
	b.str("pulls_url", u+"/pulls{/number}")
	b.str("milestones_url", u+"/milestones{/number}")
	b.str("notifications_url", u+"/notifications{?since,all,participating}")
	b.str("labels_url", u+"/labels{/name}")
	b.str("releases_url", u+"/releases{/id}")
	b.str("deployments_url", u+"/deployments")
	created := repoCreated(ri)
	b.time("created_at", created)
	b.time("updated_at", repoPushed(ri))
	b.time("pushed_at", repoPushed(ri))
	b.str("git_url", "git://github.com/"+full+".git")
	b.str("ssh_url", "git@github.com:"+full+".git")
	b.str("clone_url", webURL+"/"+full+".git")
	b.str("svn_url", webURL+"/"+full)
	b.null("homepage")
	b.int("size", int64(1024+ri%4096))
	stars := int64(b.w.cfg.users)
	b.int("stargazers_count", stars)
	b.int("watchers_count", stars)
	b.str("language", repoLanguage(ri))
	b.bool("has_issues", true)
	b.bool("has_projects", true)
	b.bool("has_downloads", true)
	b.bool("has_wiki", ri%2 == 0)
	b.bool("has_pages", false)
	forks := int64(ri % 7)
	b.int("forks_count", forks)
	b.null("mirror_url")
	b.bool("archived", false)
	b.bool("disabled", false)
	open := int64(b.w.numbers - b.w.numbers/3)
	b.int("open_issues_count", open)
	b.obj("license")
	b.str("key", "mit")
	b.str("name", "MIT License")
	b.str("spdx_id", "MIT")
	b.str("url", b.api+"/licenses/mit")
	b.str("node_id", "MDc6TGljZW5zZTEz")
	b.endObj()
	b.bool("allow_forking", true)
	b.bool("is_template", false)
	b.arr("topics")
	b.str("", "synthetic")
	b.str("", strings.ToLower(repoLanguage(ri)))
	b.endArr()
	if repoPrivate(ri) {
		b.str("visibility", "private")
	} else {
		b.str("visibility", "public")
	}
	b.int("forks", forks)
	b.int("open_issues", open)
	b.int("watchers", stars)
	b.str("default_branch", "main")
	if v != repoSearch {
		b.obj("permissions")
		b.bool("admin", true)
		b.bool("maintain", true)
		b.bool("push", true)
		b.bool("triage", true)
		b.bool("pull", true)
		b.endObj()
	}
	if v == repoPlain || v == repoFull {
		b.bool("allow_squash_merge", true)
		b.bool("allow_merge_commit", true)
		b.bool("allow_rebase_merge", true)
		b.bool("allow_auto_merge", false)
		b.bool("delete_branch_on_merge", true)
	}
	if v == repoFull {
		b.null("temp_clone_token")
		b.simpleUser("organization", ownerAccount())
		b.int("network_count", forks)
		b.int("subscribers_count", int64(min(b.w.cfg.users, 5)))
	}
	if v == repoSearch {
		b.float("score", 1)
	}
	b.endObj()
}

// ---- labels, milestones, reactions

func (b *rb) label(k string, ri, li int) {
	d, _ := b.s.labelView(ri, li)
	id := labelID(ri, li)
	b.obj(k)
	b.int("id", id)
	b.str("node_id", nodeID("LA_", id))
	b.str("url", b.api+"/repos/"+Owner+"/"+repoName(ri)+"/labels/"+url.PathEscape(d.name))
	b.str("name", d.name)
	b.str("color", d.color)
	b.bool("default", li < len(labelDefs))
	b.str("description", d.description)
	b.endObj()
}

func (b *rb) milestone(k string, ri, m int) {
	full := Owner + "/" + repoName(ri)
	u := b.api + "/repos/" + full + "/milestones/" + itoa(m)
	id := milestoneID(ri, m)
	b.obj(k)
	b.str("url", u)
	b.str("html_url", webURL+"/"+full+"/milestone/"+itoa(m))
	b.str("labels_url", u+"/labels")
	b.int("id", id)
	b.str("node_id", nodeID("MI_", id))
	b.int("number", int64(m))
	b.str("title", "v0."+itoa(m))
	b.str("description", "Work planned for v0."+itoa(m))
	b.simpleUser("creator", viewerAccount())
	b.int("open_issues", int64(milestoneOpenIssues(m)))
	b.int("closed_issues", int64(milestoneClosedIssues(m)))
	due := milestoneDue(m)
	if milestoneClosed(m) {
		b.str("state", "closed")
	} else {
		b.str("state", "open")
	}
	b.time("created_at", due.Add(-90*24*time.Hour))
	b.time("updated_at", due.Add(-24*time.Hour))
	b.time("due_on", due)
	if milestoneClosed(m) {
		b.time("closed_at", due)
	} else {
		b.null("closed_at")
	}
	b.endObj()
}

func (b *rb) reactions(u string, seed int) {
	plus, heart, eyes := int64(seed%4), int64(seed%3/2), int64(seed%5/4)
	b.obj("reactions")
	b.str("url", u+"/reactions")
	b.int("total_count", plus+heart+eyes)
	b.int("+1", plus)
	b.int("-1", 0)
	b.int("laugh", 0)
	b.int("hooray", 0)
	b.int("confused", 0)
	b.int("heart", heart)
	b.int("rocket", 0)
	b.int("eyes", eyes)
	b.endObj()
}

// ---- issues and pull requests

func (w *world) issueID(ri, x int) int64 { return 100000000 + int64(ri)*w.span + int64(x) }
func (w *world) pullID(ri, x int) int64  { return 300000000 + int64(ri)*w.span + int64(x) }

// issue renders number x as the issues endpoints do: an issue, or a pull
// request in issue shape (with a pull_request key). score adds the search
// score.
func (b *rb) issue(ri, x int, score bool) {
	w := b.w
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	u := repoURL + "/issues/" + itoa(x)
	v, _ := b.s.issueView(ri, x)
	id := v.id
	pr := w.isPR(x)
	b.obj("")
	b.str("url", u)
	b.str("repository_url", repoURL)
	b.str("labels_url", u+"/labels{/name}")
	b.str("comments_url", u+"/comments")
	b.str("events_url", u+"/events")
	if pr {
		b.str("html_url", webURL+"/"+full+"/pull/"+itoa(x))
	} else {
		b.str("html_url", webURL+"/"+full+"/issues/"+itoa(x))
	}
	b.int("id", id)
	b.str("node_id", nodeID("I_", id))
	b.int("number", int64(x))
	b.str("title", v.title)
	b.poolUser("user", w.creator(x))
	b.labels(ri, x)
	closed := v.closed
	if closed {
		b.str("state", "closed")
	} else {
		b.str("state", "open")
	}
	b.bool("locked", false)
	b.assigneeFields(x)
	if m := w.milestoneOf(x); m > 0 {
		b.milestone("milestone", ri, m)
	} else {
		b.null("milestone")
	}
	b.int("comments", int64(v.comments))
	b.time("created_at", v.created)
	b.time("updated_at", v.updated)
	if closed {
		b.time("closed_at", w.closedAt(x))
	} else {
		b.null("closed_at")
	}
	b.str("author_association", "MEMBER")
	b.null("active_lock_reason")
	switch {
	case !closed || pr:
		b.null("state_reason") // GitHub sends null for open issues and for pull requests
	case x%9 == 0:
		b.str("state_reason", "not_planned")
	default:
		b.str("state_reason", "completed")
	}
	if pr {
		b.bool("draft", x%7 == 0)
		b.obj("pull_request")
		b.str("url", repoURL+"/pulls/"+itoa(x))
		b.str("html_url", webURL+"/"+full+"/pull/"+itoa(x))
		b.str("diff_url", webURL+"/"+full+"/pull/"+itoa(x)+".diff")
		b.str("patch_url", webURL+"/"+full+"/pull/"+itoa(x)+".patch")
		if w.merged(x) {
			b.time("merged_at", w.closedAt(x))
		} else {
			b.null("merged_at")
		}
		b.endObj()
	}
	b.str("body", w.body(x))
	if !score { // closed_by is not part of search results
		if closed {
			b.simpleUser("closed_by", viewerAccount())
		} else {
			b.null("closed_by")
		}
	}
	b.reactions(u, x)
	b.str("timeline_url", u+"/timeline")
	b.null("performed_via_github_app")
	if score {
		b.float("score", 1)
	}
	b.endObj()
}

func (b *rb) labels(ri, x int) {
	b.arr("labels")
	for _, li := range b.w.issueLabels(x) {
		if _, ok := b.s.labelView(ri, li); ok {
			b.label("", ri, li)
		}
	}
	b.endArr()
}

func (b *rb) assigneeFields(x int) {
	as := b.w.assignees(x)
	if len(as) > 0 {
		b.poolUser("assignee", as[0])
	} else {
		b.null("assignee")
	}
	b.arr("assignees")
	for _, a := range as {
		b.poolUser("", a)
	}
	b.endArr()
}

// prHead is the head branch of pull request x.
func prHead(x int) string { return "feature-" + itoa(x) }

// prBase is the base branch of pull request x.
func prBase(x int) string {
	if x%4 == 1 {
		return "develop"
	}
	return "main"
}

func (b *rb) prRef(k string, ri int, ref string, commit int) {
	b.obj(k)
	b.str("label", Owner+":"+ref)
	b.str("ref", ref)
	b.str("sha", commitSHA(ri, commit))
	b.simpleUser("user", ownerAccount())
	b.repo("repo", ri, repoPlain)
	b.endObj()
}

func href(b *rb, k, v string) {
	b.obj(k)
	b.str("href", v)
	b.endObj()
}

// pull renders pull request x: pull-request-simple, or pull-request when full.
func (b *rb) pull(ri, x int, full bool) {
	w := b.w
	fullName := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + fullName
	u := repoURL + "/pulls/" + itoa(x)
	id := w.pullID(ri, x)
	head := x % max(w.cfg.commits, 1)
	headSHA := commitSHA(ri, head)
	html := webURL + "/" + fullName + "/pull/" + itoa(x)
	b.obj("")
	b.str("url", u)
	b.int("id", id)
	b.str("node_id", nodeID("PR_", id))
	b.str("html_url", html)
	b.str("diff_url", html+".diff")
	b.str("patch_url", html+".patch")
	b.str("issue_url", repoURL+"/issues/"+itoa(x))
	b.str("commits_url", u+"/commits")
	b.str("review_comments_url", u+"/comments")
	b.str("review_comment_url", repoURL+"/pulls/comments{/number}")
	b.str("comments_url", repoURL+"/issues/"+itoa(x)+"/comments")
	b.str("statuses_url", repoURL+"/statuses/"+headSHA)
	b.int("number", int64(x))
	closed := w.closed(x)
	if closed {
		b.str("state", "closed")
	} else {
		b.str("state", "open")
	}
	b.bool("locked", false)
	b.str("title", w.title(x))
	b.poolUser("user", w.creator(x))
	b.str("body", w.body(x))
	b.labels(ri, x)
	if m := w.milestoneOf(x); m > 0 {
		b.milestone("milestone", ri, m)
	} else {
		b.null("milestone")
	}
	b.null("active_lock_reason")
	b.time("created_at", w.created(x))
	b.time("updated_at", w.updated(x))
	if closed {
		b.time("closed_at", w.closedAt(x))
	} else {
		b.null("closed_at")
	}
	merged := w.merged(x)
	if merged {
		b.time("merged_at", w.closedAt(x))
	} else {
		b.null("merged_at")
	}
	b.str("merge_commit_sha", commitSHA(ri, (x+1)%max(w.cfg.commits, 1)))
	b.assigneeFields(x)
	b.arr("requested_reviewers")
	if !closed {
		b.simpleUser("", viewerAccount())
	}
	b.endArr()
	b.arr("requested_teams")
	if !closed && w.cfg.teams > 0 {
		b.obj("")
		b.teamFields(0)
		b.null("parent")
		b.endObj()
	}
	b.endArr()
	b.prRef("head", ri, prHead(x), head)
	b.prRef("base", ri, prBase(x), 0)
	b.obj("_links")
	href(b, "self", u)
	href(b, "html", html)
	href(b, "issue", repoURL+"/issues/"+itoa(x))
	href(b, "comments", repoURL+"/issues/"+itoa(x)+"/comments")
	href(b, "review_comments", u+"/comments")
	href(b, "review_comment", repoURL+"/pulls/comments{/number}")
	href(b, "commits", u+"/commits")
	href(b, "statuses", repoURL+"/statuses/"+headSHA)
	b.endObj()
	b.str("author_association", "MEMBER")
	b.null("auto_merge")
	b.bool("draft", x%7 == 0)
	if full {
		b.bool("merged", merged)
		if closed {
			b.null("mergeable")
			b.null("rebaseable")
			b.str("mergeable_state", "unknown")
		} else {
			b.bool("mergeable", true)
			b.bool("rebaseable", true)
			b.str("mergeable_state", "clean")
		}
		if merged {
			b.simpleUser("merged_by", viewerAccount())
		} else {
			b.null("merged_by")
		}
		b.int("comments", int64(w.comments(x)))
		b.int("review_comments", int64(w.prComments(x)))
		b.bool("maintainer_can_modify", false)
		b.int("commits", int64(1+x%5))
		b.int("additions", int64(10+x%90))
		b.int("deletions", int64(x%30))
		b.int("changed_files", int64(1+x%6))
	}
	b.endObj()
}

// ---- comments and reviews

func (w *world) prComments(x int) int  { return (x*3 + x/5) % (w.cfg.prComments + 1) }
func (w *world) reviewCount(x int) int { return x % (w.cfg.reviews + 1) }

func (w *world) commentID(ri, x, j int) int64 {
	return 3000000000 + (int64(ri)*w.span+int64(x))*int64(w.commentMod) + int64(j)
}

// commentIndex resolves an issue comment id.
func (w *world) commentIndex(ri int, id int64) (x, j int, ok bool) {
	v := id - 3000000000
	if v < 0 {
		return 0, 0, false
	}
	j = int(v % int64(w.commentMod))
	v /= int64(w.commentMod)
	if v/w.span != int64(ri) {
		return 0, 0, false
	}
	x = int(v % w.span)
	if x < 1 || x > w.numbers || j >= w.comments(x) {
		return 0, 0, false
	}
	return x, j, true
}

func (w *world) commentTime(x, j int) time.Time {
	return w.created(x).Add(time.Duration(j+1) * 2 * time.Hour)
}

func (b *rb) comment(ri int, c commentRef) {
	w := b.w
	x, id := c.x, c.id
	seed := x + c.j
	if c.j < 0 {
		seed = int(id % 97)
	}
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	u := repoURL + "/issues/comments/" + strconv.FormatInt(id, 10)
	b.obj("")
	b.str("url", u)
	kind := "issues"
	if w.isPR(x) {
		kind = "pull"
	}
	b.str("html_url", webURL+"/"+full+"/"+kind+"/"+itoa(x)+"#issuecomment-"+strconv.FormatInt(id, 10))
	b.str("issue_url", repoURL+"/issues/"+itoa(x))
	b.int("id", id)
	b.str("node_id", nodeID("IC_", id))
	b.poolUser("user", seed%w.cfg.users)
	b.time("created_at", c.created)
	b.time("updated_at", c.updated)
	b.str("author_association", "MEMBER")
	b.str("body", c.body)
	b.reactions(u, seed)
	b.null("performed_via_github_app")
	b.endObj()
}

func (w *world) reviewID(ri, x, j int) int64 {
	return 4000000000 + (int64(ri)*w.span+int64(x))*int64(w.cfg.reviews+1) + int64(j)
}

var reviewStates = [...]string{"COMMENTED", "CHANGES_REQUESTED", "COMMENTED"}

func (b *rb) review(ri, x, j int) {
	w := b.w
	full := Owner + "/" + repoName(ri)
	id := w.reviewID(ri, x, j)
	html := webURL + "/" + full + "/pull/" + itoa(x) + "#pullrequestreview-" + strconv.FormatInt(id, 10)
	prURL := b.api + "/repos/" + full + "/pulls/" + itoa(x)
	state := reviewStates[j%len(reviewStates)]
	if j == w.reviewCount(x)-1 && w.merged(x) {
		state = "APPROVED"
	}
	b.obj("")
	b.int("id", id)
	b.str("node_id", nodeID("PRR_", id))
	b.poolUser("user", (x+j+1)%w.cfg.users)
	b.str("body", commentBody(x, j+2))
	b.str("state", state)
	b.str("html_url", html)
	b.str("pull_request_url", prURL)
	b.str("author_association", "MEMBER")
	b.obj("_links")
	href(b, "html", html)
	href(b, "pull_request", prURL)
	b.endObj()
	b.time("submitted_at", w.created(x).Add(time.Duration(j+1)*3*time.Hour))
	b.str("commit_id", commitSHA(ri, x%max(w.cfg.commits, 1)))
	b.endObj()
}

func (w *world) prCommentID(ri, x, j int) int64 {
	return 5000000000 + (int64(ri)*w.span+int64(x))*int64(w.cfg.prComments+1) + int64(j)
}

// prCommentIndex resolves a pull request review comment id.
func (w *world) prCommentIndex(ri int, id int64) (x, j int, ok bool) {
	m := int64(w.cfg.prComments + 1)
	v := id - 5000000000
	if v < 0 {
		return 0, 0, false
	}
	j = int(v % m)
	v /= m
	if v/w.span != int64(ri) {
		return 0, 0, false
	}
	x = int(v % w.span)
	if x < 1 || x > w.numbers || !w.isPR(x) || j >= w.prComments(x) {
		return 0, 0, false
	}
	return x, j, true
}

func (b *rb) prComment(ri, x, j int) {
	w := b.w
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	id := w.prCommentID(ri, x, j)
	u := repoURL + "/pulls/comments/" + strconv.FormatInt(id, 10)
	html := webURL + "/" + full + "/pull/" + itoa(x) + "#discussion_r" + strconv.FormatInt(id, 10)
	prURL := repoURL + "/pulls/" + itoa(x)
	sha := commitSHA(ri, x%max(w.cfg.commits, 1))
	line := int64(10 + j)
	b.obj("")
	b.str("url", u)
	if n := w.reviewCount(x); n > 0 {
		b.int("pull_request_review_id", w.reviewID(ri, x, j%n))
	} else {
		b.null("pull_request_review_id")
	}
	b.int("id", id)
	b.str("node_id", nodeID("PRRC_", id))
	b.str("diff_hunk", "@@ -8,6 +8,8 @@ func main() {\n \tfmt.Println(\"hello\")\n+\tfmt.Println(\"more\")")
	b.str("path", w.blobPaths[(x+j)%len(w.blobPaths)])
	b.int("position", 3)
	b.int("original_position", 3)
	b.str("commit_id", sha)
	b.str("original_commit_id", sha)
	if j%2 == 1 {
		b.int("in_reply_to_id", w.prCommentID(ri, x, j-1))
	}
	b.poolUser("user", (x+2*j)%w.cfg.users)
	b.str("body", commentBody(x, j+4))
	t := w.created(x).Add(time.Duration(j+1) * 4 * time.Hour)
	b.time("created_at", t)
	b.time("updated_at", t)
	b.str("html_url", html)
	b.str("pull_request_url", prURL)
	b.str("author_association", "MEMBER")
	b.obj("_links")
	href(b, "self", u)
	href(b, "html", html)
	href(b, "pull_request", prURL)
	b.endObj()
	b.reactions(u, x+j)
	b.null("start_line")
	b.null("original_start_line")
	b.int("line", line)
	b.int("original_line", line)
	b.str("side", "RIGHT")
	b.endObj()
}

// ---- commits, branches, tags

func (b *rb) gitActor(k string, u int, t time.Time) {
	b.obj(k)
	b.str("name", "User "+itoa(u+1))
	b.str("email", userLogin(u)+"@example.com")
	b.time("date", t)
	b.endObj()
}

// commitView is what a commit renders from: a generated one (index k) or
// one a test created.
type commitView struct {
	sha, parent, message string
	node                 int64
	author               int
	date                 time.Time
	k                    int // generated index, or -1
}

func (w *world) commitView(ri, c int) commitView {
	v := commitView{sha: commitSHA(ri, c), node: int64(ri)<<32 | int64(c), author: w.commitAuthor(c), date: w.commitDate(c),
		message: w.commitMessage(c), k: c}
	if c+1 < w.cfg.commits {
		v.parent = commitSHA(ri, c+1)
	}
	return v
}

func newCommitView(ri int, nc newCommit) commitView {
	h := splitmix(uint64(len(nc.sha)) ^ uint64(nc.date.Unix()))
	return commitView{sha: nc.sha, parent: nc.parent, message: nc.message, node: int64(ri)<<32 | int64(h>>34) | 1<<31,
		author: nc.author, date: nc.date, k: -1}
}

func (b *rb) commit(k string, ri, c int, full bool) { b.commitOf(k, ri, b.w.commitView(ri, c), full) }

func (b *rb) commitOf(k string, ri int, v commitView, full bool) {
	w := b.w
	fullName := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + fullName
	sha := v.sha
	au := v.author
	t := v.date
	c := max(v.k, 0)
	tree := commitSHA(ri+1<<20, c)
	if v.k < 0 {
		tree = v.sha[20:] + v.sha[:20]
	}
	b.obj(k)
	b.str("sha", sha)
	b.str("node_id", nodeID("C_", v.node))
	b.obj("commit")
	b.gitActor("author", au, t)
	b.gitActor("committer", au, t)
	b.str("message", v.message)
	b.obj("tree")
	b.str("sha", tree)
	b.str("url", repoURL+"/git/trees/"+tree)
	b.endObj()
	b.str("url", repoURL+"/git/commits/"+sha)
	b.int("comment_count", 0)
	b.obj("verification")
	b.bool("verified", false)
	b.str("reason", "unsigned")
	b.null("signature")
	b.null("payload")
	b.endObj()
	b.endObj()
	b.str("url", repoURL+"/commits/"+sha)
	b.str("html_url", webURL+"/"+fullName+"/commit/"+sha)
	b.str("comments_url", repoURL+"/commits/"+sha+"/comments")
	b.poolUser("author", au)
	b.poolUser("committer", au)
	b.arr("parents")
	if p := v.parent; p != "" {
		b.obj("")
		b.str("sha", p)
		b.str("url", repoURL+"/commits/"+p)
		b.str("html_url", webURL+"/"+fullName+"/commit/"+p)
		b.endObj()
	}
	b.endArr()
	if full {
		add, del := int64(1+c%40), int64(c%13)
		b.obj("stats")
		b.int("total", add+del)
		b.int("additions", add)
		b.int("deletions", del)
		b.endObj()
		path := w.commitFile(c)
		f := w.fileIndex[path]
		b.arr("files")
		b.obj("")
		b.str("sha", f.sha)
		b.str("filename", path)
		b.str("status", "modified")
		b.int("additions", add)
		b.int("deletions", del)
		b.int("changes", add+del)
		b.str("blob_url", webURL+"/"+fullName+"/blob/"+sha+"/"+path)
		b.str("raw_url", webURL+"/"+fullName+"/raw/"+sha+"/"+path)
		b.str("contents_url", repoURL+"/contents/"+path+"?ref="+sha)
		b.str("patch", "@@ -1,3 +1,4 @@\n line one\n-line two\n+line 2\n+line three")
		b.endObj()
		b.endArr()
	}
	b.endObj()
}

func (b *rb) protection(protected bool) {
	b.obj("protection")
	b.bool("enabled", protected)
	b.obj("required_status_checks")
	if protected {
		b.str("enforcement_level", "non_admins")
		b.arr("contexts")
		b.str("", "ci")
		b.endArr()
		b.arr("checks")
		b.obj("")
		b.str("context", "ci")
		b.null("app_id")
		b.endObj()
		b.endArr()
	} else {
		b.str("enforcement_level", "off")
		b.arr("contexts")
		b.endArr()
		b.arr("checks")
		b.endArr()
	}
	b.endObj()
	b.endObj()
}

func (b *rb) shortBranch(ri, bi int) {
	br := b.w.branches[bi]
	repoURL := b.api + "/repos/" + Owner + "/" + repoName(ri)
	sha := commitSHA(ri, br.commit)
	b.obj("")
	b.str("name", br.name)
	b.obj("commit")
	b.str("sha", sha)
	b.str("url", repoURL+"/commits/"+sha)
	b.endObj()
	b.bool("protected", br.protected)
	b.protection(br.protected)
	b.str("protection_url", repoURL+"/branches/"+br.name+"/protection")
	b.endObj()
}

func (b *rb) fullBranch(ri, bi int) {
	br := b.w.branches[bi]
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	b.obj("")
	b.str("name", br.name)
	b.commit("commit", ri, br.commit, false)
	b.obj("_links")
	b.str("self", repoURL+"/branches/"+br.name)
	b.str("html", webURL+"/"+full+"/tree/"+br.name)
	b.endObj()
	b.bool("protected", br.protected)
	b.protection(br.protected)
	b.str("protection_url", repoURL+"/branches/"+br.name+"/protection")
	b.endObj()
}

func (b *rb) tag(ri, i int) {
	repoURL := b.api + "/repos/" + Owner + "/" + repoName(ri)
	tag := releaseTag(i)
	sha := commitSHA(ri, b.w.releaseCommit(i))
	b.obj("")
	b.str("name", tag)
	b.str("zipball_url", repoURL+"/zipball/refs/tags/"+tag)
	b.str("tarball_url", repoURL+"/tarball/refs/tags/"+tag)
	b.obj("commit")
	b.str("sha", sha)
	b.str("url", repoURL+"/commits/"+sha)
	b.endObj()
	b.str("node_id", nodeID("REF_", int64(ri)<<32|int64(i)))
	b.endObj()
}

// ---- releases and assets

func (b *rb) asset(k string, ri, i, a int) {
	w := b.w
	full := Owner + "/" + repoName(ri)
	id := w.assetID(ri, i, a)
	name := assetName(ri, a)
	t := w.releaseCreated(i).Add(time.Duration(a+1) * time.Minute)
	b.obj(k)
	b.str("url", b.api+"/repos/"+full+"/releases/assets/"+strconv.FormatInt(id, 10))
	b.int("id", id)
	b.str("node_id", nodeID("RA_", id))
	b.str("name", name)
	b.str("label", "")
	b.simpleUser("uploader", viewerAccount())
	b.str("content_type", assetContentType(name))
	b.str("state", "uploaded")
	b.int("size", int64(w.assetSize(i, a)))
	b.int("download_count", int64((i*13+a*5)%200))
	b.time("created_at", t)
	b.time("updated_at", t)
	b.str("browser_download_url", webURL+"/"+full+"/releases/download/"+releaseTag(i)+"/"+name)
	b.endObj()
}

func (b *rb) release(ri, i int) {
	w := b.w
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	id := w.releaseID(ri, i)
	u := repoURL + "/releases/" + strconv.FormatInt(id, 10)
	tag := releaseTag(i)
	t := w.releaseCreated(i)
	b.obj("")
	b.str("url", u)
	b.str("assets_url", u+"/assets")
	b.str("upload_url", "https://uploads.github.com/repos/"+full+"/releases/"+strconv.FormatInt(id, 10)+"/assets{?name,label}")
	b.str("html_url", webURL+"/"+full+"/releases/tag/"+tag)
	b.int("id", id)
	b.simpleUser("author", viewerAccount())
	b.str("node_id", nodeID("RE_", id))
	b.str("tag_name", tag)
	b.str("target_commitish", "main")
	b.str("name", "Release "+tag)
	b.bool("draft", false)
	b.bool("prerelease", releasePre(i))
	b.time("created_at", t)
	b.time("published_at", t.Add(10*time.Minute))
	b.arr("assets")
	for a := range w.cfg.assets {
		b.asset("", ri, i, a)
	}
	b.endArr()
	b.str("tarball_url", repoURL+"/tarball/"+tag)
	b.str("zipball_url", repoURL+"/zipball/"+tag)
	b.str("body", "Changes in "+tag+":\n\n- "+w.commitMessage(i)+"\n- "+w.commitMessage(i+1))
	b.reactions(u, i)
	b.int("mentions_count", 0)
	b.endObj()
}

// ---- contents

func (b *rb) contentEntry(ri int, f *repoFile, ref string, withContent bool) {
	full := Owner + "/" + repoName(ri)
	repoURL := b.api + "/repos/" + full
	self := repoURL + "/contents/" + escapePath(f.path) + "?ref=" + url.QueryEscape(ref)
	var git, html string
	if f.dir {
		git = repoURL + "/git/trees/" + f.sha
		html = webURL + "/" + full + "/tree/" + ref + "/" + escapePath(f.path)
	} else {
		git = repoURL + "/git/blobs/" + f.sha
		html = webURL + "/" + full + "/blob/" + ref + "/" + escapePath(f.path)
	}
	b.obj("")
	if withContent {
		b.str("type", "file")
		if len(f.content) > maxInlineContent {
			b.str("encoding", "none")
		} else {
			b.str("encoding", "base64")
		}
	}
	b.str("name", baseName(f.path))
	b.str("path", f.path)
	b.str("sha", f.sha)
	b.int("size", int64(len(f.content)))
	b.str("url", self)
	b.str("html_url", html)
	b.str("git_url", git)
	if f.dir {
		b.null("download_url")
	} else {
		b.str("download_url", rawURL+"/"+full+"/"+ref+"/"+escapePath(f.path))
	}
	if !withContent {
		if f.dir {
			b.str("type", "dir")
		} else {
			b.str("type", "file")
		}
	}
	if withContent {
		b.key("content")
		if len(f.content) > maxInlineContent {
			b.b = append(b.b, `"",`...)
		} else {
			b.b = appendWrappedBase64(b.b, f.content)
		}
	}
	b.obj("_links")
	b.str("self", self)
	b.str("git", git)
	b.str("html", html)
	b.endObj()
	b.endObj()
}

// maxInlineContent is the largest file whose content GitHub inlines in the
// contents response; larger files come with encoding "none" and no content.
const maxInlineContent = 1 << 20

// appendWrappedBase64 appends content as a JSON string of base64 lines of 60
// characters, each ended by a newline, as GitHub formats it.
func appendWrappedBase64(b, content []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(content)
	b = append(b, '"')
	for len(enc) > 0 {
		n := min(60, len(enc))
		b = append(b, enc[:n]...)
		b = append(b, '\\', 'n')
		enc = enc[n:]
	}
	return append(b, '"', ',')
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
