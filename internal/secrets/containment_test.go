package secrets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/zendesk"
)

// containmentSet returns the credentials a kind is opened with in the
// containment tests: its first set that needs no token request (for
// Salesforce, which is OAuth only, the one with an access token).
func containmentSet(kc *kindCase) credSet {
	for _, s := range kc.sets {
		if !s.refresh {
			return s
		}
	}
	for _, s := range kc.sets {
		for _, f := range s.secret {
			if f == "access_token" {
				return s
			}
		}
	}
	return kc.sets[0]
}

func kindCaseOf(t *testing.T, typ string) *kindCase {
	t.Helper()
	for i := range kindCases {
		if kindCases[i].typ == typ {
			return &kindCases[i]
		}
	}
	t.Fatalf("no kind case for %s", typ)
	return nil
}

// openContained opens typ against base with the containment credentials;
// the token URL, should a refresh happen, is base's too.
func openContained(t *testing.T, kc *kindCase, base string, opts ...tributary.Option) (tributary.Connector, []string) {
	t.Helper()
	set := containmentSet(kc)
	all := append([]tributary.Option{tributary.WithBaseURL(base), tributary.WithTokenURL(base + "/oauth/token"), fastRetry,
		tributary.WithSetting(hubspot.SettingSearchRate, "0"),
		tributary.WithSetting(hubspot.SettingAPIRate, "0"), tributary.WithSetting(gong.SettingAPIRate, "0"), tributary.WithSetting(zendesk.SettingAPIRate, "0")}, opts...)
	conn, err := kinds.Open(kc.typ, set.credentials(kc.typ), all...)
	if err != nil {
		t.Fatalf("open %s: %v", kc.typ, err)
	}
	var secrets []string
	for _, f := range set.secret {
		secrets = append(secrets, secret(kc.typ, f))
	}
	return conn, secrets
}

// assertNoCredentials fails when any request of reqs carries an
// Authorization header, a cookie, or a secret anywhere (header, query,
// body).
func assertNoCredentials(t *testing.T, what string, reqs []fakeserver.Request, secrets []string) {
	t.Helper()
	for _, r := range reqs {
		for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("%s: %s %s received %s: %q", what, r.Method, r.Path, h, v)
			}
		}
		var all strings.Builder
		for k, vs := range r.Header {
			fmt.Fprintf(&all, "%s: %s\n", k, strings.Join(vs, ","))
		}
		all.WriteString(r.Query.Encode())
		all.Write(r.Body)
		all.WriteString(r.Path)
		for _, s := range secrets {
			if strings.Contains(all.String(), s) {
				t.Errorf("%s: %s %s received the secret %q", what, r.Method, r.Path, s)
			}
		}
	}
}

// byOrigin splits a fake's request log into its two origins.
func byOrigin(reqs []fakeserver.Request) (api, files []fakeserver.Request) {
	for _, r := range reqs {
		if r.Origin == "files" {
			files = append(files, r)
		} else {
			api = append(api, r)
		}
	}
	return api, files
}

// fileContent is the file the file hosts serve.
var fileContent = bytes.Repeat([]byte("tributary containment file content. "), 3000) // ~108 KB

func serveFile(cutEvery int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f.bin", ContentType: "application/octet-stream", ETag: `"v1"`,
			ModTime: time.Unix(1_700_000_000, 0), Content: fileContent, CutEvery: cutEvery})
	}
}

// TestRedirectToAnotherOriginDropsCredentials: every kind's list answered
// with a 307 to another origin follows it without credentials.
func TestRedirectToAnotherOriginDropsCredentials(t *testing.T) {
	for i := range kindCases {
		kc := &kindCases[i]
		t.Run(kc.typ, func(t *testing.T) {
			t.Parallel()
			var srv *fakeserver.Server
			srv = fakeserver.New(
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, srv.FilesURL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
				}),
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					fakeserver.WriteJSON(w, http.StatusOK, []byte(kc.listBody))
				}), fakeserver.Faults{}, fakeserver.Vendor{})
			defer srv.Close()
			conn, secrets := openContained(t, kc, srv.URL)
			page, err := conn.List(context.Background(), kc.list.entity, kc.list.params)
			if err != nil {
				t.Fatalf("list through the redirect: %v", err)
			}
			if len(page.Records) != 1 {
				t.Fatalf("got %d records, want 1", len(page.Records))
			}
			api, files := byOrigin(srv.Requests())
			if len(api) != 1 || len(files) != 1 {
				t.Fatalf("want one request to each origin, got %d and %d", len(api), len(files))
			}
			if api[0].Header.Get("Authorization") == "" {
				t.Fatal("the connector's own origin got no credentials")
			}
			assertNoCredentials(t, "the other origin", files, secrets)
		})
	}
}

