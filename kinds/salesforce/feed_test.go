package salesforce_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

var _ fakeserver.Mutable = (*salesforcetest.Server)(nil)

// feedEntities are the entities with a change feed, their object and the
// field an update rewrites.
var feedEntities = []struct{ entity, object, field string }{
	{"accounts", "Account", "Description"},
	{"contacts", "Contact", "Title"},
	{"leads", "Lead", "Title"},
	{"opportunities", "Opportunity", "NextStep"},
	{"tasks", "Task", "Subject"},
}

// feedServer starts a fake with n records of each object of feedEntities.
func feedServer(n int) *salesforcetest.Server {
	return salesforcetest.New(salesforcetest.WithAccounts(n), salesforcetest.WithContacts(n), salesforcetest.WithLeads(n),
		salesforcetest.WithOpportunities(n), salesforcetest.WithTasks(n))
}

// pass reads a whole feed pass and returns every page.
func pass(t *testing.T, c *salesforce.Client, entity string, base tributary.Params, from tributary.Checkpoint) []*tributary.Changes {
	t.Helper()
	var out []*tributary.Changes
	for ch, err := range c.Changes(context.Background(), entity, base, from) {
		if err != nil {
			t.Fatalf("%s changes: %v", entity, err)
		}
		out = append(out, ch)
	}
	return out
}

func ids(t *testing.T, recs []tributary.Record) []string {
	t.Helper()
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		id, ok := r.StringAt("Id")
		if !ok {
			t.Fatalf("record without Id: %s", r.Raw())
		}
		out = append(out, id)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// overlapIDs returns the ids of the records of pages that a pass from
// checkpoint cp reads again: the overlap, those changed in the two minutes
// before it.
func overlapIDs(t *testing.T, pages []*tributary.Changes, cp tributary.Checkpoint) []string {
	t.Helper()
	var out []string
	for _, ch := range pages {
		for _, r := range ch.Records {
			v, _ := r.StringAt("SystemModstamp")
			stamp, err := time.Parse("2006-01-02T15:04:05.000-0700", v)
			if err != nil {
				t.Fatalf("SystemModstamp %q: %v", v, err)
			}
			if !stamp.Before(cp.Since.Add(-2 * time.Minute).Truncate(time.Second)) {
				out = append(out, ids(t, []tributary.Record{r})...)
			}
		}
	}
	return out
}

// walkIDs lists entity in full, as a full walk would.
func walkIDs(t *testing.T, c *salesforce.Client, entity string, q string) []string {
	t.Helper()
	var out []string
	for r, err := range tributary.All(context.Background(), c, entity, tributary.Params{"q": q}) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := r.StringAt("Id")
		out = append(out, id)
	}
	return out
}

