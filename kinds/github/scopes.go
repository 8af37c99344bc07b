package github

import (
	"context"
	"errors"
	"iter"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary"
)

// The copy scopes of the catalogue (Entity.Scope). Every searchable GitHub
// entity needs list params, so its copy is read in parts: one per
// repository of the connector's replication_config (owner/* expanded to
// the owner's repositories) or, without one, of every repository the
// credentials can read (GET /user/repos), as Nango's GitHub syncs do; one
// per pull request for reviews; one per organization of the authenticated
// user for its members and teams. The parts' requests go through the
// catalogue's own list actions.

// The searchable fields the parts set on their records (Part.Fields);
// GitHub sends none of them on these lists.
var (
	repositoryField = tributary.Field{Name: "repository", Type: tributary.TypeString,
		Doc: "owner/repo of the record's repository: set by the copy (the part that read the record), not sent by GitHub"}
	pullNumberField = tributary.Field{Name: "pull_number", Type: tributary.TypeInteger,
		Doc: "number of the review's pull request: set by the copy, not sent by GitHub"}
	orgField = tributary.Field{Name: "org", Type: tributary.TypeString,
		Doc: "login of the organization the record was listed for: set by the copy, not sent by GitHub"}
)

// viewerKey is the key of the one part read for the authenticated user
// (GET /user/repos, GET /user/orgs).
const viewerKey = "user"

// repoRef is one repository of a copy's scope.
type repoRef struct{ owner, name string }

func (r repoRef) String() string { return r.owner + "/" + r.name }

