// Package hubspottest is an in-process fake of HubSpot's CRM API, for
// testing code that reads HubSpot offline.
//
// It serves, under the API origin (Server.URL), HubSpot's documented paths
// both in the v3 form and in the date-versioned 2026-03 form:
//
//	GET  /crm/v3/objects/{objectType}                 list, paged by limit (≤100) and after
//	GET  /crm/v3/objects/{objectType}/{objectId}      get (idProperty, archived)
//	POST /crm/v3/objects/{objectType}/search          search (filterGroups, sorts, query, limit ≤200, after)
//	GET  /crm/v3/owners[/{ownerId}]                   owners, paged like objects
//	GET  /crm/v3/pipelines/{objectType}[/{id}]        deal and ticket pipelines, unpaged
//	GET  /crm-object-schemas/v3/schemas[/{objectType}] custom object schemas, unpaged
//	     (also the older alias /crm/v3/schemas)
//	POST /oauth/v1/token, /oauth/2026-03/token        refresh_token grant
//
// Object types are contacts, companies, deals, tickets, notes, calls,
// emails, meetings, tasks and one custom object type (cars, also named
// p12345678_cars and 2-1234567). Every record is a pure function of its type
// and index, so WithContacts(1_000_000) costs nothing at start-up; ids are
// stable. Property values are strings or null, as HubSpot sends them;
// requests without properties get each type's default properties.
//
// Like HubSpot, the fake checks "Authorization: Bearer <token>" (a private
// app token, an OAuth access token, or one issued by its token endpoint) and
// answers errors in HubSpot's shape ({"status":"error","message",
// "correlationId","category"}): 401 INVALID_AUTHENTICATION or
// EXPIRED_AUTHENTICATION, 404 OBJECT_NOT_FOUND, 400 VALIDATION_ERROR for a
// limit over the maximum, a search past 10,000 results or a bad search body.
// Non-search responses carry the X-HubSpot-RateLimit-* headers. Injected 429s
// carry errorType RATE_LIMIT and a policyName; see WithFaults and
// WithRateLimitPolicy.
//
// Records change while a test runs (Server implements fakeserver.Mutable):
// Create, Update and Delete on contacts, companies, deals and tickets, at
// the fake's clock (WithClock). Every list, get and search shows them: an
// update changes the record's main text property and its last-modified
// time (updatedAt, hs_lastmodifieddate, the contacts' lastmodifieddate), so
// a search on that property ascending (HubSpot's change feed) returns it
// for every since at or before the change; a delete archives, as HubSpot
// does: the record leaves the live list, search and get, and is listed and
// got with archived=true (archived true, archivedAt the time of the
// delete), before the generated archived records.
//
// Simplifications: each record lists at most 100 associated ids per type and
// association lists are not paged; search matches the query text as a
// substring of each type's main text properties; sorting uses the first sort
// rule only; there are no files (FilesURL serves nothing).
//
// OAuth consent: GET /oauth/authorize is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /oauth/v1/token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with the client of WithCredentials; the answer carries a new access token, the refresh token and expires_in.
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package hubspottest
