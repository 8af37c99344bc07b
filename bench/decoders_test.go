package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/bytedance/sonic"
	jsonv2 "github.com/go-json-experiment/json"
	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// The decoders compared, each decoding one record's JSON into a typed
// record. encoding/json is the reference the others must match.
var decoders = []struct {
	name      string
	unmarshal func([]byte, any) error
	// number is whether the decoder fills encoding/json's json.Number.
	number bool
}{
	{"encoding_json", json.Unmarshal, true},
	{"goccy", gojson.Unmarshal, true},
	// go-json-experiment/json with its own (v2) defaults. Outside the
	// standard library it has its own Number type and rejects a JSON
	// number for encoding/json's json.Number, a string type to it. No
	// record type has a json.Number field.
	{"json_v2", func(b []byte, v any) error { return jsonv2.Unmarshal(b, v) }, false},
	// sonic's default config: it does not validate UTF-8 in strings.
	{"sonic", sonic.Unmarshal, true},
	// sonic configured to behave as encoding/json.
	{"sonic_std", sonic.ConfigStd.Unmarshal, true},
}

// kindPage is one page of a kind's main record, fetched from the kind's
// fake with the kind's own client, with the typed record it decodes into.
type kindPage struct {
	name  string
	fetch func(testing.TB) [][]byte
	// bench and check are decodeBench and checkDecoder on the kind's
	// record type.
	bench func(*testing.B, [][]byte, func([]byte, any) error)
	check func(*testing.T, [][]byte, func([]byte, any) error)
}

// page returns the kindPage of record type T.
func page[T any](name string, fetch func(testing.TB) [][]byte) kindPage {
	return kindPage{name: name, fetch: fetch, bench: decodeBench[T], check: checkDecoder[T]}
}

