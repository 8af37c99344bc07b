package googledrivetest

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Google-native types, and the binary types of generated files.
const (
	Document     = "application/vnd.google-apps.document"
	Spreadsheet  = "application/vnd.google-apps.spreadsheet"
	Presentation = "application/vnd.google-apps.presentation"
	Folder       = "application/vnd.google-apps.folder"
)

var kinds = []struct{ mime, ext string }{
	{Folder, ""}, {Document, ""}, {Spreadsheet, ""}, {Presentation, ""}, {"application/pdf", "pdf"}, {"text/plain", "txt"}, {"image/png", "png"},
}

// exports are the formats each native type exports to (about.exportFormats).
var exports = map[string][]string{
	Document: {"application/pdf", "text/plain", "text/html", "application/rtf", "application/epub+zip", "text/markdown",
		"application/vnd.oasis.opendocument.text", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	Spreadsheet: {"application/pdf", "text/csv", "text/tab-separated-values", "application/zip",
		"application/vnd.oasis.opendocument.spreadsheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	Presentation: {"application/pdf", "text/plain", "application/vnd.oasis.opendocument.presentation",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
}

type file struct {
	ID, Name, Mime, Parent, Drive string
	Num, Version                  int
	Trashed, Starred              bool
	Created, Modified             time.Time
}

type drive struct {
	ID, Name string
	Created  time.Time
}

// change is one entry of the changes log.
type change struct {
	FileID, Drive string
	At            time.Time
	Removed       bool
}

// FileID returns the id of the nth file (from 0) the fake generated; a
// file created later gets the next.
func FileID(n int) string { return fmt.Sprintf("1fake%028d", n) }

// DriveID returns the id of the nth shared drive (from 0).
func DriveID(n int) string { return fmt.Sprintf("0AFakeDrive%05dUk9PVA", n) }

// generatedAt is when the generated files and shared drives were made.
var generatedAt = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func (s *Server) generate() {
	base := generatedAt // fixed: a fake started later serves the same records
	for d := range s.cfg.drives {
		s.drives.Put(DriveID(d), drive{ID: DriveID(d), Name: fmt.Sprintf("Team %d", d+1), Created: base}, base)
	}
	add := func(driveID string) {
		n := s.nextID
		s.nextID++
		k := kinds[n%len(kinds)]
		at := base.Add(time.Duration(n) * time.Second)
		f := file{ID: FileID(n), Num: n, Mime: k.mime, Drive: driveID, Version: 1, Starred: n%11 == 0, Created: at, Modified: at}
		f.Name = fmt.Sprintf("%s %d", strings.TrimPrefix(k.mime[strings.LastIndex(k.mime, "/")+1:], "vnd.google-apps."), n)
		if k.ext != "" {
			f.Name += "." + k.ext
		}
		f.Parent = driveID
		if f.Parent == "" {
			f.Parent = "0AFakeRootFolderUk9PVA"
		}
		s.files.Put(f.ID, f, at)
	}
	for range s.cfg.files {
		add("")
	}
	for _, d := range s.drives.IDs() {
		for range s.cfg.perDrive {
			add(d)
		}
	}
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func native(mime string) bool { return strings.HasPrefix(mime, "application/vnd.google-apps.") }

func user(n int) map[string]any {
	email := DefaultEmail
	if n > 0 {
		email = fmt.Sprintf("user%d@example.com", n)
	}
	return map[string]any{"kind": "drive#user", "displayName": strings.Split(email, "@")[0], "emailAddress": email,
		"permissionId": fmt.Sprintf("0%019d", n+1), "photoLink": "https://lh3.googleusercontent.com/a/default-user=s64", "me": n == 0}
}

func ext(name string) string {
	if i := strings.LastIndex(name, "."); i >= 0 {
		return name[i+1:]
	}
	return ""
}

// fileJSON is a file with every field (fields=*).
func (s *Server) fileJSON(f file) map[string]any {
	m := map[string]any{"kind": "drive#file", "id": f.ID, "name": f.Name, "mimeType": f.Mime, "starred": f.Starred,
		"trashed": f.Trashed, "explicitlyTrashed": f.Trashed, "parents": []any{f.Parent}, "spaces": []any{"drive"},
		"version": strconv.Itoa(f.Version + 10), "webViewLink": "https://drive.google.com/file/d/" + f.ID + "/view?usp=drivesdk",
		"iconLink": "https://drive-thirdparty.googleusercontent.com/16/type/" + f.Mime, "hasThumbnail": false, "thumbnailVersion": "0",
		"viewedByMe": true, "createdTime": stamp(f.Created), "modifiedTime": stamp(f.Modified), "modifiedByMe": true,
		"modifiedByMeTime": stamp(f.Modified), "lastModifyingUser": user(0), "shared": f.Num%3 == 0, "isAppAuthorized": false,
		"viewersCanCopyContent": true, "copyRequiresWriterPermission": false, "writersCanShare": true,
		"capabilities":  map[string]any{"canDownload": true, "canCopy": f.Mime != Folder, "canComment": true, "canEdit": true, "canShare": true, "canReadRevisions": f.Mime != Folder},
		"permissionIds": s.permissionIDs(f)}
	if f.Drive == "" {
		m["owners"], m["ownedByMe"] = []any{user(0)}, true
		perms := []any{}
		for _, p := range s.permissions(f) {
			perms = append(perms, p)
		}
		m["permissions"] = perms
	} else {
		m["driveId"], m["teamDriveId"] = f.Drive, f.Drive
	}
	switch {
	case native(f.Mime) && f.Mime != Folder:
		links := map[string]any{}
		for _, t := range exports[f.Mime] {
			links[t] = "https://docs.google.com/feeds/download/export?id=" + f.ID + "&exportFormat=" + ext(t)
		}
		m["exportLinks"] = links
	case !native(f.Mime):
		m["originalFilename"], m["fullFileExtension"], m["fileExtension"] = f.Name, ext(f.Name), ext(f.Name)
		m["size"], m["quotaBytesUsed"] = strconv.Itoa(s.cfg.fileSize), strconv.Itoa(s.cfg.fileSize)
		m["md5Checksum"], m["headRevisionId"] = s.md5(f), fmt.Sprintf("0B%d-rev-%d", f.Num, f.Version)
		m["webContentLink"] = "https://drive.google.com/uc?id=" + f.ID + "&export=download"
	}
	return m
}

// md5 is the checksum of a version's bytes, computed once.
func (s *Server) md5(f file) string {
	key := f.ID + ":" + strconv.Itoa(f.Version)
	if sum, ok := s.sums[key]; ok {
		return sum
	}
	h := md5.New()
	_, _ = io.Copy(h, s.content(f))
	sum := hex.EncodeToString(h.Sum(nil))
	s.sums[key] = sum
	return sum
}

func (s *Server) permissionIDs(f file) []any {
	var out []any
	for _, p := range s.permissions(f) {
		out = append(out, p["id"])
	}
	return out
}

// permissions are a file's: its owner (an organizer of a shared drive),
// a reader for one file in three, anyone with the link for one in five.
func (s *Server) permissions(f file) []map[string]any {
	perm := func(id, typ, role string, u map[string]any) map[string]any {
		m := map[string]any{"kind": "drive#permission", "id": id, "type": typ, "role": role, "deleted": false, "pendingOwner": false}
		if u != nil {
			m["emailAddress"], m["displayName"], m["photoLink"] = u["emailAddress"], u["displayName"], u["photoLink"]
		}
		if f.Drive != "" {
			m["permissionDetails"] = []any{map[string]any{"permissionType": "member", "role": role, "inherited": true, "inheritedFrom": f.Drive}}
		}
		return m
	}
	role := "owner"
	if f.Drive != "" {
		role = "organizer"
	}
	out := []map[string]any{perm(user(0)["permissionId"].(string), "user", role, user(0))}
	if f.Num%3 == 0 {
		u := user(1 + f.Num%5)
		out = append(out, perm(u["permissionId"].(string), "user", "reader", u))
	}
	if f.Num%5 == 0 {
		m := perm("anyoneWithLink", "anyone", "reader", nil)
		m["allowFileDiscovery"] = false
		out = append(out, m)
	}
	return out
}

// comments are a file's: none for folders, one to two on the others,
// the first with a reply.
func (s *Server) comments(f file) []map[string]any {
	if f.Mime == Folder {
		return nil
	}
	var out []map[string]any
	for c := range 1 + f.Num%2 {
		at := stamp(f.Created.Add(time.Duration(c+1) * time.Minute))
		id := fmt.Sprintf("AAAA%dc%d", f.Num, c)
		replies := []any{}
		if c == 0 {
			replies = append(replies, map[string]any{"kind": "drive#reply", "id": id + "r0", "content": "Agreed.", "htmlContent": "Agreed.",
				"author": user(2), "createdTime": at, "modifiedTime": at, "deleted": false})
		}
		out = append(out, map[string]any{"kind": "drive#comment", "id": id, "content": fmt.Sprintf("Comment %d on %s", c+1, f.Name),
			"htmlContent": fmt.Sprintf("Comment %d on %s", c+1, f.Name), "author": user(1), "createdTime": at, "modifiedTime": at,
			"resolved": false, "deleted": false, "replies": replies})
	}
	return out
}

// revisions are one per version of a file (none for folders).
func (s *Server) revisions(f file) []map[string]any {
	if f.Mime == Folder {
		return nil
	}
	var out []map[string]any
	for v := 1; v <= f.Version; v++ {
		m := map[string]any{"kind": "drive#revision", "id": fmt.Sprintf("0B%d-rev-%d", f.Num, v), "mimeType": f.Mime,
			"modifiedTime": stamp(f.Created.Add(time.Duration(v-1) * time.Hour)), "lastModifyingUser": user(0), "published": false}
		if v == f.Version {
			m["modifiedTime"] = stamp(f.Modified)
		}
		if !native(f.Mime) {
			m["originalFilename"], m["size"], m["keepForever"] = f.Name, strconv.Itoa(s.cfg.fileSize), v == f.Version
		}
		out = append(out, m)
	}
	return out
}

func driveJSON(d drive) map[string]any {
	return map[string]any{"kind": "drive#drive", "id": d.ID, "name": d.Name, "createdTime": stamp(d.Created), "hidden": false,
		"colorRgb": "#4986e7", "themeId": "abacus", "backgroundImageLink": "https://ssl.gstatic.com/team_drive_themes/abacus_background.jpg",
		"capabilities": map[string]any{"canAddChildren": true, "canComment": true, "canDownload": true, "canEdit": true, "canListChildren": true, "canManageMembers": true},
		"restrictions": map[string]any{"adminManagedRestrictions": false, "copyRequiresWriterPermission": false, "domainUsersOnly": false, "driveMembersOnly": false}}
}

func (s *Server) aboutJSON() map[string]any {
	formats := map[string]any{}
	for k, v := range exports {
		formats[k] = v
	}
	return map[string]any{"kind": "drive#about", "user": user(0), "appInstalled": false, "canCreateDrives": true, "maxUploadSize": "5242880000000",
		"storageQuota": map[string]any{"limit": "16106127360", "usage": strconv.Itoa(s.files.Len() * s.cfg.fileSize),
			"usageInDrive": strconv.Itoa(s.files.Len() * s.cfg.fileSize), "usageInDriveTrash": "0"},
		"exportFormats": formats, "importFormats": map[string]any{"text/plain": []any{Document}, "text/csv": []any{Spreadsheet}},
		"folderColorPalette": []any{"#ac725e", "#4986e7", "#16a765"}}
}

// pattern is the period of generated bytes: a prime length, so that
// consecutive files and versions do not line up.
var pattern = func() []byte {
	b := make([]byte, 65521)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}()

// content is a binary file's bytes, generated as they are read.
func (s *Server) content(f file) *generated {
	return &generated{size: int64(s.cfg.fileSize), seed: int64(f.Num*7919 + f.Version*104729)}
}

// FileContent returns the bytes of a binary file's current version.
func (s *Server) FileContent(id string) ([]byte, bool) {
	f, ok := s.files.Live(id)
	if !ok || native(f.Mime) {
		return nil, false
	}
	b, err := io.ReadAll(s.content(f))
	return b, err == nil
}

// generated is an io.ReadSeeker over size bytes of pattern from seed.
type generated struct {
	size, seed, off int64
}

func (g *generated) Read(p []byte) (int, error) {
	if g.off >= g.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && g.off < g.size {
		at := (g.off + g.seed) % int64(len(pattern))
		c := copy(p[n:], pattern[at:min(int64(len(pattern)), at+g.size-g.off)])
		n += c
		g.off += int64(c)
	}
	return n, nil
}

func (g *generated) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += g.off
	case io.SeekEnd:
		offset += g.size
	}
	if offset < 0 {
		return 0, errors.New("googledrivetest: seek before the start")
	}
	g.off = offset
	return offset, nil
}

// exported is a native file converted to mime: a few bytes that start as
// that format does.
func exported(f file, mime string) []byte {
	text := fmt.Sprintf("%s\nversion %d\n", f.Name, f.Version)
	switch {
	case mime == "application/pdf":
		return []byte("%PDF-1.7\n% " + text + "%%EOF\n")
	case mime == "text/csv":
		return []byte("name,version\r\n" + strconv.Quote(f.Name) + "," + strconv.Itoa(f.Version) + "\r\n")
	case mime == "text/tab-separated-values":
		return []byte("name\tversion\r\n" + f.Name + "\t" + strconv.Itoa(f.Version) + "\r\n")
	case strings.HasPrefix(mime, "text/"):
		return []byte("\ufeff" + text)
	case mime == "application/rtf":
		return []byte(`{\rtf1 ` + text + "}")
	}
	return append([]byte("PK\x03\x04"), text...) // Office, OpenDocument, EPUB and zip are zip archives
}
