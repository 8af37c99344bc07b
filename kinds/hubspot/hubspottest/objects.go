package hubspottest

import (
	"net/http"
	"sort"
	"strconv"
)

// valueWithTimestamp is one entry of propertiesWithHistory.
type valueWithTimestamp struct {
	Value           string `json:"value"`
	Timestamp       string `json:"timestamp"`
	SourceType      string `json:"sourceType"`
	SourceID        string `json:"sourceId,omitempty"`
	UpdatedByUserID int64  `json:"updatedByUserId,omitempty"`
}

// objectJSON is SimplePublicObjectWithAssociations.
type objectJSON struct {
	ID                    string                          `json:"id"`
	Properties            map[string]*string              `json:"properties"`
	PropertiesWithHistory map[string][]valueWithTimestamp `json:"propertiesWithHistory,omitempty"`
	CreatedAt             string                          `json:"createdAt"`
	UpdatedAt             string                          `json:"updatedAt"`
	Archived              bool                            `json:"archived"`
	ArchivedAt            string                          `json:"archivedAt,omitempty"`
	Associations          map[string]associationList      `json:"associations,omitempty"`
}

// view says which parts of a record a request asked for.
type view struct {
	properties   []string // nil: the type's defaults
	history      []string
	associations []*objectType
	assocKeys    []string
}

func (c *call) parseView(t *objectType, withAssociations bool) view {
	q := c.r.URL.Query()
	v := view{properties: splitList(q, "properties"), history: splitList(q, "propertiesWithHistory")}
	if withAssociations {
		seen := map[*objectType]bool{}
		for _, name := range splitList(q, "associations") {
			// Unknown association types are ignored, as HubSpot does.
			if to := c.s.data.resolve(name); to != nil && !seen[to] {
				seen[to] = true
				v.associations = append(v.associations, to)
				v.assocKeys = append(v.assocKeys, to.name)
			}
		}
	}
	return v
}

func (d *dataset) render(r ref, v view) objectJSON {
	t := r.t
	o := objectJSON{
		ID:         r.id(),
		Properties: map[string]*string{},
		CreatedAt:  stamp(d.created(r)),
		UpdatedAt:  stamp(d.updated(r)),
		Archived:   r.archived || d.deleted(r),
	}
	if o.Archived {
		o.ArchivedAt = stamp(d.archivedAt(r))
	}
	names := v.properties
	if names == nil {
		names = t.defaults
	} else {
		// Requested properties come with the id and the create/modify dates.
		names = append([]string{"hs_object_id", t.createProp, t.modifyProp}, names...)
	}
	for _, name := range names {
		if fn, ok := t.index[name]; ok { // unknown properties are ignored
			o.Properties[name] = fn(d, r)
		}
	}
	if len(v.history) > 0 {
		o.PropertiesWithHistory = map[string][]valueWithTimestamp{}
		for _, name := range v.history {
			fn, ok := t.index[name]
			if !ok {
				continue
			}
			h := []valueWithTimestamp{}
			if val := fn(d, r); val != nil {
				e := valueWithTimestamp{Value: *val, Timestamp: o.UpdatedAt, SourceType: "CRM_UI"}
				if d.owners > 0 {
					uid := int64(userIDBase + 1 + mix(r.seed(), 77)%d.owners)
					e.SourceID = "userId:" + strconv.FormatInt(uid, 10)
					e.UpdatedByUserID = uid
				}
				if name == t.createProp || name == "hs_object_id" {
					e = valueWithTimestamp{Value: *val, Timestamp: o.CreatedAt, SourceType: "API"}
				}
				h = append(h, e)
			}
			o.PropertiesWithHistory[name] = h
		}
	}
	for k, to := range v.associations {
		if ids := d.associations(r, to); len(ids) > 0 {
			if o.Associations == nil {
				o.Associations = map[string]associationList{}
			}
			o.Associations[v.assocKeys[k]] = associationList{Results: ids}
		}
	}
	return o
}

func (c *call) objectType(name string) *objectType {
	t := c.s.data.resolve(name)
	if t == nil {
		c.invalid("Unable to infer object type from: " + name)
	}
	return t
}

