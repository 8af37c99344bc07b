package hubspottest

import (
	"net/http"
	"strconv"
	"strings"
)

// listOwners is GET /crm/v3/owners: limit (default 100, at most 500),
// after, email, archived; paged like the objects API.
func (c *call) listOwners() {
	q := c.r.URL.Query()
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxOwnersLimit {
			c.invalid("limit must be an integer between 1 and 500", errorDetail{Message: "invalid limit: " + v, In: "limit"})
			return
		}
		limit = n
	}
	archived, ok := parseBoolParam(q, "archived")
	if !ok {
		c.invalid("archived must be true or false", errorDetail{Message: "invalid archived: " + q.Get("archived"), In: "archived"})
		return
	}
	d := c.s.data
	n := d.owners
	if archived {
		n = ArchivedOwners
	}
	all := make([]int, 0, n)
	email := strings.ToLower(q.Get("email"))
	for i := 0; i < n; i++ {
		if email != "" {
			if e := d.owner(i, archived).Email; e == nil || strings.ToLower(*e) != email {
				continue
			}
		}
		all = append(all, i)
	}
	start := 0
	if a := q.Get("after"); a != "" {
		k, ok := parseOwnerCursor(a)
		if !ok {
			c.invalid("Invalid paging cursor: "+a, errorDetail{Message: "after must be a cursor returned in paging.next.after", In: "after"})
			return
		}
		start = min(k, len(all))
	}
	end := min(start+limit, len(all))
	results := make([]ownerJSON, 0, end-start)
	for _, i := range all[start:end] {
		results = append(results, d.owner(i, archived))
	}
	resp := listResponse{Results: results}
	if end < len(all) {
		after := ownerCursor(end)
		resp.Paging = &paging{Next: nextPage{After: after, Link: pageURL(c.r, after)}}
	}
	c.json(http.StatusOK, resp)
}

// getOwner is GET /crm/v3/owners/{ownerId}: idProperty id (default) or
// userId, archived.
func (c *call) getOwner(id string) {
	q := c.r.URL.Query()
	archived, ok := parseBoolParam(q, "archived")
	if !ok {
		c.invalid("archived must be true or false", errorDetail{Message: "invalid archived: " + q.Get("archived"), In: "archived"})
		return
	}
	base := ownerIDBase
	switch q.Get("idProperty") {
	case "", "id":
	case "userId":
		base = userIDBase
	default:
		c.invalid("idProperty must be id or userId", errorDetail{Message: "invalid idProperty: " + q.Get("idProperty"), In: "idProperty"})
		return
	}
	d := c.s.data
	num, err := strconv.Atoi(id)
	n := num - base - 1
	if archived {
		n -= d.owners
	}
	limit := d.owners
	if archived {
		limit = ArchivedOwners
	}
	if err != nil || n < 0 || n >= limit {
		c.notFound("resource not found", nil)
		return
	}
	o := d.owner(n, archived)
	if base == userIDBase && o.UserIDIncludingInactive == nil { // queues have no user
		c.notFound("resource not found", nil)
		return
	}
	c.json(http.StatusOK, o)
}

// pipelineType resolves the objectType of the pipelines API.
func (c *call) pipelineType(name string) (string, bool) {
	t := c.s.data.resolve(name)
	if t == nil {
		c.invalid("Unable to infer object type from: " + name)
		return "", false
	}
	return t.name, true
}

// listPipelines is GET /crm/v3/pipelines/{objectType}: every pipeline,
// unpaged.
func (c *call) listPipelines(objectType string) {
	name, ok := c.pipelineType(objectType)
	if !ok {
		return
	}
	c.json(http.StatusOK, map[string]any{"results": pipelines(name)})
}

// getPipeline is GET /crm/v3/pipelines/{objectType}/{pipelineId}.
func (c *call) getPipeline(objectType, id string) {
	name, ok := c.pipelineType(objectType)
	if !ok {
		return
	}
	for _, p := range pipelines(name) {
		if p.ID == id {
			c.json(http.StatusOK, p)
			return
		}
	}
	c.notFound("Unable to find pipeline "+id+" for object type "+name, nil)
}

// listSchemas is GET /crm-object-schemas/v3/schemas (alias /crm/v3/schemas):
// the custom object schemas, unpaged.
func (c *call) listSchemas() {
	archived, ok := parseBoolParam(c.r.URL.Query(), "archived")
	if !ok {
		c.invalid("archived must be true or false")
		return
	}
	results := []map[string]any{}
	if !archived {
		results = append(results, carSchema())
	}
	c.json(http.StatusOK, map[string]any{"results": results})
}

// getSchema is GET /crm-object-schemas/v3/schemas/{objectType}: by name, fully qualified
// name or object type id.
func (c *call) getSchema(objectType string) {
	switch strings.ToLower(objectType) {
	case CustomObjectName, CustomObjectFullyQualifiedName, CustomObjectTypeID:
		c.json(http.StatusOK, carSchema())
		return
	}
	c.notFound("Unable to find object schema "+objectType, map[string][]string{"objectType": {objectType}})
}
