package github

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// firstRecord returns the first record of a fixture's first response: the
// object itself, the first element of a bare array, or the first search item.
func firstRecord(t *testing.T, name string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "github", name))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Exchanges []struct {
			Response struct {
				Body json.RawMessage `json:"body"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	body := fx.Exchanges[0].Response.Body
	switch body[0] {
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(body, &arr); err != nil {
			t.Fatal(err)
		}
		return arr[0]
	case '{':
		var search struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &search); err == nil && len(search.Items) > 0 {
			return search.Items[0]
		}
	}
	return body
}

func decodeFixture[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(firstRecord(t, name), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func TestRecordsDecodeFixtures(t *testing.T) {
	t.Run("Repository", func(t *testing.T) {
		r := decodeFixture[Repository](t, "repositories.get.json")
		if r.ID != 70001 || r.FullName != "octo/hello" || r.Owner == nil || r.Owner.Login != "octo" ||
			r.License == nil || r.License.Key != "mit" || r.Permissions == nil || !r.Permissions.Push || r.NetworkCount != 3 {
			t.Errorf("%+v", r)
		}
		s := decodeFixture[Repository](t, "repositories.api_search.json")
		if s.Score != 1 || s.Description == nil {
			t.Errorf("search item %+v", s)
		}
		o := decodeFixture[OrgRepository](t, "org_repositories.list.json")
		v := decodeFixture[ViewerRepository](t, "viewer_repositories.list.json")
		if o.Name != "hello" || !v.Private {
			t.Errorf("org %q viewer private %v", o.Name, v.Private)
		}
	})
	t.Run("Branch", func(t *testing.T) {
		short := decodeFixture[Branch](t, "branches.list.json")
		full := decodeFixture[Branch](t, "branches.get.json")
		if short.Name != "develop" || short.Commit.SHA == "" || full.Commit.Commit.Author == nil || len(full.Commit.Parents) != 2 || !full.Protected {
			t.Errorf("%+v / %+v", short, full)
		}
	})
	t.Run("Commit", func(t *testing.T) {
		c := decodeFixture[Commit](t, "commits.get.json")
		if len(c.SHA) != 40 || c.Commit.Message != "Update README" || c.Stats == nil || c.Stats.Total != 14 ||
			len(c.Files) != 1 || c.Files[0].Filename != "README.md" || c.Commit.Verification == nil {
			t.Errorf("%+v", c)
		}
	})
	t.Run("Release", func(t *testing.T) {
		r := decodeFixture[Release](t, "releases.get.json")
		if r.ID != 9100012 || r.TagName != "v1.2.0" || len(r.Assets) != 2 || r.Assets[0].Size != 1024 || r.Reactions == nil {
			t.Errorf("%+v", r)
		}
		d := decodeFixture[Release](t, "releases.list.json")
		if !d.Draft || d.PublishedAt != nil || d.TarballURL != nil {
			t.Errorf("draft %+v", d)
		}
		a := decodeFixture[ReleaseAsset](t, "release_assets.get.json")
		if a.ID != 41000001 || a.Uploader == nil || a.ContentType != "application/gzip" {
			t.Errorf("%+v", a)
		}
	})
	t.Run("Issue", func(t *testing.T) {
		i := decodeFixture[Issue](t, "issues.get.json")
		if i.ID != 2001042 || i.Number != 42 || len(i.Labels) != 2 || i.Labels[0].Name != "bug" || i.Milestone == nil ||
			i.Milestone.Creator == nil || i.Reactions == nil || i.Reactions.PlusOne != 1 || i.PullRequest != nil || i.ClosedAt != nil {
			t.Errorf("%+v", i)
		}
		pr := decodeFixture[Issue](t, "issues.list.json") // the pull request GitHub mixes in
		if pr.PullRequest == nil || pr.PullRequest.URL == nil {
			t.Errorf("pull request marker %+v", pr.PullRequest)
		}
		s := decodeFixture[Issue](t, "issues.api_search.json")
		if s.Score != 1 {
			t.Errorf("score %v", s.Score)
		}
	})
	t.Run("PullRequest", func(t *testing.T) {
		p := decodeFixture[PullRequest](t, "pull_requests.get.json")
		if p.ID != 3300007 || p.Head == nil || p.Head.Ref != "feature-x" || p.Head.Repo == nil || !p.Merged ||
			p.Mergeable == nil || p.Commits != 3 || len(p.RequestedTeams) != 1 {
			t.Errorf("%+v", p)
		}
		s := decodeFixture[PullRequest](t, "pull_requests.api_search.json")
		if s.PullRequest == nil || s.PullRequest.MergedAt == nil || s.Head != nil || s.Score != 1 {
			t.Errorf("search item %+v", s)
		}
	})
	t.Run("Comments", func(t *testing.T) {
		r := decodeFixture[Review](t, "reviews.list.json")
		c := decodeFixture[Comment](t, "comments.get.json")
		p := decodeFixture[PRComment](t, "pr_comments.get.json")
		if r.State != "CHANGES_REQUESTED" || r.User == nil || c.ID != 6600001 || c.Body == "" ||
			p.PullRequestReviewID == nil || *p.PullRequestReviewID != 4400001 || p.Side != "RIGHT" || p.StartLine != nil {
			t.Errorf("%+v / %+v / %+v", r, c, p)
		}
	})
	t.Run("LabelsTagsMilestones", func(t *testing.T) {
		l := decodeFixture[Label](t, "labels.get.json")
		tg := decodeFixture[Tag](t, "tags.list.json")
		m := decodeFixture[Milestone](t, "milestones.list.json")
		if l.Name != "good first issue" || l.Description == nil || tg.Name != "v1.2.0" || tg.Commit.SHA == "" ||
			m.State != "closed" || m.ClosedAt == nil {
			t.Errorf("%+v / %+v / %+v", l, tg, m)
		}
		var bare []Label
		if err := json.Unmarshal([]byte(`["bug",{"name":"ui","id":7}]`), &bare); err != nil || bare[0].Name != "bug" || bare[1].ID != 7 {
			t.Errorf("bare label names: %v %+v", err, bare)
		}
	})
	t.Run("Accounts", func(t *testing.T) {
		o := decodeFixture[Organization](t, "organizations.get.json")
		ol := decodeFixture[Organization](t, "organizations.list.json")
		u := decodeFixture[User](t, "users.get.json")
		su := decodeFixture[User](t, "users.api_search.json")
		m := decodeFixture[SimpleUser](t, "users.list.json")
		v := decodeFixture[Viewer](t, "viewer.get.json")
		st := decodeFixture[Stargazer](t, "stargazers.list.json")
		tm := decodeFixture[Team](t, "teams.get.json")
		tl := decodeFixture[Team](t, "teams.list.json")
		if o.Login != "octo" || o.TwoFactorRequirementEnabled == nil || ol.Description == nil ||
			u.Name == nil || u.Hireable != nil || su.Score != 1 || m.Login != "octo-admin" ||
			!v.TwoFactorAuthentication || len(v.Plan) == 0 || st.ID != 5102 ||
			tm.Organization == nil || tm.MembersCount != 3 || tl.Slug != "core" {
			t.Errorf("accounts: %+v %+v %+v %+v %+v %+v %+v %+v", o, u, su, m, v, st, tm, tl)
		}
	})
	t.Run("Contents", func(t *testing.T) {
		f := decodeFixture[FileContent](t, "file_content.get.json")
		d := decodeFixture[DirectoryContent](t, "directory_content.list.json")
		if f.Encoding != "base64" || f.Path != "docs/guide.md" || f.Links.Self == "" || f.DownloadURL == nil ||
			d.Name != "api.md" || d.Type != "file" {
			t.Errorf("%+v / %+v", f, d)
		}
	})
}
