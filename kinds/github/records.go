// Typed records of the GitHub kind.
//
// Each entity of the kind has one record type whose fields are those GitHub's
// OpenAPI description gives the objects its endpoints return, with the wire
// names as JSON tags. Nullable values are pointers; nested objects are typed
// where they are commonly read (users, labels, milestones, reactions, commits)
// and json.RawMessage otherwise. Where one entity is served by several
// endpoints that return different variants of an object (list, get and search
// results), its type holds the union of their fields and the fields a variant
// does not carry stay at their zero value.

package github

import (
	"encoding/json"
	"strings"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// SimpleUser is the short user (or organization) object GitHub embeds in other records
// (schema simple-user). It is also the record of users.list and stargazers.list.
type SimpleUser struct {
	// Name and Email are present only in a few contexts (e.g. some event payloads).
	Name  *string `json:"name,omitempty"`
	Email *string `json:"email,omitempty"`
	Login string  `json:"login"`
	ID    int64   `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID       string  `json:"node_id"`
	AvatarURL    string  `json:"avatar_url"`
	GravatarID   *string `json:"gravatar_id"`
	URL          string  `json:"url"`
	HTMLURL      string  `json:"html_url"`
	FollowersURL string  `json:"followers_url"`
	// FollowingURL and the other *_url fields ending in a {template} are RFC 6570 URI templates.
	FollowingURL      string `json:"following_url"`
	GistsURL          string `json:"gists_url"`
	StarredURL        string `json:"starred_url"`
	SubscriptionsURL  string `json:"subscriptions_url"`
	OrganizationsURL  string `json:"organizations_url"`
	ReposURL          string `json:"repos_url"`
	EventsURL         string `json:"events_url"`
	ReceivedEventsURL string `json:"received_events_url"`
	// Type is "User", "Organization" or "Bot".
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
	// StarredAt is set only with the application/vnd.github.star+json media type.
	StarredAt string `json:"starred_at,omitempty"`
}

// Reactions is the reaction roll-up on issues, comments and releases (schema reaction-rollup).
type Reactions struct {
	URL        string `json:"url"`
	TotalCount int64  `json:"total_count"`
	PlusOne    int64  `json:"+1"`
	MinusOne   int64  `json:"-1"`
	Laugh      int64  `json:"laugh"`
	Confused   int64  `json:"confused"`
	Heart      int64  `json:"heart"`
	Hooray     int64  `json:"hooray"`
	Eyes       int64  `json:"eyes"`
	Rocket     int64  `json:"rocket"`
}

// Label is a repository label: the record of labels.list and labels.get (schema label),
// and the entries of an issue's or pull request's labels.
type Label struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	// Color is a six-digit hex RGB value without the leading "#".
	Color string `json:"color"`
	// Default reports whether GitHub created the label with the repository.
	Default bool `json:"default"`
}

// Milestone is a repository milestone: the record of milestones.list and milestones.get
// (schema milestone), also embedded in issues and pull requests.
type Milestone struct {
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	LabelsURL string `json:"labels_url"`
	ID        int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID string `json:"node_id"`
	Number int64  `json:"number"`
	// State is "open" or "closed".
	State        string      `json:"state"`
	Title        string      `json:"title"`
	Description  *string     `json:"description"`
	Creator      *SimpleUser `json:"creator"`
	OpenIssues   int64       `json:"open_issues"`
	ClosedIssues int64       `json:"closed_issues"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string `json:"updated_at"`
	// ClosedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z". Null while open.
	ClosedAt *string `json:"closed_at"`
	// DueOn is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z", or null.
	DueOn *string `json:"due_on"`
}

// License is the short license object embedded in repositories (schema license-simple).
type License struct {
	Key    string  `json:"key"`
	Name   string  `json:"name"`
	URL    *string `json:"url"`
	SPDXID *string `json:"spdx_id"`
	// NodeID is the GraphQL global node id.
	NodeID  string `json:"node_id"`
	HTMLURL string `json:"html_url,omitempty"`
}

// RepoPermissions are the caller's permissions on a repository.
type RepoPermissions struct {
	Admin    bool `json:"admin"`
	Pull     bool `json:"pull"`
	Triage   bool `json:"triage,omitempty"`
	Push     bool `json:"push"`
	Maintain bool `json:"maintain,omitempty"`
}

// Repository is the record of repositories.list (GET /users/{username}/repos),
// repositories.get (GET /repos/{owner}/{repo}), repositories.api_search
// (GET /search/repositories), org_repositories.list and viewer_repositories.list.
// It holds the fields of GitHub's full-repository, repository, minimal-repository and
// repo-search-result-item schemas; fields a variant does not carry stay at their zero value.
type Repository struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID           string      `json:"node_id"`
	Name             string      `json:"name"`
	FullName         string      `json:"full_name"`
	Owner            *SimpleUser `json:"owner"`
	Private          bool        `json:"private"`
	HTMLURL          string      `json:"html_url"`
	Description      *string     `json:"description"`
	Fork             bool        `json:"fork"`
	URL              string      `json:"url"`
	ArchiveURL       string      `json:"archive_url"`
	AssigneesURL     string      `json:"assignees_url"`
	BlobsURL         string      `json:"blobs_url"`
	BranchesURL      string      `json:"branches_url"`
	CollaboratorsURL string      `json:"collaborators_url"`
	CommentsURL      string      `json:"comments_url"`
	CommitsURL       string      `json:"commits_url"`
	CompareURL       string      `json:"compare_url"`
	ContentsURL      string      `json:"contents_url"`
	ContributorsURL  string      `json:"contributors_url"`
	DeploymentsURL   string      `json:"deployments_url"`
	DownloadsURL     string      `json:"downloads_url"`
	EventsURL        string      `json:"events_url"`
	ForksURL         string      `json:"forks_url"`
	GitCommitsURL    string      `json:"git_commits_url"`
	GitRefsURL       string      `json:"git_refs_url"`
	GitTagsURL       string      `json:"git_tags_url"`
	GitURL           string      `json:"git_url,omitempty"`
	IssueCommentURL  string      `json:"issue_comment_url"`
	IssueEventsURL   string      `json:"issue_events_url"`
	IssuesURL        string      `json:"issues_url"`
	KeysURL          string      `json:"keys_url"`
	LabelsURL        string      `json:"labels_url"`
	LanguagesURL     string      `json:"languages_url"`
	MergesURL        string      `json:"merges_url"`
	MilestonesURL    string      `json:"milestones_url"`
	NotificationsURL string      `json:"notifications_url"`
	PullsURL         string      `json:"pulls_url"`
	ReleasesURL      string      `json:"releases_url"`
	SSHURL           string      `json:"ssh_url,omitempty"`
	StargazersURL    string      `json:"stargazers_url"`
	StatusesURL      string      `json:"statuses_url"`
	SubscribersURL   string      `json:"subscribers_url"`
	SubscriptionURL  string      `json:"subscription_url"`
	TagsURL          string      `json:"tags_url"`
	TeamsURL         string      `json:"teams_url"`
	TreesURL         string      `json:"trees_url"`
	CloneURL         string      `json:"clone_url,omitempty"`
	MirrorURL        *string     `json:"mirror_url,omitempty"`
	HooksURL         string      `json:"hooks_url"`
	SVNURL           string      `json:"svn_url,omitempty"`
	Homepage         *string     `json:"homepage,omitempty"`
	Language         *string     `json:"language,omitempty"`
	ForksCount       int64       `json:"forks_count,omitempty"`
	StargazersCount  int64       `json:"stargazers_count,omitempty"`
	WatchersCount    int64       `json:"watchers_count,omitempty"`
	// Size is the repository size in kilobytes.
	Size          int64  `json:"size,omitempty"`
	DefaultBranch string `json:"default_branch,omitempty"`
	// OpenIssuesCount counts open issues and open pull requests.
	OpenIssuesCount int64    `json:"open_issues_count,omitempty"`
	IsTemplate      bool     `json:"is_template,omitempty"`
	Topics          []string `json:"topics,omitempty"`
	HasIssues       bool     `json:"has_issues,omitempty"`
	HasProjects     bool     `json:"has_projects,omitempty"`
	HasWiki         bool     `json:"has_wiki,omitempty"`
	HasPages        bool     `json:"has_pages,omitempty"`
	HasDownloads    bool     `json:"has_downloads,omitempty"`
	Archived        bool     `json:"archived,omitempty"`
	Disabled        bool     `json:"disabled,omitempty"`
	// Visibility is "public", "private" or "internal".
	Visibility string `json:"visibility,omitempty"`
	// PushedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	PushedAt *string `json:"pushed_at,omitempty"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt *string `json:"created_at,omitempty"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt          *string          `json:"updated_at,omitempty"`
	Permissions        *RepoPermissions `json:"permissions,omitempty"`
	AllowRebaseMerge   bool             `json:"allow_rebase_merge,omitempty"`
	TemplateRepository json.RawMessage  `json:"template_repository,omitempty"`
	// TempCloneToken is a short-lived clone token, sent only for private repositories.
	TempCloneToken      *string     `json:"temp_clone_token,omitempty"`
	AllowSquashMerge    bool        `json:"allow_squash_merge,omitempty"`
	AllowAutoMerge      bool        `json:"allow_auto_merge,omitempty"`
	DeleteBranchOnMerge bool        `json:"delete_branch_on_merge,omitempty"`
	AllowMergeCommit    bool        `json:"allow_merge_commit,omitempty"`
	AllowForking        bool        `json:"allow_forking,omitempty"`
	SubscribersCount    int64       `json:"subscribers_count,omitempty"`
	NetworkCount        int64       `json:"network_count,omitempty"`
	License             *License    `json:"license,omitempty"`
	Organization        *SimpleUser `json:"organization,omitempty"`
	// Parent and Source are set on forks by repositories.get.
	Parent *Repository `json:"parent,omitempty"`
	Source *Repository `json:"source,omitempty"`
	// Forks, OpenIssues and Watchers repeat ForksCount, OpenIssuesCount and WatchersCount.
	Forks int64 `json:"forks,omitempty"`
	// MasterBranch is a legacy alias of DefaultBranch.
	MasterBranch           string          `json:"master_branch,omitempty"`
	OpenIssues             int64           `json:"open_issues,omitempty"`
	Watchers               int64           `json:"watchers,omitempty"`
	AnonymousAccessEnabled bool            `json:"anonymous_access_enabled,omitempty"`
	CodeOfConduct          json.RawMessage `json:"code_of_conduct,omitempty"`
	SecurityAndAnalysis    json.RawMessage `json:"security_and_analysis,omitempty"`
	// StarredAt is set only with the application/vnd.github.star+json media type.
	StarredAt string `json:"starred_at,omitempty"`
	// Score is the search relevance; set only on api_search results.
	Score float64 `json:"score,omitempty"`
	// TextMatches is set only on api_search results requested with the text-match media type.
	TextMatches []json.RawMessage `json:"text_matches,omitempty"`
}