// The feed of every entity: a first pass reads every live record, a later
// pass from its checkpoint reads exactly what changed (creates and updates
// as records, deletes as deletions) in one request, and the checkpoint
// never moves backwards.
func TestFeedReadsEveryRecordThenOnlyChanges(t *testing.T) {
	srv := feedServer(450)
	defer srv.Close()
	c := open(t, srv)
	for _, fe := range feedEntities {
		t.Run(fe.entity, func(t *testing.T) {
			base := tributary.Params{"q": "SELECT Id, Name, " + fe.field + " FROM " + fe.object}
			if fe.object == "Task" {
				base = tributary.Params{"q": "SELECT Id, Subject FROM Task"}
			}
			// (a) A pass from the zero checkpoint reads every live record.
			first := pass(t, c, fe.entity, base, tributary.Checkpoint{})
			var got []string
			for _, ch := range first {
				got = append(got, ids(t, ch.Records)...)
				if len(ch.Deleted) != 0 {
					t.Errorf("first pass reported %d deletions", len(ch.Deleted))
				}
			}
			want := walkIDs(t, c, fe.entity, base["q"].(string))
			if len(got) != 450 || !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("first pass read %d records, a full walk %d; they differ", len(got), len(want))
			}
			if len(first) != 3 {
				t.Errorf("first pass: %d pages, want 3 of up to 200", len(first))
			}
			cp := first[len(first)-1].Checkpoint
			if cp.Next != nil || cp.Since.IsZero() {
				t.Fatalf("final checkpoint %+v: want a Since and no Next", cp)
			}
			overlap := overlapIDs(t, first, cp)
			if len(overlap) == 0 || len(overlap) > 3 {
				t.Fatalf("%d records in the overlap, want the last one or two", len(overlap))
			}

			// (b) Changes at a later time.
			srv.Clock().Advance(time.Hour)
			at := srv.Clock().Now()
			live := srv.IDs(fe.entity)
			var created []string
			for range 2 {
				id, err := srv.Create(fe.entity)
				if err != nil {
					t.Fatal(err)
				}
				created = append(created, id)
			}
			updated := []string{live[7], live[300]}
			for _, id := range updated {
				if err := srv.Update(fe.entity, id); err != nil {
					t.Fatal(err)
				}
			}
			deleted := []string{live[3], live[400]}
			for _, id := range deleted {
				if err := srv.Delete(fe.entity, id); err != nil {
					t.Fatal(err)
				}
			}
			srv.ResetRequests()
			second := pass(t, c, fe.entity, base, cp)
			var recs, dels []string
			for _, ch := range second {
				recs = append(recs, ids(t, ch.Records)...)
				dels = append(dels, ids(t, ch.Deleted)...)
			}
			if !slices.Equal(sorted(recs), sorted(slices.Concat(created, updated, overlap))) {
				t.Errorf("changed records %v, want created %v, updated %v and the overlap %v", recs, created, updated, overlap)
			}
			if !slices.Equal(sorted(dels), sorted(deleted)) {
				t.Errorf("deletions %v, want %v", dels, deleted)
			}
			if n := len(apiRequests(srv)); n != 1 {
				t.Errorf("%d requests for 6 changes, want 1", n)
			}
			end := second[len(second)-1].Checkpoint
			if end.Since.Before(cp.Since) || !end.Since.Equal(at.UTC()) {
				t.Errorf("checkpoint moved from %v to %v, want the changes' time %v", cp.Since, end.Since, at)
			}
			// A pass with nothing new reads the changes inside the overlap
			// again and keeps the checkpoint where it is.
			third := pass(t, c, fe.entity, base, end)
			if got := third[len(third)-1].Checkpoint.Since; !got.Equal(end.Since) {
				t.Errorf("checkpoint moved from %v to %v with nothing new", end.Since, got)
			}

			// What a user sees in the lists: deleted records gone,
			// created ones there, the updated field rewritten.
			after := walkIDs(t, c, fe.entity, base["q"].(string))
			if len(after) != 450 || slices.Contains(after, deleted[0]) || !slices.Contains(after, created[1]) {
				t.Errorf("list after the changes: %d records, want 450 with the created and without the deleted", len(after))
			}
			p, err := c.List(context.Background(), fe.entity, tributary.Params{"q": "SELECT Id, " + fe.field + ", SystemModstamp FROM " + fe.object + " WHERE Id = '" + updated[0] + "'"})
			if err != nil || len(p.Records) != 1 {
				t.Fatalf("list of the updated record: %v", err)
			}
			if v, _ := p.Records[0].StringAt(fe.field); !strings.Contains(v, "updated") {
				t.Errorf("updated %s = %q, want a rewritten value", fe.field, v)
			}
			_, err = c.Get(context.Background(), fe.entity, tributary.Params{"id": deleted[0]})
			if !errors.Is(err, tributary.ErrNotFound) {
				t.Errorf("get of a deleted record: %v, want not found", err)
			}
		})
	}
}

// A feed record is rendered exactly as the list renders the same record
// with the same fields.
func TestFeedRecordsAreListRecords(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithAccounts(30))
	defer srv.Close()
	c := open(t, srv)
	srv.Clock().Advance(time.Minute)
	id := srv.IDs("accounts")[5]
	if err := srv.Update("accounts", id); err != nil {
		t.Fatal(err)
	}
	q := "SELECT Id, Name, Description, IsDeleted, SystemModstamp FROM Account"
	var feedRec tributary.Record
	for _, ch := range pass(t, c, "accounts", tributary.Params{"q": q}, tributary.Checkpoint{}) {
		for _, r := range ch.Records {
			if s, _ := r.StringAt("Id"); s == id {
				feedRec = r
			}
		}
	}
	p, err := c.List(context.Background(), "accounts", tributary.Params{"q": q + " WHERE Id = '" + id + "'"})
	if err != nil || len(p.Records) != 1 {
		t.Fatalf("list: %v", err)
	}
	if string(feedRec.Raw()) != string(p.Records[0].Raw()) {
		t.Errorf("feed record\n%s\nlist record\n%s", feedRec.Raw(), p.Records[0].Raw())
	}
}

