package engine

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary"
)

// treeWire returns the params of a tree list's request: those of the
// walk (Depth, Pending) left out.
func treeWire(t *Tree, norm tributary.Params) tributary.Params {
	if _, ok := norm[t.Depth]; !ok {
		if _, ok := norm[t.Pending]; !ok {
			return norm
		}
	}
	out := maps.Clone(norm)
	delete(out, t.Depth)
	delete(out, t.Pending)
	return out
}

// treeLevels reads the levels still to read below the parent of norm.
func treeLevels(t *Tree, norm tributary.Params) int {
	if d, ok := norm[t.Depth].(int64); ok {
		return int(d)
	}
	return t.Max
}

// treePending reads the Pending param: the parents still to list.
func treePending(t *Tree, norm tributary.Params) ([]string, error) {
	var out []string
	switch v := norm[t.Pending].(type) {
	case nil:
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s holds %v, not a string", t.Pending, x)
			}
			out = append(out, s)
		}
	case []string:
		out = append(out, v...)
	default:
		return nil, fmt.Errorf("%s is not a list", t.Pending)
	}
	for _, s := range out {
		n, id, ok := strings.Cut(s, ":")
		d, err := strconv.Atoi(n)
		if !ok || err != nil || d < 1 || d > t.Max || id == "" {
			return nil, fmt.Errorf("%s holds %q, not <levels 1 to %d>:<id> as paging writes it", t.Pending, s, t.Max)
		}
	}
	return out, nil
}

// descend sets a tree list's next params: the next page of the same
// parent with the parents found so far (those of its records that have
// children, while levels remain), else the first of them.
func descend(t *Tree, norm tributary.Params, page *tributary.Page) error {
	pending, err := treePending(t, norm)
	if err != nil {
		return err
	}
	if levels := treeLevels(t, norm); levels > 1 {
		for _, r := range page.Records {
			if has, _ := r.Field(t.Has); has != true {
				continue
			}
			raw, ok := r.Field(t.ID)
			id, isStr := raw.(string)
			if !ok || !isStr {
				continue
			}
			pending = append(pending, strconv.Itoa(levels-1)+":"+id)
		}
	}
	switch {
	case page.Next != nil:
		page.Next = maps.Clone(page.Next)
		delete(page.Next, t.Pending)
		if len(pending) > 0 {
			page.Next[t.Pending] = toAny(pending)
		}
	case len(pending) > 0:
		n, id, _ := strings.Cut(pending[0], ":")
		d, _ := strconv.Atoi(n)
		next := maps.Clone(norm)
		delete(next, t.Cursor)
		delete(next, t.Pending)
		next[t.Param], next[t.Depth] = id, int64(d)
		if len(pending) > 1 {
			next[t.Pending] = toAny(pending[1:])
		}
		page.Next = next
	}
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
