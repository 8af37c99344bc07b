package githubtest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// tokenize splits a search query into terms and qualifiers, keeping quoted
// phrases (also quoted qualifier values, label:"good first issue") together.
func tokenize(q string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, c := range q {
		switch {
		case c == '"':
			quoted = !quoted
		case unicode.IsSpace(c) && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// qualifier splits "-key:value" into its parts.
func qualifier(tok string) (key, value string, negated, ok bool) {
	negated = strings.HasPrefix(tok, "-") && len(tok) > 1
	if negated {
		tok = tok[1:]
	}
	key, value, ok = strings.Cut(tok, ":")
	if !ok || key == "" || strings.ContainsAny(key, "/ ") {
		return "", "", false, false
	}
	return strings.ToLower(key), value, negated, true
}

// rangeMatch evaluates GitHub's range syntax (>v, >=v, <v, <=v, a..b, v)
// with cmp(v) returning <0, 0, >0 as the record's value is below, equal to or
// above v.
func rangeMatch(expr string, cmp func(v string) (int, bool)) (bool, bool) {
	if lo, hi, ok := strings.Cut(expr, ".."); ok {
		a, okA := cmp(lo)
		b, okB := cmp(hi)
		if lo == "*" {
			a, okA = 1, true
		}
		if hi == "*" {
			b, okB = -1, true
		}
		return a >= 0 && b <= 0, okA && okB
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if v, ok := strings.CutPrefix(expr, op); ok {
			c, valid := cmp(v)
			switch op {
			case ">=":
				return c >= 0, valid
			case "<=":
				return c <= 0, valid
			case ">":
				return c > 0, valid
			}
			return c < 0, valid
		}
	}
	c, valid := cmp(expr)
	return c == 0, valid
}

// timeCmp compares t with a date or timestamp; a bare date equals every
// moment of that day.
func timeCmp(t time.Time) func(string) (int, bool) {
	return func(v string) (int, bool) {
		if d, err := time.Parse("2006-01-02", v); err == nil {
			switch {
			case t.Before(d):
				return -1, true
			case !t.Before(d.Add(24 * time.Hour)):
				return 1, true
			}
			return 0, true
		}
		if ts, err := time.Parse(time.RFC3339, v); err == nil {
			return t.Compare(ts), true
		}
		return 0, false
	}
}

func intCmp(n int) func(string) (int, bool) {
	return func(v string) (int, bool) {
		m, err := strconv.Atoi(v)
		if err != nil {
			return 0, false
		}
		switch {
		case n < m:
			return -1, true
		case n > m:
			return 1, true
		}
		return 0, true
	}
}

// lowerWords holds the lowercased text fragments of titles and bodies.
type lowerWords struct {
	verbs, nouns, tails, lines []string
}

func lowerAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToLower(s)
	}
	return out
}

func newLowerWords() lowerWords {
	return lowerWords{lowerAll(titleVerbs[:]), lowerAll(titleNouns[:]), lowerAll(titleTails[:]), lowerAll(bodyLines[:])}
}

// textMatches reports whether a lowercased search term occurs in the title or
// body of number x.
func (w *world) textMatches(lw *lowerWords, x int, term string) bool {
	if strings.Contains(lw.verbs[x%len(lw.verbs)], term) ||
		strings.Contains(lw.nouns[(x/3)%len(lw.nouns)], term) ||
		strings.Contains(lw.tails[(x/7)%len(lw.tails)], term) {
		return true
	}
	for i := range 4 {
		if strings.Contains(lw.lines[(x+i*3)%len(lw.lines)], term) {
			return true
		}
	}
	return strings.Contains(userLogin(w.mentioned(x)), term)
}

// searchPage answers a search request: the 1,000-result cap, the envelope,
// the Link header.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request, sq seq, each func(b *rb, i int)) {
	perPage, page := pageParams(r.URL.Query())
	page = min(page, 1<<30)
	offset := (page - 1) * perPage
	if offset >= SearchResultCap {
		writeError(w, http.StatusUnprocessableEntity, "Only the first 1000 search results are available", docsSearch)
		return
	}
	// GitHub delivers at most SearchResultCap results, whatever per_page:
	// the page that crosses the cap is cut short.
	items, total := s.scans.slice(sq, offset, min(perPage, SearchResultCap-offset))
	setLink(w, r, page, lastPage(min(total, SearchResultCap), perPage))
	b := s.newRB(r)
	b.obj("")
	b.int("total_count", int64(total))
	b.bool("incomplete_results", false)
	b.arr("items")
	for _, i := range items {
		each(b, i)
	}
	b.endArr()
	b.endObj()
	fakeserver.WriteJSON(w, http.StatusOK, b.bytes())
}

func missingQuery(w http.ResponseWriter) {
	writeValidation(w, docsSearch, fieldError{resource: "Search", field: "q", code: "missing"})
}

func cannotSearch(w http.ResponseWriter) {
	writeValidation(w, docsSearch, fieldError{resource: "Search", field: "q", code: "invalid",
		message: "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them."})
}