// UnmarshalJSON decodes a repository object, or the "owner/repo" string a
// copy sets as the repository field of the records it reads per
// repository (an issue's repository, which GitHub's repository lists do
// not send): FullName, Name and Owner.Login are set from it.
func (r *Repository) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		owner, name, _ := strings.Cut(s, "/")
		*r = Repository{FullName: s, Name: name, Owner: &SimpleUser{Login: owner}}
		return nil
	}
	type plain Repository
	return json.Unmarshal(b, (*plain)(r))
}

// OrgRepository is the record of org_repositories.list (GET /orgs/{org}/repos).
type OrgRepository = Repository

// ViewerRepository is the record of viewer_repositories.list (GET /user/repos).
type ViewerRepository = Repository

// User is the record of users.get (GET /users/{username}), users.api_search
// (GET /search/users) and viewer.get (GET /user). It holds the fields of the private-user,
// public-user and user-search-result-item schemas: the private-user fields (plan, disk usage,
// private repository counts, two-factor status) are sent only for the authenticated user.
type User struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID            string  `json:"node_id"`
	AvatarURL         string  `json:"avatar_url"`
	GravatarID        *string `json:"gravatar_id"`
	URL               string  `json:"url"`
	HTMLURL           string  `json:"html_url"`
	FollowersURL      string  `json:"followers_url"`
	FollowingURL      string  `json:"following_url"`
	GistsURL          string  `json:"gists_url"`
	StarredURL        string  `json:"starred_url"`
	SubscriptionsURL  string  `json:"subscriptions_url"`
	OrganizationsURL  string  `json:"organizations_url"`
	ReposURL          string  `json:"repos_url"`
	EventsURL         string  `json:"events_url"`
	ReceivedEventsURL string  `json:"received_events_url"`
	// Type is "User", "Organization" or "Bot".
	Type      string  `json:"type"`
	SiteAdmin bool    `json:"site_admin"`
	Name      *string `json:"name,omitempty"`
	Company   *string `json:"company,omitempty"`
	Blog      *string `json:"blog,omitempty"`
	Location  *string `json:"location,omitempty"`
	Email     *string `json:"email,omitempty"`
	// Hireable is null when the user has not said.
	Hireable        *bool   `json:"hireable,omitempty"`
	Bio             *string `json:"bio,omitempty"`
	TwitterUsername *string `json:"twitter_username,omitempty"`
	PublicRepos     int64   `json:"public_repos,omitempty"`
	PublicGists     int64   `json:"public_gists,omitempty"`
	Followers       int64   `json:"followers,omitempty"`
	Following       int64   `json:"following,omitempty"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at,omitempty"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt         string `json:"updated_at,omitempty"`
	PrivateGists      int64  `json:"private_gists,omitempty"`
	TotalPrivateRepos int64  `json:"total_private_repos,omitempty"`
	OwnedPrivateRepos int64  `json:"owned_private_repos,omitempty"`
	// DiskUsage is in kilobytes.
	DiskUsage               int64 `json:"disk_usage,omitempty"`
	Collaborators           int64 `json:"collaborators,omitempty"`
	TwoFactorAuthentication bool  `json:"two_factor_authentication,omitempty"`
	// Plan is {name, space, collaborators, private_repos}; sent only for the authenticated user.
	Plan         json.RawMessage `json:"plan,omitempty"`
	SuspendedAt  *string         `json:"suspended_at,omitempty"`
	BusinessPlus bool            `json:"business_plus,omitempty"`
	LDAPDN       string          `json:"ldap_dn,omitempty"`
	// StarredAt is set only with the application/vnd.github.star+json media type.
	StarredAt string `json:"starred_at,omitempty"`
	// Score is the search relevance; set only on api_search results.
	Score float64 `json:"score,omitempty"`
	// TextMatches is set only on api_search results requested with the text-match media type.
	TextMatches []json.RawMessage `json:"text_matches,omitempty"`
}

// Viewer is the record of viewer.get (GET /user): the authenticated user.
type Viewer = User

// Stargazer is the record of stargazers.list (GET /repos/{owner}/{repo}/stargazers) with the
// default media type: a simple user.
type Stargazer = SimpleUser

// Organization is the record of organizations.list (GET /users/{username}/orgs, schema
// organization-simple) and organizations.get (GET /orgs/{org}, schema organization-full).
// The organization-full fields stay at their zero value in list results.
type Organization struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID                  string  `json:"node_id"`
	URL                     string  `json:"url"`
	ReposURL                string  `json:"repos_url"`
	EventsURL               string  `json:"events_url"`
	HooksURL                string  `json:"hooks_url"`
	IssuesURL               string  `json:"issues_url"`
	MembersURL              string  `json:"members_url"`
	PublicMembersURL        string  `json:"public_members_url"`
	AvatarURL               string  `json:"avatar_url"`
	Description             *string `json:"description"`
	Name                    string  `json:"name,omitempty"`
	Company                 string  `json:"company,omitempty"`
	Blog                    string  `json:"blog,omitempty"`
	Location                string  `json:"location,omitempty"`
	Email                   string  `json:"email,omitempty"`
	TwitterUsername         *string `json:"twitter_username,omitempty"`
	IsVerified              bool    `json:"is_verified,omitempty"`
	HasOrganizationProjects bool    `json:"has_organization_projects,omitempty"`
	HasRepositoryProjects   bool    `json:"has_repository_projects,omitempty"`
	PublicRepos             int64   `json:"public_repos,omitempty"`
	PublicGists             int64   `json:"public_gists,omitempty"`
	Followers               int64   `json:"followers,omitempty"`
	Following               int64   `json:"following,omitempty"`
	HTMLURL                 string  `json:"html_url,omitempty"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at,omitempty"`
	// Type is "Organization".
	Type              string `json:"type,omitempty"`
	TotalPrivateRepos int64  `json:"total_private_repos,omitempty"`
	OwnedPrivateRepos int64  `json:"owned_private_repos,omitempty"`
	PrivateGists      *int64 `json:"private_gists,omitempty"`
	DiskUsage         *int64 `json:"disk_usage,omitempty"`
	Collaborators     *int64 `json:"collaborators,omitempty"`
	// BillingEmail and the other member-policy fields are sent only to organization owners.
	BillingEmail *string `json:"billing_email,omitempty"`
	// Plan is sent only to organization owners.
	Plan                                 json.RawMessage `json:"plan,omitempty"`
	DefaultRepositoryPermission          *string         `json:"default_repository_permission,omitempty"`
	MembersCanCreateRepositories         *bool           `json:"members_can_create_repositories,omitempty"`
	TwoFactorRequirementEnabled          *bool           `json:"two_factor_requirement_enabled,omitempty"`
	MembersAllowedRepositoryCreationType string          `json:"members_allowed_repository_creation_type,omitempty"`
	MembersCanCreatePublicRepositories   bool            `json:"members_can_create_public_repositories,omitempty"`
	MembersCanCreatePrivateRepositories  bool            `json:"members_can_create_private_repositories,omitempty"`
	MembersCanCreateInternalRepositories bool            `json:"members_can_create_internal_repositories,omitempty"`
	MembersCanCreatePages                bool            `json:"members_can_create_pages,omitempty"`
	MembersCanCreatePublicPages          bool            `json:"members_can_create_public_pages,omitempty"`
	MembersCanCreatePrivatePages         bool            `json:"members_can_create_private_pages,omitempty"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string `json:"updated_at,omitempty"`
}

// Team is the record of teams.list (GET /orgs/{org}/teams, schema team) and teams.get
// (GET /orgs/{org}/teams/{team_slug}, schema team-full).
type Team struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	HTMLURL     string  `json:"html_url"`
	Name        string  `json:"name"`
	Slug        string  `json:"slug"`
	Description *string `json:"description"`
	// Privacy is "closed" (visible to all members) or "secret".
	Privacy string `json:"privacy,omitempty"`
	// Permission is the default repository permission of the team: "pull", "triage", "push", "maintain" or "admin".
	Permission      string `json:"permission"`
	MembersURL      string `json:"members_url"`
	RepositoriesURL string `json:"repositories_url"`
	// Parent is the parent team (schema team-simple) or null.
	Parent       json.RawMessage `json:"parent,omitempty"`
	MembersCount int64           `json:"members_count,omitempty"`
	ReposCount   int64           `json:"repos_count,omitempty"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at,omitempty"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string `json:"updated_at,omitempty"`
	// Organization is set by teams.get only.
	Organization *Organization   `json:"organization,omitempty"`
	LDAPDN       string          `json:"ldap_dn,omitempty"`
	Permissions  json.RawMessage `json:"permissions,omitempty"`
}