// TestRedirectFromHTTPSToHTTPRefused: a redirect from the https origin to
// plain http is refused, for every kind, and nothing reaches the http host.
func TestRedirectFromHTTPSToHTTPRefused(t *testing.T) {
	for i := range kindCases {
		kc := &kindCases[i]
		t.Run(kc.typ, func(t *testing.T) {
			t.Parallel()
			plain := fakeserver.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fakeserver.WriteJSON(w, http.StatusOK, []byte(kc.listBody))
			}), nil, fakeserver.Faults{}, fakeserver.Vendor{})
			defer plain.Close()
			var hits atomic.Int32
			tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				http.Redirect(w, r, plain.URL+r.URL.RequestURI(), http.StatusFound)
			}))
			defer tlsSrv.Close()
			conn, _ := openContained(t, kc, tlsSrv.URL, tributary.WithHTTPClient(tlsSrv.Client()))
			_, err := conn.List(context.Background(), kc.list.entity, kc.list.params)
			if err == nil {
				t.Fatal("followed a redirect from https to http")
			}
			if hits.Load() == 0 {
				t.Fatalf("the https origin was never asked: %v", err)
			}
			if !errors.Is(err, tributary.ErrUnexpectedResponse) || !strings.Contains(err.Error(), "https to http") {
				t.Fatalf("got %v, want ErrUnexpectedResponse refusing the step from https to http", err)
			}
			if n := len(plain.Requests()); n != 0 {
				t.Fatalf("the http host received %d requests", n)
			}
		})
	}
}

// downloadCase is a kind's download whose file lives on another origin.
type downloadCase struct {
	name   string
	typ    string
	entity string
	params tributary.Params
	// api answers the kind's API; files is the other origin's URL.
	api func(files string) http.HandlerFunc
}

// redirectTo answers every request with a 302 to path on the files origin.
func redirectTo(path string) func(string) http.HandlerFunc {
	return func(f string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, f+path, http.StatusFound)
		}
	}
}

var downloadCases = []downloadCase{
	{name: "zendesk content_url on the file host", typ: zendesk.Type, entity: "attachments", params: tributary.Params{"attachment_id": 7},
		api: func(files string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				fakeserver.WriteJSON(w, http.StatusOK, fmt.Appendf(nil, `{"attachment":{"id":7,"file_name":"f.bin","content_url":%q,"size":%d}}`,
					files+"/attachments/token/AbC123/?name=f.bin", len(fileContent)))
			}
		}},
	{name: "zendesk content_url on the API host, 302 to the file host", typ: zendesk.Type, entity: "attachments", params: tributary.Params{"attachment_id": 7},
		api: func(files string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/attachments/token/") {
					http.Redirect(w, r, files+"/blob/f.bin?signature=sig", http.StatusFound)
					return
				}
				fakeserver.WriteJSON(w, http.StatusOK, fmt.Appendf(nil, `{"attachment":{"id":7,"file_name":"f.bin","content_url":%q}}`,
					fakeserver.BaseURL(r)+"/attachments/token/AbC123/?name=f.bin"))
			}
		}},
	{name: "gong media URL on the media host", typ: gong.Type, entity: "call_audio",
		params: tributary.Params{"filter.callIds": []string{"1"}, "contentSelector.exposedFields.media": true},
		api: func(files string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				fakeserver.WriteJSON(w, http.StatusOK, fmt.Appendf(nil, `{"requestId":"r1","records":{"totalRecords":1,"currentPageSize":1,"currentPageNumber":0},"calls":[{"metaData":{"id":"1"},"media":{"audioUrl":%q,"videoUrl":%q}}]}`,
					files+"/media/1.mp3?X-Amz-Signature=sig", files+"/media/1.mp4"))
			}
		}},
	{name: "github release asset, 302 to the object store", typ: github.Type, entity: "release_assets",
		params: tributary.Params{"owner": "octo", "repo": "hello", "asset_id": 5}, api: redirectTo("/assets/5?X-Amz-Signature=sig")},
	{name: "github file content, 302 to the raw host", typ: github.Type, entity: "file_content",
		params: tributary.Params{"owner": "octo", "repo": "hello", "path": "data/large.bin"}, api: redirectTo("/octo/hello/main/data/large.bin")},
	{name: "salesforce content version, 302 to another host", typ: salesforce.Type, entity: "content_versions",
		params: tributary.Params{"id": "068000000000001AAA"}, api: redirectTo("/files/068000000000001AAA")},
}