// searchIssues serves GET /search/issues. Supported qualifiers: repo:, org:,
// user:, is:/type: (issue, pr, open, closed, merged, unmerged), state:,
// label: (comma for any of), no: (label, assignee, milestone), author:,
// assignee:, mentions:, milestone:, comments:, created:, updated:, closed:;
// a leading "-" negates a qualifier. Other words must occur in the title or
// body. Unknown qualifiers are ignored.
func (s *Server) searchIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		missingQuery(w)
		return
	}
	sw := s.w
	lw := newLowerWords()
	// cur is the repository of the candidate being matched: the
	// predicates read its issue as mutations left it.
	cur := 0
	view := func(x int) issueView { v, _ := s.issueView(cur, x); return v }
	var (
		scope     []int
		scoped    bool
		preds     []func(x int) bool
		badScope  bool
		badFilter bool
	)
	all := func() []int {
		out := make([]int, s.cfg.repos)
		for i := range out {
			out[i] = i
		}
		return out
	}
	for _, tok := range tokenize(q) {
		key, val, neg, isQual := qualifier(tok)
		if !isQual {
			term := strings.ToLower(tok)
			preds = append(preds, func(x int) bool {
				return sw.textMatches(&lw, x, term) || strings.Contains(strings.ToLower(view(x).title), term)
			})
			continue
		}
		var p func(x int) bool
		switch key {
		case "repo":
			owner, name, _ := strings.Cut(val, "/")
			ri, ok := sw.repoIndex(owner, name)
			if !ok {
				badScope = true
				continue
			}
			scoped = true
			if !slices.Contains(scope, ri) {
				scope = append(scope, ri)
			}
			continue
		case "org", "user":
			if _, ok := sw.lookupAccount(val); !ok {
				badScope = true
				continue
			}
			scoped = true
			if val == Owner {
				scope = all()
			}
			continue
		case "is", "type", "state":
			switch strings.ToLower(val) {
			case "issue":
				p = func(x int) bool { return !sw.isPR(x) }
			case "pr", "pull-request":
				p = sw.isPR
			case "open":
				p = func(x int) bool { return !view(x).closed }
			case "closed":
				p = func(x int) bool { return view(x).closed }
			case "merged":
				p = func(x int) bool { return sw.isPR(x) && sw.merged(x) }
			case "unmerged":
				p = func(x int) bool { return sw.isPR(x) && sw.closed(x) && !sw.merged(x) }
			default:
				continue
			}
		case "label":
			var want []int
			unknown := false
			for _, name := range strings.Split(val, ",") {
				if li, ok := labelIndex(name); ok {
					want = append(want, li)
				} else {
					unknown = true
				}
			}
			p = func(x int) bool {
				have := sw.issueLabels(x)
				for _, l := range want {
					if slices.Contains(have, l) {
						return true
					}
				}
				return false
			}
			if len(want) == 0 && unknown {
				p = func(int) bool { return false }
			}
		case "no":
			switch strings.ToLower(val) {
			case "label":
				p = func(x int) bool { return len(sw.issueLabels(x)) == 0 }
			case "assignee":
				p = func(x int) bool { return len(sw.assignees(x)) == 0 }
			case "milestone":
				p = func(x int) bool { return sw.milestoneOf(x) == 0 }
			default:
				continue
			}
		case "author":
			p = func(x int) bool { return userLogin(sw.creator(x)) == val }
		case "assignee":
			p = func(x int) bool {
				for _, a := range sw.assignees(x) {
					if userLogin(a) == val {
						return true
					}
				}
				return false
			}
		case "mentions":
			p = func(x int) bool { return userLogin(sw.mentioned(x)) == val }
		case "milestone":
			p = func(x int) bool { m := sw.milestoneOf(x); return m > 0 && "v0."+itoa(m) == val }
		case "comments":
			p = func(x int) bool { ok, _ := rangeMatch(val, intCmp(view(x).comments)); return ok }
		case "created", "updated", "closed":
			at := sw.created
			switch key {
			case "updated":
				at = func(x int) time.Time { return view(x).updated }
			case "closed":
				at = sw.closedAt
			}
			if _, valid := rangeMatch(val, timeCmp(epoch)); !valid {
				badFilter = true
				continue
			}
			p = func(x int) bool {
				if key == "closed" && !sw.closed(x) {
					return false
				}
				ok, _ := rangeMatch(val, timeCmp(at(x)))
				return ok
			}
		default:
			continue
		}
		if neg {
			inner := p
			p = func(x int) bool { return !inner(x) }
		}
		preds = append(preds, p)
	}
	if badScope {
		cannotSearch(w)
		return
	}
	if badFilter {
		writeValidation(w, docsSearch, fieldError{resource: "Search", field: "q", code: "invalid"})
		return
	}
	if !scoped {
		scope = all()
	}
	params := r.URL.Query()
	sortBy := params.Get("sort")
	desc := params.Get("order") != "asc"
	if sortBy == "" {
		desc = true // best match: newest first
	}
	switch {
	case sortBy == "comments" || sortBy == "interactions" || strings.HasPrefix(sortBy, "reactions"):
		sortBy = "comments"
	default:
		sortBy = "created"
	}
	numbers := s.numberSeq(sortBy, desc)
	gen := s.genKey(mutRepo)
	if gen != "" {
		// Numbers a test created follow the generated ones (precede
		// them, newest first).
		all := make([]int, 0, s.issueCount(mutRepo))
		for p := range numbers.n {
			all = append(all, numbers.at(p))
		}
		for x := s.w.numbers + 1; x <= s.issueCount(mutRepo); x++ {
			all = append(all, x)
		}
		if desc {
			made := slices.Clone(all[numbers.n:])
			slices.Reverse(made)
			all = slices.Concat(made, all[:numbers.n])
		}
		numbers = seq{n: len(all), at: func(p int) int { return all[p] }}
	}
	nr := len(scope)
	sq := seq{
		n:   numbers.n * nr,
		at:  ident,
		key: "search/issues/" + q + "/" + sortBy + strconv.FormatBool(desc) + gen,
		keep: func(p int) bool {
			x := numbers.at(p / nr)
			cur = scope[p%nr]
			if _, live := s.issueView(cur, x); !live {
				return false
			}
			for _, pred := range preds {
				if !pred(x) {
					return false
				}
			}
			return true
		},
	}
	s.searchPage(w, r, sq, func(b *rb, p int) { b.issue(scope[p%nr], numbers.at(p/nr), true) })
}

