package googledrive

import "encoding/json"

// Records keep Drive's JSON as the v3 API returns it (fields=* where the
// caller names no fields); the structs below type the fields most callers
// read. Times are RFC 3339 strings ("2026-03-01T12:00:00.000Z"); sizes and
// quotas are int64 written as JSON strings, as Drive writes them.

// User is a Drive user as other records name it (an owner, an author).
type User struct {
	Kind         string `json:"kind,omitempty"`
	DisplayName  string `json:"displayName,omitempty"`
	EmailAddress string `json:"emailAddress,omitempty"`
	PermissionID string `json:"permissionId,omitempty"`
	PhotoLink    string `json:"photoLink,omitempty"`
	Me           bool   `json:"me,omitempty"`
}

// File is a file or folder (drive#file). Google Docs, Sheets and Slides
// have a mimeType of application/vnd.google-apps.*, no size and no
// md5Checksum: their bytes come from file_exports.
type File struct {
	Kind                  string          `json:"kind,omitempty"`
	ID                    string          `json:"id"`
	Name                  string          `json:"name"`
	MimeType              string          `json:"mimeType"`
	Description           string          `json:"description,omitempty"`
	Starred               bool            `json:"starred,omitempty"`
	Trashed               bool            `json:"trashed,omitempty"`
	ExplicitlyTrashed     bool            `json:"explicitlyTrashed,omitempty"`
	Parents               []string        `json:"parents,omitempty"`
	DriveID               string          `json:"driveId,omitempty"`
	Version               string          `json:"version,omitempty"`
	WebViewLink           string          `json:"webViewLink,omitempty"`
	WebContentLink        string          `json:"webContentLink,omitempty"`
	IconLink              string          `json:"iconLink,omitempty"`
	CreatedTime           string          `json:"createdTime,omitempty"`
	ModifiedTime          string          `json:"modifiedTime,omitempty"`
	ViewedByMeTime        string          `json:"viewedByMeTime,omitempty"`
	SharedWithMeTime      string          `json:"sharedWithMeTime,omitempty"`
	Owners                []User          `json:"owners,omitempty"`
	LastModifyingUser     *User           `json:"lastModifyingUser,omitempty"`
	Shared                bool            `json:"shared,omitempty"`
	OwnedByMe             bool            `json:"ownedByMe,omitempty"`
	OriginalFilename      string          `json:"originalFilename,omitempty"`
	FullFileExtension     string          `json:"fullFileExtension,omitempty"`
	FileExtension         string          `json:"fileExtension,omitempty"`
	MD5Checksum           string          `json:"md5Checksum,omitempty"`
	SHA256Checksum        string          `json:"sha256Checksum,omitempty"`
	Size                  string          `json:"size,omitempty"`
	QuotaBytesUsed        string          `json:"quotaBytesUsed,omitempty"`
	HeadRevisionID        string          `json:"headRevisionId,omitempty"`
	PermissionIDs         []string        `json:"permissionIds,omitempty"`
	Permissions           []Permission    `json:"permissions,omitempty"`
	ExportLinks           json.RawMessage `json:"exportLinks,omitempty"`
	Capabilities          json.RawMessage `json:"capabilities,omitempty"`
	AppProperties         json.RawMessage `json:"appProperties,omitempty"`
	Properties            json.RawMessage `json:"properties,omitempty"`
	ViewersCanCopyContent bool            `json:"viewersCanCopyContent,omitempty"`
	WritersCanShare       bool            `json:"writersCanShare,omitempty"`
}

// Drive is a shared drive (drive#drive).
type Drive struct {
	Kind         string          `json:"kind,omitempty"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	CreatedTime  string          `json:"createdTime,omitempty"`
	Hidden       bool            `json:"hidden,omitempty"`
	ColorRGB     string          `json:"colorRgb,omitempty"`
	ThemeID      string          `json:"themeId,omitempty"`
	OrgUnitID    string          `json:"orgUnitId,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Restrictions json.RawMessage `json:"restrictions,omitempty"`
}

