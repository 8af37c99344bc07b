package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// The entities whose records Create, Update and Delete change. Mutations
// act on the repository Owner/Repo (index 0); the other repositories keep
// their generated content.
const (
	entityIssues   = "issues"
	entityComments = "comments"
	entityCommits  = "commits"
	entityLabels   = "labels"
)

// mutRepo is the repository index mutations act on (Owner/Repo).
const mutRepo = 0

// ErrUnsupported is returned by Update and Delete for the changes GitHub
// does not allow (a commit is immutable; a pull request cannot be deleted)
// and by every mutation of an entity that is not mutable.
var ErrUnsupported = errors.New("githubtest: mutation not supported")

// ErrUnknownRecord is returned by Update and Delete for an id that is not a
// live record of the entity.
var ErrUnknownRecord = errors.New("githubtest: no such record")

// mutations is the overlay of created, updated and deleted records on top
// of the generated world of Owner/Repo, stamped with the fake's clock.
type mutations struct {
	clock   *fakeserver.Clock
	touched atomic.Bool // set by the first mutation: until then every read is the world's

	mu       sync.Mutex
	gen      int                     // counts mutations; keys cached orderings
	issues   map[int]*issueMod       // by number, generated or created
	created  int                     // created issues: numbers numbers+1 ... numbers+created
	comments map[int64]*commentMod   // by id, generated or created
	newCmts  []int64                 // ids of created comments, in creation order
	commits  []newCommit             // created commits on main, oldest first
	commitBy map[string]int          // created commit sha -> index in commits
	labels   map[int]*labelMod       // by label index, generated or created
	newLbls  int                     // created labels: indexes len(labelDefs) ...
	cmtCache map[string][]commentRef // repository-wide comment orderings of gen cacheGen
	cacheGen int
}

// issueMod is what changed about one issue.
type issueMod struct {
	title            string // "" keeps the generated title
	created, updated time.Time
	deleted          bool
	extraComments    int // created comments less deleted generated ones
	isNew            bool
}

// commentMod is what changed about one comment.
type commentMod struct {
	x                int // the issue's number
	j                int // generated comment index; -1 for a created one
	body             string
	created, updated time.Time
	deleted          bool
}

// newCommit is a commit created on main.
type newCommit struct {
	sha, parent, message string
	date                 time.Time
	author               int
}

// labelMod is what changed about one label.
type labelMod struct {
	def     labelDef
	deleted bool
	isNew   bool
}

func newMutations(c *fakeserver.Clock) *mutations {
	return &mutations{clock: c, issues: map[int]*issueMod{}, comments: map[int64]*commentMod{},
		commitBy: map[string]int{}, labels: map[int]*labelMod{}}
}

// now reads the clock at GitHub's precision (seconds).
func (m *mutations) now() time.Time { return m.clock.Now().UTC().Truncate(time.Second) }

// WithClock sets the clock of mutations and change feeds (default: a clock
// started at the time New ran, truncated to the second, that moves only
// when advanced). Generated records all lie before it.
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// Clock returns the fake's clock: what "now" is for mutations.
func (s *Server) Clock() *fakeserver.Clock { return s.m.clock }

// MutableEntities lists the entities whose records Create, Update and
// Delete change: issues, comments, commits (Create only: commits do not
// change) and labels (no change feed: full walks keep them).
func (s *Server) MutableEntities() []string {
	return []string{entityIssues, entityComments, entityCommits, entityLabels}
}

// changed marks a mutation: cached orderings and responses are stale.
// m.mu is held.
func (s *Server) changed() {
	s.m.gen++
	s.m.touched.Store(true)
	s.mu.Lock()
	on := s.cacheOn
	s.mu.Unlock()
	if on {
		s.Server.SetResponseCache(false)
		s.Server.SetResponseCache(true)
	}
}

// SetResponseCache is fakeserver.Server.SetResponseCache; mutations empty
// the cache.
func (s *Server) SetResponseCache(on bool) {
	s.mu.Lock()
	s.cacheOn = on
	s.mu.Unlock()
	s.Server.SetResponseCache(on)
}