// CommitRef points at a commit: a tag's or short branch's commit and a commit's parents.
type CommitRef struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url,omitempty"`
}

// GitActor is the author or committer recorded in a git commit (schema git-user).
type GitActor struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	// Date is an ISO 8601 timestamp, possibly with a UTC offset.
	Date string `json:"date,omitempty"`
}

// Verification is the signature verification of a git commit.
type Verification struct {
	Verified  bool    `json:"verified"`
	Reason    string  `json:"reason"`
	Payload   *string `json:"payload"`
	Signature *string `json:"signature"`
}

// GitTree points at the tree of a git commit.
type GitTree struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

// GitCommit is the git-level part of a commit (the "commit" field of a Commit).
type GitCommit struct {
	URL          string        `json:"url"`
	Author       *GitActor     `json:"author"`
	Committer    *GitActor     `json:"committer"`
	Message      string        `json:"message"`
	CommentCount int64         `json:"comment_count"`
	Tree         GitTree       `json:"tree"`
	Verification *Verification `json:"verification,omitempty"`
}

// CommitStats counts the changed lines of a commit; sent by commits.get only.
type CommitStats struct {
	Additions int64 `json:"additions,omitempty"`
	Deletions int64 `json:"deletions,omitempty"`
	Total     int64 `json:"total,omitempty"`
}

