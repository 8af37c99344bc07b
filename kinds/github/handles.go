package github

import (
	"context"
	"iter"
	"reflect"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/pagination"
)

// Paging selects a page: PerPage (1 to 100; GitHub's default is 30) and
// Page (from 1). Zero fields are not sent.
type Paging struct {
	PerPage int `param:"per_page"`
	Page    int `param:"page"`
}

// RepoRef names a repository: Owner/Repo.
type RepoRef struct {
	Owner string `param:"owner"`
	Repo  string `param:"repo"`
}

// RepoListParams are the params of the repository lists that take nothing
// but paging: releases, labels, tags, stargazers.
type RepoListParams struct {
	RepoRef
	Paging
}

// RepositoryListParams are the params of repositories.list.
type RepositoryListParams struct {
	// Username is the user (or organization) whose repositories to list;
	// without it, every repository the credentials can read (GET /user/repos).
	Username string `param:"username"`
	// Type is all, owner (GitHub's default with Username) or member.
	Type string `param:"type"`
	// Sort is created, updated, pushed or full_name (default).
	Sort string `param:"sort"`
	// Direction is asc or desc.
	Direction string `param:"direction"`
	Paging
}

// OrgRepositoryListParams are the params of org_repositories.list.
type OrgRepositoryListParams struct {
	// Org is required.
	Org string `param:"org"`
	// Type is all (default), public, private, forks, sources, member or
	// internal (GitHub Enterprise).
	Type string `param:"type"`
	// Sort is created (default), updated, pushed or full_name.
	Sort      string `param:"sort"`
	Direction string `param:"direction"`
	Paging
}

// ViewerRepositoryListParams are the params of viewer_repositories.list.
type ViewerRepositoryListParams struct {
	// Visibility is all, public or private.
	Visibility string `param:"visibility"`
	// Affiliation is a comma-separated list of owner, collaborator,
	// organization_member.
	Affiliation string `param:"affiliation"`
	// Type is all, owner, public, private or member; not together with
	// Visibility or Affiliation.
	Type      string `param:"type"`
	Sort      string `param:"sort"`
	Direction string `param:"direction"`
	// Since and Before bound the last update time.
	Since  time.Time `param:"since"`
	Before time.Time `param:"before"`
	Paging
}

// BranchListParams are the params of branches.list.
type BranchListParams struct {
	RepoRef
	// Protected lists only protected (true) or unprotected (false) branches.
	Protected *bool `param:"protected"`
	Paging
}

// CommitListParams are the params of commits.list.
type CommitListParams struct {
	RepoRef
	// SHA is the branch or commit to start from (default: the default branch).
	SHA string `param:"sha"`
	// Path lists only commits touching this file path.
	Path string `param:"path"`
	// Author and Committer are GitHub logins or email addresses.
	Author    string `param:"author"`
	Committer string `param:"committer"`
	// Since and Until bound the commit time.
	Since time.Time `param:"since"`
	Until time.Time `param:"until"`
	Paging
}

// ReleaseAssetListParams are the params of release_assets.list.
type ReleaseAssetListParams struct {
	RepoRef
	// ReleaseID is required.
	ReleaseID int64 `param:"release_id"`
	Paging
}

// IssueListParams are the params of issues.list.
type IssueListParams struct {
	RepoRef
	// Milestone is a milestone number, * (any) or none.
	Milestone string `param:"milestone"`
	// State is open (GitHub's default), closed or all.
	State string `param:"state"`
	// Assignee is a login, * (any) or none.
	Assignee  string `param:"assignee"`
	Creator   string `param:"creator"`
	Mentioned string `param:"mentioned"`
	// Labels is a comma-separated list of label names, all required.
	Labels string `param:"labels"`
	// Sort is created (default), updated or comments.
	Sort string `param:"sort"`
	// Direction is asc or desc (default).
	Direction string `param:"direction"`
	// Since lists only issues updated at or after this time.
	Since time.Time `param:"since"`
	Paging
}

// PullRequestListParams are the params of pull_requests.list.
type PullRequestListParams struct {
	RepoRef
	// State is open (GitHub's default), closed or all.
	State string `param:"state"`
	// Head is user:ref-name or organization:ref-name.
	Head string `param:"head"`
	// Base is the base branch name.
	Base string `param:"base"`
	// Sort is created (default), updated, popularity or long-running.
	Sort      string `param:"sort"`
	Direction string `param:"direction"`
	Paging
}

// ReviewListParams are the params of reviews.list.
type ReviewListParams struct {
	RepoRef
	// PullNumber is required.
	PullNumber int64 `param:"pull_number"`
	Paging
}

