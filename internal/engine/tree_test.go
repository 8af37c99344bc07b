package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// treeSource serves /children/{id}, one record a page (cursor "1"): the
// tree p → a, b; a → a1; a1 → a11; b has no children.
type treeSource struct {
	mu   sync.Mutex
	reqs []string
}

var tree = map[string][]string{"p": {"a", "b"}, "a": {"a1"}, "a1": {"a11"}}

func (s *treeSource) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.URL.RequestURI())
	s.mu.Unlock()
	kids := tree[strings.TrimPrefix(r.URL.Path, "/children/")]
	at := 0
	if r.URL.Query().Get("cursor") == "1" {
		at = 1
	}
	if at >= len(kids) {
		return reply(http.StatusOK, nil, `{"results":[],"next":null}`), nil
	}
	next := "null"
	if at+1 < len(kids) {
		next = `"1"`
	}
	id := kids[at]
	return reply(http.StatusOK, nil, fmt.Sprintf(`{"results":[{"id":%q,"has_children":%t}],"next":%s}`, id, len(tree[id]) > 0, next)), nil
}

func openTree(t *testing.T, src *treeSource) *engine.Connector {
	t.Helper()
	tr := &engine.Tree{Param: "id", ID: "id", Has: "has_children", Cursor: "cursor", Depth: "depth", Max: 5, Pending: "pending"}
	k := engine.Kind{Type: "tree", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "nodes", Actions: []tributary.Action{tributary.ActionList},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {
				{Name: "id", Type: tributary.TypeString, Required: true}, {Name: "cursor", Type: tributary.TypeString},
				{Name: "depth", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(5)},
				{Name: "pending", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString}},
			}}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/children/{id}", Records: "results",
			Paging: pagination.Token{Param: "cursor", Field: "next"}, Tree: tr}}},
	}}}
	return openNoRetry(t, k, src)
}

// A tree list reads the children of its parent, then theirs, to the
// depth asked (every level by default), and never sends depth or
// pending.
func TestTreeListReadsLevels(t *testing.T) {
	for _, tc := range []struct {
		depth any
		want  []string
	}{
		{int64(1), []string{"a", "b"}},
		{int64(2), []string{"a", "b", "a1"}},
		{int64(3), []string{"a", "b", "a1", "a11"}},
		{nil, []string{"a", "b", "a1", "a11"}},
	} {
		src := &treeSource{}
		c := openTree(t, src)
		p := tributary.Params{"id": "p"}
		if tc.depth != nil {
			p["depth"] = tc.depth
		}
		var got []string
		for r, err := range tributary.All(context.Background(), c, "nodes", p) {
			if err != nil {
				t.Fatal(err)
			}
			id, _ := r.StringAt("id")
			got = append(got, id)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("depth %v: read %v, want %v", tc.depth, got, tc.want)
		}
		for _, q := range src.reqs {
			if strings.Contains(q, "depth") || strings.Contains(q, "pending") {
				t.Errorf("depth %v: sent %s", tc.depth, q)
			}
		}
	}
}

// A page's Next carries the parents still to read; a pending entry that
// paging did not write is refused before anything is sent.
func TestTreeListPending(t *testing.T) {
	src := &treeSource{}
	c := openTree(t, src)
	page, err := c.List(context.Background(), "nodes", tributary.Params{"id": "p"})
	if err != nil {
		t.Fatal(err)
	}
	page, err = c.List(context.Background(), "nodes", page.Next)
	if err != nil || page.Next["id"] != "a" || page.Next["depth"] != int64(4) {
		t.Fatalf("after b: next %v, %v", page.Next, err)
	}
	_, err = c.List(context.Background(), "nodes", tributary.Params{"id": "p", "pending": []any{"9:x"}})
	if !errors.Is(err, tributary.ErrInvalidParams) || len(src.reqs) != 2 {
		t.Errorf("a forged pending entry: %v after %d requests", err, len(src.reqs))
	}
}