// IDs returns the ids of entity's live records in Owner/Repo as the
// records' id fields render them: issue ids (pull requests left out) and
// label ids by number, comment ids ascending, commit shas newest first.
func (s *Server) IDs(entity string) []string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	var out []string
	switch entity {
	case entityIssues:
		for x := 1; x <= s.w.numbers+s.m.created; x++ {
			if v, ok := s.issueViewLocked(mutRepo, x); ok && !s.w.isPR(x) {
				out = append(out, strconv.FormatInt(v.id, 10))
			}
		}
	case entityComments:
		for _, c := range s.repoCommentsLocked(mutRepo, "created") {
			out = append(out, strconv.FormatInt(c.id, 10))
		}
		slices.SortFunc(out, func(a, b string) int {
			ia, _ := strconv.ParseInt(a, 10, 64)
			ib, _ := strconv.ParseInt(b, 10, 64)
			return int(ia - ib)
		})
	case entityCommits:
		for i := len(s.m.commits) - 1; i >= 0; i-- {
			out = append(out, s.m.commits[i].sha)
		}
		for k := range s.cfg.commits {
			out = append(out, commitSHA(mutRepo, k))
		}
	case entityLabels:
		for li := range len(labelDefs) + s.m.newLbls {
			if _, ok := s.labelViewLocked(li); ok {
				out = append(out, strconv.FormatInt(labelID(mutRepo, li), 10))
			}
		}
	}
	return out
}

// Create adds a record to entity in Owner/Repo, made now, and returns its
// id: an open issue (the next number), a comment on the lowest-numbered
// live issue (which GitHub then shows as updated), a commit on main, or a
// label.
func (s *Server) Create(entity string) (string, error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	t := s.m.now()
	switch entity {
	case entityIssues:
		s.m.created++
		x := s.w.numbers + s.m.created
		s.m.issues[x] = &issueMod{created: t, updated: t, isNew: true}
		s.changed()
		return strconv.FormatInt(s.w.issueID(mutRepo, x), 10), nil
	case entityComments:
		x := 0
		for n := 1; n <= s.w.numbers+s.m.created; n++ {
			if _, ok := s.issueViewLocked(mutRepo, n); ok && !s.w.isPR(n) {
				x = n
				break
			}
		}
		if x == 0 {
			return "", fmt.Errorf("%w: no live issue to comment on", ErrUnknownRecord)
		}
		id := newCommentBase + int64(len(s.m.newCmts))
		s.m.newCmts = append(s.m.newCmts, id)
		s.m.comments[id] = &commentMod{x: x, j: -1, body: "New comment " + strconv.Itoa(len(s.m.newCmts)) + ", written by the test.",
			created: t, updated: t}
		im := s.issueModLocked(x)
		im.extraComments++
		im.updated = t // a new comment updates its issue
		s.changed()
		return strconv.FormatInt(id, 10), nil
	case entityCommits:
		n := len(s.m.commits)
		parent := commitSHA(mutRepo, 0)
		if n > 0 {
			parent = s.m.commits[n-1].sha
		}
		h := sha1.Sum([]byte("githubtest commit " + strconv.Itoa(n) + " " + t.String()))
		c := newCommit{sha: hex.EncodeToString(h[:]), parent: parent, date: t, author: n % s.cfg.users,
			message: "Add change " + strconv.Itoa(n+1) + " made by the test"}
		s.m.commitBy[c.sha] = n
		s.m.commits = append(s.m.commits, c)
		s.changed()
		return c.sha, nil
	case entityLabels:
		li := len(labelDefs) + s.m.newLbls
		if labelID(mutRepo, li) >= labelID(mutRepo+1, 0) {
			return "", fmt.Errorf("%w: too many labels", ErrUnsupported)
		}
		s.m.newLbls++
		name := "label-" + strconv.Itoa(s.m.newLbls)
		s.m.labels[li] = &labelMod{def: labelDef{name: name, color: "c2e0c6", description: "Created by the test"}, isNew: true}
		s.changed()
		return strconv.FormatInt(labelID(mutRepo, li), 10), nil
	}
	return "", fmt.Errorf("%w: create %s", ErrUnsupported, entity)
}

// Update changes a record of Owner/Repo now: an issue's title and
// updated_at, a comment's body and updated_at, a label's description and
// color (labels have no last-modified time). Commits cannot change.
func (s *Server) Update(entity, id string) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	t := s.m.now()
	switch entity {
	case entityIssues:
		x, ok := s.issueByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: issue %s", ErrUnknownRecord, id)
		}
		v, _ := s.issueViewLocked(mutRepo, x)
		im := s.issueModLocked(x)
		im.title = editedTitle(v.title)
		im.updated = t
		s.changed()
		return nil
	case entityComments:
		cm, ok := s.commentByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: comment %s", ErrUnknownRecord, id)
		}
		cm.body = "Edited by the test at " + t.Format(time.RFC3339) + "."
		cm.updated = t
		s.changed()
		return nil
	case entityLabels:
		li, ok := s.labelByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: label %s", ErrUnknownRecord, id)
		}
		lm := s.labelModLocked(li)
		lm.def.description = editedTitle(lm.def.description)
		lm.def.color = "fbca04"
		s.changed()
		return nil
	case entityCommits:
		return fmt.Errorf("%w: a commit cannot change (create a new one)", ErrUnsupported)
	}
	return fmt.Errorf("%w: update %s", ErrUnsupported, entity)
}

