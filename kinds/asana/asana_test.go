package asana_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/asana"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
)

// What Asana receives for a list, a get and the next page: the token as
// Bearer, limit, the catalogue's opt_fields, the offset the previous
// page named; a list without a project is refused before any request.
func TestRequests(t *testing.T) {
	ctx := context.Background()
	s := asanatest.New(asanatest.WithProjects(3))
	defer s.Close()
	c := open(t, s)
	project := asanatest.GID("project", 0)
	var n int
	for task, err := range c.Tasks().All(ctx, asana.TaskParams{Project: project, Limit: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		if task.Notes == "" || len(task.Memberships) != 1 {
			t.Fatalf("a task without its fields: %+v", task)
		}
		n++
	}
	if n != 20 {
		t.Errorf("%d tasks of the first project, want 20", n)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages of 7", len(reqs))
	}
	for i, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer "+asanatest.DefaultToken || r.Query.Get("project") != project ||
			r.Query.Get("limit") != "7" || r.Query.Get("opt_fields") != asana.Fields["tasks"] || (i > 0) != (r.Query.Get("offset") != "") {
			t.Errorf("request %d: %s %v", i, r.Path, r.Query)
		}
	}
	s.ResetRequests()
	if _, err := c.List(ctx, "tasks", nil); !errors.Is(err, tributary.ErrInvalidParams) || !strings.Contains(err.Error(), "project") || len(s.Requests()) != 0 {
		t.Errorf("tasks without a project: %v, %d requests", err, len(s.Requests()))
	}
	task, err := c.Tasks().Get(ctx, asanatest.GID("task", 0))
	if err != nil || task.Name == "" || task.Workspace == nil {
		t.Fatalf("get: %+v, %v", task, err)
	}
	if got := s.Requests()[0]; got.Path != "/tasks/"+asanatest.GID("task", 0) {
		t.Errorf("get sent to %s", got.Path)
	}
}

// Asana's task search: premium workspaces only, a clear error otherwise;
// the dotted params under their Asana names.
func TestSearchTasks(t *testing.T) {
	ctx := context.Background()
	free := asanatest.New()
	defer free.Close()
	ws := asanatest.GID("workspace", 0)
	_, err := open(t, free).SearchTasks(ctx, asana.SearchParams{WorkspaceGID: ws, Text: "plan"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrForbidden) || te.StatusCode != 402 || !strings.Contains(te.Message, "premium") {
		t.Errorf("search on a free workspace: %v", err)
	}
	premium := asanatest.New(asanatest.WithPremium())
	defer premium.Close()
	project := asanatest.GID("project", 1)
	tasks, err := open(t, premium).SearchTasks(ctx, asana.SearchParams{WorkspaceGID: ws, Text: "plan", ProjectsAny: project, Limit: 50})
	if err != nil || len(tasks) == 0 {
		t.Fatalf("search: %d tasks, %v", len(tasks), err)
	}
	for _, task := range tasks {
		if !strings.Contains(strings.ToLower(task.Name+task.Notes), "plan") || task.Projects[0].GID != project {
			t.Errorf("a match that does not match: %+v", task)
		}
	}
	q := premium.Requests()[0].Query
	if q.Get("projects.any") != project || q.Get("text") != "plan" || q.Get("opt_fields") == "" {
		t.Errorf("search sent %v", q)
	}
}

// An attachment downloads through its download_url, read right before
// streaming, on the file host without the token; when the connection is
// cut after the URL expired (two minutes), the resume reads a fresh one.
func TestDownloadResumesAfterURLExpired(t *testing.T) {
	s := asanatest.New(asanatest.WithFileSize(10_000), asanatest.WithFileCutEvery(4000))
	defer s.Close()
	id := asanatest.GID("attachment", 0)
	want, _ := s.FileContent(id)
	reads := 0
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path == "/attachments/"+id {
			if reads++; reads > 1 {
				s.Clock().Advance(3 * time.Minute) // the URL read before has expired
			}
		}
		return http.DefaultTransport.RoundTrip(r) // over loopback: the file host cuts its connections
	})}
	c := open(t, s, tributary.WithHTTPClient(hc))
	st, err := c.Download(context.Background(), "attachments", tributary.Params{"attachment_gid": id})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(st)
	st.Close()
	if err != nil || string(got) != string(want) {
		t.Fatalf("downloaded %d bytes (want %d): %v", len(got), len(want), err)
	}
	var gets, fileReqs int
	for _, r := range s.Requests() {
		switch {
		case r.Origin == "files":
			fileReqs++
			if r.Header.Get("Authorization") != "" {
				t.Error("the token was sent to the file host")
			}
		case r.Path == "/attachments/"+id:
			gets++
		}
	}
	if fileReqs != 3 || gets != 3 {
		t.Errorf("%d file requests and %d reads of the attachment, want 3 and 3 (one per cut)", fileReqs, gets)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Asana's 401 and 429: an unknown token is ErrUnauthorized with Asana's
// message; a 429 is waited for (Retry-After) and retried.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	s := asanatest.New(asanatest.WithFaults(fakeserver.Faults{RateLimitFirst: 1, RetryAfter: time.Millisecond}))
	defer s.Close()
	if _, err := open(t, s).List(ctx, "workspaces", nil); err != nil {
		t.Errorf("after a 429: %v", err)
	}
	bad, err := asana.New(asana.Credentials{Token: "nope"}, tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.List(ctx, "workspaces", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || !strings.Contains(err.Error(), "Not Authorized") || strings.Contains(err.Error(), "nope") {
		t.Errorf("a wrong token: %v", err)
	}
	if _, err := asana.CredentialsFromMap(map[string]any{"token": "x", "access_token": "y"}); !errors.Is(err, tributary.ErrInvalidCredentials) {
		t.Errorf("token and access_token: %v", err)
	}
	if got := fmt.Sprint(asana.Credentials{Token: "secret-pat"}); strings.Contains(got, "secret-pat") {
		t.Errorf("credentials print their token: %s", got)
	}
}

// Over Asana's requests a minute, a 429's Retry-After (the seconds left in
// the minute) is waited, on a synctest bubble's clock, and the read goes
// on: every workspace read, one refusal, one retry.
func TestRateLimitWaitsRetryAfter(t *testing.T) {
	s := asanatest.New(asanatest.WithClock(fakeserver.NewRealClock()), asanatest.WithRateLimit(2, time.Minute))
	defer s.Close()
	realNow := time.Now()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(realNow.Truncate(time.Minute).Add(time.Minute + 20*time.Second))) // the bubble's clock starts in 2000
		c, err := asana.New(asana.Credentials{Token: asanatest.DefaultToken}, tributary.WithBaseURL(s.URL),
			tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}), tributary.WithoutPacing())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for i := range 3 {
			if _, err := c.Get(context.Background(), "workspaces", tributary.Params{"workspace_gid": asanatest.GID("workspace", 0)}); err != nil {
				t.Fatalf("read %d: %v", i+1, err)
			}
		}
		if took := time.Since(start); took != 40*time.Second {
			t.Errorf("three reads took %v, want the 40 s the third's Retry-After said", took)
		}
		if u := c.Usage(); u != (tributary.Usage{Requests: 4, Retries: 1, Throttled: 1}) {
			t.Errorf("usage %+v, want 4 requests, one refused and retried", u)
		}
	})
}
