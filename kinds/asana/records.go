package asana

import "encoding/json"

// Records keep Asana's JSON as the API returns it, with the fields the
// catalogue asks for (opt_fields; Asana's lists answer a compact record
// of gid, resource_type and name without it); the structs below type the
// fields most callers read. Times are RFC 3339 strings
// ("2026-03-01T12:00:00.000Z"), dates "2026-03-01".

// Ref is a compact record another record names: a user, a project, a
// workspace (gid, resource_type, name).
type Ref struct {
	GID          string `json:"gid"`
	ResourceType string `json:"resource_type,omitempty"`
	Name         string `json:"name,omitempty"`
}

// Workspace is a workspace or organization the user belongs to.
type Workspace struct {
	GID            string   `json:"gid"`
	ResourceType   string   `json:"resource_type,omitempty"`
	Name           string   `json:"name"`
	EmailDomains   []string `json:"email_domains,omitempty"`
	IsOrganization bool     `json:"is_organization"`
}

// User is a member of the user's workspaces.
type User struct {
	GID          string          `json:"gid"`
	ResourceType string          `json:"resource_type,omitempty"`
	Name         string          `json:"name"`
	Email        string          `json:"email,omitempty"`
	Photo        json.RawMessage `json:"photo,omitempty"`
	Workspaces   []Ref           `json:"workspaces,omitempty"`
}

// Team is a team of an organization.
type Team struct {
	GID          string `json:"gid"`
	ResourceType string `json:"resource_type,omitempty"`
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	Organization *Ref   `json:"organization,omitempty"`
	PermalinkURL string `json:"permalink_url,omitempty"`
	Visibility   string `json:"visibility,omitempty"`
	// WorkspaceGID is the workspace the copy read the team from (set by
	// the copy, not by Asana).
	WorkspaceGID string `json:"workspace_gid,omitempty"`
}

// Project is a project (a list or board of tasks).
type Project struct {
	GID          string `json:"gid"`
	ResourceType string `json:"resource_type,omitempty"`
	Name         string `json:"name"`
	Archived     bool   `json:"archived"`
	Color        string `json:"color,omitempty"`
	Notes        string `json:"notes,omitempty"`
	Public       bool   `json:"public,omitempty"`
	Completed    bool   `json:"completed,omitempty"`
	CompletedAt  string `json:"completed_at,omitempty"`
	CreatedAt    string `json:"created_at,omitempty"`
	ModifiedAt   string `json:"modified_at,omitempty"`
	DueOn        string `json:"due_on,omitempty"`
	StartOn      string `json:"start_on,omitempty"`
	Owner        *Ref   `json:"owner,omitempty"`
	Team         *Ref   `json:"team,omitempty"`
	Workspace    *Ref   `json:"workspace,omitempty"`
	Members      []Ref  `json:"members,omitempty"`
	Followers    []Ref  `json:"followers,omitempty"`
	PermalinkURL string `json:"permalink_url,omitempty"`
}

// Section is a section of a project (a column of a board).
type Section struct {
	GID          string `json:"gid"`
	ResourceType string `json:"resource_type,omitempty"`
	Name         string `json:"name"`
	CreatedAt    string `json:"created_at,omitempty"`
	Project      *Ref   `json:"project,omitempty"`
	// ProjectGID is the project the copy read the section from (set by
	// the copy, not by Asana).
	ProjectGID string `json:"project_gid,omitempty"`
}

// Membership places a task in a project and one of its sections.
type Membership struct {
	Project *Ref `json:"project,omitempty"`
	Section *Ref `json:"section,omitempty"`
}

// Task is a task, or a subtask (Parent set).
type Task struct {
	GID             string       `json:"gid"`
	ResourceType    string       `json:"resource_type,omitempty"`
	ResourceSubtype string       `json:"resource_subtype,omitempty"`
	Name            string       `json:"name"`
	Notes           string       `json:"notes,omitempty"`
	Completed       bool         `json:"completed"`
	CompletedAt     string       `json:"completed_at,omitempty"`
	CreatedAt       string       `json:"created_at,omitempty"`
	ModifiedAt      string       `json:"modified_at,omitempty"`
	DueOn           string       `json:"due_on,omitempty"`
	DueAt           string       `json:"due_at,omitempty"`
	StartOn         string       `json:"start_on,omitempty"`
	Assignee        *Ref         `json:"assignee,omitempty"`
	AssigneeStatus  string       `json:"assignee_status,omitempty"`
	NumSubtasks     int          `json:"num_subtasks,omitempty"`
	Parent          *Ref         `json:"parent,omitempty"`
	Projects        []Ref        `json:"projects,omitempty"`
	Memberships     []Membership `json:"memberships,omitempty"`
	Tags            []Ref        `json:"tags,omitempty"`
	Followers       []Ref        `json:"followers,omitempty"`
	Workspace       *Ref         `json:"workspace,omitempty"`
	PermalinkURL    string       `json:"permalink_url,omitempty"`
	// TaskGID is, on a subtask the copy read, its parent task (set by the
	// copy, not by Asana).
	TaskGID string `json:"task_gid,omitempty"`
}

// Story is a comment on a task, or a change Asana recorded on it
// (resource_subtype comment_added, assigned, section_changed, ...).
type Story struct {
	GID             string `json:"gid"`
	ResourceType    string `json:"resource_type,omitempty"`
	ResourceSubtype string `json:"resource_subtype,omitempty"`
	Type            string `json:"type,omitempty"`
	Text            string `json:"text,omitempty"`
	CreatedAt       string `json:"created_at,omitempty"`
	CreatedBy       *Ref   `json:"created_by,omitempty"`
	Target          *Ref   `json:"target,omitempty"`
	IsPinned        bool   `json:"is_pinned,omitempty"`
	IsEdited        bool   `json:"is_edited,omitempty"`
	// TaskGID is the task the copy read the story from (set by the copy).
	TaskGID string `json:"task_gid,omitempty"`
}

// Tag is a tag of a workspace.
type Tag struct {
	GID          string `json:"gid"`
	ResourceType string `json:"resource_type,omitempty"`
	Name         string `json:"name"`
	Color        string `json:"color,omitempty"`
	Notes        string `json:"notes,omitempty"`
	CreatedAt    string `json:"created_at,omitempty"`
	Workspace    *Ref   `json:"workspace,omitempty"`
	PermalinkURL string `json:"permalink_url,omitempty"`
}

// Attachment is a file attached to a task. DownloadURL, read by a get,
// is valid about two minutes: Client.Download reads it right before
// streaming (and again on a resume); copies leave it out.
type Attachment struct {
	GID             string `json:"gid"`
	ResourceType    string `json:"resource_type,omitempty"`
	ResourceSubtype string `json:"resource_subtype,omitempty"`
	Name            string `json:"name"`
	CreatedAt       string `json:"created_at,omitempty"`
	Host            string `json:"host,omitempty"`
	Parent          *Ref   `json:"parent,omitempty"`
	Size            int64  `json:"size,omitempty"`
	DownloadURL     string `json:"download_url,omitempty"`
	PermanentURL    string `json:"permanent_url,omitempty"`
	ViewURL         string `json:"view_url,omitempty"`
	// TaskGID is the task the copy read the attachment from (set by the
	// copy).
	TaskGID string `json:"task_gid,omitempty"`
}