// CommentListParams are the params of comments.list.
type CommentListParams struct {
	RepoRef
	// IssueNumber is an issue or pull request number; without it (zero),
	// the comments of every issue of the repository.
	IssueNumber int64 `param:"issue_number"`
	// Since lists only comments updated at or after this time.
	Since time.Time `param:"since"`
	Paging
}

// PRCommentListParams are the params of pr_comments.list.
type PRCommentListParams struct {
	RepoRef
	// PullNumber is required.
	PullNumber int64 `param:"pull_number"`
	// Sort is created (default) or updated; Direction asc or desc.
	Sort      string    `param:"sort"`
	Direction string    `param:"direction"`
	Since     time.Time `param:"since"`
	Paging
}

// MilestoneListParams are the params of milestones.list.
type MilestoneListParams struct {
	RepoRef
	// State is open (GitHub's default), closed or all.
	State string `param:"state"`
	// Sort is due_on (default) or completeness.
	Sort      string `param:"sort"`
	Direction string `param:"direction"`
	Paging
}

// OrganizationListParams are the params of organizations.list.
type OrganizationListParams struct {
	// Username is the user whose public memberships to list; without it,
	// the organizations of the authenticated user (GET /user/orgs).
	Username string `param:"username"`
	Paging
}

// UserListParams are the params of users.list (members of an organization).
type UserListParams struct {
	// Org is required.
	Org string `param:"org"`
	// Filter is all (default) or 2fa_disabled.
	Filter string `param:"filter"`
	// Role is all (default), admin or member.
	Role string `param:"role"`
	Paging
}

// TeamListParams are the params of teams.list.
type TeamListParams struct {
	// Org is required.
	Org string `param:"org"`
	Paging
}

// ViewerParams are the params of lists without any (none but paging).
type ViewerParams struct {
	Paging
}

// DirectoryListParams are the params of directory_content.list.
type DirectoryListParams struct {
	RepoRef
	// Path is required: the directory, "/" for the repository's root.
	Path string `param:"path"`
	// Ref is a branch, tag or commit (default: the default branch).
	Ref string `param:"ref"`
}

// FileParams name one file of a repository, for file_content get and
// download.
type FileParams struct {
	RepoRef
	// Path is the file's path (slashes allowed).
	Path string `param:"path"`
	// Ref is a branch, tag or commit (default: the default branch).
	Ref string `param:"ref"`
	// RangeHeader, for a download, selects bytes: bytes=<first>-<last>.
	RangeHeader string `param:"range_header"`
}

// SearchParams are the params of an api_search.
type SearchParams struct {
	// Q is required: GitHub search syntax.
	Q string `param:"q"`
	// Sort is a sort field of the entity's search (default: best match).
	Sort string `param:"sort"`
	// Order is desc (default) or asc.
	Order string `param:"order"`
	Paging
}

// RepoItems is a typed handle on an entity of a repository that is read
// one at a time by a key of type K (a number, a name, a ref).
type RepoItems[T, P, K any] struct {
	tributary.Handle[T, P]
	key string
}

// Get reads the record of owner/repo with this key.
func (h RepoItems[T, P, K]) Get(ctx context.Context, owner, repo string, key K) (T, error) {
	return h.Handle.Get(ctx, tributary.Params{"owner": owner, "repo": repo, h.key: key})
}

// Searcher runs an entity's api_search with typed results.
type Searcher[T any] struct {
	c      *Client
	entity string
}

// Search reads one page of results.
func (s Searcher[T]) Search(ctx context.Context, p SearchParams) (*pagination.Page[T], error) {
	params, err := tributary.EncodeParams(p)
	if err != nil {
		return nil, s.paramErr(err)
	}
	page, err := s.c.APISearch(ctx, s.entity, params)
	if err != nil {
		return nil, err
	}
	out := &pagination.Page[T]{Items: make([]T, len(page.Records)), Meta: page.Meta, Next: page.Next}
	for i, r := range page.Records {
		if err := r.Decode(&out.Items[i]); err != nil {
			return nil, s.decodeErr(err)
		}
	}
	return out, nil
}

