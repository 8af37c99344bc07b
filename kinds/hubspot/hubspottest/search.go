package hubspottest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// HubSpot's limits on a search body (since 2024-08-26).
const (
	maxFilterGroups   = 5
	maxGroupFilters   = 10
	maxTotalFilters   = 25
	maxQueryLength    = 3000
	defaultSearchSize = 10
)

type filter struct {
	prop     string
	op       string
	value    string
	hasValue bool
	high     string
	values   []string
}

type searchRequest struct {
	groups     [][]filter
	query      string
	sortProp   string
	desc       bool
	properties []string
	limit      int
	after      int
}

type filterJSON struct {
	PropertyName string            `json:"propertyName"`
	Operator     string            `json:"operator"`
	Value        json.RawMessage   `json:"value"`
	HighValue    json.RawMessage   `json:"highValue"`
	Values       []json.RawMessage `json:"values"`
}

type searchJSON struct {
	FilterGroups []struct {
		Filters []filterJSON `json:"filters"`
	} `json:"filterGroups"`
	Sorts      []json.RawMessage `json:"sorts"`
	Query      string            `json:"query"`
	Properties []string          `json:"properties"`
	Limit      json.RawMessage   `json:"limit"`
	After      json.RawMessage   `json:"after"`
}

// scalar reads a JSON string, number or boolean as HubSpot's string form;
// ok is false for null or a missing value.
func scalar(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return strconv.FormatBool(b), true
	}
	return "", false
}

func intField(raw json.RawMessage, name string, def int) (int, string) {
	v, ok := scalar(raw)
	if !ok {
		return def, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, "Invalid input JSON: " + name + " must be a non-negative integer, got " + v
	}
	return n, ""
}

func validOperator(op string) bool {
	switch op {
	case "EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN",
		"HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN":
		return true
	}
	return false
}

// parseSearch decodes and checks a search body; a non-empty message is the
// 400's message.
func parseSearch(body io.Reader) (searchRequest, string) {
	var req searchRequest
	b, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return req, "Invalid input JSON: could not read the body"
	}
	var in searchJSON
	if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &in); err != nil {
			return req, "Invalid input JSON: " + err.Error()
		}
	}
	var msg string
	if req.limit, msg = intField(in.Limit, "limit", defaultSearchSize); msg != "" {
		return req, msg
	}
	if req.after, msg = intField(in.After, "after", 0); msg != "" {
		return req, msg
	}
	if len(in.Query) > maxQueryLength {
		return req, "query must be at most 3000 characters"
	}
	req.query = strings.ToLower(strings.TrimSpace(in.Query))
	req.properties = in.Properties
	if len(in.FilterGroups) > maxFilterGroups {
		return req, "Too many filter groups: a search accepts at most 5"
	}
	total := 0
	for _, g := range in.FilterGroups {
		if len(g.Filters) > maxGroupFilters {
			return req, "Too many filters in a filter group: a group accepts at most 10"
		}
		total += len(g.Filters)
		group := make([]filter, 0, len(g.Filters))
		for _, fj := range g.Filters {
			f := filter{prop: fj.PropertyName, op: strings.ToUpper(fj.Operator)}
			if f.prop == "" {
				return req, "Every filter needs a propertyName"
			}
			if !validOperator(f.op) {
				return req, "Invalid filter operator: " + fj.Operator
			}
			f.value, f.hasValue = scalar(fj.Value)
			f.high, _ = scalar(fj.HighValue)
			for _, v := range fj.Values {
				if s, ok := scalar(v); ok {
					f.values = append(f.values, s)
				}
			}
			switch f.op {
			case "HAS_PROPERTY", "NOT_HAS_PROPERTY":
			case "IN", "NOT_IN":
				if len(f.values) == 0 {
					return req, "Filter " + f.prop + " " + f.op + " needs values"
				}
			case "BETWEEN":
				if !f.hasValue || f.high == "" {
					return req, "Filter " + f.prop + " BETWEEN needs value and highValue"
				}
			default:
				if !f.hasValue {
					return req, "Filter " + f.prop + " " + f.op + " needs a value"
				}
			}
			group = append(group, f)
		}
		req.groups = append(req.groups, group)
	}
	if total > maxTotalFilters {
		return req, "Too many filters: a search accepts at most 25"
	}
	// HubSpot applies one sorting rule; sorts are {propertyName, direction}
	// objects, or strings ("createdate", "-createdate").
	if len(in.Sorts) > 0 {
		var o struct {
			PropertyName string `json:"propertyName"`
			Direction    string `json:"direction"`
		}
		var s string
		switch {
		case json.Unmarshal(in.Sorts[0], &s) == nil:
			req.sortProp = strings.TrimPrefix(s, "-")
			req.desc = strings.HasPrefix(s, "-")
		case json.Unmarshal(in.Sorts[0], &o) == nil:
			req.sortProp = o.PropertyName
			switch strings.ToUpper(o.Direction) {
			case "", "ASCENDING":
			case "DESCENDING":
				req.desc = true
			default:
				return req, "Invalid sort direction: " + o.Direction
			}
		default:
			return req, "Invalid input JSON: sorts"
		}
	}
	return req, ""
}

