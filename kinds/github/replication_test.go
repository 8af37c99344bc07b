package github_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

func TestReplicationConfig(t *testing.T) {
	good := map[string]any{"repositories": []string{"octo/hello", "octo/*", "octo-labs/a.b_c-d"}, "start_date": "2024-01-31T10:00:00+02:00"}
	got, err := kinds.NormalizeReplicationConfig("github", good)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"repositories": []any{"octo/hello", "octo/*", "octo-labs/a.b_c-d"}, "start_date": "2024-01-31T10:00:00+02:00"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("normalized (-want +got):\n%s", d)
	}
	if got, err := kinds.NormalizeReplicationConfig("github", nil); err != nil || len(got) != 0 {
		t.Errorf("no config: %v, %v", got, err)
	}

	bad := []struct {
		config map[string]any
		param  string
		says   string
	}{
		{map[string]any{"repositoris": []string{"octo/hello"}}, "replication_config.repositoris", `did you mean "repositories"`},
		{map[string]any{"start_dat": "2024-01-31T00:00:00Z"}, "replication_config.start_dat", `did you mean "start_date"`},
		{map[string]any{"repositories": []string{"octo/hello", "octo/*", "octo"}}, "replication_config.repositories[2]", `"octo" is not owner/repo or owner/*`},
		{map[string]any{"repositories": []string{"octo/hello/x"}}, "replication_config.repositories[0]", "not owner/repo"},
		{map[string]any{"repositories": []string{"-octo/hello"}}, "replication_config.repositories[0]", "not owner/repo"},
		{map[string]any{"repositories": []string{"octo/he llo"}}, "replication_config.repositories[0]", "not owner/repo"},
		{map[string]any{"repositories": []any{"octo/hello", 7}}, "replication_config.repositories[1]", "must be a string"},
		{map[string]any{"repositories": "octo/hello"}, "replication_config.repositories", "must be an array"},
		{map[string]any{"start_date": "2024-01-31"}, "replication_config.start_date", "not an RFC 3339 date-time"},
	}
	for _, c := range bad {
		_, err := kinds.NormalizeReplicationConfig("github", c.config)
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("%v: got %v, want an invalid-params error", c.config, err)
			continue
		}
		if te.Param != c.param || !strings.Contains(te.Message, c.says) || !strings.Contains(te.Message, c.param) {
			t.Errorf("%v: got param %q, message %q; want %q saying %q", c.config, te.Param, te.Message, c.param, c.says)
		}
	}
}