// Delete deletes a record of Owner/Repo as GitHub does: a deleted issue is
// gone from lists and search and its get answers 410 Gone; a deleted
// comment or label is gone (404). Commits and pull requests cannot be
// deleted.
func (s *Server) Delete(entity, id string) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	t := s.m.now()
	switch entity {
	case entityIssues:
		x, ok := s.issueByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: issue %s", ErrUnknownRecord, id)
		}
		im := s.issueModLocked(x)
		im.deleted = true
		im.updated = t
		s.changed()
		return nil
	case entityComments:
		cm, ok := s.commentByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: comment %s", ErrUnknownRecord, id)
		}
		cm.deleted = true
		s.issueModLocked(cm.x).extraComments--
		s.changed()
		return nil
	case entityLabels:
		li, ok := s.labelByIDLocked(id)
		if !ok {
			return fmt.Errorf("%w: label %s", ErrUnknownRecord, id)
		}
		s.labelModLocked(li).deleted = true
		s.changed()
		return nil
	case entityCommits:
		return fmt.Errorf("%w: commits are not deleted (force pushes are not modelled)", ErrUnsupported)
	}
	return fmt.Errorf("%w: delete %s", ErrUnsupported, entity)
}

func editedTitle(s string) string {
	if base, n, ok := strings.Cut(s, " (edited "); ok {
		k, _ := strconv.Atoi(strings.TrimSuffix(n, ")"))
		return base + " (edited " + strconv.Itoa(k+1) + ")"
	}
	return s + " (edited 1)"
}

// newCommentBase is the first id of created comments, above every
// generated comment id.
const newCommentBase = int64(9_000_000_000)