// match returns how many live records of t match req and the record index
// of the k-th match in the requested order.
func (d *dataset) match(t *objectType, req searchRequest) (int, func(int) int) {
	n := d.total(t)
	natural := req.sortProp == "" || req.sortProp == t.createProp || req.sortProp == "hs_object_id"
	if len(req.groups) == 0 && req.query == "" && natural && !d.anyDeleted(t) {
		if req.desc {
			return n, func(k int) int { return n - 1 - k }
		}
		return n, func(k int) int { return k }
	}
	hits := d.hits(t, req, natural)
	return len(hits), func(k int) int { return hits[k] }
}

// maxCachedSearches bounds the searches whose matches are kept, so that
// paging through one search does not filter and sort every record again
// for each page (the data never changes).
const maxCachedSearches = 8

type cachedSearch struct {
	key  string
	hits []int
}

// hits returns the indexes of the records of t matching req, in order.
func (d *dataset) hits(t *objectType, req searchRequest, natural bool) []int {
	d.mu.Lock()
	gen := d.gen
	key := fmt.Sprintf("%d|%s|%v|%q|%s|%v", gen, t.name, req.groups, req.query, req.sortProp, req.desc)
	for _, c := range d.cache {
		if c.key == key {
			d.mu.Unlock()
			return c.hits
		}
	}
	d.mu.Unlock()

	type hit struct {
		i   int
		key *sortKey
	}
	var sortFn propFn
	if !natural {
		sortFn = t.index[req.sortProp]
	}
	n := d.total(t)
	var found []hit
	for i := 0; i < n; i++ {
		r := ref{t: t, i: i}
		if d.deleted(r) || !d.matches(r, req) {
			continue
		}
		h := hit{i: i}
		if sortFn != nil {
			if v := sortFn(d, r); v != nil {
				h.key = newSortKey(*v)
			}
		}
		found = append(found, h)
	}
	switch {
	case sortFn != nil:
		sort.SliceStable(found, func(a, b int) bool {
			ka, kb := found[a].key, found[b].key
			if ka == nil || kb == nil { // records without a value go last
				return ka != nil && kb == nil
			}
			c := ka.compare(kb)
			if req.desc {
				return c > 0
			}
			return c < 0
		})
	case natural && req.desc:
		slices.Reverse(found)
	}
	hits := make([]int, len(found))
	for k, h := range found {
		hits[k] = h.i
	}
	d.mu.Lock()
	if d.gen != gen { // a mutation came meanwhile: do not keep stale matches
		d.mu.Unlock()
		return hits
	}
	if len(d.cache) >= maxCachedSearches {
		d.cache = d.cache[1:]
	}
	d.cache = append(d.cache, cachedSearch{key: key, hits: hits})
	d.mu.Unlock()
	return hits
}

