package bench

import (
	"context"
	"encoding/json"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	gojson "github.com/goccy/go-json"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// records fetches one page of real-shaped records from a fake.
func ghIssues(b *testing.B) [][]byte {
	srv := githubtest.New(githubtest.WithIssues(100))
	defer srv.Close()
	c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	p, err := c.List(context.Background(), "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "per_page": 100})
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, len(p.Records))
	for i, r := range p.Records {
		out[i] = r.Raw()
	}
	return out
}

func zdTickets(b *testing.B) [][]byte {
	srv := zendesktest.New()
	defer srv.Close()
	c, _ := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken}, tributary.WithBaseURL(srv.URL))
	p, err := c.List(context.Background(), "tickets", nil)
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, len(p.Records))
	for i, r := range p.Records {
		out[i] = r.Raw()
	}
	return out
}

func bench[T any](b *testing.B, recs [][]byte, dec func([]byte, any) error) {
	b.ReportAllocs()
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
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}

func v2(b []byte, v any) error { return jsonv2.Unmarshal(b, v) }

func BenchmarkDecodeGitHubIssue(b *testing.B) {
	recs := ghIssues(b)
	b.Run("encoding_json", func(b *testing.B) { bench[github.Issue](b, recs, json.Unmarshal) })
	b.Run("goccy", func(b *testing.B) { bench[github.Issue](b, recs, gojson.Unmarshal) })
	b.Run("json_v2", func(b *testing.B) { bench[github.Issue](b, recs, v2) })
}

func BenchmarkDecodeZendeskTicket(b *testing.B) {
	recs := zdTickets(b)
	b.Run("encoding_json", func(b *testing.B) { bench[zendesk.Ticket](b, recs, json.Unmarshal) })
	b.Run("goccy", func(b *testing.B) { bench[zendesk.Ticket](b, recs, gojson.Unmarshal) })
	b.Run("json_v2", func(b *testing.B) { bench[zendesk.Ticket](b, recs, v2) })
}
