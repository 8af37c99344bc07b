package gong_test

import (
	"context"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/replicatest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/search"
)

// A durable replica copies calls_extensive with no params from the
// caller (the scope's params: every call) and a search finds a call by
// its basic data. A call's id is metaData.id: the catalogue's searchable
// "id" is not on the records: the catalogue names its IDField.
func TestReplicaCopiesCallsExtensive(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	r := replicatest.Synced(t, c, []string{"calls_extensive"})
	if got := r.Len("calls_extensive"); got != gongtest.DefaultCalls {
		t.Errorf("%d calls in the copy, want %d", got, gongtest.DefaultCalls)
	}
	want := allIDs(t, c, "calls", nil, "id")[3]
	res, err := r.Search(context.Background(), "calls_extensive", search.Request{Query: search.Query{Filter: search.Eq("metaData.id", want).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != want {
		t.Fatalf("search for call %s: %+v", want, res.Hits)
	}
	if _, ok := tributary.NewRecord(res.Hits[0].Data).Lookup("parties"); !ok {
		t.Errorf("call %s was copied without its parties", want)
	}
}