// CommitFile is one changed file of a commit (schema diff-entry); sent by commits.get only.
type CommitFile struct {
	Filename  string `json:"filename,omitempty"`
	Additions int64  `json:"additions,omitempty"`
	Deletions int64  `json:"deletions,omitempty"`
	Changes   int64  `json:"changes,omitempty"`
	// Status is "added", "removed", "modified", "renamed", "copied", "changed" or "unchanged".
	Status  string `json:"status,omitempty"`
	RawURL  string `json:"raw_url,omitempty"`
	BlobURL string `json:"blob_url,omitempty"`
	// Patch is the unified diff; absent for binary or very large files.
	Patch            string `json:"patch,omitempty"`
	SHA              string `json:"sha,omitempty"`
	ContentsURL      string `json:"contents_url,omitempty"`
	PreviousFilename string `json:"previous_filename,omitempty"`
}

// Commit is the record of commits.list (GET /repos/{owner}/{repo}/commits) and commits.get
// (GET /repos/{owner}/{repo}/commits/{ref}) (schema commit). Author and Committer are the
// GitHub accounts matched to the git identities, or null.
type Commit struct {
	URL string `json:"url"`
	// SHA is the full 40-character commit id.
	SHA string `json:"sha"`
	// NodeID is the GraphQL global node id.
	NodeID      string       `json:"node_id"`
	HTMLURL     string       `json:"html_url"`
	CommentsURL string       `json:"comments_url"`
	Commit      GitCommit    `json:"commit"`
	Author      *SimpleUser  `json:"author"`
	Committer   *SimpleUser  `json:"committer"`
	Parents     []CommitRef  `json:"parents"`
	Stats       *CommitStats `json:"stats,omitempty"`
	Files       []CommitFile `json:"files,omitempty"`
}

