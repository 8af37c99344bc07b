// Package salesforcetest is an in-process fake of the Salesforce REST API
// for tests, examples and benchmarks: one org on one instance, served on
// loopback with deterministic synthetic data at any volume.
//
// The fake serves Salesforce's own paths under its URL (the instance URL),
// for any API version /services/data/vNN.0:
//
//   - GET /query?q=SOQL and /queryAll?q=SOQL: {"totalSize", "done",
//     "nextRecordsUrl"?, "records"}; pages of 200 records (or the
//     Sforce-Query-Options batchSize, 200..2000); the relative
//     nextRecordsUrl /services/data/vNN.0/query/{locator}-{offset} is
//     followed with a plain GET until done is true. At most ten locators are
//     open at once; the oldest is released (400 INVALID_QUERY_LOCATOR).
//   - GET /search?q=SOSL: {"searchRecords": [...]}, at most 2,000 records.
//   - GET /sobjects/{Object}/{id}[?fields=a,b]: one record.
//   - GET /sobjects/ContentVersion/{id}/VersionData and
//     /sobjects/Attachment/{id}/Body: file bytes, with Range support
//     (If-Range on Last-Modified; WithFileCutEvery drops connections so that
//     clients must resume). Like Salesforce, the fake serves these on the
//     instance and requires the bearer token; FilesURL is not used.
//     FileContent returns the bytes a file must have.
//   - GET /limits, GET /services/data (versions), and POST
//     /services/oauth2/token (TokenURL; refresh_token grant, form body or
//     HTTP Basic client authentication) answering with a new access token
//     and instance_url = URL. ExpireAccessToken ends the session so that
//     clients must refresh.
//
// Objects: Account (001), Contact (003), Lead (00Q), Opportunity (006),
// Task (00T), Event (00U), Campaign (701), Case (500), Note (002),
// ContentVersion (068) and Attachment (00P), each with the standard fields
// of Salesforce's object reference, plus eight User (005) records that own
// them. Ids are 18 characters with the right key
// prefix and a correct case-safety suffix; RecordID gives the id of record
// i. Every record carries "attributes" {type, url}.
//
// The SOQL subset: SELECT of fields, one-level parent paths (Owner.Name,
// Account.Industry, polymorphic What.Name), FIELDS(ALL|STANDARD|CUSTOM)
// (with LIMIT <= 200 for ALL and CUSTOM) or COUNT(); FROM one object; WHERE with
// =, !=, <>, <, <=, >, >=, LIKE, IN, NOT IN, AND, OR, NOT and parentheses
// over string, number, boolean, date and datetime literals; ORDER BY;
// LIMIT; OFFSET (at most 2000). SOSL: FIND {term} [IN ALL|NAME|EMAIL|PHONE
// FIELDS] [RETURNING Object(fields [WHERE] [ORDER BY] [LIMIT]), ...]
// [LIMIT n]. Valid statements outside the subset (relationship paths in
// WHERE or ORDER BY, deeper paths, sub-queries, aggregates, GROUP BY, date
// constants, WITH) get a 400 whose message says the fake does not support
// them.
//
// Records change while the fake runs (fakeserver.Mutable): Create, Update
// and Delete act on accounts, contacts, leads, opportunities and tasks at
// the fake's Clock (WithClock), setting LastModifiedDate and
// SystemModstamp. A deleted record is in the recycle bin: /queryAll
// returns it with IsDeleted true, while /query, /search and get no longer
// see it. A query's pages show the records as they were when it ran.
//
// Authentication is the bearer token (DefaultAccessToken unless
// WithCredentials says otherwise); anything else is answered 401
// [{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}].
// Errors are Salesforce's JSON array [{"message","errorCode"}]. Every data
// response carries Sforce-Limit-Info: api-usage=n/15000; when the daily
// allocation is used up (WithQuotaExhausted, SetAPIUsage) requests get 403
// REQUEST_LIMIT_EXCEEDED, which is also the fake's injected rate-limit
// fault (Salesforce sends no 429 and no Retry-After).
//
// OAuth consent: GET /services/oauth2/authorize is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /services/oauth2/token with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with the client of WithCredentials; PKCE S256 is honoured; the answer carries access_token, refresh_token, signature, scope, instance_url (the fake), id, token_type and issued_at.
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package salesforcetest
