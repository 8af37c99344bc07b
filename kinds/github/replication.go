package github

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
)

// ReplicationParams declares the keys of a GitHub connector's
// replication_config (kinds.ReplicationParams; describe shows them). Both
// are optional: without repositories a copy covers every repository the
// credentials can read (GET /user/repos).
func ReplicationParams() []tributary.Param {
	return []tributary.Param{
		{Name: "repositories", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString},
			Doc: "repositories to copy: owner/repo, or owner/* for every repository of that user or organization the credentials can read (default: every repository the credentials can read)"},
		{Name: "start_date", Type: tributary.TypeString,
			Doc: "RFC 3339 date-time (2024-01-31T00:00:00Z): issues, issue comments and commits last updated (commits: committed) before it are not read"},
	}
}

// GitHub's rules for names: a login is alphanumeric with single hyphens,
// at most 39 characters; a repository name is letters, digits, '.', '-'
// and '_', at most 100 characters.
var (
	loginRE    = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$`)
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// CheckReplicationConfig checks what ReplicationParams cannot say of a
// normalized replication_config: each repositories item is owner/repo or
// owner/*, and start_date is an RFC 3339 date-time. kinds.
// NormalizeReplicationConfig calls it after the declaration's checks.
func CheckReplicationConfig(config map[string]any) error {
	items, _ := config["repositories"].([]any)
	for i, it := range items {
		s, _ := it.(string)
		if _, _, err := splitRepository(s); err != nil {
			name := fmt.Sprintf("replication_config.repositories[%d]", i)
			return &tributary.Error{Kind: Type, Param: name, Err: tributary.ErrInvalidParams, Message: name + " " + err.Error()}
		}
	}
	if s, ok := config["start_date"].(string); ok {
		if _, err := parseStartDate(s); err != nil {
			return &tributary.Error{Kind: Type, Param: "replication_config.start_date", Err: tributary.ErrInvalidParams,
				Message: "replication_config.start_date " + err.Error()}
		}
	}
	return nil
}

// splitRepository reads a repositories item: owner/repo, or owner/* (repo
// "*").
func splitRepository(s string) (owner, repo string, err error) {
	o, r, _ := strings.Cut(s, "/")
	if strings.Count(s, "/") != 1 || !loginRE.MatchString(o) || !(r == "*" || repoNameRE.MatchString(r) && r != "." && r != "..") {
		return "", "", fmt.Errorf("%q is not owner/repo or owner/* (e.g. octo/hello, octo/*)", s)
	}
	return o, r, nil
}

func parseStartDate(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time (e.g. 2024-01-31T00:00:00Z)", s)
	}
	return t, nil
}
