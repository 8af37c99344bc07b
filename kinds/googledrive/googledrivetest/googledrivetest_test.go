package googledrivetest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// TestMain fails the package if any test leaves a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var _ fakeserver.Mutable = (*googledrivetest.Server)(nil)

func get(t *testing.T, srv *googledrivetest.Server, path string) (int, map[string]any) {
	t.Helper()
	return getAs(t, srv, googledrivetest.DefaultAccessToken, path)
}

// getAs is get with token.
func getAs(t *testing.T, srv *googledrivetest.Server, token, path string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return do(t, srv, req)
}

// do sends req to srv and reads its JSON answer.
func do(t *testing.T, srv *googledrivetest.Server, req *http.Request) (int, map[string]any) {
	t.Helper()
	res, err := srv.Transport().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

// Every exchange of a client reading each entity, the changes feed and an
// export agrees with Drive's description.
func TestAgreesWithTheDescription(t *testing.T) {
	srv := googledrivetest.New(googledrivetest.WithFiles(8), googledrivetest.WithDrives(1, 3))
	defer srv.Close()
	hc := &http.Client{Transport: vendorspec.OpenAPI(t, "google-drive").Transport(t, srv.Transport(), srv.URL)}
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc := googledrivetest.FileID(1)
	for _, op := range []tributary.Request{
		{Entity: "files", Action: "list", Params: tributary.Params{"pageSize": 3}},
		{Entity: "files", Action: "list", Params: tributary.Params{"corpora": "drive", "driveId": googledrivetest.DriveID(0), "includeItemsFromAllDrives": true, "supportsAllDrives": true}},
		{Entity: "files", Action: "get", Params: tributary.Params{"fileId": doc}},
		{Entity: "files", Action: "api_search", Params: tributary.Params{"q": "name contains 'doc'"}},
		{Entity: "drives", Action: "list"}, {Entity: "drives", Action: "get", Params: tributary.Params{"driveId": googledrivetest.DriveID(0)}},
		{Entity: "permissions", Action: "list", Params: tributary.Params{"fileId": googledrivetest.FileID(0)}},
		{Entity: "comments", Action: "list", Params: tributary.Params{"fileId": doc}},
		{Entity: "replies", Action: "list", Params: tributary.Params{"fileId": doc, "commentId": "AAAA1c0"}},
		{Entity: "revisions", Action: "list", Params: tributary.Params{"fileId": doc}},
		{Entity: "about", Action: "get"},
	} {
		if _, err := tributary.Execute(ctx, c, op); err != nil {
			t.Errorf("%s.%s: %v", op.Entity, op.Action, err)
		}
	}
	must(t, srv.Update("files", doc))
	for _, err := range c.Changes(ctx, "files", tributary.Params{"q": "trashed = false"}, tributary.Checkpoint{Token: "1"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.Download(ctx, "file_exports", tributary.Params{"fileId": doc, "mimeType": "application/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, st)
	st.Close()
}

// Partial responses: a file is four fields by default, what fields names
// otherwise, nested selections included; comments refuse a request
// without fields.
func TestFields(t *testing.T) {
	srv := googledrivetest.New(googledrivetest.WithFiles(3), googledrivetest.WithDrives(0, 0))
	defer srv.Close()
	_, f := get(t, srv, "/files/"+googledrivetest.FileID(2))
	if len(f) != 4 || f["kind"] != "drive#file" || f["mimeType"] != googledrive.Spreadsheet {
		t.Errorf("default fields: %v", f)
	}
	_, l := get(t, srv, "/files?fields="+url.QueryEscape("nextPageToken,files(id,owners(emailAddress))"))
	files := l["files"].([]any)
	if len(l) != 1 || len(files) != 3 || len(files[0].(map[string]any)) != 2 {
		t.Errorf("nested fields: %v", l)
	}
	if status, e := get(t, srv, "/files/"+googledrivetest.FileID(1)+"/comments"); status != 400 || e["error"] == nil {
		t.Errorf("comments without fields: %d %v", status, e)
	}
}

// files.list: at most 100 a page with permissions among the fields, 1000
// without; a token is bound to its query; an unknown query is Drive's
// 400; a token the fake did not hand out too.
func TestFilesPaging(t *testing.T) {
	srv := googledrivetest.New(googledrivetest.WithFiles(1200), googledrivetest.WithDrives(0, 0))
	defer srv.Close()
	_, p := get(t, srv, "/files?pageSize=1000&fields=*")
	if n := len(p["files"].([]any)); n != 100 || p["nextPageToken"] == nil {
		t.Errorf("fields=*: %d files a page", n)
	}
	_, p = get(t, srv, "/files?pageSize=1000&fields="+url.QueryEscape("nextPageToken,files(id)"))
	tok, _ := p["nextPageToken"].(string)
	if n := len(p["files"].([]any)); n != 1000 || tok == "" {
		t.Errorf("fields without permissions: %d files a page", n)
	}
	if status, _ := get(t, srv, "/files?q="+url.QueryEscape("trashed = false")+"&pageToken="+tok); status != 400 {
		t.Errorf("a token with another query: %d", status)
	}
	if status, _ := get(t, srv, "/files?q="+url.QueryEscape("fullText contains 'x'")); status != 400 {
		t.Errorf("an unsupported query: %d", status)
	}
}

// The changes log: a token is a position, the last page names the next;
// a shared drive's changes are read with its driveId only; forgotten
// tokens answer 400.
func TestChanges(t *testing.T) {
	srv := googledrivetest.New(googledrivetest.WithFiles(3), googledrivetest.WithDrives(1, 2))
	defer srv.Close()
	_, start := get(t, srv, "/changes/startPageToken")
	tok := start["startPageToken"].(string)
	must(t, srv.Update("files", googledrivetest.FileID(0)))
	inDrive, err := srv.CreateIn("files", googledrivetest.DriveID(0))
	must(t, err)
	_, mine := get(t, srv, "/changes?pageToken="+tok)
	if ch := mine["changes"].([]any); len(ch) != 1 || ch[0].(map[string]any)["fileId"] != googledrivetest.FileID(0) || mine["newStartPageToken"] == nil {
		t.Errorf("My Drive's changes: %v", mine)
	}
	_, theirs := get(t, srv, "/changes?supportsAllDrives=true&driveId="+googledrivetest.DriveID(0)+"&pageToken="+tok)
	if ch := theirs["changes"].([]any); len(ch) != 1 || ch[0].(map[string]any)["fileId"] != inDrive {
		t.Errorf("the shared drive's changes: %v", theirs)
	}
	srv.ForgetTokens()
	if status, _ := get(t, srv, "/changes?pageToken="+tok); status != 400 {
		t.Errorf("a forgotten token: %d", status)
	}
}

// Google keeps refresh tokens: one refreshes again and again, and the
// answer carries none; ExpireAccessTokens refuses every access token so
// far, the default one too, and a refresh mends it.
func TestRefreshKeepsTheRefreshToken(t *testing.T) {
	srv := googledrivetest.New(googledrivetest.WithFiles(1), googledrivetest.WithDrives(0, 0))
	defer srv.Close()
	refresh := func() (int, map[string]any) {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {googledrivetest.DefaultRefreshToken},
			"client_id": {googledrivetest.DefaultClientID}, "client_secret": {googledrivetest.DefaultClientSecret}}
		req, _ := http.NewRequest(http.MethodPost, srv.TokenURL(), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return do(t, srv, req)
	}
	files := func(token string) int {
		status, _ := getAs(t, srv, token, "/files")
		return status
	}
	var minted []string
	for i := range 2 {
		status, tok := refresh()
		at, _ := tok["access_token"].(string)
		if status != 200 || !strings.HasPrefix(at, "ya29.") || tok["refresh_token"] != nil {
			t.Fatalf("refresh %d: %d %v", i+1, status, tok)
		}
		if status := files(at); status != 200 {
			t.Errorf("refresh %d's access token: %d", i+1, status)
		}
		minted = append(minted, at)
	}
	srv.ExpireAccessTokens()
	for _, at := range append(minted, googledrivetest.DefaultAccessToken) {
		if status := files(at); status != 401 {
			t.Errorf("%s after ExpireAccessTokens: %d, want 401", at, status)
		}
	}
	if status, tok := refresh(); status != 200 || files(tok["access_token"].(string)) != 200 {
		t.Errorf("refresh after ExpireAccessTokens: %d %v", status, tok)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
