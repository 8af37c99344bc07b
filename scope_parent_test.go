package tributary_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
)

// A parent's Field names what its children are stamped with when their
// list param has another name (Jira: issueIdOrKey to list, issueId on the
// record); without it, the param.
func TestParentPartField(t *testing.T) {
	p := tributary.Parent{Entity: "issues", IDField: "id", Param: "issueIdOrKey", Field: "issueId", Key: "issue"}
	want := tributary.Part{Key: "issue 10001", Params: tributary.Params{"issueIdOrKey": "10001"}, Fields: map[string]any{"issueId": "10001"}}
	if d := cmp.Diff(want, p.Part("10001")); d != "" {
		t.Errorf("part (-want +got):\n%s", d)
	}
	s := p.Scope("the comments of every issue")
	if s.Parent == nil || *s.Parent != p || s.Parts == nil || !(tributary.Entity{Scope: s}).CopiedInParts() {
		t.Errorf("scope %+v", s)
	}
	p.Field = ""
	if got := p.Part(7).Fields; !cmp.Equal(got, map[string]any{"issueIdOrKey": 7}) {
		t.Errorf("without Field: %v", got)
	}
}