// TestDownloadFromAnotherOriginWithoutCredentials: each two-step download
// and each download redirect fetches the file, resumed after the file host
// drops the connection, without credentials; and a file URL or redirect
// from the https origin to plain http is refused before anything is sent
// there.
func TestDownloadFromAnotherOriginWithoutCredentials(t *testing.T) {
	for _, dc := range downloadCases {
		t.Run(dc.name, func(t *testing.T) {
			t.Parallel()
			kc := kindCaseOf(t, dc.typ)
			var srv *fakeserver.Server
			srv = fakeserver.New(
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { dc.api(srv.FilesURL).ServeHTTP(w, r) }),
				serveFile(40_000), fakeserver.Faults{}, fakeserver.Vendor{})
			defer srv.Close()
			conn, secrets := openContained(t, kc, srv.URL)
			s, err := conn.Download(context.Background(), dc.entity, dc.params)
			if err != nil {
				t.Fatalf("download: %v", err)
			}
			got, err := io.ReadAll(s)
			s.Close()
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !bytes.Equal(got, fileContent) {
				t.Fatalf("got %d bytes, want the %d of the file", len(got), len(fileContent))
			}
			api, files := byOrigin(srv.Requests())
			if len(files) < 2 {
				t.Fatalf("the file host got %d requests; the cut connection was not resumed there", len(files))
			}
			for _, r := range api {
				if r.Header.Get("Authorization") == "" {
					t.Errorf("the API origin got %s %s without credentials", r.Method, r.Path)
				}
			}
			assertNoCredentials(t, "the file host", files, secrets)
		})
		t.Run(dc.name+", https to http", func(t *testing.T) {
			t.Parallel()
			kc := kindCaseOf(t, dc.typ)
			plain := fakeserver.New(serveFile(0), nil, fakeserver.Faults{}, fakeserver.Vendor{})
			defer plain.Close()
			var hits atomic.Int32
			tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				dc.api(plain.URL).ServeHTTP(w, r)
			}))
			defer tlsSrv.Close()
			conn, _ := openContained(t, kc, tlsSrv.URL, tributary.WithHTTPClient(tlsSrv.Client()))
			s, err := conn.Download(context.Background(), dc.entity, dc.params)
			if err == nil {
				s.Close()
				t.Fatal("downloaded over http from an https source")
			}
			if hits.Load() == 0 {
				t.Fatalf("the https origin was never asked: %v", err)
			}
			if !errors.Is(err, tributary.ErrUnexpectedResponse) || !strings.Contains(err.Error(), "http") {
				t.Errorf("got %v, want ErrUnexpectedResponse refusing http", err)
			}
			if n := len(plain.Requests()); n != 0 {
				t.Fatalf("the http host received %d requests", n)
			}
		})
	}
}

