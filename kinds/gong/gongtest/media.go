package gongtest

import (
	"encoding/hex"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Media files live on the fake's file host (FilesURL) behind pre-signed,
// S3-style URLs that /v2/calls/extensive hands out with media:true. Like
// Gong's, they are valid for 8 hours and need no Gong credentials; sending an
// Authorization header as well is refused, as S3 refuses two auth mechanisms.

const (
	mediaExpiry  = 8 * time.Hour
	amzDate      = "20060102T150405Z"
	audioName    = "audio.mp3"
	videoName    = "video.mp4"
	mediaKeyName = "FAKEGONGMEDIAKEY"
)

func mediaPath(i int, video bool) string {
	name := audioName
	if video {
		name = videoName
	}
	return "/calls/" + callID(i) + "/" + name
}

func (s *Server) mediaSignature(path, date string) string {
	return hex.EncodeToString(s.sign("GET\n" + path + "\n" + date))
}

// mediaURL is the pre-signed URL of call i's audio or video, issued at stamp.
func (s *Server) mediaURL(i int, video bool, stamp time.Time) string {
	path := mediaPath(i, video)
	date := stamp.UTC().Format(amzDate)
	q := url.Values{}
	q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
	q.Set("X-Amz-Credential", mediaKeyName+"/"+stamp.UTC().Format("20060102")+"/us-east-1/s3/aws4_request")
	q.Set("X-Amz-Date", date)
	q.Set("X-Amz-Expires", strconv.Itoa(int(mediaExpiry/time.Second)))
	q.Set("X-Amz-SignedHeaders", "host")
	q.Set("X-Amz-Signature", s.mediaSignature(path, date))
	return s.FilesURL + path + "?" + q.Encode()
}

// mediaContent is the deterministic content of call i's audio or video file.
func (s *Server) mediaContent(i int, video bool) []byte {
	n := s.cfg.mediaSize
	head := []byte("ID3\x04\x00\x00\x00\x00\x00\x00")
	seed := uint64(i)*2 + 1
	if video {
		n *= 2
		head = []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
		seed++
	}
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 0x6d656469612d6761))
	for k := 0; k < n; k += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && k+j < n; j++ {
			b[k+j] = byte(v >> (8 * j))
		}
	}
	copy(b, head)
	return b
}

// s3Error writes an S3-style XML error.
func (s *Server) s3Error(w http.ResponseWriter, status int, code, msg string) {
	body := fmt.Sprintf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message><RequestId>%s</RequestId></Error>",
		code, html.EscapeString(msg), strings.ToUpper(s.requestID()[:16]))
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// serveMedia serves the media host: GET or HEAD of a pre-signed URL, with
// Range, If-Range and ETag through fakeserver.ServeFile.
func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.s3Error(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
		return
	}
	q := r.URL.Query()
	if r.Header.Get("Authorization") != "" {
		s.s3Error(w, http.StatusBadRequest, "InvalidArgument",
			"Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified")
		return
	}
	date := q.Get("X-Amz-Date")
	if q.Get("X-Amz-Signature") != s.mediaSignature(r.URL.Path, date) {
		s.s3Error(w, http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature we calculated does not match the signature you provided.")
		return
	}
	issued, err := time.Parse(amzDate, date)
	if err != nil || s.cfg.now().After(issued.Add(mediaExpiry)) {
		s.s3Error(w, http.StatusForbidden, "AccessDenied", "Request has expired")
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/calls/"), "/")
	i, ok := s.callIndex(parts[0])
	if !ok || len(parts) != 2 || (parts[1] != audioName && parts[1] != videoName) {
		s.s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	video := parts[1] == videoName
	ct := "audio/mpeg"
	if video {
		ct = "video/mp4"
	}
	modTime := callStart(i).Add(time.Duration(callDuration(i))*time.Second + time.Hour)
	fakeserver.ServeFile(w, r, fakeserver.File{
		Name:        parts[1],
		ContentType: ct,
		ETag:        fmt.Sprintf("\"%016x\"", uint64(mix(i, len(parts[1]), s.cfg.mediaSize))),
		ModTime:     modTime,
		Content:     s.mediaContent(i, video),
		CutEvery:    s.cfg.fileCutEvery,
	})
}
