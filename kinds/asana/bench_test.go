package asana_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/asana"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
)

// benchTasks is the number of tasks walked per iteration: one project's,
// 100 a page (Asana's most).
const benchTasks = 10_000

func benchServer(tb testing.TB, tasks int) *asanatest.Server {
	srv := asanatest.New(asanatest.WithProjects(1), asanatest.WithTasks(tasks))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *asanatest.Server) *asana.Client {
	c, err := asana.New(asana.Credentials{Token: asanatest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists the project's tasks through the typed handle.
func walkTyped(tb testing.TB, c *asana.Client) int {
	return benchmark.Count(tb, c.Tasks().All(context.Background(), asana.TaskParams{Project: asanatest.GID("project", 0), Limit: asana.MaxLimit}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (GET /tasks with the project, limit and
// the catalogue's opt_fields, then next_page.offset until it is null),
// with the same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"project": {asanatest.GID("project", 0)}, "limit": {"100"}, "opt_fields": {asana.Fields["tasks"]}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/tasks?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+asanatest.DefaultToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Data     []asana.Task `json:"data"`
			NextPage *struct {
				Offset string `json:"offset"`
			} `json:"next_page"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Data)
		if page.NextPage == nil {
			return n
		}
		q.Set("offset", page.NextPage.Offset)
	}
}

// BenchmarkListTasksTyped walks 10,000 tasks into asana.Task.
func BenchmarkListTasksTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchTasks))
	benchmark.Walk(b, benchTasks, func() int { return walkTyped(b, c) })
}

// BenchmarkListTasksGeneric walks 10,000 tasks as raw Records.
func BenchmarkListTasksGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchTasks))
	p := tributary.Params{"project": asanatest.GID("project", 0), "limit": asana.MaxLimit}
	benchmark.Walk(b, benchTasks, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "tasks", p))
	})
}

// BenchmarkListTasksNetHTTP walks the same 10,000 tasks with walkNetHTTP.
func BenchmarkListTasksNetHTTP(b *testing.B) {
	srv := benchServer(b, benchTasks)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchTasks, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const tasks = 250
	srv := benchServer(t, tasks)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, tasks, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
