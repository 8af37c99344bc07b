package jira

import "encoding/json"

// Records keep Jira's JSON as the REST API v3 and the agile API 1.0 return
// it; the structs below type the fields most callers read. Dates are
// Jira's strings ("2024-01-31T08:00:00.000+0000"); rich text (an issue's
// description, a comment's body) is Atlassian Document Format, kept raw.

// Issue is a Jira issue (IssueBean), as a JQL search or GET issue returns
// it.
type Issue struct {
	ID     string      `json:"id"`
	Key    string      `json:"key"`
	Self   string      `json:"self"`
	Expand string      `json:"expand,omitempty"`
	Fields IssueFields `json:"fields"`
}

// IssueFields are the system fields of an issue; custom fields
// (customfield_10001, ...) stay in the raw record.
type IssueFields struct {
	Summary        string          `json:"summary"`
	Description    json.RawMessage `json:"description,omitempty"`
	IssueType      *IssueType      `json:"issuetype,omitempty"`
	Project        *ProjectRef     `json:"project,omitempty"`
	Status         *Status         `json:"status,omitempty"`
	Priority       *Priority       `json:"priority,omitempty"`
	Resolution     *Resolution     `json:"resolution,omitempty"`
	Assignee       *User           `json:"assignee,omitempty"`
	Reporter       *User           `json:"reporter,omitempty"`
	Creator        *User           `json:"creator,omitempty"`
	Labels         []string        `json:"labels,omitempty"`
	Created        string          `json:"created,omitempty"`
	Updated        string          `json:"updated,omitempty"`
	ResolutionDate string          `json:"resolutiondate,omitempty"`
	DueDate        string          `json:"duedate,omitempty"`
	Parent         *IssueRef       `json:"parent,omitempty"`
	Attachment     []Attachment    `json:"attachment,omitempty"`
	TimeSpent      int64           `json:"timespent,omitempty"`
}

// IssueRef is an issue named inside another record (a parent).
type IssueRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Self string `json:"self,omitempty"`
}

// ProjectRef is a project named inside an issue.
type ProjectRef struct {
	ID             string `json:"id"`
	Key            string `json:"key"`
	Name           string `json:"name"`
	ProjectTypeKey string `json:"projectTypeKey,omitempty"`
	Self           string `json:"self,omitempty"`
}

// Resolution is an issue's resolution.
type Resolution struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Self        string `json:"self,omitempty"`
}

// Project is a Jira project.
type Project struct {
	ID              string           `json:"id"`
	Key             string           `json:"key"`
	Name            string           `json:"name"`
	Self            string           `json:"self"`
	Description     string           `json:"description,omitempty"`
	ProjectTypeKey  string           `json:"projectTypeKey,omitempty"`
	Style           string           `json:"style,omitempty"`
	Simplified      bool             `json:"simplified,omitempty"`
	IsPrivate       bool             `json:"isPrivate,omitempty"`
	Archived        bool             `json:"archived,omitempty"`
	Lead            *User            `json:"lead,omitempty"`
	ProjectCategory *ProjectCategory `json:"projectCategory,omitempty"`
	UUID            string           `json:"uuid,omitempty"`
}

// ProjectCategory is a project's category.
type ProjectCategory struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Self        string `json:"self,omitempty"`
}

// User is an Atlassian account as Jira shows it (its email only where the
// user's privacy settings allow).
type User struct {
	AccountID    string `json:"accountId"`
	AccountType  string `json:"accountType,omitempty"`
	DisplayName  string `json:"displayName,omitempty"`
	EmailAddress string `json:"emailAddress,omitempty"`
	Active       bool   `json:"active"`
	TimeZone     string `json:"timeZone,omitempty"`
	Locale       string `json:"locale,omitempty"`
	Self         string `json:"self,omitempty"`
}

// Field is an issue field, system or custom (FieldDetails).
type Field struct {
	ID          string   `json:"id"`
	Key         string   `json:"key"`
	Name        string   `json:"name"`
	Custom      bool     `json:"custom"`
	Orderable   bool     `json:"orderable"`
	Navigable   bool     `json:"navigable"`
	Searchable  bool     `json:"searchable"`
	ClauseNames []string `json:"clauseNames,omitempty"`
	Schema      *struct {
		Type     string `json:"type"`
		Items    string `json:"items,omitempty"`
		System   string `json:"system,omitempty"`
		Custom   string `json:"custom,omitempty"`
		CustomID int64  `json:"customId,omitempty"`
	} `json:"schema,omitempty"`
}

// Comment is a comment of an issue.
type Comment struct {
	ID           string          `json:"id"`
	Self         string          `json:"self"`
	Author       *User           `json:"author,omitempty"`
	UpdateAuthor *User           `json:"updateAuthor,omitempty"`
	Body         json.RawMessage `json:"body,omitempty"`
	RenderedBody string          `json:"renderedBody,omitempty"`
	Created      string          `json:"created"`
	Updated      string          `json:"updated"`
	JSDPublic    bool            `json:"jsdPublic,omitempty"`
	Visibility   *Visibility     `json:"visibility,omitempty"`
	// IssueID is the id of the comment's issue: a copy sets it on each
	// comment (Jira's comment has none).
	IssueID string `json:"issueId,omitempty"`
}