// genKey is appended to the scan-cache key of a list of ri that mutations
// change, so that no ordering cached before a mutation is used after it.
func (s *Server) genKey(ri int) string {
	if ri != mutRepo || !s.m.touched.Load() {
		return ""
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return "/gen" + strconv.Itoa(s.m.gen)
}

// ---- views: what a record looks like with the overlay applied

// issueView is what renders and filters read of number x.
type issueView struct {
	id               int64
	title            string
	created, updated time.Time
	comments         int
	closed           bool
}

// issueView returns number x of repository ri as it is now; ok is false
// for a deleted or unknown number.
func (s *Server) issueView(ri, x int) (issueView, bool) {
	if !s.m.touched.Load() || ri != mutRepo {
		return s.worldIssue(ri, x)
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.issueViewLocked(ri, x)
}

func (s *Server) worldIssue(ri, x int) (issueView, bool) {
	w := s.w
	if x < 1 || x > w.numbers {
		return issueView{}, false
	}
	return issueView{id: w.issueID(ri, x), title: w.title(x), created: w.created(x), updated: w.updated(x),
		comments: w.comments(x), closed: w.closed(x)}, true
}

func (s *Server) issueViewLocked(ri, x int) (issueView, bool) {
	im := s.m.issues[x]
	if ri != mutRepo || im == nil {
		return s.worldIssue(ri, x)
	}
	if im.deleted {
		return issueView{}, false
	}
	var v issueView
	if im.isNew {
		v = issueView{id: s.w.issueID(ri, x), title: s.w.title(x), created: im.created}
	} else {
		v, _ = s.worldIssue(ri, x)
	}
	if im.title != "" {
		v.title = im.title
	}
	v.updated = im.updated
	v.comments += im.extraComments
	return v, true
}

// issueGone reports whether number x of ri was deleted (GitHub: 410).
func (s *Server) issueGone(ri, x int) bool {
	if !s.m.touched.Load() || ri != mutRepo {
		return false
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	im := s.m.issues[x]
	return im != nil && im.deleted
}

func (s *Server) issueModLocked(x int) *issueMod {
	im := s.m.issues[x]
	if im == nil {
		v, _ := s.worldIssue(mutRepo, x)
		im = &issueMod{created: v.created, updated: v.updated}
		s.m.issues[x] = im
	}
	return im
}

// issueByIDLocked resolves a live issue id (not a pull request) of Owner/Repo.
func (s *Server) issueByIDLocked(id string) (int, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0, false
	}
	x := int(n - s.w.issueID(mutRepo, 0))
	if x < 1 || x > s.w.numbers+s.m.created || s.w.isPR(x) {
		return 0, false
	}
	_, ok := s.issueViewLocked(mutRepo, x)
	return x, ok
}

// issueCount is the highest issue number of ri.
func (s *Server) issueCount(ri int) int {
	if ri != mutRepo || !s.m.touched.Load() {
		return s.w.numbers
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.w.numbers + s.m.created
}

// issueOrder lists the live numbers of ri in the order of sortBy
// (created, updated or comments) and direction, as GitHub sorts: ties by
// number in the same direction.
func (s *Server) issueOrder(ri int, sortBy string, desc bool) []int {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	n := s.w.numbers + s.m.created
	type item struct {
		x   int
		key int64
	}
	items := make([]item, 0, n)
	for x := 1; x <= n; x++ {
		v, ok := s.issueViewLocked(ri, x)
		if !ok {
			continue
		}
		var k int64
		switch sortBy {
		case "updated":
			k = v.updated.Unix()
		case "comments", "popularity":
			k = int64(v.comments)
		default:
			k = int64(x)
		}
		items = append(items, item{x, k})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return a.x - b.x
	})
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = it.x
	}
	if desc {
		slices.Reverse(out)
	}
	return out
}

// ---- comments

// commentRef is one comment of a repository as it is now.
type commentRef struct {
	x, j             int // j is -1 for a created comment
	id               int64
	body             string
	created, updated time.Time
}

// commentOf returns generated comment j of number x in ri as it is now.
func (s *Server) commentOf(ri, x, j int) (commentRef, bool) {
	if !s.m.touched.Load() || ri != mutRepo {
		return s.worldComment(ri, x, j), true
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.commentLocked(ri, x, j)
}

func (s *Server) worldComment(ri, x, j int) commentRef {
	t := s.w.commentTime(x, j)
	return commentRef{x: x, j: j, id: s.w.commentID(ri, x, j), body: commentBody(x, j), created: t, updated: t}
}

func (s *Server) commentLocked(ri, x, j int) (commentRef, bool) {
	c := s.worldComment(ri, x, j)
	if cm := s.m.comments[c.id]; cm != nil && ri == mutRepo {
		if cm.deleted {
			return commentRef{}, false
		}
		c.body, c.updated = cm.body, cm.updated
	}
	return c, true
}

func (s *Server) newCommentLocked(id int64) (commentRef, bool) {
	cm := s.m.comments[id]
	if cm == nil || cm.deleted || cm.j >= 0 {
		return commentRef{}, false
	}
	if _, ok := s.issueViewLocked(mutRepo, cm.x); !ok {
		return commentRef{}, false
	}
	return commentRef{x: cm.x, j: -1, id: id, body: cm.body, created: cm.created, updated: cm.updated}, true
}

// commentsOfIssue lists the comments of number x of ri, ascending by id.
func (s *Server) commentsOfIssue(ri, x int) []commentRef {
	var out []commentRef
	if !s.m.touched.Load() || ri != mutRepo {
		for j := range s.w.comments(x) {
			out = append(out, s.worldComment(ri, x, j))
		}
		return out
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.issueCommentsLocked(ri, x)
}

func (s *Server) issueCommentsLocked(ri, x int) []commentRef {
	var out []commentRef
	if _, ok := s.issueViewLocked(ri, x); !ok {
		return nil
	}
	if x <= s.w.numbers {
		for j := range s.w.comments(x) {
			if c, ok := s.commentLocked(ri, x, j); ok {
				out = append(out, c)
			}
		}
	}
	for _, id := range s.m.newCmts {
		if c, ok := s.newCommentLocked(id); ok && c.x == x {
			out = append(out, c)
		}
	}
	return out
}

// commentByIDLocked resolves a live comment id of Owner/Repo, generated or
// created, to its overlay entry (made if needed).
func (s *Server) commentByIDLocked(text string) (*commentMod, bool) {
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, false
	}
	if _, ok := s.newCommentLocked(id); ok {
		return s.m.comments[id], true
	}
	x, j, ok := s.w.commentIndex(mutRepo, id)
	if !ok {
		return nil, false
	}
	c, ok := s.commentLocked(mutRepo, x, j)
	if !ok {
		return nil, false
	}
	if _, live := s.issueViewLocked(mutRepo, x); !live {
		return nil, false
	}
	cm := s.m.comments[id]
	if cm == nil {
		cm = &commentMod{x: x, j: j, body: c.body, created: c.created, updated: c.updated}
		s.m.comments[id] = cm
	}
	return cm, true
}

// commentByID returns the live comment id of ri.
func (s *Server) commentByID(ri int, id int64) (commentRef, bool) {
	if x, j, ok := s.w.commentIndex(ri, id); ok {
		if _, live := s.issueView(ri, x); !live {
			return commentRef{}, false
		}
		return s.commentOf(ri, x, j)
	}
	if ri != mutRepo || !s.m.touched.Load() {
		return commentRef{}, false
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.newCommentLocked(id)
}

// repoComments lists every live comment of ri ordered by sortBy (created
// or updated) ascending, ties by id: the repository-wide comments list.
func (s *Server) repoComments(ri int, sortBy string) []commentRef {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.repoCommentsLocked(ri, sortBy)
}

func (s *Server) repoCommentsLocked(ri int, sortBy string) []commentRef {
	key := strconv.Itoa(ri) + "/" + sortBy
	if s.m.cacheGen != s.m.gen || s.m.cmtCache == nil {
		s.m.cmtCache, s.m.cacheGen = map[string][]commentRef{}, s.m.gen
	}
	if out, ok := s.m.cmtCache[key]; ok {
		return out
	}
	var out []commentRef
	for x := 1; x <= s.w.numbers+s.m.created; x++ {
		if ri == mutRepo {
			out = append(out, s.issueCommentsLocked(ri, x)...)
			continue
		}
		for j := range s.w.comments(x) {
			out = append(out, s.worldComment(ri, x, j))
		}
	}
	at := func(c commentRef) time.Time { return c.created }
	if sortBy == "updated" {
		at = func(c commentRef) time.Time { return c.updated }
	}
	slices.SortFunc(out, func(a, b commentRef) int {
		if c := at(a).Compare(at(b)); c != 0 {
			return c
		}
		return int(a.id - b.id)
	})
	s.m.cmtCache[key] = out
	return out
}

// ---- commits

// newCommits returns the created commits of ri, newest first.
func (s *Server) newCommits(ri int) []newCommit {
	if ri != mutRepo || !s.m.touched.Load() {
		return nil
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	out := slices.Clone(s.m.commits)
	slices.Reverse(out)
	return out
}

// newCommitBySHA finds a created commit of ri.
func (s *Server) newCommitBySHA(ri int, sha string) (newCommit, bool) {
	if ri != mutRepo || !s.m.touched.Load() {
		return newCommit{}, false
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	i, ok := s.m.commitBy[strings.ToLower(sha)]
	if !ok {
		return newCommit{}, false
	}
	return s.m.commits[i], true
}

// ---- labels

// labelView returns label index li of ri as it is now.
func (s *Server) labelView(ri, li int) (labelDef, bool) {
	if ri != mutRepo || !s.m.touched.Load() {
		if li < 0 || li >= len(labelDefs) {
			return labelDef{}, false
		}
		return labelDefs[li], true
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.labelViewLocked(li)
}

func (s *Server) labelViewLocked(li int) (labelDef, bool) {
	if lm := s.m.labels[li]; lm != nil {
		return lm.def, !lm.deleted
	}
	if li < 0 || li >= len(labelDefs) {
		return labelDef{}, false
	}
	return labelDefs[li], true
}

// labelCount is the number of label indexes of ri, deleted ones included.
func (s *Server) labelCount(ri int) int {
	if ri != mutRepo || !s.m.touched.Load() {
		return len(labelDefs)
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return len(labelDefs) + s.m.newLbls
}

// labelByName finds a live label of ri by name, case-insensitively.
func (s *Server) labelByName(ri int, name string) (int, bool) {
	for li := range s.labelCount(ri) {
		if d, ok := s.labelView(ri, li); ok && strings.EqualFold(d.name, name) {
			return li, true
		}
	}
	return 0, false
}

func (s *Server) labelModLocked(li int) *labelMod {
	lm := s.m.labels[li]
	if lm == nil {
		lm = &labelMod{def: labelDefs[li]}
		s.m.labels[li] = lm
	}
	return lm
}

func (s *Server) labelByIDLocked(text string) (int, bool) {
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false
	}
	li := int(id - labelID(mutRepo, 0))
	if li < 0 || li >= len(labelDefs)+s.m.newLbls {
		return 0, false
	}
	_, ok := s.labelViewLocked(li)
	return li, ok
}