// listObjects is GET /crm/v3/objects/{objectType}.
func (c *call) listObjects(typeName string) {
	t := c.objectType(typeName)
	if t == nil {
		return
	}
	q := c.r.URL.Query()
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			c.invalid("limit must be an integer between 1 and 100", errorDetail{Message: "invalid limit: " + v, In: "limit"})
			return
		}
		limit = n
	}
	archived, ok := parseBoolParam(q, "archived")
	if !ok {
		c.invalid("archived must be true or false", errorDetail{Message: "invalid archived: " + q.Get("archived"), In: "archived"})
		return
	}
	v := c.parseView(t, true)
	if len(v.history) > 0 && limit > MaxHistoryLimit {
		limit = MaxHistoryLimit
	}
	d := c.s.data
	// The live records, or the archived ones: those Delete archived (ids
	// of the live range) then the generated ones, in id order.
	var seq func(k int) ref
	var n int
	var startAt func(id int64) int
	if archived {
		dead := d.deletedRefs(t)
		n = len(dead) + ArchivedPerType
		seq = func(k int) ref {
			if k < len(dead) {
				return dead[k]
			}
			return ref{t: t, i: k - len(dead), archived: true}
		}
		startAt = func(id int64) int {
			return sort.Search(n, func(k int) bool {
				v, _ := strconv.ParseInt(seq(k).id(), 10, 64)
				return v >= id
			})
		}
	} else {
		n = d.total(t)
		seq = func(k int) ref { return ref{t: t, i: k} }
		startAt = func(id int64) int {
			if id > t.idBase {
				return int(min(id-t.idBase-1, int64(n)))
			}
			return 0
		}
	}
	start := 0
	if a := q.Get("after"); a != "" {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			c.invalid("Invalid paging cursor: "+a, errorDetail{Message: "after must be a cursor returned in paging.next.after", In: "after"})
			return
		}
		start = startAt(id)
	}
	results := make([]objectJSON, 0, min(limit, n-start))
	k := start
	for ; k < n && len(results) < limit; k++ {
		if r := seq(k); archived || !d.deleted(r) {
			results = append(results, d.render(r, v))
		}
	}
	for !archived && k < n && d.deleted(seq(k)) {
		k++
	}
	resp := listResponse{Results: results}
	if k < n {
		after := seq(k).id()
		resp.Paging = &paging{Next: nextPage{After: after, Link: pageURL(c.r, after)}}
	}
	c.json(http.StatusOK, resp)
}

// getObject is GET /crm/v3/objects/{objectType}/{objectId}.
func (c *call) getObject(typeName, id string) {
	t := c.objectType(typeName)
	if t == nil {
		return
	}
	q := c.r.URL.Query()
	archived, ok := parseBoolParam(q, "archived")
	if !ok {
		c.invalid("archived must be true or false", errorDetail{Message: "invalid archived: " + q.Get("archived"), In: "archived"})
		return
	}
	d := c.s.data
	n := d.total(t)
	idProp := q.Get("idProperty")
	live := true
	i := -1
	switch {
	case idProp == "" || idProp == "hs_object_id":
		num, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			c.notFound("Object not found.  objectId are usually numeric.", map[string][]string{"id": {id}})
			return
		}
		switch {
		case num > t.idBase && num <= t.idBase+int64(n):
			// A live record, or one Delete archived.
			i = int(num - t.idBase - 1)
			if d.deleted(ref{t: t, i: i}) != archived {
				i = -1
			}
		case archived && num > t.idBase+archivedOffset && num <= t.idBase+archivedOffset+ArchivedPerType:
			i, live = int(num-t.idBase-archivedOffset-1), false
		}
	case idProp == t.uniqueProp && !archived:
		var k int
		var found bool
		switch idProp {
		case "email":
			k, found = contactIndexByEmail(id)
		case "vin":
			k, found = carIndexByVIN(id)
		}
		if found && k < n && !d.deleted(ref{t: t, i: k}) {
			i = k
		}
	case idProp == t.uniqueProp:
	default:
		c.invalid(idProp+" is not a unique property of "+t.name, errorDetail{Message: "idProperty must name a property with unique values", In: "idProperty"})
		return
	}
	if i < 0 {
		c.notFound("resource not found", nil)
		return
	}
	c.json(http.StatusOK, d.render(ref{t: t, i: i, archived: !live}, c.parseView(t, true)))
}

// searchResponse is CollectionResponseWithTotalSimplePublicObjectForwardPaging.
type searchResponse struct {
	Total   int          `json:"total"`
	Results []objectJSON `json:"results"`
	Paging  *paging      `json:"paging,omitempty"`
}

// search is POST /crm/v3/objects/{objectType}/search.
func (c *call) search(typeName string) {
	t := c.objectType(typeName)
	if t == nil {
		return
	}
	req, msg := parseSearch(c.r.Body)
	if msg != "" {
		c.invalid(msg)
		return
	}
	if req.limit > MaxSearchLimit {
		c.invalid("limit must be less than or equal to 200", errorDetail{Message: "invalid limit: " + strconv.Itoa(req.limit), In: "limit"})
		return
	}
	if req.after >= SearchResultCap {
		c.invalid("There was a problem with the request.", errorDetail{Message: "Searches can page through at most 10,000 results", In: "after"})
		return
	}
	total, at := c.s.data.match(t, req)
	end := min(req.after+req.limit, total)
	v := view{properties: req.properties}
	results := make([]objectJSON, 0, max(end-req.after, 0))
	for k := req.after; k < end; k++ {
		results = append(results, c.s.data.render(ref{t: t, i: at(k)}, v))
	}
	resp := searchResponse{Total: total, Results: results}
	if end < total {
		resp.Paging = &paging{Next: nextPage{After: strconv.Itoa(end)}}
	}
	c.json(http.StatusOK, resp)
}