// Visibility restricts who sees a comment or worklog.
type Visibility struct {
	Type       string `json:"type"`
	Value      string `json:"value,omitempty"`
	Identifier string `json:"identifier,omitempty"`
}

// Worklog is time logged on an issue.
type Worklog struct {
	ID               string          `json:"id"`
	IssueID          string          `json:"issueId"`
	Self             string          `json:"self"`
	Author           *User           `json:"author,omitempty"`
	UpdateAuthor     *User           `json:"updateAuthor,omitempty"`
	Comment          json.RawMessage `json:"comment,omitempty"`
	Created          string          `json:"created"`
	Updated          string          `json:"updated"`
	Started          string          `json:"started"`
	TimeSpent        string          `json:"timeSpent"`
	TimeSpentSeconds int64           `json:"timeSpentSeconds"`
	Visibility       *Visibility     `json:"visibility,omitempty"`
}

// Changelog is one change of an issue: who, when, and the fields changed.
type Changelog struct {
	ID      string       `json:"id"`
	Author  *User        `json:"author,omitempty"`
	Created string       `json:"created"`
	Items   []ChangeItem `json:"items"`
}

// ChangeItem is one field's change in a Changelog.
type ChangeItem struct {
	Field      string `json:"field"`
	FieldType  string `json:"fieldtype"`
	FieldID    string `json:"fieldId,omitempty"`
	From       string `json:"from,omitempty"`
	FromString string `json:"fromString,omitempty"`
	To         string `json:"to,omitempty"`
	ToString   string `json:"toString,omitempty"`
}

// Transition is a workflow transition an issue can take now.
type Transition struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	To            Status `json:"to"`
	HasScreen     bool   `json:"hasScreen"`
	IsGlobal      bool   `json:"isGlobal"`
	IsInitial     bool   `json:"isInitial"`
	IsAvailable   bool   `json:"isAvailable"`
	IsConditional bool   `json:"isConditional"`
	IsLooped      bool   `json:"looped"`
}

// Attachment is a file attached to an issue. In an issue's fields its id
// is a string; GET /rest/api/3/attachment/{id} writes it as a number,
// which ID reads too.
type Attachment struct {
	ID        json.Number `json:"id"`
	Self      string      `json:"self"`
	Filename  string      `json:"filename"`
	Author    *User       `json:"author,omitempty"`
	Created   string      `json:"created"`
	Size      int64       `json:"size"`
	MimeType  string      `json:"mimeType"`
	Content   string      `json:"content"`
	Thumbnail string      `json:"thumbnail,omitempty"`
}

// Status is a workflow status.
type Status struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	IconURL        string          `json:"iconUrl,omitempty"`
	Self           string          `json:"self,omitempty"`
	StatusCategory *StatusCategory `json:"statusCategory,omitempty"`
}

// StatusCategory groups statuses: to do, in progress, done.
type StatusCategory struct {
	ID        int64  `json:"id"`
	Key       string `json:"key"`
	Name      string `json:"name"`
	ColorName string `json:"colorName,omitempty"`
	Self      string `json:"self,omitempty"`
}

// Priority is an issue priority.
type Priority struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IconURL     string `json:"iconUrl,omitempty"`
	StatusColor string `json:"statusColor,omitempty"`
	IsDefault   bool   `json:"isDefault,omitempty"`
	Self        string `json:"self,omitempty"`
}

// IssueType is an issue type.
type IssueType struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Description    string `json:"description,omitempty"`
	IconURL        string `json:"iconUrl,omitempty"`
	Subtask        bool   `json:"subtask"`
	HierarchyLevel int64  `json:"hierarchyLevel,omitempty"`
	AvatarID       int64  `json:"avatarId,omitempty"`
	EntityID       string `json:"entityId,omitempty"`
	Self           string `json:"self,omitempty"`
}

// Board is a Jira Software board.
type Board struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Self     string `json:"self"`
	Location *struct {
		ProjectID      int64  `json:"projectId,omitempty"`
		ProjectKey     string `json:"projectKey,omitempty"`
		ProjectName    string `json:"projectName,omitempty"`
		ProjectTypeKey string `json:"projectTypeKey,omitempty"`
		DisplayName    string `json:"displayName,omitempty"`
	} `json:"location,omitempty"`
}

// Sprint is a sprint of a scrum board.
type Sprint struct {
	ID            int64  `json:"id"`
	Self          string `json:"self"`
	State         string `json:"state"`
	Name          string `json:"name"`
	StartDate     string `json:"startDate,omitempty"`
	EndDate       string `json:"endDate,omitempty"`
	CompleteDate  string `json:"completeDate,omitempty"`
	CreatedDate   string `json:"createdDate,omitempty"`
	OriginBoardID int64  `json:"originBoardId,omitempty"`
	Goal          string `json:"goal,omitempty"`
}