// sortKey is a property value parsed once for sorting, ordered as compare
// orders values.
type sortKey struct {
	raw    string
	t      time.Time
	isTime bool
	f      float64
	isNum  bool
}

func newSortKey(v string) *sortKey {
	k := &sortKey{raw: v}
	k.t, k.isTime = parseTime(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		k.f, k.isNum = f, true
	}
	return k
}

func (a *sortKey) compare(b *sortKey) int {
	switch {
	case a.isTime && b.isTime:
		return a.t.Compare(b.t)
	case a.isNum && b.isNum:
		return cmp.Compare(a.f, b.f)
	}
	return compare(a.raw, b.raw)
}

func (d *dataset) matches(r ref, req searchRequest) bool {
	if req.query != "" {
		found := false
		for _, p := range r.t.queryProps {
			if fn := r.t.index[p]; fn != nil {
				if v := fn(d, r); v != nil && strings.Contains(strings.ToLower(*v), req.query) {
					found = true
					break
				}
			}
		}
		if !found {
			return false
		}
	}
	if len(req.groups) == 0 {
		return true
	}
	for _, g := range req.groups { // groups are ORed, filters in a group ANDed
		ok := true
		for _, f := range g {
			var v *string
			if fn := r.t.index[f.prop]; fn != nil {
				v = fn(d, r)
			}
			if !f.matches(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (f filter) matches(v *string) bool {
	has := v != nil && *v != ""
	switch f.op {
	case "HAS_PROPERTY":
		return has
	case "NOT_HAS_PROPERTY":
		return !has
	}
	if !has {
		switch f.op {
		case "NEQ", "NOT_IN", "NOT_CONTAINS_TOKEN":
			return true
		}
		return false
	}
	switch f.op {
	case "EQ":
		return compare(*v, f.value) == 0
	case "NEQ":
		return compare(*v, f.value) != 0
	case "LT":
		return compare(*v, f.value) < 0
	case "LTE":
		return compare(*v, f.value) <= 0
	case "GT":
		return compare(*v, f.value) > 0
	case "GTE":
		return compare(*v, f.value) >= 0
	case "BETWEEN":
		return compare(*v, f.value) >= 0 && compare(*v, f.high) <= 0
	case "IN", "NOT_IN":
		in := false
		for _, x := range f.values {
			if compare(*v, x) == 0 {
				in = true
				break
			}
		}
		return in == (f.op == "IN")
	case "CONTAINS_TOKEN":
		return containsToken(*v, f.value)
	case "NOT_CONTAINS_TOKEN":
		return !containsToken(*v, f.value)
	}
	return false
}

// parseTime reads RFC 3339 and date-only values.
func parseTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// compare orders a property value against a filter value: as instants when
// the property is a date (filter values may be RFC 3339, a date or epoch
// milliseconds), as numbers when both are numbers, else as case-insensitive
// strings.
func compare(a, b string) int {
	if ta, ok := parseTime(a); ok {
		tb, ok := parseTime(b)
		if !ok {
			if ms, err := strconv.ParseInt(b, 10, 64); err == nil {
				tb, ok = time.UnixMilli(ms), true
			}
		}
		if ok {
			return ta.Compare(tb)
		}
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

// containsToken is HubSpot's CONTAINS_TOKEN: the value, or one of its words,
// equals the token; "*" in the token matches any run of characters.
func containsToken(value, token string) bool {
	value, token = strings.ToLower(value), strings.ToLower(token)
	if glob(token, value) {
		return true
	}
	for _, w := range strings.FieldsFunc(value, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if glob(token, w) {
			return true
		}
	}
	return false
}

// glob matches s against a pattern whose only wildcard is "*".
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		k := strings.Index(s, p)
		if k < 0 {
			return false
		}
		s = s[k+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
