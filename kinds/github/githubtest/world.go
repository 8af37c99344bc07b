package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Names and ids of the fake's fixed accounts.
const (
	// Owner is the organization that owns every repository of the fake.
	Owner = "octo"
	// OwnerID is the account id of Owner.
	OwnerID = 9000
	// Repo is the name of the first repository, Owner/Repo.
	Repo = "hello"
	// RepoID is the id of Owner/Repo; repository i has id RepoID+i.
	RepoID = 70000
	// ViewerLogin is the login of the authenticated user (GET /user).
	ViewerLogin = "octo-viewer"
	// ViewerID is the account id of the authenticated user.
	ViewerID = 1001
	// LabsOrg and ArchiveOrg are two more organizations the viewer belongs to.
	LabsOrg    = "octo-labs"
	ArchiveOrg = "octo-archive"
)

// epoch is the moment the synthetic history starts.
var epoch = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)

const historySpan = 3 * 365 * 24 * time.Hour

// world is the deterministic content of the fake: every record is a pure
// function of its index and of the configuration.
type world struct {
	cfg config

	numbers int   // issue and pull request numbers per repository: issues + pulls
	blocks  int   // leading blocks of four issues and one pull request
	span    int64 // id stride per repository for number-keyed ids

	issueStep, commitStep, releaseStep time.Duration

	commentMod, commentMul int // comments(x) = x*commentMul mod commentMod
	commentInv             int // inverse of commentMul mod commentMod

	branches    []branch // sorted by name
	branchIndex map[string]int
	repoByName  []int // repository indexes sorted by name

	files     []*repoFile // sorted by path
	fileIndex map[string]*repoFile
	blobPaths []string // paths of the files (not directories), sorted
}

type branch struct {
	name      string
	commit    int // commit index of the branch head
	protected bool
}

// repoFile is a file or directory of every repository's tree.
type repoFile struct {
	path    string
	dir     bool
	content []byte
	sha     string
}

func newWorld(cfg config) *world {
	w := &world{cfg: cfg}
	w.numbers = cfg.issues + cfg.pulls
	w.blocks = min(cfg.issues/4, cfg.pulls)
	w.span = int64(w.numbers) + 1
	w.issueStep = stepFor(w.numbers, 6*time.Hour)
	w.commitStep = stepFor(cfg.commits, 6*time.Hour)
	w.releaseStep = stepFor(cfg.releases, 30*24*time.Hour)

	w.commentMod = cfg.comments + 1
	w.commentMul = 1
	for _, k := range []int{7, 11, 13, 17, 19, 23} {
		if gcd(k, w.commentMod) == 1 {
			w.commentMul = k
			break
		}
	}
	w.commentInv = modInverse(w.commentMul, w.commentMod)

	w.initBranches()
	w.repoByName = make([]int, cfg.repos)
	for i := range w.repoByName {
		w.repoByName[i] = i
	}
	sort.Slice(w.repoByName, func(a, b int) bool {
		return repoName(w.repoByName[a]) < repoName(w.repoByName[b])
	})
	w.initFiles()
	return w
}