// TestNextPageOnAnotherOrigin: paging information that names another origin
// never sends credentials there. Zendesk's next_page and links.next, GitHub's
// Link header and HubSpot's paging.next.link give only a page number or a
// cursor, and the next request goes to the connector's own origin;
// Salesforce's nextRecordsUrl is a URL the connector follows, so one on
// another origin is refused before anything is sent.
func TestNextPageOnAnotherOrigin(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		entity string
		params tributary.Params
		// first is the first page's body and header; files is the other origin.
		first func(files string) (string, http.Header)
		last  string
		// refused: the next page must be refused with this parameter named.
		refused string
	}{
		{name: "zendesk next_page", typ: zendesk.Type, entity: "tickets",
			first: func(f string) (string, http.Header) {
				return fmt.Sprintf(`{"tickets":[{"id":1}],"next_page":%q,"previous_page":null,"count":2}`, f+"/api/v2/tickets.json?page=2"), nil
			},
			last: `{"tickets":[{"id":2}],"next_page":null,"previous_page":null,"count":2}`},
		{name: "zendesk cursor links.next", typ: zendesk.Type, entity: "tickets", params: tributary.Params{"page[size]": 1},
			first: func(f string) (string, http.Header) {
				return fmt.Sprintf(`{"tickets":[{"id":1}],"meta":{"has_more":true,"after_cursor":"c2","before_cursor":"c0"},"links":{"next":%q,"prev":null}}`,
					f+"/api/v2/tickets.json?page%5Bafter%5D=c2&page%5Bsize%5D=1"), nil
			},
			last: `{"tickets":[{"id":2}],"meta":{"has_more":false,"after_cursor":null,"before_cursor":"c1"},"links":{"next":null,"prev":null}}`},
		{name: "github Link header", typ: github.Type, entity: "issues", params: tributary.Params{"owner": "octo", "repo": "hello"},
			first: func(f string) (string, http.Header) {
				return `[{"id":1,"number":1}]`, http.Header{"Link": {fmt.Sprintf(`<%s/repositories/1/issues?page=2>; rel="next", <%s/repositories/1/issues?page=2>; rel="last"`, f, f)}}
			},
			last: `[{"id":2,"number":2}]`},
		{name: "hubspot paging.next.link", typ: hubspot.Type, entity: "contacts",
			first: func(f string) (string, http.Header) {
				return fmt.Sprintf(`{"results":[{"id":"1","properties":{}}],"paging":{"next":{"after":"2","link":%q}}}`, f+"/crm/v3/objects/contacts?after=2"), nil
			},
			last: `{"results":[{"id":"2","properties":{}}]}`},
		{name: "salesforce nextRecordsUrl", typ: salesforce.Type, entity: "accounts", params: tributary.Params{"q": "SELECT Id FROM Account"},
			first: func(f string) (string, http.Header) {
				return fmt.Sprintf(`{"totalSize":2,"done":false,"nextRecordsUrl":%q,"records":[{"attributes":{"type":"Account"},"Id":"001000000000001AAA"}]}`,
					f+"/services/data/"+salesforce.DefaultAPIVersion+"/query/01gD0000002HU6KIAW-2000"), nil
			},
			last:    `{"totalSize":2,"done":true,"records":[{"attributes":{"type":"Account"},"Id":"001000000000002AAA"}]}`,
			refused: "next_records_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kc := kindCaseOf(t, tt.typ)
			var srv *fakeserver.Server
			lastBody := []byte(tt.last)
			var pageNo atomic.Int32
			srv = fakeserver.New(
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if pageNo.Add(1) > 1 {
						fakeserver.WriteJSON(w, http.StatusOK, lastBody)
						return
					}
					body, h := tt.first(srv.FilesURL)
					for k, v := range h {
						w.Header()[k] = v
					}
					fakeserver.WriteJSON(w, http.StatusOK, []byte(body))
				}),
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					fakeserver.WriteJSON(w, http.StatusOK, lastBody)
				}), fakeserver.Faults{}, fakeserver.Vendor{})
			defer srv.Close()
			conn, secrets := openContained(t, kc, srv.URL)
			ctx := context.Background()
			page, err := conn.List(ctx, tt.entity, tt.params)
			if err != nil {
				t.Fatalf("first page: %v", err)
			}
			if page.Next == nil {
				t.Fatalf("the first page has no Next; meta %v", page.Meta)
			}
			_, err = conn.List(ctx, tt.entity, page.Next)
			api, files := byOrigin(srv.Requests())
			assertNoCredentials(t, "the other origin", files, secrets)
			if tt.refused != "" {
				var te *tributary.Error
				if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != tt.refused {
					t.Fatalf("the next page on another origin: got %v, want ErrInvalidParams naming %s", err, tt.refused)
				}
				if len(files) != 0 || len(api) != 1 {
					t.Fatalf("want 1 request to the API and none elsewhere, got %d and %d", len(api), len(files))
				}
				return
			}
			if err != nil {
				t.Fatalf("second page: %v", err)
			}
			if len(files) != 0 || len(api) != 2 {
				t.Fatalf("want both pages from the API origin, got %d there and %d on the other origin", len(api), len(files))
			}
		})
	}
}

// TestSalesforceNextRecordsURLOnItsOwnOrigin: an absolute nextRecordsUrl on
// the connector's own origin is followed, with credentials; the same path
// on another scheme or port is refused.
func TestSalesforceNextRecordsURLOnItsOwnOrigin(t *testing.T) {
	kc := kindCaseOf(t, salesforce.Type)
	srv := fakeserver.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.WriteJSON(w, http.StatusOK, []byte(`{"totalSize":1,"done":true,"records":[{"attributes":{"type":"Account"},"Id":"001000000000002AAA"}]}`))
	}), nil, fakeserver.Faults{}, fakeserver.Vendor{})
	defer srv.Close()
	conn, _ := openContained(t, kc, srv.URL)
	path := "/services/data/" + salesforce.DefaultAPIVersion + "/query/01gD0000002HU6KIAW-2000"
	q := "SELECT Id FROM Account"
	if _, err := conn.List(context.Background(), "accounts", tributary.Params{"q": q, "next_records_url": srv.URL + path}); err != nil {
		t.Fatalf("same origin: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != path || reqs[0].Header.Get("Authorization") == "" {
		t.Fatalf("want one request to %s with credentials, got %+v", path, reqs)
	}
	other := strings.Replace(srv.URL, "http://", "https://", 1) + path
	_, err := conn.List(context.Background(), "accounts", tributary.Params{"q": q, "next_records_url": other})
	if !errors.Is(err, tributary.ErrInvalidParams) {
		t.Fatalf("https on the same host and port: got %v, want ErrInvalidParams", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests after the refusal, want 1", n)
	}
}