// Branch is the record of branches.list (GET /repos/{owner}/{repo}/branches, schema
// short-branch) and branches.get (GET /repos/{owner}/{repo}/branches/{branch}, schema
// branch-with-protection). In list results Commit holds only SHA and URL; branches.get sends
// the whole commit.
type Branch struct {
	Name   string `json:"name"`
	Commit Commit `json:"commit"`
	// Links is {html, self}; sent by branches.get only.
	Links     json.RawMessage `json:"_links,omitempty"`
	Protected bool            `json:"protected"`
	// Protection is the branch protection summary (schema branch-protection).
	Protection    json.RawMessage `json:"protection,omitempty"`
	ProtectionURL string          `json:"protection_url,omitempty"`
	// Pattern is the protection rule pattern that matched the branch.
	Pattern                      string `json:"pattern,omitempty"`
	RequiredApprovingReviewCount int64  `json:"required_approving_review_count,omitempty"`
}

// Tag is the record of tags.list (GET /repos/{owner}/{repo}/tags) (schema tag).
type Tag struct {
	Name       string    `json:"name"`
	Commit     CommitRef `json:"commit"`
	ZipballURL string    `json:"zipball_url"`
	TarballURL string    `json:"tarball_url"`
	// NodeID is the GraphQL global node id.
	NodeID string `json:"node_id"`
}