// stepFor spreads n events over historySpan, at most limit apart.
func stepFor(n int, limit time.Duration) time.Duration {
	if n <= 1 {
		return limit
	}
	s := (historySpan / time.Duration(n)).Truncate(time.Second)
	return min(max(s, time.Second), limit)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func modInverse(a, m int) int {
	if m == 1 {
		return 0
	}
	t, nt, r, nr := 0, 1, m, a%m
	for nr != 0 {
		q := r / nr
		t, nt = nt, t-q*nt
		r, nr = nr, r-q*nr
	}
	if t < 0 {
		t += m
	}
	return t
}

// ---- accounts

func userLogin(u int) string { return "user-" + strconv.Itoa(u+1) }
func userID(u int) int64     { return 2000 + int64(u) }

// userIndex maps a login of the synthetic user pool to its index.
func (w *world) userIndex(login string) (int, bool) {
	n, ok := strings.CutPrefix(login, "user-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > w.cfg.users || strconv.Itoa(i) != n {
		return 0, false
	}
	return i - 1, true
}

// account is a user or organization as embedded in records.
type account struct {
	login string
	id    int64
	org   bool
}

func (w *world) user(u int) account { return account{userLogin(u), userID(u), false} }
func viewerAccount() account        { return account{ViewerLogin, ViewerID, false} }
func ownerAccount() account         { return account{Owner, OwnerID, true} }

// orgs are the organizations of the fake.
func orgLogins() []string { return []string{Owner, LabsOrg, ArchiveOrg} }

func orgID(login string) (int64, bool) {
	for i, o := range orgLogins() {
		if o == login {
			return OwnerID + int64(i), true
		}
	}
	return 0, false
}

// lookupAccount finds any account by login.
func (w *world) lookupAccount(login string) (account, bool) {
	if login == ViewerLogin {
		return viewerAccount(), true
	}
	if id, ok := orgID(login); ok {
		return account{login, id, true}, true
	}
	if u, ok := w.userIndex(login); ok {
		return w.user(u), true
	}
	return account{}, false
}

// orgMember reports whether pool user u belongs to org (the viewer belongs
// to every organization).
func (w *world) orgMember(org string, u int) bool {
	switch org {
	case Owner:
		return true
	case LabsOrg:
		return u%2 == 0
	}
	return false
}

// orgsOf lists the organizations a login belongs to.
func (w *world) orgsOf(login string) []string {
	if login == ViewerLogin {
		return orgLogins()
	}
	if u, ok := w.userIndex(login); ok {
		if w.orgMember(LabsOrg, u) {
			return []string{Owner, LabsOrg}
		}
		return []string{Owner}
	}
	return nil
}

// ---- repositories

func repoName(ri int) string {
	if ri == 0 {
		return Repo
	}
	return "repo-" + strconv.Itoa(ri)
}

func (w *world) repoIndex(owner, name string) (int, bool) {
	if owner != Owner {
		return 0, false
	}
	if name == Repo {
		return 0, w.cfg.repos > 0
	}
	n, ok := strings.CutPrefix(name, "repo-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i >= w.cfg.repos || strconv.Itoa(i) != n {
		return 0, false
	}
	return i, true
}

// repoCreated and repoPushed decrease with the repository index, so that
// newest-first orderings are index order.
func repoCreated(ri int) time.Time { return epoch.Add(-time.Duration(ri+1) * time.Minute) }
func repoPushed(ri int) time.Time  { return epoch.Add(historySpan - time.Duration(ri)*time.Minute) }
func repoPrivate(ri int) bool      { return ri%4 == 3 }

var languages = [...]string{"Go", "Python", "TypeScript", "Rust", "Shell"}

func repoLanguage(ri int) string { return languages[ri%len(languages)] }

// ---- issue and pull request numbers

// kindOf tells whether number x (1-based) of a repository is a pull request
// and which issue or pull request index it is. The first numbers come in
// blocks of four issues and one pull request; the rest of whichever kind is
// left over follows.
func (w *world) kindOf(x int) (isPR bool, idx int, ok bool) {
	if x < 1 || x > w.numbers {
		return false, 0, false
	}
	p := w.blocks
	if x <= 5*p {
		q, r := (x-1)/5, (x-1)%5
		if r == 4 {
			return true, q, true
		}
		return false, 4*q + r, true
	}
	y := x - 5*p - 1
	if rest := w.cfg.issues - 4*p; y < rest {
		return false, 4*p + y, true
	} else {
		return true, p + y - rest, true
	}
}

func (w *world) isPR(x int) bool { pr, _, _ := w.kindOf(x); return pr }

// pullNumber is the number of pull request index k.
func (w *world) pullNumber(k int) int {
	p := w.blocks
	if k < p {
		return 5*k + 5
	}
	return 5*p + (w.cfg.issues - 4*p) + (k - p) + 1
}

func (w *world) created(x int) time.Time { return epoch.Add(time.Duration(x-1) * w.issueStep) }
func (w *world) updated(x int) time.Time { return w.created(x).Add(36 * time.Hour) }
func (w *world) closed(x int) bool       { return x%3 == 0 }
func (w *world) closedAt(x int) time.Time {
	return w.created(x).Add(24 * time.Hour)
}
func (w *world) merged(x int) bool { return w.closed(x) && x%2 == 0 }

func (w *world) creator(x int) int { return (x * 7) % w.cfg.users }

// assignees returns the pool indexes of the assignees of number x.
func (w *world) assignees(x int) []int {
	if x%4 == 0 {
		return nil
	}
	a := (x * 3) % w.cfg.users
	if x%8 == 1 && w.cfg.users > 1 {
		return []int{a, (a + 1) % w.cfg.users}
	}
	return []int{a}
}

func (w *world) mentioned(x int) int { return (x * 11) % w.cfg.users }

// issueLabels returns the label indexes of number x.
func (w *world) issueLabels(x int) []int {
	if x%5 == 0 {
		return nil
	}
	first := x % len(labelDefs)
	second := (x / len(labelDefs)) % len(labelDefs)
	if x%2 == 0 && second != first {
		if second < first {
			return []int{second, first}
		}
		return []int{first, second}
	}
	return []int{first}
}

// milestoneOf returns the milestone number of x, 0 for none.
func (w *world) milestoneOf(x int) int {
	if x%2 != 0 || w.cfg.milestones == 0 {
		return 0
	}
	return (x/2)%w.cfg.milestones + 1
}

func (w *world) comments(x int) int {
	if w.cfg.commentsEach {
		return w.cfg.comments
	}
	return (x * w.commentMul) % w.commentMod
}

// commentOrder returns the ordering of numbers 1..numbers by comment count
// (descending when desc), ties by number in the same direction.
func (w *world) commentOrder(desc bool) func(p int) int {
	if w.cfg.commentsEach {
		// One count for all: ties alone order them, by number.
		n := w.numbers
		if desc {
			return func(p int) int { return n - p }
		}
		return func(p int) int { return p + 1 }
	}
	m := w.commentMod
	// first[i] is the smallest number of group i, counts[i] its size; group i
	// holds the numbers with comment count c(i).
	first := make([]int, m)
	prefix := make([]int, m+1)
	for i := range m {
		c := i
		if desc {
			c = m - 1 - i
		}
		r := (c * w.commentInv) % m
		n := 0
		if r == 0 {
			r = m
		}
		if r <= w.numbers {
			n = (w.numbers-r)/m + 1
		}
		first[i] = r
		prefix[i+1] = prefix[i] + n
	}
	return func(p int) int {
		i := sort.Search(m, func(i int) bool { return prefix[i+1] > p })
		if i >= m {
			return 0
		}
		off := p - prefix[i]
		if desc {
			n := prefix[i+1] - prefix[i]
			return first[i] + (n-1-off)*m
		}
		return first[i] + off*m
	}
}

// ---- titles and bodies

var (
	titleVerbs = [...]string{"Fix", "Add", "Improve", "Refactor", "Document", "Remove", "Support", "Speed up", "Test", "Rename", "Handle", "Clean up"}
	titleNouns = [...]string{"widget", "parser", "login form", "cache", "exporter", "scheduler", "config loader", "search index", "dashboard", "webhook", "CLI", "API client", "retry logic"}
	titleTails = [...]string{"on empty input", "for large files", "in dark mode", "when offline", "under load", "on Windows", "with unicode names", "after upgrade", "for new users", "in CI"}
	bodyLines  = [...]string{
		"Steps to reproduce are listed below; the problem shows up every time.",
		"Expected the operation to finish without an error, but it stopped halfway.",
		"This affects the default configuration as well as custom setups.",
		"A minimal example is attached; it uses only the public interface.",
		"Logs from the failing run show a timeout after the third retry.",
		"The change should stay backwards compatible with existing settings.",
		"See the linked discussion for the background of this request.",
		"Happy to send a pull request once the approach is agreed on.",
	}
)

func (w *world) title(x int) string {
	return titleVerbs[x%len(titleVerbs)] + " " + titleNouns[(x/3)%len(titleNouns)] + " " + titleTails[(x/7)%len(titleTails)]
}

func (w *world) body(x int) string {
	var b strings.Builder
	for i := range 4 {
		b.WriteString(bodyLines[(x+i*3)%len(bodyLines)])
		b.WriteString("\n\n")
	}
	b.WriteString("cc @")
	b.WriteString(userLogin(w.mentioned(x)))
	return b.String()
}

func commentBody(x, j int) string {
	return bodyLines[(x+j)%len(bodyLines)] + "\n\n" + bodyLines[(x+j+5)%len(bodyLines)]
}

// ---- labels and milestones

type labelDef struct {
	name, color, description string
}

var labelDefs = [...]labelDef{
	{"bug", "d73a4a", "Something isn't working"},
	{"documentation", "0075ca", "Improvements or additions to documentation"},
	{"duplicate", "cfd3d7", "This issue or pull request already exists"},
	{"enhancement", "a2eeef", "New feature or request"},
	{"good first issue", "7057ff", "Good for newcomers"},
	{"help wanted", "008672", "Extra attention is needed"},
	{"invalid", "e4e669", "This doesn't seem right"},
	{"question", "d876e3", "Further information is requested"},
	{"wontfix", "ffffff", "This will not be worked on"},
}

func labelIndex(name string) (int, bool) {
	for i, l := range labelDefs {
		if strings.EqualFold(l.name, name) {
			return i, true
		}
	}
	return 0, false
}

func labelID(ri, i int) int64 { return 600000 + int64(ri)*100 + int64(i) }

func milestoneClosed(m int) bool      { return m%3 == 0 }
func milestoneDue(m int) time.Time    { return epoch.Add(time.Duration(m) * 60 * 24 * time.Hour) }
func milestoneOpenIssues(m int) int   { return (m * 7) % 20 }
func milestoneClosedIssues(m int) int { return (m*11)%30 + 1 }
func milestoneID(ri, m int) int64     { return 8800000 + int64(ri)*10000 + int64(m) }

// ---- commits and branches

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// commitSHA is the 40-hex id of commit k (0 = newest) of repository ri. The
// first 16 digits encode ri and k, so an id can be resolved without a table.
func commitSHA(ri, k int) string {
	h := splitmix(uint64(ri)<<32 | uint64(k))
	return fmt.Sprintf("%08x%08x%016x%08x", ri, k, h, uint32(splitmix(h)))
}

// commitIndex resolves a full commit id of repository ri.
func (w *world) commitIndex(ri int, sha string) (int, bool) {
	if len(sha) != 40 {
		return 0, false
	}
	r, err1 := strconv.ParseUint(sha[:8], 16, 32)
	k, err2 := strconv.ParseUint(sha[8:16], 16, 32)
	if err1 != nil || err2 != nil || int(r) != ri || int(k) >= w.cfg.commits {
		return 0, false
	}
	if commitSHA(ri, int(k)) != strings.ToLower(sha) {
		return 0, false
	}
	return int(k), true
}

// resolveRef maps a branch name, tag name or commit id to a commit index.
func (w *world) resolveRef(ri int, ref string) (int, bool) {
	if w.cfg.commits == 0 {
		return 0, false
	}
	ref = strings.TrimPrefix(ref, "refs/heads/")
	ref = strings.TrimPrefix(ref, "refs/tags/")
	if i, ok := w.branchIndex[ref]; ok {
		return w.branches[i].commit, true
	}
	if i, ok := w.releaseByTag(ref); ok {
		return w.releaseCommit(i), true
	}
	return w.commitIndex(ri, ref)
}

func (w *world) commitDate(k int) time.Time {
	return epoch.Add(time.Duration(w.cfg.commits-1-k) * w.commitStep)
}
func (w *world) commitAuthor(k int) int { return (k * 5) % w.cfg.users }

// commitFile is the path of the file commit k changed.
func (w *world) commitFile(k int) string {
	return w.blobPaths[k%len(w.blobPaths)]
}

func (w *world) commitMessage(k int) string {
	return titleVerbs[k%len(titleVerbs)] + " " + titleNouns[(k/5)%len(titleNouns)]
}

func (w *world) initBranches() {
	n := w.cfg.branches
	last := max(w.cfg.commits-1, 0)
	for i := range n {
		var b branch
		switch i {
		case 0:
			b = branch{name: "main", commit: 0, protected: true}
		case 1:
			b = branch{name: "develop", commit: min(1, last)}
		case 2:
			b = branch{name: "release/1.x", commit: min(5, last), protected: true}
		default:
			b = branch{name: "feature-" + strconv.Itoa(i-2), commit: min(2*i+1, last)}
		}
		w.branches = append(w.branches, b)
	}
	sort.Slice(w.branches, func(a, b int) bool { return w.branches[a].name < w.branches[b].name })
	w.branchIndex = make(map[string]int, n)
	for i, b := range w.branches {
		w.branchIndex[b.name] = i
	}
}

// ---- releases and assets

func releaseTag(i int) string { return "v1." + strconv.Itoa(i) + ".0" }

func (w *world) releaseByTag(tag string) (int, bool) {
	n, ok := strings.CutPrefix(tag, "v1.")
	if !ok {
		return 0, false
	}
	n, ok = strings.CutSuffix(n, ".0")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 0 || i >= w.cfg.releases || strconv.Itoa(i) != n {
		return 0, false
	}
	return i, true
}

func (w *world) releaseID(ri, i int) int64 {
	return 9000000 + int64(ri)*int64(w.cfg.releases) + int64(i)
}

// releaseIndex resolves a release id of repository ri.
func (w *world) releaseIndex(ri int, id int64) (int, bool) {
	i := id - 9000000 - int64(ri)*int64(w.cfg.releases)
	if i < 0 || i >= int64(w.cfg.releases) {
		return 0, false
	}
	return int(i), true
}

func (w *world) releaseCreated(i int) time.Time {
	return epoch.Add(time.Duration(i+1) * w.releaseStep)
}
func (w *world) releaseCommit(i int) int {
	return min(w.cfg.releases-1-i, max(w.cfg.commits-1, 0))
}
func releasePre(i int) bool { return i%5 == 4 }

func (w *world) assetID(ri, i, a int) int64 {
	return 40000000 + (int64(ri)*int64(w.cfg.releases)+int64(i))*int64(w.cfg.assets) + int64(a)
}

// assetIndex resolves an asset id to its repository, release and asset index.
func (w *world) assetIndex(id int64) (ri, i, a int, ok bool) {
	v := id - 40000000
	if v < 0 || w.cfg.assets == 0 || w.cfg.releases == 0 {
		return 0, 0, 0, false
	}
	a = int(v % int64(w.cfg.assets))
	v /= int64(w.cfg.assets)
	i = int(v % int64(w.cfg.releases))
	ri = int(v / int64(w.cfg.releases))
	if ri >= w.cfg.repos {
		return 0, 0, 0, false
	}
	return ri, i, a, true
}

func assetName(ri, a int) string {
	base := repoName(ri)
	switch a {
	case 0:
		return base + "-linux-amd64.tar.gz"
	case 1:
		return base + "-darwin-arm64.tar.gz"
	case 2:
		return base + "-windows-amd64.zip"
	case 3:
		return "checksums.txt"
	}
	return base + "-extra-" + strconv.Itoa(a) + ".bin"
}

func assetContentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		return "application/gzip"
	case strings.HasSuffix(name, ".zip"):
		return "application/zip"
	case strings.HasSuffix(name, ".txt"):
		return "text/plain"
	}
	return "application/octet-stream"
}

