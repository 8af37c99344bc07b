// Package githubtest runs an in-process fake of GitHub's REST API (version
// 2022-11-28) on loopback, for tests, examples and benchmarks that must not
// reach api.github.com.
//
// The fake serves GitHub's documented paths under Server.URL, so a client
// whose base URL is Server.URL sends exactly the requests it would send to
// GitHub:
//
//	/user, /user/repos, /user/orgs, /users/{username}, /users/{username}/repos,
//	/users/{username}/orgs, /orgs/{org}, /orgs/{org}/repos,
//	/orgs/{org}/members, /orgs/{org}/teams[/{team_slug}],
//	/repos/{owner}/{repo} and its branches, commits, releases (by id, by tag,
//	latest, assets), issues, issue comments, pulls, reviews, review
//	comments, labels, tags, milestones, stargazers and contents,
//	/search/issues, /search/repositories, /search/users and /rate_limit.
//
// It behaves like GitHub where a client can tell:
//
//   - Authentication: "Authorization: Bearer <token>" (or the legacy
//     "token <token>") with one of the accepted tokens (DefaultToken and
//     DefaultAccessToken unless WithCredentials says otherwise). A wrong
//     token gets 401 "Bad credentials"; a missing one 401 "Requires
//     authentication" (the fake serves no anonymous access). A request
//     without a User-Agent gets GitHub's 403; an unknown
//     X-GitHub-Api-Version a 400.
//   - Lists are bare JSON arrays paged by page and per_page (default 30,
//     larger than 100 silently clamped to 100), with a Link header of
//     absolute URLs (prev, next, last, first) built from the request's host.
//     Search answers {total_count, incomplete_results, items}; only the first
//     1,000 results are reachable (the page crossing the cap is cut short, a
//     page starting beyond it is a 422) while total_count counts them all.
//   - Every response carries x-ratelimit-limit, -remaining, -used, -reset
//     and -resource (core or search). Injected rate limits (Faults) answer
//     as GitHub does, in the RateLimitStyle chosen: the secondary limit's 429
//     with retry-after by default, or the primary limit's 403/429 with
//     x-ratelimit-remaining 0 and x-ratelimit-reset.
//   - Errors are GitHub's {message, documentation_url, status} bodies
//     (status a string), validation errors a 422 with an errors array.
//   - GitHub's issue endpoints return pull requests too (with a
//     pull_request key); issues and pull requests share one number sequence.
//   - A release asset requested with "Accept: application/octet-stream"
//     answers 302 to a signed, short-lived URL on Server.FilesURL, the
//     object store, which serves the bytes with Range, ETag and If-Range,
//     and refuses requests that carry an Authorization header (as S3 does:
//     credentials must not follow the redirect). The contents endpoint with
//     "Accept: application/vnd.github.raw+json" streams the raw file (with
//     Range, which GitHub does not document for the API host).
//   - The URLs inside records carry GitHub's origins whatever port the fake
//     listens on: https://api.github.com (url and the *_url templates),
//     https://github.com (html_url, browser_download_url) and
//     https://raw.githubusercontent.com (download_url), so that records
//     read the same from every fake. Server.FilesURL serves the paths of
//     browser_download_url and download_url. The links a client follows
//     (the Link header, the download redirects) lead to the fake.
//
// The data is synthetic and deterministic: every record is a pure function of
// its index and the options, generated when requested, so WithIssues(1_000_000)
// costs no start-up time. The organization Owner owns WithRepos repositories
// (Owner/Repo first, then Owner/repo-1, ...); each has the same synthetic
// content: issues and pull requests with labels, assignees, milestones,
// comments, reviews and review comments; commits, branches (main, develop,
// release/1.x, feature-N), releases v1.N.0 with assets and matching tags,
// and a small file tree (README.md, docs/, src/, data/large.bin over 1 MB).
// The authenticated user is ViewerLogin; the user pool is user-1 ... user-N.
// All content is the same at every ref.
//
// Simplifications: orderings of search results and sorts by stars, forks or
// reactions follow the record index; sort=comments and popularity order by
// the comment count.
//
// OAuth consent: GET /login/oauth/authorize is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /login/oauth/access_token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with DefaultClientID and DefaultClientSecret; PKCE S256 is honoured; the answer is form-encoded unless the request accepts JSON, errors come with status 200 as GitHub sends them, and the token issued is DefaultAccessToken (it does not expire).
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package githubtest