// Permission is who may do what with a file (drive#permission). A copy
// of permissions sets the fileId of the file it was read from.
type Permission struct {
	Kind                         string          `json:"kind,omitempty"`
	ID                           string          `json:"id"`
	FileID                       string          `json:"fileId,omitempty"`
	Type                         string          `json:"type"`
	Role                         string          `json:"role"`
	EmailAddress                 string          `json:"emailAddress,omitempty"`
	Domain                       string          `json:"domain,omitempty"`
	DisplayName                  string          `json:"displayName,omitempty"`
	AllowFileDiscovery           bool            `json:"allowFileDiscovery,omitempty"`
	Deleted                      bool            `json:"deleted,omitempty"`
	ExpirationTime               string          `json:"expirationTime,omitempty"`
	PendingOwner                 bool            `json:"pendingOwner,omitempty"`
	PermissionDetails            json.RawMessage `json:"permissionDetails,omitempty"`
	PhotoLink                    string          `json:"photoLink,omitempty"`
	View                         string          `json:"view,omitempty"`
	InheritedPermissionsDisabled bool            `json:"inheritedPermissionsDisabled,omitempty"`
}

// Comment is a comment on a file (drive#comment), with its replies.
type Comment struct {
	Kind              string          `json:"kind,omitempty"`
	ID                string          `json:"id"`
	FileID            string          `json:"fileId,omitempty"`
	Content           string          `json:"content"`
	HTMLContent       string          `json:"htmlContent,omitempty"`
	Author            *User           `json:"author,omitempty"`
	CreatedTime       string          `json:"createdTime,omitempty"`
	ModifiedTime      string          `json:"modifiedTime,omitempty"`
	Resolved          bool            `json:"resolved,omitempty"`
	Deleted           bool            `json:"deleted,omitempty"`
	Anchor            string          `json:"anchor,omitempty"`
	QuotedFileContent json.RawMessage `json:"quotedFileContent,omitempty"`
	Replies           []Reply         `json:"replies,omitempty"`
}

// Reply is a reply to a comment (drive#reply).
type Reply struct {
	Kind         string `json:"kind,omitempty"`
	ID           string `json:"id"`
	Content      string `json:"content"`
	HTMLContent  string `json:"htmlContent,omitempty"`
	Action       string `json:"action,omitempty"`
	Author       *User  `json:"author,omitempty"`
	CreatedTime  string `json:"createdTime,omitempty"`
	ModifiedTime string `json:"modifiedTime,omitempty"`
	Deleted      bool   `json:"deleted,omitempty"`
}

// Revision is a version of a file's content (drive#revision). A copy of
// revisions sets the fileId of the file it was read from.
type Revision struct {
	Kind              string          `json:"kind,omitempty"`
	ID                string          `json:"id"`
	FileID            string          `json:"fileId,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"`
	ModifiedTime      string          `json:"modifiedTime,omitempty"`
	KeepForever       bool            `json:"keepForever,omitempty"`
	Published         bool            `json:"published,omitempty"`
	LastModifyingUser *User           `json:"lastModifyingUser,omitempty"`
	OriginalFilename  string          `json:"originalFilename,omitempty"`
	MD5Checksum       string          `json:"md5Checksum,omitempty"`
	Size              string          `json:"size,omitempty"`
	ExportLinks       json.RawMessage `json:"exportLinks,omitempty"`
}

// About is the user's Drive: who they are, their storage quota, and the
// formats files can be exported to (drive#about).
type About struct {
	Kind               string              `json:"kind,omitempty"`
	User               *User               `json:"user,omitempty"`
	StorageQuota       map[string]string   `json:"storageQuota,omitempty"`
	ExportFormats      map[string][]string `json:"exportFormats,omitempty"`
	ImportFormats      map[string][]string `json:"importFormats,omitempty"`
	MaxUploadSize      string              `json:"maxUploadSize,omitempty"`
	AppInstalled       bool                `json:"appInstalled,omitempty"`
	CanCreateDrives    bool                `json:"canCreateDrives,omitempty"`
	FolderColorPalette []string            `json:"folderColorPalette,omitempty"`
}
