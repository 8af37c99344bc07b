package reliability

import (
	"slices"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// TestEveryKindCovered keeps the suite complete: every kind of this build
// has a case, and every kind with a download action a download case. A new
// kind fails here until the suite covers it.
func TestEveryKindCovered(t *testing.T) {
	var have, haveDL []string
	for _, kc := range kindCases() {
		have = append(have, kc.typ)
	}
	for _, dc := range dlCases() {
		haveDL = append(haveDL, dc.kc.typ)
	}
	for _, typ := range kinds.Types() {
		if !slices.Contains(have, typ) {
			t.Errorf("%s has no case in kindCases", typ)
		}
		entities, err := kinds.Catalogue(typ)
		if err != nil {
			t.Fatal(err)
		}
		var downloads []string
		for _, e := range entities {
			if slices.Contains(e.Actions, tributary.ActionDownload) {
				downloads = append(downloads, e.Name)
			}
		}
		if len(downloads) > 0 && !slices.Contains(haveDL, typ) {
			t.Errorf("%s downloads %v but has no case in dlCases", typ, downloads)
		}
		if len(downloads) == 0 && slices.Contains(haveDL, typ) {
			t.Errorf("%s has a download case but no download action", typ)
		}
	}
	if len(have) != len(kinds.Types()) {
		t.Errorf("kindCases covers %v, the build has %v", have, kinds.Types())
	}
}