// SearchAll yields every reachable result; see Client.SearchAll for the
// error that ends a search cut short by GitHub's 1,000-result cap.
func (s Searcher[T]) SearchAll(ctx context.Context, p SearchParams) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		params, err := tributary.EncodeParams(p)
		if err != nil {
			yield(zero, s.paramErr(err))
			return
		}
		for rec, err := range s.c.SearchAll(ctx, s.entity, params) {
			if err != nil {
				yield(zero, err)
				return
			}
			var v T
			if err := rec.Decode(&v); err != nil {
				yield(zero, s.decodeErr(err))
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

func (s Searcher[T]) paramErr(err error) error {
	return &tributary.Error{Kind: Type, Entity: s.entity, Action: apiSearch, Err: tributary.ErrInvalidParams, Message: err.Error()}
}

func (s Searcher[T]) decodeErr(err error) error {
	return &tributary.Error{Kind: Type, Entity: s.entity, Action: apiSearch, Err: tributary.ErrUnexpectedResponse, Message: "expected a search result that decodes into " + reflect.TypeFor[T]().String() + ", got: " + err.Error(), Cause: err}
}

// SearchableRepoItems is RepoItems with the entity's api_search.
type SearchableRepoItems[T, P, K any] struct {
	RepoItems[T, P, K]
	Searcher[T]
}

// Repositories is the typed handle on repositories.
type Repositories struct {
	tributary.Handle[Repository, RepositoryListParams]
	Searcher[Repository]
}

// Get reads owner/repo.
func (h Repositories) Get(ctx context.Context, owner, repo string) (Repository, error) {
	return h.Handle.Get(ctx, tributary.Params{"owner": owner, "repo": repo})
}

// Users is the typed handle on users.
type Users struct {
	tributary.Handle[User, UserListParams]
	Searcher[User]
}

// Get reads the user with this login.
func (h Users) Get(ctx context.Context, username string) (User, error) {
	return h.Handle.Get(ctx, tributary.Params{"username": username})
}

// Organizations is the typed handle on organizations.
type Organizations struct {
	tributary.Handle[Organization, OrganizationListParams]
}

// Get reads the organization with this login.
func (h Organizations) Get(ctx context.Context, org string) (Organization, error) {
	return h.Handle.Get(ctx, tributary.Params{"org": org})
}

// Teams is the typed handle on teams.
type Teams struct {
	tributary.Handle[Team, TeamListParams]
}

// Get reads the team of org with this slug.
func (h Teams) Get(ctx context.Context, org, slug string) (Team, error) {
	return h.Handle.Get(ctx, tributary.Params{"org": org, "team_slug": slug})
}

func handle[T, P any](c *Client, entity string) tributary.Handle[T, P] {
	return tributary.Handle[T, P]{Conn: c, Entity: entity}
}

func repoItems[T, P, K any](c *Client, entity, key string) RepoItems[T, P, K] {
	return RepoItems[T, P, K]{Handle: handle[T, P](c, entity), key: key}
}

// Repositories is the typed handle on repositories: List by user, Get by
// owner and name, Search.
func (c *Client) Repositories() Repositories {
	return Repositories{Handle: handle[Repository, RepositoryListParams](c, "repositories"), Searcher: Searcher[Repository]{c, "repositories"}}
}

// OrgRepositories is the typed handle on org_repositories (list only).
func (c *Client) OrgRepositories() tributary.Handle[Repository, OrgRepositoryListParams] {
	return handle[Repository, OrgRepositoryListParams](c, "org_repositories")
}

// ViewerRepositories is the typed handle on viewer_repositories (list only).
func (c *Client) ViewerRepositories() tributary.Handle[Repository, ViewerRepositoryListParams] {
	return handle[Repository, ViewerRepositoryListParams](c, "viewer_repositories")
}

// Branches is the typed handle on branches; Get takes the branch name.
func (c *Client) Branches() RepoItems[Branch, BranchListParams, string] {
	return repoItems[Branch, BranchListParams, string](c, "branches", "branch")
}

// Commits is the typed handle on commits; Get takes a SHA, branch or tag.
func (c *Client) Commits() RepoItems[Commit, CommitListParams, string] {
	return repoItems[Commit, CommitListParams, string](c, "commits", "ref")
}

// Releases is the typed handle on releases; Get takes the tag name.
func (c *Client) Releases() RepoItems[Release, RepoListParams, string] {
	return repoItems[Release, RepoListParams, string](c, "releases", "tag")
}

// ReleaseAssets is the typed handle on release_assets; Get takes the asset
// id (DownloadReleaseAsset reads its bytes).
func (c *Client) ReleaseAssets() RepoItems[ReleaseAsset, ReleaseAssetListParams, int64] {
	return repoItems[ReleaseAsset, ReleaseAssetListParams, int64](c, "release_assets", "asset_id")
}

// Issues is the typed handle on issues (pull requests left out); Get takes
// the issue number; Search adds is:issue to the query.
func (c *Client) Issues() SearchableRepoItems[Issue, IssueListParams, int64] {
	return SearchableRepoItems[Issue, IssueListParams, int64]{repoItems[Issue, IssueListParams, int64](c, "issues", "issue_number"), Searcher[Issue]{c, "issues"}}
}

// PullRequests is the typed handle on pull_requests; Get takes the number;
// Search adds is:pr to the query (results are issue-shaped).
func (c *Client) PullRequests() SearchableRepoItems[PullRequest, PullRequestListParams, int64] {
	return SearchableRepoItems[PullRequest, PullRequestListParams, int64]{repoItems[PullRequest, PullRequestListParams, int64](c, "pull_requests", "pull_number"), Searcher[PullRequest]{c, "pull_requests"}}
}

// Reviews is the typed handle on reviews (list only).
func (c *Client) Reviews() tributary.Handle[Review, ReviewListParams] {
	return handle[Review, ReviewListParams](c, "reviews")
}

// Comments is the typed handle on issue comments; Get takes the comment id.
func (c *Client) Comments() RepoItems[Comment, CommentListParams, int64] {
	return repoItems[Comment, CommentListParams, int64](c, "comments", "comment_id")
}

// PRComments is the typed handle on pull request review comments; Get
// takes the comment id.
func (c *Client) PRComments() RepoItems[PRComment, PRCommentListParams, int64] {
	return repoItems[PRComment, PRCommentListParams, int64](c, "pr_comments", "comment_id")
}

// Labels is the typed handle on labels; Get takes the label name.
func (c *Client) Labels() RepoItems[Label, RepoListParams, string] {
	return repoItems[Label, RepoListParams, string](c, "labels", "name")
}

// Tags is the typed handle on tags (list only).
func (c *Client) Tags() tributary.Handle[Tag, RepoListParams] {
	return handle[Tag, RepoListParams](c, "tags")
}

// Milestones is the typed handle on milestones; Get takes the number.
func (c *Client) Milestones() RepoItems[Milestone, MilestoneListParams, int64] {
	return repoItems[Milestone, MilestoneListParams, int64](c, "milestones", "milestone_number")
}

// Organizations is the typed handle on organizations.
func (c *Client) Organizations() Organizations {
	return Organizations{handle[Organization, OrganizationListParams](c, "organizations")}
}

// Users is the typed handle on users: List the members of an
// organization, Get by login, Search.
func (c *Client) Users() Users {
	return Users{Handle: handle[User, UserListParams](c, "users"), Searcher: Searcher[User]{c, "users"}}
}

// Teams is the typed handle on teams.
func (c *Client) Teams() Teams {
	return Teams{handle[Team, TeamListParams](c, "teams")}
}

// Stargazers is the typed handle on stargazers (list only).
func (c *Client) Stargazers() tributary.Handle[SimpleUser, RepoListParams] {
	return handle[SimpleUser, RepoListParams](c, "stargazers")
}

// DirectoryContent is the typed handle on directory_content (list only,
// not paged).
func (c *Client) DirectoryContent() tributary.Handle[DirectoryContent, DirectoryListParams] {
	return handle[DirectoryContent, DirectoryListParams](c, "directory_content")
}

// Viewer reads the authenticated user.
func (c *Client) Viewer(ctx context.Context) (User, error) {
	return handle[User, ViewerParams](c, "viewer").Get(ctx, nil)
}

// FileContent reads a file's metadata and base64 content (files up to
// 1 MB carry their content inline; use DownloadFile for the bytes).
func (c *Client) FileContent(ctx context.Context, p FileParams) (FileContent, error) {
	p.RangeHeader = ""
	params, err := tributary.EncodeParams(p)
	if err != nil {
		return FileContent{}, &tributary.Error{Kind: Type, Entity: "file_content", Action: get, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	return handle[FileContent, ViewerParams](c, "file_content").Get(ctx, params)
}

// DownloadFile streams a file's raw bytes (the raw media type), with
// p.RangeHeader and resumption after a dropped connection. Close the stream.
func (c *Client) DownloadFile(ctx context.Context, p FileParams) (*download.Stream, error) {
	params, err := tributary.EncodeParams(p)
	if err != nil {
		return nil, &tributary.Error{Kind: Type, Entity: "file_content", Action: dl, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	return c.Download(ctx, "file_content", params)
}

// DownloadReleaseAsset streams a release asset's bytes from GitHub's object
// store (no credentials go there); rangeHeader ("" for the whole file)
// selects bytes=<first>-<last>. Close the stream.
func (c *Client) DownloadReleaseAsset(ctx context.Context, owner, repo string, assetID int64, rangeHeader string) (*download.Stream, error) {
	p := tributary.Params{"owner": owner, "repo": repo, "asset_id": assetID}
	if rangeHeader != "" {
		p["range_header"] = rangeHeader
	}
	return c.Download(ctx, "release_assets", p)
}