// A pass stopped after its first page goes on from that page's checkpoint
// (the nextRecordsUrl of the queryAll) and reads the rest once.
func TestFeedResumesMidPass(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithContacts(500))
	defer srv.Close()
	c := open(t, srv)
	base := tributary.Params{"q": "SELECT Id, LastName FROM Contact"}
	var firstPage *tributary.Changes
	for ch, err := range c.Changes(context.Background(), "contacts", base, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		firstPage = ch
		break
	}
	if firstPage.Checkpoint.Next == nil || len(firstPage.Records) != 200 {
		t.Fatalf("first page: %d records, checkpoint %+v", len(firstPage.Records), firstPage.Checkpoint)
	}
	srv.ResetRequests()
	rest := pass(t, c, "contacts", base, firstPage.Checkpoint)
	got := ids(t, firstPage.Records)
	for _, ch := range rest {
		got = append(got, ids(t, ch.Records)...)
	}
	if len(got) != 500 || len(slices.Compact(sorted(got))) != 500 {
		t.Fatalf("first page and resumed pass: %d records, %d distinct; want 500", len(got), len(slices.Compact(sorted(got))))
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Path, "/query/") || len(reqs[0].Query) != 0 {
		t.Errorf("resumed pass sent %d requests, first %s?%s; want the two later pages by nextRecordsUrl", len(reqs), reqs[0].Path, reqs[0].Query.Encode())
	}
	if end := rest[len(rest)-1].Checkpoint; end.Next != nil || end.Since.IsZero() {
		t.Errorf("final checkpoint %+v", end)
	}
}

// The requests Salesforce receives: the first page is a queryAll of the
// caller's query with IsDeleted and SystemModstamp added, a SystemModstamp
// literal (an unquoted ISO instant, the checkpoint less the overlap) and
// ORDER BY SystemModstamp ASC; later pages are plain GETs of the
// nextRecordsUrl.
func TestFeedRequests(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithLeads(900))
	defer srv.Close()
	c := open(t, srv)
	since := time.Date(2023, 1, 2, 15, 0, 0, 0, time.UTC)
	pages := pass(t, c, "leads", tributary.Params{"q": "SELECT Id, Company FROM Lead WHERE Rating = 'Hot' ORDER BY Name"},
		tributary.Checkpoint{Since: since})
	reqs := srv.Requests()
	var data []fakeserver.Request
	for _, r := range reqs {
		if strings.HasPrefix(r.Path, "/services/data/") {
			data = append(data, r)
		}
	}
	if len(data) < 1 {
		t.Fatal("no request")
	}
	wantQ := "SELECT Id, Company, IsDeleted, SystemModstamp FROM Lead WHERE (Rating = 'Hot') AND SystemModstamp >= 2023-01-02T14:58:00Z ORDER BY SystemModstamp ASC"
	if data[0].Path != "/services/data/v67.0/queryAll" || data[0].Query.Get("q") != wantQ || len(data[0].Query) != 1 {
		t.Errorf("first request %s?%s, want /services/data/v67.0/queryAll?q=%s", data[0].Path, data[0].Query.Encode(), url.QueryEscape(wantQ))
	}
	if h := data[0].Header.Get("Sforce-Query-Options"); h != "batchSize=200" {
		t.Errorf("Sforce-Query-Options %q", h)
	}
	var n int
	for _, p := range pages {
		n += len(p.Records)
		for _, r := range p.Records {
			if v, _ := r.StringAt("Rating"); v != "" {
				t.Fatalf("Rating not selected, yet present: %s", r.Raw())
			}
		}
	}
	if n <= 200 {
		t.Fatalf("only %d matching leads: no second page to check", n)
	}
	if len(data) != 2 || !strings.HasPrefix(data[1].Path, "/services/data/v67.0/query/") || len(data[1].Query) != 0 {
		t.Errorf("second request %s?%s, want the nextRecordsUrl /services/data/v67.0/query/<locator>", data[1].Path, data[1].Query.Encode())
	}
}