// searchRepos serves GET /search/repositories. Supported qualifiers: user:,
// org:, repo:, language:, topic:, is:public, is:private; other words must
// occur in the name or description. Results come in repository order.
func (s *Server) searchRepos(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		missingQuery(w)
		return
	}
	var preds []func(ri int) bool
	for _, tok := range tokenize(q) {
		key, val, neg, isQual := qualifier(tok)
		if !isQual {
			term := strings.ToLower(tok)
			preds = append(preds, func(ri int) bool { return strings.Contains(repoName(ri), term) })
			continue
		}
		var p func(ri int) bool
		switch key {
		case "user", "org":
			if _, ok := s.w.lookupAccount(val); !ok {
				cannotSearch(w)
				return
			}
			owner := val == Owner
			p = func(int) bool { return owner }
		case "repo":
			owner, name, _ := strings.Cut(val, "/")
			want, ok := s.w.repoIndex(owner, name)
			if !ok {
				cannotSearch(w)
				return
			}
			p = func(ri int) bool { return ri == want }
		case "language":
			p = func(ri int) bool { return strings.EqualFold(repoLanguage(ri), val) }
		case "topic":
			p = func(ri int) bool { return val == "synthetic" || strings.EqualFold(repoLanguage(ri), val) }
		case "is":
			switch val {
			case "public":
				p = func(ri int) bool { return !repoPrivate(ri) }
			case "private":
				p = repoPrivate
			default:
				continue
			}
		default:
			continue
		}
		if neg {
			inner := p
			p = func(ri int) bool { return !inner(ri) }
		}
		preds = append(preds, p)
	}
	desc := r.URL.Query().Get("order") != "asc" || r.URL.Query().Get("sort") == ""
	sq := seq{n: s.cfg.repos, at: order(s.cfg.repos, !desc), key: "search/repos/" + q + strconv.FormatBool(desc)}
	sq.keep = func(ri int) bool {
		for _, p := range preds {
			if !p(ri) {
				return false
			}
		}
		return true
	}
	s.searchPage(w, r, sq, func(b *rb, ri int) { b.repo("", ri, repoSearch) })
}

// searchUsers serves GET /search/users. Supported qualifiers: type:user,
// type:org; other words must occur in the login or name. Candidates are the
// viewer, the organizations and the user pool, in that order.
func (s *Server) searchUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		missingQuery(w)
		return
	}
	orgs := orgLogins()
	acct := func(i int) account {
		switch {
		case i == 0:
			return viewerAccount()
		case i <= len(orgs):
			id, _ := orgID(orgs[i-1])
			return account{orgs[i-1], id, true}
		}
		return s.w.user(i - 1 - len(orgs))
	}
	var preds []func(a account) bool
	for _, tok := range tokenize(q) {
		key, val, neg, isQual := qualifier(tok)
		if !isQual {
			term := strings.ToLower(tok)
			preds = append(preds, func(a account) bool {
				return strings.Contains(a.login, term) || strings.Contains(strings.ToLower(displayName(a)), term)
			})
			continue
		}
		var p func(a account) bool
		switch key {
		case "type":
			switch strings.ToLower(val) {
			case "user":
				p = func(a account) bool { return !a.org }
			case "org":
				p = func(a account) bool { return a.org }
			default:
				continue
			}
		default:
			continue
		}
		if neg {
			inner := p
			p = func(a account) bool { return !inner(a) }
		}
		preds = append(preds, p)
	}
	sq := seq{n: 1 + len(orgs) + s.cfg.users, at: ident, key: "search/users/" + q}
	sq.keep = func(i int) bool {
		a := acct(i)
		for _, p := range preds {
			if !p(a) {
				return false
			}
		}
		return true
	}
	s.searchPage(w, r, sq, func(b *rb, i int) { b.searchUser(acct(i)) })
}
