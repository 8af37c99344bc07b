package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tributary-dev/tributary"
)

type downloadArgs struct {
	Connector string           `json:"connector"`
	Entity    string           `json:"entity"`
	Params    tributary.Params `json:"params"`
	Inline    *bool            `json:"inline"`
}

type downloadOut struct {
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type,omitempty"`
	FileName    string `json:"file_name,omitempty"`
	Text        string `json:"text,omitempty"`
}

func (s *Server) download(ctx context.Context, args json.RawMessage) (any, string, error) {
	var in downloadArgs
	if err := decodeArgs(args, &in); err != nil {
		return nil, "", err
	}
	src, err := s.source(in.Connector)
	if err != nil {
		return nil, "", err
	}
	if err := requireArg("entity", in.Entity); err != nil {
		return nil, "", err
	}
	dir := s.opts.Downloads.Dir
	if dir == "" {
		return nil, "", &toolError{Kind: KindNotConfigured, Connector: src.Name,
			Message: "downloads are off: the server's configuration names no download directory (downloads.dir, or --download-dir)"}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	res, err := tributary.Execute(ctx, src.Conn, tributary.Request{Entity: in.Entity, Action: tributary.ActionDownload, Params: in.Params})
	if err != nil {
		return nil, "", err
	}
	st := res.Download
	defer st.Close()
	limit := s.opts.Downloads.MaxBytes
	length := st.Size
	if st.Range != nil {
		length = st.Range.Last - st.Range.First + 1
	}
	if length > limit {
		return nil, "", &toolError{Kind: KindTooLarge, Connector: src.Name, Entity: in.Entity, Action: string(tributary.ActionDownload),
			Message: fmt.Sprintf("the file is %d bytes, above the limit of %d bytes: ask for a part with range_header (bytes=0-%d) where the entity offers it", length, limit, limit-1)}
	}

	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", &toolError{Kind: KindNotConfigured, Message: "the download directory cannot be opened: " + pathErr(err)}
	}
	defer root.Close()
	name := fileName(src.Name, in.Entity, in.Params, st.FileName, st.ContentType)
	var tag [6]byte
	_, _ = rand.Read(tag[:])
	part := name + "." + hex.EncodeToString(tag[:]) + ".part"
	f, err := root.OpenFile(part, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, "", &toolError{Kind: KindDownloadFailed, Message: "cannot write in the download directory: " + pathErr(err)}
	}
	n, err := io.Copy(f, io.LimitReader(st, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		_ = root.Remove(part)
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, "", &toolError{Kind: KindDownloadFailed, Message: "writing the file: " + pathErr(err)}
		}
		return nil, "", err // the stream's own error: a changed file, a cancel, the source's failure
	case n > limit:
		_ = root.Remove(part)
		return nil, "", &toolError{Kind: KindTooLarge, Connector: src.Name, Entity: in.Entity, Action: string(tributary.ActionDownload),
			Message: fmt.Sprintf("the file is above the limit of %d bytes: ask for a part with range_header where the entity offers it", limit)}
	}
	if err := root.Rename(part, name); err != nil {
		_ = root.Remove(part)
		return nil, "", &toolError{Kind: KindDownloadFailed, Message: "naming the file: " + pathErr(err)}
	}
	out := downloadOut{Path: filepath.Join(dir, name), Size: n, ContentType: st.ContentType, FileName: st.FileName}
	if (in.Inline == nil || *in.Inline) && n <= s.opts.Downloads.InlineBytes && textual(st.ContentType) {
		if b, err := root.ReadFile(name); err == nil && utf8.Valid(b) {
			out.Text = string(b)
		}
	}
	summary := fmt.Sprintf("wrote %d bytes (%s) to %s", n, orUnknown(st.ContentType), out.Path)
	return out, summary, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "type unknown"
	}
	return s
}

// pathErr is an error about the download directory without its path
// repeated.
func pathErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// textual reports whether a content type is text a model can read inline.
func textual(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/yaml" || mt == "application/x-ndjson"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName is the name a download is saved under: connector, entity, the
// file's own name, and a hash of the params, so that the same download
// lands on the same file and different ones never collide. The file's own
// name is the one the source gives (Content-Disposition), else the last
// segment of a parameter that names the file (path, file_name, filename).
// Its extension comes from that name first, and from the content type
// only when the name has none. Only letters, digits, '.', '-' and '_'
// survive, and os.Root keeps it inside the directory whatever it is.
func fileName(connector, entity string, p tributary.Params, given, contentType string) string {
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	base := unsafeName.ReplaceAllString(connector+"-"+entity+"-"+hex.EncodeToString(sum[:4]), "_")
	if given == "" {
		given = nameParam(p)
	}
	g := strings.Trim(unsafeName.ReplaceAllString(path.Base(filepath.ToSlash(given)), "_"), "._")
	if len(g) > 80 {
		g = g[len(g)-80:]
	}
	if g != "" {
		base += "-" + g
	}
	if path.Ext(g) != "" {
		return base
	}
	return base + extensionOf(contentType)
}

// nameParams are the download parameters that name the file, in the order
// they are tried.
var nameParams = []string{"file_name", "filename", "path"}

// nameParam returns the file name a download's params give, or "".
func nameParam(p tributary.Params) string {
	for _, k := range nameParams {
		if v, ok := p[k].(string); ok && strings.Trim(path.Base(v), "/.") != "" {
			return v
		}
	}
	return ""
}

// commonExt are the usual extensions of common types, where the mime
// package's first (alphabetical) choice would surprise: text/plain is
// .txt, not .asc.
var commonExt = map[string]string{
	"text/plain": ".txt", "text/markdown": ".md", "text/html": ".html", "text/csv": ".csv", "text/xml": ".xml",
	"application/json": ".json", "application/xml": ".xml", "application/pdf": ".pdf", "application/zip": ".zip",
	"application/octet-stream": ".bin", "image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif",
	"image/svg+xml": ".svg", "audio/mpeg": ".mp3", "audio/wav": ".wav", "video/mp4": ".mp4",
}

// extensionOf returns the extension of a content type, "" when unknown.
func extensionOf(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if ext, ok := commonExt[mt]; ok {
		return ext
	}
	if exts, err := mime.ExtensionsByType(mt); err == nil && len(exts) > 0 {
		return exts[0]
	}
	return ""
}