// configRepositories reads replication_config.repositories (normalized:
// []any of strings; []string accepted too).
func configRepositories(config map[string]any) []string {
	switch v := config["repositories"].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// configSince is replication_config.start_date as GitHub's since, "" when
// unset.
func configSince(config map[string]any) (string, error) {
	s, _ := config["start_date"].(string)
	if s == "" {
		return "", nil
	}
	t, err := parseStartDate(s)
	if err != nil {
		return "", &tributary.Error{Kind: Type, Param: "replication_config.start_date", Err: tributary.ErrInvalidParams,
			Message: "replication_config.start_date " + err.Error()}
	}
	return sinceParam(t), nil
}

// repositoriesParts lists the walks of repositories.list a copy's
// repositories take: each owner/repo item read by itself
// (GET /repos/{owner}/{repo}), each owner/* item by its owner's list
// (GET /orgs/{org}/repos for an organization, which includes the private
// repositories the credentials can read; GET /users/{username}/repos for
// a user, which GitHub limits to public ones, or, for the authenticated
// user, GET /user/repos?affiliation=owner, private ones included), and
// without configured
// repositories every repository the credentials can read (GET /user/repos).
func repositoriesParts(ctx context.Context, c tributary.Connector, config map[string]any) iter.Seq2[tributary.Part, error] {
	return func(yield func(tributary.Part, error) bool) {
		items := configRepositories(config)
		if len(items) == 0 {
			yield(tributary.Part{Key: viewerKey, Params: tributary.Params{}}, nil)
			return
		}
		seen := map[string]bool{}
		for i, item := range items {
			owner, name, err := splitRepository(item)
			if err != nil {
				yield(tributary.Part{}, &tributary.Error{Kind: Type, Entity: "repositories", Param: "replication_config.repositories[" + strconv.Itoa(i) + "]",
					Err: tributary.ErrInvalidParams, Message: err.Error()})
				return
			}
			if seen[item] {
				continue
			}
			seen[item] = true
			p := tributary.Params{"owner": owner, "repo": name}
			if name == "*" {
				// GitHub serves an organization's repositories and a user's
				// at different paths; the account's type says which.
				acct, err := c.Get(ctx, "users", tributary.Params{"username": owner})
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				t, _ := acct.StringAt("type")
				viewer := false
				if t != "Organization" {
					if viewer, err = isViewer(ctx, c, acct); err != nil {
						yield(tributary.Part{}, err)
						return
					}
				}
				switch {
				case t == "Organization":
					p = tributary.Params{"org": owner, "sort": "full_name"}
				case viewer:
					// GET /users/{username}/repos lists public
					// repositories only; the authenticated user's own,
					// private ones included, are GET
					// /user/repos?affiliation=owner.
					p = tributary.Params{"affiliation": "owner"}
				default:
					p = tributary.Params{"username": owner}
				}
			}
			if !yield(tributary.Part{Key: item, Params: p}, nil) {
				return
			}
		}
	}
}

// isViewer reports whether acct (GET /users/{username}) is the
// authenticated user (GET /user). A token that may not read /user (a
// GitHub App's installation token: 403, or 401/404) is not that user; any
// other failure is an error, so that a copy is never read from the public
// list alone by mistake.
func isViewer(ctx context.Context, c tributary.Connector, acct tributary.Record) (bool, error) {
	id, ok := acct.IntAt("id")
	if !ok {
		return false, nil
	}
	viewer, err := c.Get(ctx, "viewer", tributary.Params{})
	switch {
	case errors.Is(err, tributary.ErrForbidden), errors.Is(err, tributary.ErrUnauthorized), errors.Is(err, tributary.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	vid, ok := viewer.IntAt("id")
	return ok && vid == id, nil
}

// scopeRepositories yields each repository a copy covers once, in the
// order of the configuration (an owner's repositories by name). A Client
// remembers the list for repoListFresh (Client.repoLists): the copies of
// one sync, one entity after the other, read it once, not once each.
func scopeRepositories(ctx context.Context, c tributary.Connector, config map[string]any) iter.Seq2[repoRef, error] {
	cl, _ := c.(*Client)
	if cl == nil || cl.repoLists == nil {
		return readRepositories(ctx, c, config)
	}
	return func(yield func(repoRef, error) bool) {
		key := strings.Join(configRepositories(config), "\n")
		refs, ok := cl.repoLists.get(key, time.Now())
		if !ok {
			refs = nil
			for r, err := range readRepositories(ctx, c, config) {
				if err != nil {
					yield(repoRef{}, err)
					return
				}
				refs = append(refs, r)
			}
			cl.repoLists.put(key, refs, time.Now())
		}
		for _, r := range refs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// repoListFresh is how long a Client reuses the repositories a copy's
// scope listed: long enough for the copies of one sync, short enough that
// a repository created since is in the next sync's copies.
const repoListFresh = time.Minute

// repoLists remembers the repository lists of the copy scopes, by
// replication_config.repositories, each for repoListFresh.
type repoLists struct {
	mu    sync.Mutex
	lists map[string]repoList
}

type repoList struct {
	refs []repoRef
	at   time.Time
}

func (l *repoLists) get(key string, now time.Time) ([]repoRef, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.lists[key]
	if !ok || now.Sub(e.at) >= repoListFresh || now.Before(e.at) {
		return nil, false
	}
	return e.refs, true
}

func (l *repoLists) put(key string, refs []repoRef, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lists == nil {
		l.lists = map[string]repoList{}
	}
	l.lists[key] = repoList{refs: refs, at: now}
}

// readRepositories reads the repositories of a copy's scope.
func readRepositories(ctx context.Context, c tributary.Connector, config map[string]any) iter.Seq2[repoRef, error] {
	return func(yield func(repoRef, error) bool) {
		seen := map[repoRef]bool{}
		for part, err := range repositoriesParts(ctx, c, config) {
			if err != nil {
				yield(repoRef{}, err)
				return
			}
			for rec, err := range tributary.All(ctx, c, "repositories", part.Params) {
				if err != nil {
					yield(repoRef{}, err)
					return
				}
				owner, _ := rec.StringAt("owner.login")
				name, _ := rec.StringAt("name")
				r := repoRef{owner, name}
				if owner == "" || name == "" || seen[r] {
					continue
				}
				seen[r] = true
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// perRepository is the scope of a repository-level entity: one part per
// repository of the copy, with params added to owner and repo, and since
// from replication_config.start_date when withSince.
func perRepository(doc string, params tributary.Params, withSince bool) *tributary.Scope {
	return &tributary.Scope{Doc: doc, Parts: func(ctx context.Context, c tributary.Connector, config map[string]any) iter.Seq2[tributary.Part, error] {
		return func(yield func(tributary.Part, error) bool) {
			since, err := configSince(config)
			if err != nil {
				yield(tributary.Part{}, err)
				return
			}
			for r, err := range scopeRepositories(ctx, c, config) {
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				if !yield(repositoryPart(r, params, withSince, since), nil) {
					return
				}
			}
		}
	}}
}

func repositoryPart(r repoRef, params tributary.Params, withSince bool, since string) tributary.Part {
	p := tributary.Params{"owner": r.owner, "repo": r.name}
	maps.Copy(p, params)
	if withSince && since != "" {
		p["since"] = since
	}
	return tributary.Part{Key: r.String(), Params: p, Fields: map[string]any{repositoryField.Name: r.String()}}
}

const repoScopeDoc = " of every repository of replication_config.repositories (owner/* expanded), or of every repository the credentials can read"

// repositoriesScope: the repositories themselves.
var repositoriesScope = &tributary.Scope{
	Doc:   "the repositories of replication_config.repositories (owner/* expanded), or every repository the credentials can read (GET /user/repos)",
	Parts: repositoriesParts,
}

// reviewsScope: one part per pull request (closed ones included) of every
// repository of the copy.
var reviewsScope = &tributary.Scope{
	Doc: "the reviews of every pull request (open and closed)" + repoScopeDoc,
	Parts: func(ctx context.Context, c tributary.Connector, config map[string]any) iter.Seq2[tributary.Part, error] {
		return func(yield func(tributary.Part, error) bool) {
			for r, err := range scopeRepositories(ctx, c, config) {
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				for pr, err := range tributary.All(ctx, c, "pull_requests", tributary.Params{"owner": r.owner, "repo": r.name, "state": "all"}) {
					if err != nil {
						yield(tributary.Part{}, err)
						return
					}
					n, ok := pr.IntAt("number")
					if !ok {
						continue
					}
					// A review submitted, edited or dismissed changes its
					// pull request's updated_at.
					updated, _ := pr.StringAt("updated_at")
					part := tributary.Part{Key: r.String() + "#" + strconv.FormatInt(n, 10),
						Params:  tributary.Params{"owner": r.owner, "repo": r.name, "pull_number": n},
						Fields:  map[string]any{repositoryField.Name: r.String(), pullNumberField.Name: n},
						Version: updated}
					if !yield(part, nil) {
						return
					}
				}
			}
		}
	},
}

// organizationsScope: the organizations of the authenticated user.
var organizationsScope = &tributary.Scope{
	Doc: "the organizations of the authenticated user (GET /user/orgs)",
	Parts: func(context.Context, tributary.Connector, map[string]any) iter.Seq2[tributary.Part, error] {
		return func(yield func(tributary.Part, error) bool) {
			yield(tributary.Part{Key: viewerKey, Params: tributary.Params{}}, nil)
		}
	},
}

// perOrganization is the scope of an organization-level entity: one part
// per organization of the authenticated user, listed with {org: login} and
// keyed by the login.
func perOrganization(doc string) *tributary.Scope {
	return tributary.ChildScope(doc, "organizations", "login", orgField.Name, "")
}

// keyedPerPart marks a scope whose records repeat across parts (a branch
// name in every repository, a user in every organization): the copy keys
// them by part and id (tributary.Scope.PartIDs).
func keyedPerPart(s *tributary.Scope) *tributary.Scope {
	s.PartIDs = true
	return s
}
