package githubtest

// Default volumes and sizes.
const (
	DefaultRepos      = 3
	DefaultIssues     = 200
	DefaultPulls      = 50
	DefaultCommits    = 120
	DefaultComments   = 8
	DefaultReviews    = 3
	DefaultPRComments = 4
	DefaultUsers      = 40
	DefaultReleases   = 8
	DefaultAssets     = 4
	DefaultBranches   = 6
	DefaultMilestones = 5
	DefaultTeams      = 4
	DefaultAssetSize  = 64 << 10
	DefaultFileSize   = 3 << 19
)

// RepoName returns the name of repository index i (i = 0 is Repo).
func RepoName(i int) string { return repoName(i) }

// UserLogin returns the login of pool user index i: user-1, user-2, ...
func UserLogin(i int) string { return userLogin(i) }

// ReleaseTag returns the tag of release index i (0 is the oldest): v1.<i>.0.
func ReleaseTag(i int) string { return releaseTag(i) }

// CommitSHA returns the id of commit k of repository index repo; commit 0 is
// the newest, the head of main.
func CommitSHA(repo, k int) string { return commitSHA(repo, k) }

// Total returns how many records an entity has in one repository (or in the
// Owner organization): "issues" (without pull requests), "pull_requests",
// "repositories", "commits", "users" (pool users; organization members and
// stargazers), "releases", "tags", "release_assets" (per release),
// "branches", "milestones", "labels" or "teams". Unknown names give 0.
func (s *Server) Total(entity string) int {
	c := s.cfg
	switch entity {
	case "issues":
		return c.issues
	case "pull_requests":
		return c.pulls
	case "repositories":
		return c.repos
	case "commits":
		return c.commits
	case "users", "stargazers":
		return c.users
	case "releases", "tags":
		return c.releases
	case "release_assets":
		return c.assets
	case "branches":
		return c.branches
	case "milestones":
		return c.milestones
	case "labels":
		return len(labelDefs)
	case "teams":
		return c.teams
	}
	return 0
}

// IsPullRequest reports whether number (1-based, shared by issues and pull
// requests) is a pull request.
func (s *Server) IsPullRequest(number int) bool { return s.w.isPR(number) }

// PullNumber returns the number of pull request index k (0-based).
func (s *Server) PullNumber(k int) int { return s.w.pullNumber(k) }

// IssueID returns the id of number in repository index repo, as the issue
// endpoints show it (pull requests have an issue id too).
func (s *Server) IssueID(repo, number int) int64 { return s.w.issueID(repo, number) }

// PullID returns the id of pull request number in repository index repo.
func (s *Server) PullID(repo, number int) int64 { return s.w.pullID(repo, number) }

// CommentCount returns how many issue comments number has.
func (s *Server) CommentCount(number int) int { return s.w.comments(number) }

// CommentID returns the id of issue comment j of number in repository repo.
func (s *Server) CommentID(repo, number, j int) int64 { return s.w.commentID(repo, number, j) }

// ReviewCount returns how many reviews pull request number has.
func (s *Server) ReviewCount(number int) int { return s.w.reviewCount(number) }

// ReviewID returns the id of review j of pull request number.
func (s *Server) ReviewID(repo, number, j int) int64 { return s.w.reviewID(repo, number, j) }

// PRCommentCount returns how many review comments pull request number has.
func (s *Server) PRCommentCount(number int) int { return s.w.prComments(number) }

// PRCommentID returns the id of review comment j of pull request number.
func (s *Server) PRCommentID(repo, number, j int) int64 { return s.w.prCommentID(repo, number, j) }

// ReleaseID returns the id of release index i of repository index repo.
func (s *Server) ReleaseID(repo, i int) int64 { return s.w.releaseID(repo, i) }

// AssetID returns the id of asset a of release i of repository repo.
func (s *Server) AssetID(repo, i, a int) int64 { return s.w.assetID(repo, i, a) }

// AssetContent returns the bytes of a release asset.
func (s *Server) AssetContent(id int64) ([]byte, bool) {
	_, i, a, ok := s.w.assetIndex(id)
	if !ok {
		return nil, false
	}
	return assetContent(id, s.w.assetSize(i, a)), true
}

// FileContent returns the content of a file of the repositories' tree.
func (s *Server) FileContent(path string) ([]byte, bool) {
	f, ok := s.w.fileIndex[path]
	if !ok || f.dir {
		return nil, false
	}
	return f.content, true
}
