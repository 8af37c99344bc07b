package github

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "github"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
	dl        = tributary.ActionDownload
)

// ---- parameter builders

func required(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func optional(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func withDefault(p param, def any) param {
	p.Default = def
	return p
}

func number(name, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Required: true, Min: tributary.Bound(1), Doc: doc}
}

var (
	owner     = required("owner", "account (user or organization) that owns the repository")
	repo      = required("repo", "repository name, without the owner")
	perPage   = param{Name: "per_page", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(100), Default: 30, Doc: "records per page, 1 to 100"}
	page      = param{Name: "page", Type: tributary.TypeInteger, Min: tributary.Bound(1), Default: 1, Doc: "page number, from 1 (Meta next_page gives the following one)"}
	direction = optional("direction", "sort direction", "asc", "desc")
	since     = optional("since", "only records updated at or after this time (ISO 8601, YYYY-MM-DDTHH:MM:SSZ)")
	ref       = optional("ref", "branch, tag or commit SHA to read at (default: the repository's default branch)")
	rangeHdr  = param{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}
	q         = required("q", "GitHub search syntax: keywords and qualifiers, e.g. \"repo:octo/hello label:bug created:>2024-01-01\"")
	order     = withDefault(optional("order", "sort order of the results when sort is given", "desc", "asc"), "desc")
	state     = withDefault(optional("state", "only records in this state", "open", "closed", "all"), "open")
	repoPath  = required("path", "path of the file or directory in the repository, slashes allowed (\"docs/guide.md\"); \"/\" or \"\" is the root")
)

// paged appends per_page and page to the params of a list or search.
func paged(ps ...param) []param { return append(ps, perPage, page) }

// ---- routes

var (
	linkPaging = pagination.LinkHeader{}

	rawAccept   = map[string][]string{"Accept": {"application/vnd.github.raw+json"}}
	octetAccept = map[string][]string{"Accept": {"application/octet-stream"}}
)

// listRoute is a paged GitHub list: a bare JSON array with a Link header.
func listRoute(path string) engine.Route {
	return engine.Route{Path: path, Paging: linkPaging, Walk: walkPerPage}
}

// searchRoute is a GET /search/... route; qualifier, when set, is added to
// q unless q already says it.
func searchRoute(path, qualifier string) engine.Route {
	rt := engine.Route{Path: path, Records: "items", Paging: linkPaging, Walk: walkPerPage}
	if qualifier != "" {
		rt.Prepare = func(p tributary.Params) tributary.Params { return addQualifier(p, qualifier) }
	}
	return rt
}

// walkPerPage makes a full walk ask for 100 records a page (GitHub's
// maximum) unless the caller chose per_page or a starting page.
var walkPerPage = engine.WalkPageSize("per_page", 100, "page")

// addQualifier appends qualifier ("is:issue") to the q param unless one of
// its words already is that qualifier or its type: alias.
func addQualifier(p tributary.Params, qualifier string) tributary.Params {
	s, _ := p["q"].(string)
	if hasQualifier(s, qualifier) {
		return p
	}
	out := p.Clone()
	out["q"] = strings.TrimSpace(s + " " + qualifier)
	return out
}

func hasQualifier(query, qualifier string) bool {
	_, val, _ := strings.Cut(qualifier, ":")
	for _, w := range strings.Fields(query) {
		k, v, ok := strings.Cut(strings.ToLower(w), ":")
		if ok && (k == "is" || k == "type") && v == val {
			return true
		}
	}
	return false
}

// rootPath turns an empty path into "/" (the repository's root).
func rootPath(p tributary.Params) tributary.Params {
	if s, _ := p["path"].(string); s != "" {
		return p
	}
	out := p.Clone()
	out["path"] = "/"
	return out
}

// ---- the entities

// spec is one entity: its catalogue entry, record type, routes and
// searchable fields.
type spec struct {
	name   string
	doc    string
	record any      // zero value of the typed record
	find   []string // searchable fields (dotted paths into record), nil: no search
	list   []param  // nil: no list
	get    []param  // nil: no get
	search []param  // api_search params; nil: none
	dl     []param  // download params; nil: none
	routes map[action]engine.Route
	// lists, when set, are the list's routes (the first whose When
	// params are present), instead of routes[list].
	lists []engine.Route
	// scope builds the copy of a searchable entity (Entity.Scope), and
	// scoped are the searchable fields its parts set on their records
	// (Part.Fields), which GitHub does not send.
	scope  *tributary.Scope
	scoped []tributary.Field
	feed   *tributary.Feed // change feed; nil: kept by full walks
	// feedRoute reads the feed from an endpoint that is not one of the
	// entity's actions (the repository-wide comments list).
	feedRoute *engine.Route
}

func specs() []spec {
	ownerRepo := []param{owner, repo}
	inRepo := func(ps ...param) []param { return append([]param{owner, repo}, ps...) }
	return []spec{
		{name: "repositories", doc: "Repositories: those the credentials can read, of a user, of an organization or one named (list), one by owner and name (get), or found by GitHub's repository search (api_search).",
			record: Repository{},
			find: []string{"id", "node_id", "name", "full_name", "owner", "description", "html_url", "url", "private", "fork", "archived", "disabled",
				"is_template", "visibility", "language", "topics", "license", "default_branch", "homepage", "forks_count", "stargazers_count",
				"watchers_count", "open_issues_count", "size", "has_issues", "has_wiki", "created_at", "updated_at", "pushed_at"},
			list: paged(optional("username", "user (or organization: its public repositories) whose repositories to list (GET /users/{username}/repos)"),
				optional("org", "organization whose repositories to list, private ones included where the credentials can read them (GET /orgs/{org}/repos)"),
				optional("owner", "with repo: list that one repository (GET /repos/{owner}/{repo})"),
				optional("repo", "with owner: list that one repository"),
				optional("type", "which repositories: all, owner or member with username (default owner); all, public, private, forks, sources, member or internal with org (default all); all, owner, public, private or member with neither (default all; not together with visibility or affiliation)",
					"all", "owner", "member", "public", "private", "forks", "sources", "internal"),
				optional("visibility", "without username, org or owner: only repositories of this visibility (default all)", "all", "public", "private"),
				optional("affiliation", "without username, org or owner: comma-separated list of owner (the authenticated user's own), collaborator, organization_member (default all three)"),
				optional("sort", "sort field (default full_name; created with org)", "created", "updated", "pushed", "full_name"),
				param{Name: "direction", Type: tributary.TypeString, Enum: []string{"asc", "desc"}, Doc: "sort direction (default asc for full_name, else desc)"}),
			lists: []engine.Route{
				{Path: "/repos/{owner}/{repo}", When: []string{"owner", "repo"}, Paging: linkPaging, One: true},
				{Path: "/orgs/{org}/repos", When: []string{"org"}, Paging: linkPaging, Walk: walkPerPage},
				{Path: "/users/{username}/repos", When: []string{"username"}, Paging: linkPaging, Walk: walkPerPage},
				// Without username, org or owner and repo: every repository
				// the credentials can read.
				listRoute("/user/repos"),
			},
			scope:  repositoriesScope,
			get:    ownerRepo,
			search: paged(q, optional("sort", "sort field (default: best match)", "stars", "forks", "help-wanted-issues", "updated"), order),
			routes: map[action]engine.Route{
				get:       {Path: "/repos/{owner}/{repo}"},
				apiSearch: searchRoute("/search/repositories", ""),
			}},
		{name: "org_repositories", doc: "Repositories of an organization.", record: Repository{},
			list: paged(required("org", "organization login"),
				optional("type", "which repositories (default all; internal on GitHub Enterprise)", "all", "public", "private", "forks", "sources", "member", "internal"),
				withDefault(optional("sort", "sort field", "created", "updated", "pushed", "full_name"), "created"),
				param{Name: "direction", Type: tributary.TypeString, Enum: []string{"asc", "desc"}, Doc: "sort direction (default asc for full_name, else desc)"}),
			routes: map[action]engine.Route{list: listRoute("/orgs/{org}/repos")}},
		{name: "branches", doc: "Branches of a repository.", record: Branch{},
			scoped: []tributary.Field{repositoryField}, scope: keyedPerPart(perRepository("the branches"+repoScopeDoc, nil, false)),
			find: []string{"name", "protected", "commit.sha"},
			list: paged(owner, repo, param{Name: "protected", Type: tributary.TypeBoolean, Doc: "only protected (true) or unprotected (false) branches"}),
			get:  inRepo(required("branch", "branch name (slashes allowed)")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/branches"),
				get:  {Path: "/repos/{owner}/{repo}/branches/{branch}"},
			}},
		{name: "commits", doc: "Commits of a repository, newest first.", record: Commit{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the commits of the default branch, from replication_config.start_date (since) when set,"+repoScopeDoc, nil, true),
			find: []string{"sha", "node_id", "html_url", "url", "commit.message", "commit.author.name", "commit.author.email", "commit.author.date",
				"commit.committer.name", "commit.committer.email", "commit.committer.date", "author", "committer", "parents", "stats"},
			list: paged(owner, repo,
				optional("sha", "branch name or commit SHA to start listing from (default: the default branch)"),
				optional("path", "only commits touching this file path"),
				optional("author", "only commits by this GitHub login or email address"),
				optional("committer", "only commits committed by this GitHub login or email address"),
				optional("since", "only commits after this time (ISO 8601)"),
				optional("until", "only commits before this time (ISO 8601)")),
			get: inRepo(required("ref", "commit SHA, branch or tag name")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/commits"),
				get:  {Path: "/repos/{owner}/{repo}/commits/{ref}"},
			},
			feed: commitsFeed},
		{name: "releases", doc: "Releases of a repository, newest first (drafts only for users with push access).", record: Release{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the releases"+repoScopeDoc, nil, false),
			find: []string{"id", "node_id", "name", "tag_name", "target_commitish", "body", "draft", "prerelease", "author", "html_url", "url",
				"created_at", "published_at", "assets"},
			list: paged(owner, repo),
			get:  inRepo(required("tag", "tag name of the release")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/releases"),
				get:  {Path: "/repos/{owner}/{repo}/releases/tags/{tag}"},
			}},
		{name: "release_assets", doc: "Files attached to a release: metadata (list, get) and content (download).", record: ReleaseAsset{},
			list: paged(owner, repo, number("release_id", "release id")),
			get:  inRepo(number("asset_id", "asset id")),
			dl:   inRepo(number("asset_id", "asset id"), rangeHdr),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/releases/{release_id}/assets"),
				get:  {Path: "/repos/{owner}/{repo}/releases/assets/{asset_id}"},
				// GitHub answers application/octet-stream with a 302 to a
				// signed object-store URL; the transport follows it without
				// credentials.
				dl: {Path: "/repos/{owner}/{repo}/releases/assets/{asset_id}", Header: octetAccept},
			}},
		{name: "issues", doc: "Issues of a repository. GitHub's issues endpoint also returns pull requests; list drops them (use pull_requests), and api_search adds is:issue to q.",
			record: Issue{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the issues (state=all: closed ones too), updated since replication_config.start_date when set,"+repoScopeDoc, tributary.Params{"state": "all"}, true),
			find: []string{"id", "node_id", "number", "title", "body", "state", "state_reason", "locked", "user", "labels", "assignee", "assignees",
				"milestone", "comments", "author_association", "html_url", "url", "repository_url", "created_at", "updated_at", "closed_at"},
			list: paged(owner, repo,
				optional("milestone", "milestone number, * for any milestone, none for none"),
				state,
				optional("assignee", "login of an assignee, * for any, none for unassigned"),
				optional("creator", "login of the issue's author"),
				optional("mentioned", "login of a user mentioned in the issue"),
				optional("labels", "comma-separated label names; issues must have all of them"),
				withDefault(optional("sort", "sort field", "created", "updated", "comments"), "created"),
				withDefault(direction, "desc"),
				since),
			get:    inRepo(number("issue_number", "issue number")),
			search: paged(q, issueSearchSort, order),
			routes: map[action]engine.Route{
				list: func() engine.Route {
					rt := listRoute("/repos/{owner}/{repo}/issues")
					rt.Drop = "pull_request" // the issues endpoint also lists pull requests
					return rt
				}(),
				get:       {Path: "/repos/{owner}/{repo}/issues/{issue_number}"},
				apiSearch: searchRoute("/search/issues", "is:issue"),
			},
			feed: issuesFeed},
		{name: "pull_requests", doc: "Pull requests of a repository. api_search adds is:pr to q; its results are issue-shaped (no head or base).",
			record: PullRequest{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the pull requests (state=all: closed ones too)"+repoScopeDoc, tributary.Params{"state": "all"}, false),
			find: []string{"id", "node_id", "number", "title", "body", "state", "draft", "locked", "merged", "user", "labels", "assignees",
				"milestone", "head.ref", "head.sha", "base.ref", "author_association", "html_url", "url", "created_at", "updated_at",
				"closed_at", "merged_at", "merge_commit_sha"},
			list: paged(owner, repo,
				state,
				optional("head", "only pull requests from this head: user:ref-name or organization:ref-name"),
				optional("base", "only pull requests into this base branch"),
				withDefault(optional("sort", "sort field", "created", "updated", "popularity", "long-running"), "created"),
				param{Name: "direction", Type: tributary.TypeString, Enum: []string{"asc", "desc"}, Doc: "sort direction (default desc for sort=created, else asc)"}),
			get:    inRepo(number("pull_number", "pull request number")),
			search: paged(q, issueSearchSort, order),
			routes: map[action]engine.Route{
				list:      listRoute("/repos/{owner}/{repo}/pulls"),
				get:       {Path: "/repos/{owner}/{repo}/pulls/{pull_number}"},
				apiSearch: searchRoute("/search/issues", "is:pr"),
			}},
		{name: "reviews", doc: "Reviews of a pull request, oldest first.", record: Review{},
			scoped: []tributary.Field{repositoryField, pullNumberField}, scope: reviewsScope,
			find: []string{"id", "node_id", "state", "body", "user", "commit_id", "author_association", "html_url", "pull_request_url", "submitted_at"},
			list: paged(owner, repo, number("pull_number", "pull request number")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
			}},
		{name: "comments", doc: "Issue comments (also the conversation comments of pull requests): of one issue, or of every issue of a repository without issue_number.", record: Comment{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the issue comments (one repository-wide list each), updated since replication_config.start_date when set,"+repoScopeDoc, nil, true),
			find: []string{"id", "node_id", "body", "user", "author_association", "html_url", "url", "issue_url", "created_at", "updated_at"},
			list: paged(owner, repo, param{Name: "issue_number", Type: tributary.TypeInteger, Min: tributary.Bound(1),
				Doc: "issue or pull request number; without it, the comments of every issue of the repository (GET /repos/{owner}/{repo}/issues/comments)"}, since),
			get: inRepo(number("comment_id", "comment id")),
			lists: []engine.Route{
				{Path: "/repos/{owner}/{repo}/issues/{issue_number}/comments", When: []string{"issue_number"}, Paging: linkPaging, Walk: walkPerPage},
				listRoute("/repos/{owner}/{repo}/issues/comments"),
			},
			routes: map[action]engine.Route{
				get: {Path: "/repos/{owner}/{repo}/issues/comments/{comment_id}"},
			},
			feed:      commentsFeed,
			feedRoute: &engine.Route{Path: "/repos/{owner}/{repo}/issues/comments", Paging: linkPaging}},
		{name: "pr_comments", doc: "Review comments of a pull request (comments on lines of its diff).", record: PRComment{},
			list: paged(owner, repo, number("pull_number", "pull request number"),
				withDefault(optional("sort", "sort field", "created", "updated"), "created"),
				param{Name: "direction", Type: tributary.TypeString, Enum: []string{"asc", "desc"}, Doc: "sort direction (default asc)"},
				since),
			get: inRepo(number("comment_id", "review comment id")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/pulls/{pull_number}/comments"),
				get:  {Path: "/repos/{owner}/{repo}/pulls/comments/{comment_id}"},
			}},
		{name: "labels", doc: "Labels of a repository.", record: Label{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the labels"+repoScopeDoc, nil, false),
			find: []string{"id", "node_id", "name", "description", "color", "default", "url"},
			list: paged(owner, repo),
			get:  inRepo(required("name", "label name")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/labels"),
				get:  {Path: "/repos/{owner}/{repo}/labels/{name}"},
			}},
		{name: "tags", doc: "Tags of a repository.", record: Tag{},
			scoped: []tributary.Field{repositoryField}, scope: keyedPerPart(perRepository("the tags"+repoScopeDoc, nil, false)),
			find: []string{"name", "node_id", "commit.sha", "zipball_url", "tarball_url"},
			list: paged(owner, repo),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/tags"),
			}},
		{name: "milestones", doc: "Milestones of a repository.", record: Milestone{},
			scoped: []tributary.Field{repositoryField}, scope: perRepository("the milestones (state=all: closed ones too)"+repoScopeDoc, tributary.Params{"state": "all"}, false),
			find: []string{"id", "node_id", "number", "title", "description", "state", "creator", "open_issues", "closed_issues",
				"html_url", "url", "created_at", "updated_at", "closed_at", "due_on"},
			list: paged(owner, repo, state,
				withDefault(optional("sort", "sort field", "due_on", "completeness"), "due_on"),
				withDefault(direction, "asc")),
			get: inRepo(number("milestone_number", "milestone number")),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/milestones"),
				get:  {Path: "/repos/{owner}/{repo}/milestones/{milestone_number}"},
			}},
		{name: "organizations", doc: "Organizations: those of the authenticated user, or the public memberships of a user (list), or one organization (get).", record: Organization{},
			scope: organizationsScope,
			find: []string{"id", "node_id", "login", "name", "description", "company", "blog", "location", "email", "twitter_username",
				"is_verified", "public_repos", "followers", "html_url", "url", "created_at", "updated_at"},
			list: paged(optional("username", "user whose public organization memberships to list (GET /users/{username}/orgs); without it, the organizations of the authenticated user (GET /user/orgs)")),
			get:  []param{required("org", "organization login")},
			lists: []engine.Route{
				{Path: "/users/{username}/orgs", When: []string{"username"}, Paging: linkPaging, Walk: walkPerPage},
				listRoute("/user/orgs"),
			},
			routes: map[action]engine.Route{
				get: {Path: "/orgs/{org}"},
			}},
		{name: "users", doc: "Users: the members of an organization (list), one user (get), or found by GitHub's user search (api_search).",
			record: User{},
			scoped: []tributary.Field{orgField}, scope: keyedPerPart(perOrganization("the members of every organization of the authenticated user (GET /user/orgs)")),
			find: []string{"id", "node_id", "login", "name", "email", "company", "blog", "location", "bio", "twitter_username", "hireable",
				"type", "site_admin", "public_repos", "followers", "following", "html_url", "url", "created_at", "updated_at"},
			list: paged(required("org", "organization whose members to list"),
				withDefault(optional("filter", "2fa_disabled: only members without two-factor authentication (owners only)", "2fa_disabled", "all"), "all"),
				withDefault(optional("role", "only members of this role", "all", "admin", "member"), "all")),
			get:    []param{required("username", "user login")},
			search: paged(q, optional("sort", "sort field (default: best match)", "followers", "repositories", "joined"), order),
			routes: map[action]engine.Route{
				list:      listRoute("/orgs/{org}/members"),
				get:       {Path: "/users/{username}"},
				apiSearch: searchRoute("/search/users", ""),
			}},
		{name: "teams", doc: "Teams of an organization.", record: Team{},
			scoped: []tributary.Field{orgField}, scope: perOrganization("the teams of every organization of the authenticated user (GET /user/orgs)"),
			find: []string{"id", "node_id", "slug", "name", "description", "privacy", "permission", "parent", "members_count", "repos_count",
				"html_url", "url", "created_at", "updated_at"},
			list: paged(required("org", "organization login")),
			get:  []param{required("org", "organization login"), required("team_slug", "team slug (the team name in URL form)")},
			routes: map[action]engine.Route{
				list: listRoute("/orgs/{org}/teams"),
				get:  {Path: "/orgs/{org}/teams/{team_slug}"},
			}},
		{name: "stargazers", doc: "Users who starred a repository.", record: SimpleUser{},
			scoped: []tributary.Field{repositoryField}, scope: keyedPerPart(perRepository("the stargazers"+repoScopeDoc, nil, false)),
			find: []string{"id", "node_id", "login", "type", "site_admin", "html_url", "url"},
			list: paged(owner, repo),
			routes: map[action]engine.Route{
				list: listRoute("/repos/{owner}/{repo}/stargazers"),
			}},
		{name: "viewer", doc: "The authenticated user.", record: User{},
			get:    []param{},
			routes: map[action]engine.Route{get: {Path: "/user"}}},
		{name: "viewer_repositories", doc: "Repositories the authenticated user can access: owned, collaborator and organization member.", record: Repository{},
			list: paged(
				withDefault(optional("visibility", "only repositories of this visibility", "all", "public", "private"), "all"),
				withDefault(optional("affiliation", "comma-separated list of owner, collaborator, organization_member"), "owner,collaborator,organization_member"),
				optional("type", "which repositories (default all); not together with visibility or affiliation", "all", "owner", "public", "private", "member"),
				withDefault(optional("sort", "sort field", "created", "updated", "pushed", "full_name"), "full_name"),
				param{Name: "direction", Type: tributary.TypeString, Enum: []string{"asc", "desc"}, Doc: "sort direction (default asc for full_name, else desc)"},
				optional("since", "only repositories updated after this time (ISO 8601)"),
				optional("before", "only repositories updated before this time (ISO 8601)")),
			routes: map[action]engine.Route{list: listRoute("/user/repos")}},
		{name: "file_content", doc: "One file of a repository: metadata and base64 content (get, files up to 1 MB inline) or its raw bytes (download, up to 100 MB).",
			record: FileContent{},
			get:    inRepo(repoPath, ref),
			dl:     inRepo(repoPath, ref, rangeHdr),
			routes: map[action]engine.Route{
				get: {Path: "/repos/{owner}/{repo}/contents/{+path}", Prepare: rootPath},
				dl:  {Path: "/repos/{owner}/{repo}/contents/{+path}", Prepare: rootPath, Header: rawAccept},
			}},
		{name: "directory_content", doc: "Entries of a directory of a repository (GitHub does not page it; at most 1,000 entries).",
			record: DirectoryContent{},
			list:   inRepo(repoPath, ref),
			routes: map[action]engine.Route{
				// Not paged: the style only reports next_page and last_page as null.
				// A file path answers with the file's object: a page of that entry.
				list: {Path: "/repos/{owner}/{repo}/contents/{+path}", Prepare: rootPath, Paging: linkPaging, One: true},
			}},
	}
}

var issueSearchSort = optional("sort", "sort field (default: best match)", "comments", "reactions", "reactions-+1", "reactions--1",
	"reactions-smile", "reactions-thinking_face", "reactions-heart", "reactions-tada", "interactions", "created", "updated")

// catalogue builds the engine's view of the kind.
// Catalogue returns the code-hosting catalogue: every entity, its actions
// and their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"created_at", "updated_at", "closed_at", "merged_at", "pushed_at", "published_at", "submitted_at", "due_on", "commit.author.date", "commit.committer.date"}

func catalogue() []engine.Entity {
	var out []engine.Entity
	for _, s := range specs() {
		e := engine.Entity{Entity: tributary.Entity{Name: s.name, Doc: s.doc, Params: map[action][]param{}}, Routes: map[action][]engine.Route{}}
		add := func(a action, ps []param) {
			if ps == nil {
				return
			}
			e.Actions = append(e.Actions, a)
			e.Params[a] = ps
			e.Routes[a] = []engine.Route{s.routes[a]}
			if a == list && s.lists != nil {
				e.Routes[a] = s.lists
			}
		}
		add(list, s.list)
		add(get, s.get)
		add(apiSearch, s.search)
		add(dl, s.dl)
		e.Feed, e.FeedRoute = s.feed, s.feedRoute
		if s.find != nil {
			e.Actions = append(e.Actions, search)
			e.Params[search] = tributary.SearchParams()
			e.Searchable = append(searchable(s.record, s.find), s.scoped...)
			e.Scope = s.scope
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}

// searchable types each field path by the record struct's field of that
// JSON name. A path the record does not have is a programming error that
// TestSearchableFieldsExist catches; it is typed "any" here.
func searchable(record any, paths []string) []tributary.Field {
	out := make([]tributary.Field, 0, len(paths))
	for _, p := range paths {
		t, _ := fieldType(reflect.TypeOf(record), p)
		out = append(out, tributary.Field{Name: p, Type: t})
	}
	return out
}

// fieldType finds the Go type of the dotted JSON path in struct type t.
func fieldType(t reflect.Type, path string) (tributary.Type, error) {
	name, rest, nested := strings.Cut(path, ".")
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return tributary.TypeAny, fmt.Errorf("%s: not an object", path)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag != name {
			continue
		}
		if nested {
			return fieldType(f.Type, rest)
		}
		return typeOf(f.Type), nil
	}
	return tributary.TypeAny, fmt.Errorf("%s: no field %q in %s", path, name, t)
}

func typeOf(t reflect.Type) tributary.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return tributary.TypeAny
	}
	switch t.Kind() {
	case reflect.String:
		return tributary.TypeString
	case reflect.Int64, reflect.Int:
		return tributary.TypeInteger
	case reflect.Float64:
		return tributary.TypeNumber
	case reflect.Bool:
		return tributary.TypeBoolean
	case reflect.Slice:
		return tributary.TypeArray
	case reflect.Struct:
		return tributary.TypeObject
	}
	return tributary.TypeAny
}