func (w *world) assetSize(i, a int) int {
	return w.cfg.assetSize + (i*31+a*7)%512
}

// assetContent is the deterministic content of an asset.
func assetContent(id int64, size int) []byte {
	b := make([]byte, size)
	x := uint64(id)
	for j := 0; j < size; j += 8 {
		x = splitmix(x)
		for k := 0; k < 8 && j+k < size; k++ {
			b[j+k] = byte(x >> (8 * k))
		}
	}
	return b
}

// ---- teams

var teamNames = [...]string{"Core", "Docs", "Infra", "QA"}

func teamName(i int) string {
	if i < len(teamNames) {
		return teamNames[i]
	}
	return "Team " + strconv.Itoa(i)
}

func teamSlug(i int) string {
	return strings.ToLower(strings.ReplaceAll(teamName(i), " ", "-"))
}

func teamID(i int) int64 { return 3300 + int64(i) }

func (w *world) teamIndex(slug string) (int, bool) {
	for i := range w.cfg.teams {
		if teamSlug(i) == slug {
			return i, true
		}
	}
	return 0, false
}

// ---- files

func gitBlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func (w *world) initFiles() {
	files := map[string][]byte{
		"README.md":                []byte("# hello\n\nSynthetic repository served by the Tributary GitHub fake.\n\nEverything here is placeholder content.\n"),
		"LICENSE":                  []byte("Placeholder license text for a synthetic repository.\n"),
		"go.mod":                   []byte("module example.com/hello\n\ngo 1.26\n"),
		"main.go":                  []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"),
		"docs/guide.md":            []byte("# Guide\n\nThis guide is placeholder text.\nIt has a few lines so that base64 content wraps.\n"),
		"docs/api.md":              []byte(strings.Repeat("API notes: placeholder line.\n", 40)),
		"docs/images/logo.png":     assetContent(424242, 2048),
		"data/large.bin":           assetContent(777, w.cfg.fileSize),
		"src/util/strings.go":      []byte("package util\n\n// Upper is a placeholder.\nfunc Upper(s string) string { return s }\n"),
		"src/util/strings_test.go": []byte("package util\n"),
	}
	for p, c := range w.cfg.extraFiles {
		files[strings.Trim(p, "/")] = c
	}
	w.fileIndex = make(map[string]*repoFile)
	for p, c := range files {
		if p == "" {
			continue
		}
		w.fileIndex[p] = &repoFile{path: p, content: c, sha: gitBlobSHA(c)}
		for d := p; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if _, ok := w.fileIndex[d]; !ok {
				w.fileIndex[d] = &repoFile{path: d, dir: true}
			}
		}
	}
	for _, f := range w.fileIndex {
		w.files = append(w.files, f)
	}
	sort.Slice(w.files, func(a, b int) bool { return w.files[a].path < w.files[b].path })
	for _, f := range w.files {
		if !f.dir {
			w.blobPaths = append(w.blobPaths, f.path)
		}
	}
	for _, f := range w.files {
		if f.dir {
			h := sha1.Sum([]byte("tree " + f.path))
			f.sha = hex.EncodeToString(h[:])
		}
	}
}

// children lists the entries directly inside dir ("" for the root), by name.
func (w *world) children(dir string) []*repoFile {
	var out []*repoFile
	for _, f := range w.files {
		parent := ""
		if i := strings.LastIndexByte(f.path, '/'); i >= 0 {
			parent = f.path[:i]
		}
		if parent == dir {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(a, b int) bool { return baseName(out[a].path) < baseName(out[b].path) })
	return out
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
