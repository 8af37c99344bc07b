// Package gongtest runs an in-process fake of Gong's API v2 for tests,
// examples and benchmarks: the way pstest fakes Pub/Sub.
//
// The fake serves Gong's documented paths under its own loopback origin
// (Server.URL), so a client whose base URL is Server.URL sends exactly what
// it would send to https://api.gong.io:
//
//	GET  /v2/users, /v2/users/{id}, /v2/calls, /v2/calls/{id}, /v2/workspaces,
//	     /v2/settings/scorecards, /v2/settings/trackers, /v2/library/folders,
//	     /v2/library/folder-content, /v2/coaching
//	POST /v2/calls/extensive, /v2/calls/transcript, /v2/stats/activity/aggregate,
//	     /v2/stats/activity/day-by-day, /v2/stats/interaction,
//	     /v2/stats/activity/scorecards
//	POST /oauth2/generate-customer-token
//
// What it reproduces:
//
//   - Authentication: Basic base64(accessKey:accessKeySecret) or a Bearer
//     token; anything else is a 401 {"requestId", "errors": ["Access denied"]}.
//   - Paging: a fixed page size of 100; paged lists carry
//     "records": {totalRecords, currentPageSize, currentPageNumber, cursor}
//     with cursor present only when more pages follow. GET endpoints take the
//     cursor in the query, POST endpoints at the top level of the JSON body,
//     and every other input must be repeated unchanged (otherwise a 400).
//     Cursors are opaque, JWT-shaped strings.
//   - Empty results: a call filter that matches nothing is a 404
//     {"errors": ["No calls found corresponding to the provided filters"]},
//     not an empty page (NoCallsFound).
//   - Errors in Gong's shape {"requestId", "errors": [string]}: 400 for
//     malformed inputs, 404, and through Faults a 429 with Retry-After
//     (seconds) and a 500.
//   - Media: /v2/calls/extensive with contentSelector.exposedFields.media
//     returns media.audioUrl and media.videoUrl, pre-signed URLs on a second
//     origin (Server.FilesURL) that expire after 8 hours, need no Gong
//     credentials (an Authorization header there is refused) and honour
//     Range, If-Range and ETag.
//   - Gong's documented record shapes, also where the connector catalogue
//     names other fields: /v2/library/folder-content answers the folder
//     {id, name, createdBy, updated, calls: [{id, title, note, addedBy,
//     created, url, snippet}]} without a records block, and /v2/coaching
//     answers coachingData: [{manager, directReportsMetrics}].
//   - OAuth: the token endpoint refreshes with Basic client_id:client_secret
//     and grant_type=refresh_token; refresh tokens are single-use (reuse is a
//     400 invalid_grant) and the response's api_base_url_for_customer is the
//     fake's own origin.
//
// Data is synthetic and deterministic: record i of every entity is a pure
// function of i, so WithCalls(1_000_000) starts as fast as the default. Call i
// starts i hours (plus a few minutes) after 2024-01-01T08:00:00Z, is hosted by
// user i mod Users() in workspace i mod 3, and every fourth call has an
// answered scorecard. User i > 0 reports to user (i-1)/5.
//
// Calls and users change while the fake runs (fakeserver.Mutable): Create
// adds a call that started at the fake's Clock (WithMutationClock) or a
// user created then; Update retitles one; Delete removes it from lists and
// gets (404). Gong keeps no last-modified time, so an update leaves a
// call's started time as it was.
//
// OAuth consent: GET /oauth2/authorize is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /oauth2/generate-customer-token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with the client in Basic only; the answer rotates the refresh token and names the fake's origin as api_base_url_for_customer.
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package gongtest
