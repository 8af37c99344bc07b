package githubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// assetBucket is the first path segment of release asset URLs on the file
// host, like GitHub's object store.
const assetBucket = "github-production-release-asset-2e65be"

// assetURLLifetime is how long a signed asset URL stays valid.
const assetURLLifetime = 300 * time.Second

func (s *Server) signature(path, date string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d", path, date, s.start.UnixNano())))
	return hex.EncodeToString(h[:])
}

// signedAssetURL is the short-lived file host URL the API redirects an asset
// download to.
func (s *Server) signedAssetURL(ri, i, a int) string {
	id := s.w.assetID(ri, i, a)
	path := "/" + assetBucket + "/" + strconv.Itoa(RepoID+ri) + "/" + strconv.FormatInt(id, 10)
	date := time.Now().UTC().Format("20060102T150405Z")
	q := url.Values{}
	q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
	q.Set("X-Amz-Credential", "FAKEKEYID/"+date[:8]+"/us-east-1/s3/aws4_request")
	q.Set("X-Amz-Date", date)
	q.Set("X-Amz-Expires", strconv.Itoa(int(assetURLLifetime/time.Second)))
	q.Set("X-Amz-SignedHeaders", "host")
	q.Set("X-Amz-Signature", s.signature(path, date))
	q.Set("actor_id", strconv.Itoa(ViewerID))
	q.Set("key_id", "0")
	q.Set("repo_id", strconv.Itoa(RepoID+ri))
	q.Set("response-content-disposition", "attachment; filename="+assetName(ri, a))
	q.Set("response-content-type", "application/octet-stream")
	return s.FilesURL + path + "?" + q.Encode()
}

// s3Error writes an object-store error document.
func s3Error(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message><RequestId>FAKE</RequestId></Error>", code, message)
}

// serveFiles answers the file host: signed release asset objects,
// browser_download_url redirects and raw file content (download_url). It
// never needs credentials.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s3Error(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
		return
	}
	seg := segments(r)
	switch {
	case len(seg) == 3 && seg[0] == assetBucket:
		s.serveAsset(w, r, seg)
	case len(seg) == 6 && seg[2] == "releases" && seg[3] == "download":
		ri, ok := s.w.repoIndex(seg[0], seg[1])
		i, okTag := s.w.releaseByTag(seg[4])
		if ok && okTag {
			for a := range s.cfg.assets {
				if assetName(ri, a) == seg[5] {
					http.Redirect(w, r, s.signedAssetURL(ri, i, a), http.StatusFound)
					return
				}
			}
		}
		http.Error(w, "Not Found", http.StatusNotFound)
	case len(seg) >= 4:
		ri, ok := s.w.repoIndex(seg[0], seg[1])
		f, found := s.w.fileIndex[strings.Join(seg[3:], "/")]
		if _, okRef := s.w.resolveRef(ri, seg[2]); !ok || !okRef || !found || f.dir {
			http.Error(w, "404: Not Found", http.StatusNotFound)
			return
		}
		fakeserver.ServeFile(w, r, fakeserver.File{
			Name: baseName(f.path), ContentType: "text/plain; charset=utf-8", ETag: `"` + f.sha + `"`,
			ModTime: s.w.commitDate(0), Content: f.content, CutEvery: s.cfg.fileCutEvery,
		})
	default:
		http.Error(w, "Not Found", http.StatusNotFound)
	}
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request, seg []string) {
	if r.Header.Get("Authorization") != "" {
		s3Error(w, http.StatusBadRequest, "InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified")
		return
	}
	q := r.URL.Query()
	date := q.Get("X-Amz-Date")
	if q.Get("X-Amz-Signature") != s.signature(r.URL.Path, date) {
		s3Error(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}
	signed, err := time.Parse("20060102T150405Z", date)
	if err != nil || time.Since(signed) > assetURLLifetime {
		s3Error(w, http.StatusForbidden, "AccessDenied", "Request has expired")
		return
	}
	id, err := strconv.ParseInt(seg[2], 10, 64)
	ri, i, a, ok := s.w.assetIndex(id)
	if err != nil || !ok || strconv.Itoa(RepoID+ri) != seg[1] {
		s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	content := assetContent(id, s.w.assetSize(i, a))
	etag := sha256.Sum256(content)
	w.Header().Set("Content-Disposition", q.Get("response-content-disposition"))
	fakeserver.ServeFile(w, r, fakeserver.File{
		Name:        assetName(ri, a),
		ContentType: "application/octet-stream",
		ETag:        `"` + hex.EncodeToString(etag[:16]) + `"`,
		ModTime:     s.w.releaseCreated(i),
		Content:     content,
		CutEvery:    s.cfg.fileCutEvery,
	})
}