// ReleaseAsset is the record of release_assets.list
// (GET /repos/{owner}/{repo}/releases/{release_id}/assets) and release_assets.get
// (GET /repos/{owner}/{repo}/releases/assets/{asset_id}) (schema release-asset).
type ReleaseAsset struct {
	URL string `json:"url"`
	// BrowserDownloadURL is the github.com download page URL; the download action uses the API URL instead.
	BrowserDownloadURL string `json:"browser_download_url"`
	ID                 int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID string  `json:"node_id"`
	Name   string  `json:"name"`
	Label  *string `json:"label"`
	// State is "uploaded" or "open" (upload in progress).
	State       string `json:"state"`
	ContentType string `json:"content_type"`
	// Size is in bytes.
	Size          int64 `json:"size"`
	DownloadCount int64 `json:"download_count"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string      `json:"updated_at"`
	Uploader  *SimpleUser `json:"uploader"`
}

// Release is the record of releases.list (GET /repos/{owner}/{repo}/releases) and releases.get
// (GET /repos/{owner}/{repo}/releases/tags/{tag}) (schema release).
type Release struct {
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	AssetsURL string `json:"assets_url"`
	// UploadURL is an RFC 6570 URI template on uploads.github.com.
	UploadURL string `json:"upload_url"`
	// TarballURL and ZipballURL are null for drafts.
	TarballURL *string `json:"tarball_url"`
	ZipballURL *string `json:"zipball_url"`
	ID         int64   `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID  string `json:"node_id"`
	TagName string `json:"tag_name"`
	// TargetCommitish is the branch or commit the tag was created from.
	TargetCommitish string  `json:"target_commitish"`
	Name            *string `json:"name"`
	Body            *string `json:"body,omitempty"`
	Draft           bool    `json:"draft"`
	Prerelease      bool    `json:"prerelease"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// PublishedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z". Null for drafts.
	PublishedAt *string        `json:"published_at"`
	Author      SimpleUser     `json:"author"`
	Assets      []ReleaseAsset `json:"assets"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string `json:"body_html,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText      string     `json:"body_text,omitempty"`
	MentionsCount int64      `json:"mentions_count,omitempty"`
	DiscussionURL string     `json:"discussion_url,omitempty"`
	Reactions     *Reactions `json:"reactions,omitempty"`
}

// IssuePullRequest marks an issue that is a pull request: GitHub's issue endpoints return
// pull requests too, each carrying this object.
type IssuePullRequest struct {
	// MergedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z", or null.
	MergedAt *string `json:"merged_at,omitempty"`
	DiffURL  *string `json:"diff_url"`
	HTMLURL  *string `json:"html_url"`
	PatchURL *string `json:"patch_url"`
	URL      *string `json:"url"`
}

// Issue is the record of issues.list (GET /repos/{owner}/{repo}/issues), issues.get
// (GET /repos/{owner}/{repo}/issues/{issue_number}) and issues.api_search (GET /search/issues)
// (schemas issue and issue-search-result-item). The issues endpoints also return pull requests,
// which carry PullRequest; issues.list drops them.
type Issue struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID        string `json:"node_id"`
	URL           string `json:"url"`
	RepositoryURL string `json:"repository_url"`
	LabelsURL     string `json:"labels_url"`
	CommentsURL   string `json:"comments_url"`
	EventsURL     string `json:"events_url"`
	HTMLURL       string `json:"html_url"`
	// Number is the issue number within its repository (shared with pull requests).
	Number int64 `json:"number"`
	// State is "open" or "closed".
	State string `json:"state"`
	// StateReason is why the issue was closed ("completed", "not_planned", "duplicate")
	// or "reopened"; null while open. It is not in the 2022-11-28 OpenAPI description but
	// GitHub sends it.
	StateReason *string     `json:"state_reason,omitempty"`
	Title       string      `json:"title"`
	Body        *string     `json:"body,omitempty"`
	User        *SimpleUser `json:"user"`
	// Labels are label objects (the schema also allows bare names, which Label accepts).
	Labels    []Label      `json:"labels"`
	Assignee  *SimpleUser  `json:"assignee"`
	Assignees []SimpleUser `json:"assignees,omitempty"`
	Milestone *Milestone   `json:"milestone"`
	Locked    bool         `json:"locked"`
	// ActiveLockReason is "resolved", "off-topic", "too heated", "spam" or null.
	ActiveLockReason *string `json:"active_lock_reason,omitempty"`
	// Comments is the number of comments.
	Comments int64 `json:"comments"`
	// PullRequest is non-nil when the issue is a pull request.
	PullRequest *IssuePullRequest `json:"pull_request,omitempty"`
	// ClosedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z". Null while open.
	ClosedAt *string `json:"closed_at"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string      `json:"updated_at"`
	ClosedBy  *SimpleUser `json:"closed_by,omitempty"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string `json:"body_html,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText    string `json:"body_text,omitempty"`
	TimelineURL string `json:"timeline_url,omitempty"`
	// Repository is set only in some contexts (e.g. GET /issues); use RepositoryURL.
	// In a copy (package replica) it is the "owner/repo" of the part that read the
	// issue, which decodes into FullName, Name and Owner.Login.
	Repository *Repository `json:"repository,omitempty"`
	// PerformedViaGitHubApp is the GitHub App that acted, or null.
	PerformedViaGitHubApp json.RawMessage `json:"performed_via_github_app,omitempty"`
	// AuthorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER.
	AuthorAssociation string     `json:"author_association"`
	Reactions         *Reactions `json:"reactions,omitempty"`
	// TextMatches is set only on api_search results requested with the text-match media type.
	TextMatches []json.RawMessage `json:"text_matches,omitempty"`
	// Score is the search relevance; set only on api_search results.
	Score float64 `json:"score,omitempty"`
	// Draft is set on pull requests found by api_search.
	Draft bool `json:"draft,omitempty"`
}

// PRBranch is the head or base of a pull request.
type PRBranch struct {
	// Label is "owner:branch".
	Label string `json:"label"`
	Ref   string `json:"ref"`
	// Repo is null when the head repository was deleted.
	Repo *Repository `json:"repo"`
	SHA  string      `json:"sha"`
	User *SimpleUser `json:"user"`
}

