// The record types below are the fields the connector reads of each of
// Linear's types: every query the connector sends selects exactly these
// fields (engine.Selection), so this file is their one statement. Names
// and nullability are the schema's (packages/sdk/src/schema.graphql): a
// nullable field is a pointer; ID, String, DateTime and TimelessDate are
// strings (date-times in ISO 8601 with milliseconds, as Linear writes
// them); Float is float64, Int int; JSONObject is json.RawMessage. A
// related record is read as a small reference (its id and names).

package linear

import "encoding/json"

// Ref is a related record by its id and name (a user, a project, a label).
type Ref struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// TeamRef is a team by its id, key (the prefix of its issue identifiers)
// and name.
type TeamRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

// StateRef is a workflow state by its id, name and type (triage,
// backlog, unstarted, started, completed, canceled).
type StateRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// IssueRef is an issue by its id and identifier (ENG-123).
type IssueRef struct {
	ID         string `json:"id"`
	Identifier string `json:"identifier"`
}

// CycleRef is a cycle by its id and number (names are optional).
type CycleRef struct {
	ID     string  `json:"id"`
	Number float64 `json:"number"`
}

// Archivable are the fields every record has: its id and its creation,
// last-change and archive times (an archived record is a deletion of a
// copy).
type Archivable struct {
	ID         string  `json:"id"`
	CreatedAt  string  `json:"createdAt"`
	UpdatedAt  string  `json:"updatedAt"`
	ArchivedAt *string `json:"archivedAt"`
}

// Issue is a record of issues (type Issue).
type Issue struct {
	Archivable
	Identifier    string   `json:"identifier"`
	Number        float64  `json:"number"`
	Title         string   `json:"title"`
	Description   *string  `json:"description"`
	Priority      float64  `json:"priority"`
	PriorityLabel string   `json:"priorityLabel"`
	Estimate      *float64 `json:"estimate"`
	SortOrder     float64  `json:"sortOrder"`
	BranchName    string   `json:"branchName"`
	URL           string   `json:"url"`
	DueDate       *string  `json:"dueDate"`
	LabelIDs      []string `json:"labelIds"`
	// Trashed: the issue was deleted (it stays 30 days in the trash,
	// archived); a copy holds it as a deletion.
	Trashed     *bool     `json:"trashed"`
	StartedAt   *string   `json:"startedAt"`
	CompletedAt *string   `json:"completedAt"`
	CanceledAt  *string   `json:"canceledAt"`
	Team        TeamRef   `json:"team"`
	State       StateRef  `json:"state"`
	Assignee    *Ref      `json:"assignee"`
	Creator     *Ref      `json:"creator"`
	Project     *Ref      `json:"project"`
	Cycle       *CycleRef `json:"cycle"`
	Parent      *IssueRef `json:"parent"`
}

// Project is a record of projects (type Project).
type Project struct {
	Archivable
	Name          string  `json:"name"`
	Description   string  `json:"description"`
	SlugID        string  `json:"slugId"`
	Color         string  `json:"color"`
	Icon          *string `json:"icon"`
	Priority      int     `json:"priority"`
	PriorityLabel string  `json:"priorityLabel"`
	Progress      float64 `json:"progress"`
	StartDate     *string `json:"startDate"`
	TargetDate    *string `json:"targetDate"`
	StartedAt     *string `json:"startedAt"`
	CompletedAt   *string `json:"completedAt"`
	CanceledAt    *string `json:"canceledAt"`
	URL           string  `json:"url"`
	Trashed       *bool   `json:"trashed"`
	Status        struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"status"`
	Lead    *Ref `json:"lead"`
	Creator *Ref `json:"creator"`
}

// Team is a record of teams (type Team).
type Team struct {
	Archivable
	Name        string  `json:"name"`
	Key         string  `json:"key"`
	DisplayName string  `json:"displayName"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	Icon        *string `json:"icon"`
	Timezone    string  `json:"timezone"`
	// Visibility: public, or private (only members see it).
	Visibility    string  `json:"visibility"`
	CyclesEnabled bool    `json:"cyclesEnabled"`
	CycleDuration float64 `json:"cycleDuration"`
	TriageEnabled bool    `json:"triageEnabled"`
}

// User is a record of users (type User).
type User struct {
	Archivable
	Name        string  `json:"name"`
	DisplayName string  `json:"displayName"`
	Email       string  `json:"email"`
	AvatarURL   *string `json:"avatarUrl"`
	Active      bool    `json:"active"`
	Admin       bool    `json:"admin"`
	Guest       bool    `json:"guest"`
	Timezone    *string `json:"timezone"`
	LastSeen    *string `json:"lastSeen"`
	URL         string  `json:"url"`
}

// Comment is a record of comments (type Comment): a comment on an issue
// (issueId), a project update or a document.
type Comment struct {
	Archivable
	Body     string  `json:"body"`
	URL      string  `json:"url"`
	EditedAt *string `json:"editedAt"`
	IssueID  *string `json:"issueId"`
	ParentID *string `json:"parentId"`
	User     *Ref    `json:"user"`
}

// WorkflowState is a record of workflow_states (type WorkflowState): a
// state an issue of its team can be in.
type WorkflowState struct {
	Archivable
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Color       string  `json:"color"`
	Description *string `json:"description"`
	Position    float64 `json:"position"`
	Team        TeamRef `json:"team"`
}

// Cycle is a record of cycles (type Cycle): a team's time-boxed iteration.
type Cycle struct {
	Archivable
	Number      float64 `json:"number"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
	StartsAt    string  `json:"startsAt"`
	EndsAt      string  `json:"endsAt"`
	CompletedAt *string `json:"completedAt"`
	Progress    float64 `json:"progress"`
	IsActive    bool    `json:"isActive"`
	Team        TeamRef `json:"team"`
}

// Label is a record of labels (type IssueLabel): a workspace label, or a
// team's (team set).
type Label struct {
	Archivable
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	Color       string   `json:"color"`
	IsGroup     bool     `json:"isGroup"`
	Team        *TeamRef `json:"team"`
	Parent      *Ref     `json:"parent"`
}

// Attachment is a record of attachments (type Attachment): a link of an
// issue to something outside Linear (a pull request, a document, a
// support ticket).
type Attachment struct {
	Archivable
	Title      string          `json:"title"`
	Subtitle   *string         `json:"subtitle"`
	URL        string          `json:"url"`
	SourceType *string         `json:"sourceType"`
	Metadata   json.RawMessage `json:"metadata"`
	Issue      IssueRef        `json:"issue"`
	Creator    *Ref            `json:"creator"`
}