// kindPages are the main records of every kind, in pages of the sizes the
// kinds' listing benchmarks (kinds/<kind>/bench_test.go) walk.
var kindPages = []kindPage{
	page[github.Issue]("GitHubIssue", func(tb testing.TB) [][]byte {
		srv := githubtest.New(githubtest.WithIssues(100), githubtest.WithPulls(0))
		tb.Cleanup(srv.Close)
		c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all", "per_page": 100})
	}),
	page[hubspot.Contact]("HubSpotContact", func(tb testing.TB) [][]byte {
		srv := hubspottest.New(hubspottest.WithContacts(100))
		tb.Cleanup(srv.Close)
		c, err := hubspot.New(hubspot.Credentials{PrivateAppToken: hubspottest.DefaultPrivateAppToken}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "contacts", tributary.Params{"limit": 100})
	}),
	page[mailchimp.ListMember]("MailchimpListMember", func(tb testing.TB) [][]byte {
		srv := mailchimptest.New(mailchimptest.WithListMembers(1000), mailchimptest.WithLists(1))
		tb.Cleanup(srv.Close)
		c, err := mailchimp.New(mailchimp.Credentials{APIKey: mailchimptest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL))
		var list struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(rawPage(tb, c, err, "lists", nil)[0], &list); err != nil {
			tb.Fatal(err)
		}
		return rawPage(tb, c, nil, "list_members", tributary.Params{"list_id": list.ID, "count": 1000})
	}),
	page[gong.Call]("GongCall", func(tb testing.TB) [][]byte {
		srv := gongtest.New(gongtest.WithCalls(100))
		tb.Cleanup(srv.Close)
		c, err := gong.New(gong.Credentials{AccessKey: gongtest.DefaultAccessKey, AccessKeySecret: gongtest.DefaultAccessKeySecret}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "calls", nil)
	}),
	page[intercom.Contact]("IntercomContact", func(tb testing.TB) [][]byte {
		srv := intercomtest.New(intercomtest.WithContacts(150))
		tb.Cleanup(srv.Close)
		c, err := intercom.New(intercom.Credentials{AccessToken: intercomtest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "contacts", tributary.Params{"per_page": 150})
	}),
	page[salesforce.Account]("SalesforceAccount", func(tb testing.TB) [][]byte {
		srv := salesforcetest.New(salesforcetest.WithAccounts(200))
		tb.Cleanup(srv.Close)
		c, err := salesforce.New(salesforce.Credentials{ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret,
			RefreshToken: salesforcetest.DefaultRefreshToken, AccessToken: salesforcetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "accounts", tributary.Params{"q": "SELECT FIELDS(STANDARD) FROM Account"})
	}),
	page[zendesk.Ticket]("ZendeskTicket", func(tb testing.TB) [][]byte {
		srv := zendesktest.New(zendesktest.WithTickets(100))
		tb.Cleanup(srv.Close)
		c, err := zendesk.New(zendesk.Credentials{Subdomain: zendesktest.DefaultSubdomain, Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken}, tributary.WithBaseURL(srv.URL))
		return rawPage(tb, c, err, "tickets", tributary.Params{"page[size]": 100})
	}),
}

// rawPage lists one page of entity with c, the client the kind's
// constructor returned with err, and returns each record's JSON as the
// library hands it to the decoder (Record.Raw).
func rawPage(tb testing.TB, c tributary.Connector, err error, entity string, p tributary.Params) [][]byte {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	pg, err := c.List(context.Background(), entity, p)
	if err != nil {
		tb.Fatalf("%s: %v", entity, err)
	}
	if len(pg.Records) == 0 {
		tb.Fatalf("%s: no records", entity)
	}
	out := make([][]byte, len(pg.Records))
	for i, r := range pg.Records {
		out[i] = r.Raw()
	}
	return out
}

// BenchmarkDecode decodes one page of every kind's main record, record by
// record, with each decoder: kind/decoder, reporting ns/record and
// allocs/record.
//
//	cd bench && go test -run '^$' -bench Decode -benchtime=200x -count=3 .
func BenchmarkDecode(b *testing.B) {
	for _, k := range kindPages {
		recs := k.fetch(b)
		for _, d := range decoders {
			b.Run(k.name+"/"+d.name, func(b *testing.B) { k.bench(b, recs, d.unmarshal) })
		}
	}
}

// decodeBench decodes every record of recs into a new T with dec, one
// record at a time.
func decodeBench[T any](b *testing.B, recs [][]byte, dec func([]byte, any) error) {
	// Decoders that build a per-type plan (sonic compiles one) do it
	// before the clock starts.
	var warm T
	if err := dec(recs[0], &warm); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		for _, r := range recs {
			var v T
			if err := dec(r, &v); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/record")
}

// TestDecodersMatchEncodingJSON checks, on every kind's page, that each
// decoder gives exactly what encoding/json gives, and that the typed
// record does not share memory with the bytes it was decoded from (a
// record must not depend on, or keep alive, the page it came from).
func TestDecodersMatchEncodingJSON(t *testing.T) {
	for _, k := range kindPages {
		recs := k.fetch(t)
		for _, d := range decoders[1:] {
			t.Run(k.name+"/"+d.name, func(t *testing.T) { k.check(t, recs, d.unmarshal) })
		}
	}
}

// checkDecoder decodes every record of recs into T with encoding/json and
// with dec, from a copy of the record that is overwritten afterwards, and
// reports where the two differ.
func checkDecoder[T any](t *testing.T, recs [][]byte, dec func([]byte, any) error) {
	t.Helper()
	for i, r := range recs {
		var want, got T
		if err := json.Unmarshal(r, &want); err != nil {
			t.Fatalf("record %d: encoding/json: %v", i, err)
		}
		buf := bytes.Clone(r)
		if err := dec(buf, &got); err != nil {
			t.Errorf("record %d: %v", i, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("record %d differs from encoding/json (-want +got):\n%s", i, diff)
			return
		}
		// Anything still pointing into buf now reads as 'x'.
		for j := range buf {
			buf[j] = 'x'
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("record %d shares memory with the bytes it was decoded from", i)
			return
		}
	}
}

// bigIDs is a record of the shapes in which the kinds carry ids too
// large for a float64, or for an int64: int64 fields (exact above 2^53),
// 20-digit numbers inside fields kept as json.RawMessage (byte for byte)
// and numeric strings.
type bigIDs struct {
	Int64   int64             `json:"int64"`
	Ptr     *int64            `json:"ptr"`
	Slice   []int64           `json:"slice"`
	Raw     json.RawMessage   `json:"raw"`
	RawList []json.RawMessage `json:"raw_list"`
	String  string            `json:"string"`
}

// bigNumber is a 20-digit id into a json.Number, as jsonx.Value keeps
// numbers that do not fit an int64.
type bigNumber struct {
	Number json.Number `json:"number"`
}

// TestDecodersKeepLargeIDs checks that every decoder keeps large integer
// ids exact: in the typed records (Zendesk ids are int64, Zendesk custom
// fields and Mailchimp merge fields are raw JSON, Gong and HubSpot ids are
// numeric strings), in the shapes of bigIDs and, for the decoders that
// support it, in a json.Number.
func TestDecodersKeepLargeIDs(t *testing.T) {
	const (
		max64   = "9223372036854775807"  // math.MaxInt64, 19 digits
		above53 = "9007199254740993"     // 2^53+1: rounds to 2^53 as a float64
		twenty  = "12345678901234567891" // 20 digits: more than an int64 holds
	)
	doc := []byte(`{"int64":` + max64 + `,"ptr":` + above53 + `,"slice":[` + above53 + `,` + max64 + `],` +
		`"raw":{"id":` + twenty + `,"nested":[` + twenty + `.0,-` + twenty + `]},` +
		`"raw_list":[{"id":` + twenty + `,"value":null}],"string":"` + twenty + `"}`)
	ticket := []byte(`{"id":` + max64 + `,"requester_id":` + above53 + `,"assignee_id":` + above53 + `,` +
		`"collaborator_ids":[` + max64 + `],"custom_fields":[{"id":` + twenty + `,"value":` + twenty + `}],` +
		`"via":{"channel":"api","source":{"from":{"id":` + twenty + `}}}}`)
	call := []byte(`{"id":"` + twenty + `","primaryUserId":"` + twenty + `","workspaceId":"` + twenty + `"}`)
	member := []byte(`{"id":"x","web_id":` + max64 + `,"merge_fields":{"ACCOUNT":` + twenty + `}}`)
	for _, d := range decoders {
		t.Run(d.name, func(t *testing.T) {
			same[bigIDs](t, d.unmarshal, doc)
			same[zendesk.Ticket](t, d.unmarshal, ticket)
			same[gong.Call](t, d.unmarshal, call)
			same[mailchimp.ListMember](t, d.unmarshal, member)
			var v bigIDs
			if err := d.unmarshal(doc, &v); err != nil {
				return // reported by same
			}
			if s := strconv.FormatInt(v.Int64, 10); s != max64 {
				t.Errorf("int64 = %s, want %s", s, max64)
			}
			if v.Ptr == nil || strconv.FormatInt(*v.Ptr, 10) != above53 {
				t.Errorf("*int64 = %v, want %s", v.Ptr, above53)
			}
			if !bytes.Contains(v.Raw, []byte(twenty+",")) || !bytes.Contains(v.Raw, []byte("-"+twenty)) {
				t.Errorf("raw = %s, want the 20-digit id byte for byte", v.Raw)
			}
			if v.String != twenty {
				t.Errorf("string = %q, want %q", v.String, twenty)
			}
			if !d.number {
				return
			}
			var n bigNumber
			if err := d.unmarshal([]byte(`{"number":`+twenty+`}`), &n); err != nil || n.Number.String() != twenty {
				t.Errorf("json.Number = %q (%v), want %q", n.Number, err, twenty)
			}
		})
	}
}

// same decodes doc into T with encoding/json and with dec and reports
// any difference.
func same[T any](t *testing.T, dec func([]byte, any) error, doc []byte) {
	t.Helper()
	var want, got T
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatalf("encoding/json into %T: %v", want, err)
	}
	if err := dec(doc, &got); err != nil {
		t.Errorf("into %T: %v", got, err)
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("into %T differs from encoding/json (-want +got):\n%s", got, cmp.Diff(want, got))
	}
}