// PullRequest is the record of pull_requests.list (GET /repos/{owner}/{repo}/pulls, schema
// pull-request-simple), pull_requests.get (GET /repos/{owner}/{repo}/pulls/{pull_number},
// schema pull-request) and pull_requests.api_search (GET /search/issues with is:pr, schema
// issue-search-result-item). Search results are issue-shaped: they carry PullRequest,
// RepositoryURL and Score and no Head or Base. Fields of the full pull-request schema
// (Merged, Mergeable, counts) are sent by get only.
type PullRequest struct {
	URL string `json:"url"`
	ID  int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID            string `json:"node_id"`
	HTMLURL           string `json:"html_url"`
	DiffURL           string `json:"diff_url,omitempty"`
	PatchURL          string `json:"patch_url,omitempty"`
	IssueURL          string `json:"issue_url,omitempty"`
	CommitsURL        string `json:"commits_url,omitempty"`
	ReviewCommentsURL string `json:"review_comments_url,omitempty"`
	ReviewCommentURL  string `json:"review_comment_url,omitempty"`
	CommentsURL       string `json:"comments_url"`
	StatusesURL       string `json:"statuses_url,omitempty"`
	Number            int64  `json:"number"`
	// State is "open" or "closed"; a merged pull request is closed with MergedAt set.
	State            string      `json:"state"`
	Locked           bool        `json:"locked"`
	Title            string      `json:"title"`
	User             *SimpleUser `json:"user"`
	Body             *string     `json:"body,omitempty"`
	Labels           []Label     `json:"labels"`
	Milestone        *Milestone  `json:"milestone"`
	ActiveLockReason *string     `json:"active_lock_reason,omitempty"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string `json:"updated_at"`
	// ClosedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z". Null while open.
	ClosedAt *string `json:"closed_at"`
	MergedAt *string `json:"merged_at,omitempty"`
	// MergeCommitSHA is the test merge commit, or the merge commit once merged.
	MergeCommitSHA     *string      `json:"merge_commit_sha,omitempty"`
	Assignee           *SimpleUser  `json:"assignee"`
	Assignees          []SimpleUser `json:"assignees,omitempty"`
	RequestedReviewers []SimpleUser `json:"requested_reviewers,omitempty"`
	RequestedTeams     []Team       `json:"requested_teams,omitempty"`
	Head               *PRBranch    `json:"head,omitempty"`
	Base               *PRBranch    `json:"base,omitempty"`
	// Links holds {self, html, issue, comments, review_comments, review_comment, commits, statuses}, each {href}.
	Links json.RawMessage `json:"_links,omitempty"`
	// AuthorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER.
	AuthorAssociation string `json:"author_association"`
	// AutoMerge is {enabled_by, merge_method, commit_title, commit_message} or null.
	AutoMerge json.RawMessage `json:"auto_merge,omitempty"`
	Draft     bool            `json:"draft,omitempty"`
	Merged    bool            `json:"merged,omitempty"`
	// Mergeable is null while GitHub computes it.
	Mergeable  *bool `json:"mergeable,omitempty"`
	Rebaseable *bool `json:"rebaseable,omitempty"`
	// MergeableState is e.g. "clean", "dirty", "blocked", "unstable" or "unknown".
	MergeableState string      `json:"mergeable_state,omitempty"`
	MergedBy       *SimpleUser `json:"merged_by,omitempty"`
	// Comments counts issue comments (get and api_search only).
	Comments            int64 `json:"comments,omitempty"`
	ReviewComments      int64 `json:"review_comments,omitempty"`
	MaintainerCanModify bool  `json:"maintainer_can_modify,omitempty"`
	Commits             int64 `json:"commits,omitempty"`
	Additions           int64 `json:"additions,omitempty"`
	Deletions           int64 `json:"deletions,omitempty"`
	ChangedFiles        int64 `json:"changed_files,omitempty"`
	// RepositoryURL is set on api_search results only.
	RepositoryURL string `json:"repository_url,omitempty"`
	LabelsURL     string `json:"labels_url,omitempty"`
	EventsURL     string `json:"events_url,omitempty"`
	// TextMatches is set only on api_search results requested with the text-match media type.
	TextMatches []json.RawMessage `json:"text_matches,omitempty"`
	// PullRequest is set on api_search results only.
	PullRequest *IssuePullRequest `json:"pull_request,omitempty"`
	// Score is the search relevance; set only on api_search results.
	Score      float64     `json:"score,omitempty"`
	Repository *Repository `json:"repository,omitempty"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string `json:"body_html,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText    string `json:"body_text,omitempty"`
	TimelineURL string `json:"timeline_url,omitempty"`
	// PerformedViaGitHubApp is the GitHub App that acted, or null.
	PerformedViaGitHubApp json.RawMessage `json:"performed_via_github_app,omitempty"`
	Reactions             *Reactions      `json:"reactions,omitempty"`
}

// Review is the record of reviews.list (GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews)
// (schema pull-request-review).
type Review struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID string      `json:"node_id"`
	User   *SimpleUser `json:"user"`
	Body   string      `json:"body"`
	// State is "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED" or "PENDING".
	State          string `json:"state"`
	HTMLURL        string `json:"html_url"`
	PullRequestURL string `json:"pull_request_url"`
	// Links is {html, pull_request}, each {href}.
	Links json.RawMessage `json:"_links"`
	// SubmittedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z". Absent for pending reviews.
	SubmittedAt string `json:"submitted_at,omitempty"`
	// CommitID is the head commit the review was made on.
	CommitID string `json:"commit_id"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string `json:"body_html,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText string `json:"body_text,omitempty"`
	// AuthorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER.
	AuthorAssociation string `json:"author_association"`
}

// Comment is an issue (or pull request conversation) comment: the record of comments.list
// (GET /repos/{owner}/{repo}/issues/{issue_number}/comments) and comments.get
// (GET /repos/{owner}/{repo}/issues/comments/{comment_id}) (schema issue-comment).
type Comment struct {
	ID int64 `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID string `json:"node_id"`
	URL    string `json:"url"`
	Body   string `json:"body,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText string `json:"body_text,omitempty"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string      `json:"body_html,omitempty"`
	HTMLURL  string      `json:"html_url"`
	User     *SimpleUser `json:"user"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt string `json:"updated_at"`
	IssueURL  string `json:"issue_url"`
	// AuthorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER.
	AuthorAssociation string `json:"author_association"`
	// PerformedViaGitHubApp is the GitHub App that acted, or null.
	PerformedViaGitHubApp json.RawMessage `json:"performed_via_github_app,omitempty"`
	Reactions             *Reactions      `json:"reactions,omitempty"`
}

// PRComment is a pull request review comment (on a line of the diff): the record of
// pr_comments.list (GET /repos/{owner}/{repo}/pulls/{pull_number}/comments) and pr_comments.get
// (GET /repos/{owner}/{repo}/pulls/comments/{comment_id}) (schema pull-request-review-comment).
type PRComment struct {
	URL string `json:"url"`
	// PullRequestReviewID is the review the comment belongs to, or null.
	PullRequestReviewID *int64 `json:"pull_request_review_id"`
	ID                  int64  `json:"id"`
	// NodeID is the GraphQL global node id.
	NodeID string `json:"node_id"`
	// DiffHunk is the part of the diff the comment refers to.
	DiffHunk string `json:"diff_hunk"`
	Path     string `json:"path"`
	// Position is the line index in the diff hunk (deprecated: use Line and Side).
	Position int64 `json:"position"`
	// OriginalPosition is Position on OriginalCommitID (deprecated: use OriginalLine).
	OriginalPosition int64  `json:"original_position"`
	CommitID         string `json:"commit_id"`
	OriginalCommitID string `json:"original_commit_id"`
	// InReplyToID is the comment this one replies to.
	InReplyToID int64      `json:"in_reply_to_id,omitempty"`
	User        SimpleUser `json:"user"`
	Body        string     `json:"body"`
	// CreatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	CreatedAt string `json:"created_at"`
	// UpdatedAt is an RFC 3339 UTC timestamp, e.g. "2024-01-02T15:04:05Z".
	UpdatedAt      string `json:"updated_at"`
	HTMLURL        string `json:"html_url"`
	PullRequestURL string `json:"pull_request_url"`
	// AuthorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER.
	AuthorAssociation string `json:"author_association"`
	// Links is {self, html, pull_request}, each {href}.
	Links json.RawMessage `json:"_links"`
	// StartLine is the first line of a multi-line comment, or null.
	StartLine         *int64 `json:"start_line,omitempty"`
	OriginalStartLine *int64 `json:"original_start_line,omitempty"`
	// StartSide is "LEFT", "RIGHT" or null; set for multi-line comments.
	StartSide    *string `json:"start_side,omitempty"`
	Line         int64   `json:"line,omitempty"`
	OriginalLine int64   `json:"original_line,omitempty"`
	// Side is "LEFT" (deletions) or "RIGHT" (additions and context).
	Side      string     `json:"side,omitempty"`
	Reactions *Reactions `json:"reactions,omitempty"`
	// BodyHTML is sent only with the application/vnd.github.html+json or full+json media types.
	BodyHTML string `json:"body_html,omitempty"`
	// BodyText is sent only with the application/vnd.github.text+json or full+json media types.
	BodyText string `json:"body_text,omitempty"`
}

// ContentLinks are the links of a repository content entry.
type ContentLinks struct {
	Git  *string `json:"git"`
	HTML *string `json:"html"`
	Self string  `json:"self"`
}

// FileContent is the record of file_content.get (GET /repos/{owner}/{repo}/contents/{path})
// (schema content-file).
type FileContent struct {
	// Type is "file" (or "symlink"/"submodule" for those entries).
	Type string `json:"type"`
	// Encoding is "base64"; for files over 1 MB it is "none" and Content is empty (use download).
	Encoding string `json:"encoding"`
	// Size is in bytes.
	Size int64  `json:"size"`
	Name string `json:"name"`
	Path string `json:"path"`
	// Content is the file content, base64 encoded with a line break every 60 characters.
	Content string  `json:"content"`
	SHA     string  `json:"sha"`
	URL     string  `json:"url"`
	GitURL  *string `json:"git_url"`
	HTMLURL *string `json:"html_url"`
	// DownloadURL is the raw.githubusercontent.com URL of the file, or null.
	DownloadURL *string      `json:"download_url"`
	Links       ContentLinks `json:"_links"`
	// Target is the link target of a symlink.
	Target string `json:"target,omitempty"`
	// SubmoduleGitURL is the repository of a submodule.
	SubmoduleGitURL string `json:"submodule_git_url,omitempty"`
}

// DirectoryContent is one entry of a directory: the record of directory_content.list
// (GET /repos/{owner}/{repo}/contents/{path} on a directory; schema content-directory).
type DirectoryContent struct {
	// Type is "file", "dir", "symlink" or "submodule".
	Type string `json:"type"`
	// Size is in bytes (0 for directories).
	Size int64  `json:"size"`
	Name string `json:"name"`
	Path string `json:"path"`
	// Content is not sent in directory listings.
	Content string  `json:"content,omitempty"`
	SHA     string  `json:"sha"`
	URL     string  `json:"url"`
	GitURL  *string `json:"git_url"`
	HTMLURL *string `json:"html_url"`
	// DownloadURL is the raw file URL, or null for directories.
	DownloadURL *string      `json:"download_url"`
	Links       ContentLinks `json:"_links"`
}

// UnmarshalJSON decodes a label object, or a bare label name, which GitHub's
// schema for an issue's labels also allows.
func (l *Label) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*l = Label{}
		return jsonx.Unmarshal(b, &l.Name)
	}
	type plain Label
	return jsonx.Unmarshal(b, (*plain)(l))
}
