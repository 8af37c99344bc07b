package zendesktest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// FileContent returns the bytes FilesURL serves for a file id (a ticket
// attachment, its thumbnail, a user photo, the brand logo or an article
// attachment), so that tests can compare downloads. ok is false for unknown
// ids.
func (s *Server) FileContent(id int64) (content []byte, ok bool) {
	f, ok := s.d.fileInfo(id)
	if !ok {
		return nil, false
	}
	return fileContent(id, f), true
}

// fileContent is deterministic in the id: every 8-byte word is a hash of the
// id and its offset, so a resume from a wrong offset never matches by
// accident. Text files are printable lines; PDFs start with their magic
// bytes; images are valid PNGs of their width and height (blank), the hash
// bytes in a private chunk that fills them to their size.
func fileContent(id int64, f fileMeta) []byte {
	b := make([]byte, f.size)
	seed := uint64(id) * 0x9e3779b97f4a7c15
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], splitmix(seed+uint64(i)))
	}
	if i < len(b) {
		var last [8]byte
		binary.LittleEndian.PutUint64(last[:], splitmix(seed+uint64(i)))
		copy(b[i:], last[:])
	}
	switch f.kind {
	case kindTXT:
		for i := range b {
			if i%64 == 63 {
				b[i] = '\n'
			} else {
				b[i] = ' ' + b[i]%95
			}
		}
	case kindPNG:
		if !blankPNG(b, f.width, f.height) {
			copy(b, pngSignature) // too small a file for a whole PNG
		}
	case kindPDF:
		copy(b, "%PDF-1.7\n")
	}
	return b
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// blankPNG turns b, of hash bytes, into a valid PNG of a blank w×h image
// (1-bit grayscale; 1×1 when a side is not positive) of exactly len(b)
// bytes: the signature, IHDR, an ancillary private chunk (raNd, which
// decoders skip) holding b's bytes at their own offsets, IDAT and IEND.
// It reports false, leaving b as it was, when b is too small for one.
func blankPNG(b []byte, w, h int) bool {
	w, h = max(w, 1), max(h, 1)
	var raw bytes.Buffer
	zw := zlib.NewWriter(&raw)
	row := make([]byte, 1+(w+7)/8) // filter type 0, then the row's bits
	for range h {
		_, _ = zw.Write(row)
	}
	_ = zw.Close()
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 1, 0 // bit depth 1, grayscale
	const overhead = 12     // a chunk's length, type and CRC
	head := len(pngSignature) + overhead + len(ihdr)
	fill := len(b) - head - overhead - (overhead + raw.Len()) - overhead
	if fill < 0 {
		return false
	}
	out := append([]byte(pngSignature), pngChunk("IHDR", ihdr[:])...)
	out = append(out, pngChunk("raNd", b[head+8:head+8+fill])...)
	out = append(out, pngChunk("IDAT", raw.Bytes())...)
	out = append(out, pngChunk("IEND", nil)...)
	copy(b, out)
	return true
}

// pngChunk is a PNG chunk: its length, type, data and CRC.
func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(append(c, typ...), data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *Server) filesLocation(id int64, name string) string {
	return s.FilesURL + "/files/" + strconv.FormatInt(id, 10) + "/" + url.PathEscape(name)
}

// serveAttachmentToken answers a ticket attachment's content_url,
// /attachments/token/{token}/?name={file_name}, with a 302 to the file host.
// Credentials are optional, as on Zendesk without secure downloads.
func (s *Server) serveAttachmentToken(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/attachments/token/"), "/")
	id, ok := tokenFileID(tok)
	var f fileMeta
	if ok && !strings.Contains(tok, "/") {
		f, ok = s.d.fileInfo(id)
	} else {
		ok = false
	}
	if !ok || f.article >= 0 {
		writeBody(w, http.StatusNotFound, bodyNotFound)
		return
	}
	http.Redirect(w, r, s.filesLocation(id, f.name), http.StatusFound)
}

// serveArticleAttachmentFile answers an article attachment's content_url,
// /hc/article_attachments/{id}/{file_name}, with a 302 to the file host.
func (s *Server) serveArticleAttachmentFile(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/hc/article_attachments/")
	idStr, name, _ := strings.Cut(rest, "/")
	id, ok := parseID(idStr)
	var f fileMeta
	if ok {
		f, ok = s.d.fileInfo(id)
	}
	if !ok || f.article < 0 || (name != "" && name != f.name) {
		writeBody(w, http.StatusNotFound, bodyNotFound)
		return
	}
	http.Redirect(w, r, s.filesLocation(id, f.name), http.StatusFound)
}

// serveFiles is the file host: GET /files/{id}/{file_name}, no credentials,
// Range / If-Range / ETag through fakeserver.ServeFile.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/files/")
	idStr, name, _ := strings.Cut(rest, "/")
	id, idOK := parseID(idStr)
	var f fileMeta
	if ok && idOK {
		f, ok = s.d.fileInfo(id)
	} else {
		ok = false
	}
	if !ok || name != f.name {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{
		Name:        f.name,
		ContentType: f.ctype,
		ETag:        `"` + strconv.FormatInt(id, 10) + "-" + strconv.Itoa(f.size) + `"`,
		ModTime:     time.Unix(f.created, 0).UTC(),
		Content:     fileContent(id, f),
		CutEvery:    s.cfg.cutEvery,
	})
}
