package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// JSONTokenRequests returns a transport that sends each form-encoded POST
// (an OAuth token request, as golang.org/x/oauth2 writes it) as a JSON
// object of the same fields instead, each value a string: the token
// endpoints that take JSON only (Notion's). Other requests go to next as
// they are; nil next is http.DefaultTransport.
func JSONTokenRequests(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return jsonTokens{next}
}

type jsonTokens struct{ next http.RoundTripper }

func (j jsonTokens) RoundTrip(req *http.Request) (*http.Response, error) {
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || ct != "application/x-www-form-urlencoded" || req.Body == nil {
		return j.next.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, err
	}
	obj := make(map[string]string, len(form))
	for k, v := range form {
		obj[k] = v[0]
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Header.Set("Content-Type", "application/json")
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return j.next.RoundTrip(out)
}