// How the caller's query becomes the feed's, and the queries a feed cannot
// read, refused before anything is sent.
func TestFeedQuery(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithAccounts(3))
	defer srv.Close()
	c := open(t, srv)
	since := time.Date(2024, 5, 6, 7, 8, 9, 500e6, time.UTC)
	for _, tc := range []struct{ q, want string }{
		{"SELECT Id FROM Account", "SELECT Id, IsDeleted, SystemModstamp FROM Account WHERE SystemModstamp >= 2024-05-06T07:08:09Z ORDER BY SystemModstamp ASC"},
		{"select id, isdeleted, systemmodstamp from Account order by Name desc nulls last",
			"select id, isdeleted, systemmodstamp from Account WHERE SystemModstamp >= 2024-05-06T07:08:09Z ORDER BY SystemModstamp ASC"},
		{"SELECT FIELDS(STANDARD) FROM Account WHERE Name LIKE 'Order%' OR Industry IN ('A', 'B')",
			"SELECT FIELDS(STANDARD) FROM Account WHERE (Name LIKE 'Order%' OR Industry IN ('A', 'B')) AND SystemModstamp >= 2024-05-06T07:08:09Z ORDER BY SystemModstamp ASC"},
		{"SELECT Id, Owner.Name, (SELECT Id FROM Contacts ORDER BY Name LIMIT 5) FROM Account WITH SECURITY_ENFORCED",
			"SELECT Id, Owner.Name, (SELECT Id FROM Contacts ORDER BY Name LIMIT 5), IsDeleted, SystemModstamp FROM Account WHERE SystemModstamp >= 2024-05-06T07:08:09Z WITH SECURITY_ENFORCED ORDER BY SystemModstamp ASC"},
	} {
		srv.ResetRequests()
		for _, err := range c.Changes(context.Background(), "accounts", tributary.Params{"q": tc.q}, tributary.Checkpoint{Since: since.Add(2 * time.Minute)}) {
			_ = err // the fake refuses sub-queries; the request is what counts here
			break
		}
		reqs := srv.Requests()
		if len(reqs) == 0 || reqs[len(reqs)-1].Query.Get("q") != tc.want {
			var got string
			if len(reqs) > 0 {
				got = reqs[len(reqs)-1].Query.Get("q")
			}
			t.Errorf("q %q\nsent %q\nwant %q", tc.q, got, tc.want)
		}
	}
	for _, tc := range []struct{ q, why string }{
		{"SELECT Id FROM Account LIMIT 10", "LIMIT"},
		{"SELECT Id FROM Account ORDER BY Name OFFSET 5", "OFFSET"},
		{"SELECT Industry, COUNT(Id) FROM Account GROUP BY Industry", "COUNT"},
		{"SELECT COUNT() FROM Account", "COUNT"},
		{"SELECT FIELDS(ALL) FROM Account LIMIT 200", "FIELDS(ALL)"},
		{"SELECT Id FROM Account FOR VIEW", "FOR"},
		{"SELECT Id FROM Contact", "Contact"},
		{"", "give q"},
	} {
		srv.ResetRequests()
		var err error
		for _, e := range c.Changes(context.Background(), "accounts", tributary.Params{"q": tc.q}, tributary.Checkpoint{}) {
			err = e
			break
		}
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "q" || !strings.Contains(te.Message, tc.why) {
			t.Errorf("q %q: %v, want a refusal naming %s", tc.q, err, tc.why)
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("q %q: a request was sent", tc.q)
		}
	}
}

// Entities without a change feed say so.
func TestNoFeed(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithEvents(3))
	defer srv.Close()
	c := open(t, srv)
	for _, err := range c.Changes(context.Background(), "events", tributary.Params{"q": "SELECT Id FROM Event"}, tributary.Checkpoint{}) {
		if !errors.Is(err, tributary.ErrUnsupportedAction) {
			t.Errorf("events feed: %v", err)
		}
	}
}
