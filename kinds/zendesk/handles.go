package zendesk

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// Paging selects a page. Offset paging: Page (from 1) and PerPage (at most
// 100). Cursor paging, on the lists that offer it: PageSize (at most 100)
// and PageAfter, the after_cursor of the previous page. Zero fields are
// not sent.
type Paging struct {
	Page      int    `param:"page"`
	PerPage   int    `param:"per_page"`
	PageSize  int    `param:"page[size]"`
	PageAfter string `param:"page[after]"`
}

// ListParams are the params of the lists that take nothing but paging.
type ListParams struct {
	Paging
}

// TicketListParams are the params of tickets.list.
type TicketListParams struct {
	Paging
	// ExternalID lists the tickets with this external id.
	ExternalID string `param:"external_id"`
	// Sort is id, status or updated_at, prefixed with - for descending
	// (cursor paging).
	Sort string `param:"sort"`
}

// UserListParams are the params of users.list.
type UserListParams struct {
	Paging
	// Role is end-user, agent or admin.
	Role       string `param:"role"`
	ExternalID string `param:"external_id"`
}

// GroupListParams are the params of groups.list.
type GroupListParams struct {
	Paging
	ExcludeDeleted bool `param:"exclude_deleted"`
}

// TicketCommentListParams are the params of ticket_comments.list.
type TicketCommentListParams struct {
	Paging
	// TicketID is required.
	TicketID            int64 `param:"ticket_id"`
	IncludeInlineImages bool  `param:"include_inline_images"`
	// Sort is created_at or -created_at.
	Sort string `param:"sort"`
}

// TicketAuditListParams are the params of ticket_audits.list. With
// TicketID the audits of that ticket (offset paging); without it, all
// audits (cursor paging with Cursor and Limit).
type TicketAuditListParams struct {
	Paging
	TicketID int64  `param:"ticket_id"`
	Cursor   string `param:"cursor"`
	Limit    int    `param:"limit"`
}

// TicketFieldListParams are the params of ticket_fields.list.
type TicketFieldListParams struct {
	Paging
	Locale string `param:"locale"`
}

// ViewListParams are the params of views.list.
type ViewListParams struct {
	Paging
	// Access is personal, shared or account.
	Access  string `param:"access"`
	Active  *bool  `param:"active"`
	GroupID int64  `param:"group_id"`
	// SortBy is alphabetical, created_at, updated_at or position.
	SortBy string `param:"sort_by"`
	// SortOrder is asc or desc.
	SortOrder string `param:"sort_order"`
}

// MacroListParams are the params of macros.list.
type MacroListParams struct {
	ViewListParams
	Category     int64 `param:"category"`
	OnlyViewable bool  `param:"only_viewable"`
}

// TriggerListParams are the params of triggers.list.
type TriggerListParams struct {
	Paging
	Active     *bool  `param:"active"`
	CategoryID string `param:"category_id"`
	// Sort is alphabetical, created_at, updated_at or position, prefixed
	// with - for descending.
	Sort string `param:"sort"`
}

// AutomationListParams are the params of automations.list.
type AutomationListParams struct {
	Paging
	Active *bool  `param:"active"`
	Sort   string `param:"sort"`
}

// SatisfactionRatingListParams are the params of satisfaction_ratings.list.
type SatisfactionRatingListParams struct {
	Paging
	// Score is offered, unoffered, received, good or bad.
	Score string `param:"score"`
	// StartTime and EndTime bound the creation time (Unix seconds).
	StartTime int64 `param:"start_time"`
	EndTime   int64 `param:"end_time"`
}

// TicketFormListParams are the params of ticket_forms.list.
type TicketFormListParams struct {
	Paging
	Active         *bool `param:"active"`
	EndUserVisible *bool `param:"end_user_visible"`
}

// ArticleListParams are the params of articles.list.
type ArticleListParams struct {
	Paging
	// SortBy is created_at, updated_at, title or position.
	SortBy string `param:"sort_by"`
	// SortOrder is asc or desc.
	SortOrder string `param:"sort_order"`
}

// ArticleAttachmentListParams are the params of article_attachments.list.
type ArticleAttachmentListParams struct {
	Paging
	// ArticleID is required.
	ArticleID int64 `param:"article_id"`
}

// Entity is a typed handle on one entity that has a get by one id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id.
func (e Entity[T, P]) Get(ctx context.Context, id int64) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.idParam: id})
}

func entity[T, P any](c *Client, name, idParam string) Entity[T, P] {
	return Entity[T, P]{Handle: tributary.Handle[T, P]{Conn: c, Entity: name}, idParam: idParam}
}

func listOnly[T, P any](c *Client, name string) tributary.Handle[T, P] {
	return tributary.Handle[T, P]{Conn: c, Entity: name}
}

// Tickets is the typed handle on tickets.
func (c *Client) Tickets() Entity[Ticket, TicketListParams] {
	return entity[Ticket, TicketListParams](c, "tickets", "ticket_id")
}

// Users is the typed handle on users.
func (c *Client) Users() Entity[User, UserListParams] {
	return entity[User, UserListParams](c, "users", "user_id")
}

// Organizations is the typed handle on organizations.
func (c *Client) Organizations() Entity[Organization, ListParams] {
	return entity[Organization, ListParams](c, "organizations", "organization_id")
}

// Groups is the typed handle on groups.
func (c *Client) Groups() Entity[Group, GroupListParams] {
	return entity[Group, GroupListParams](c, "groups", "group_id")
}

// TicketComments is the typed handle on ticket_comments (list only).
func (c *Client) TicketComments() tributary.Handle[TicketComment, TicketCommentListParams] {
	return listOnly[TicketComment, TicketCommentListParams](c, "ticket_comments")
}

// Attachments is the typed handle on attachments (get; Download for bytes).
func (c *Client) Attachments() Entity[Attachment, ListParams] {
	return entity[Attachment, ListParams](c, "attachments", "attachment_id")
}

// TicketAudits is the typed handle on ticket_audits (list only).
func (c *Client) TicketAudits() tributary.Handle[TicketAudit, TicketAuditListParams] {
	return listOnly[TicketAudit, TicketAuditListParams](c, "ticket_audits")
}

// TicketMetrics is the typed handle on ticket_metrics (list only).
func (c *Client) TicketMetrics() tributary.Handle[TicketMetric, ListParams] {
	return listOnly[TicketMetric, ListParams](c, "ticket_metrics")
}

// TicketFields is the typed handle on ticket_fields.
func (c *Client) TicketFields() Entity[TicketField, TicketFieldListParams] {
	return entity[TicketField, TicketFieldListParams](c, "ticket_fields", "ticket_field_id")
}

// Brands is the typed handle on brands.
func (c *Client) Brands() Entity[Brand, ListParams] {
	return entity[Brand, ListParams](c, "brands", "brand_id")
}

// Views is the typed handle on views.
func (c *Client) Views() Entity[View, ViewListParams] {
	return entity[View, ViewListParams](c, "views", "view_id")
}

// Macros is the typed handle on macros.
func (c *Client) Macros() Entity[Macro, MacroListParams] {
	return entity[Macro, MacroListParams](c, "macros", "macro_id")
}

// Triggers is the typed handle on triggers.
func (c *Client) Triggers() Entity[Trigger, TriggerListParams] {
	return entity[Trigger, TriggerListParams](c, "triggers", "trigger_id")
}

// Automations is the typed handle on automations.
func (c *Client) Automations() Entity[Automation, AutomationListParams] {
	return entity[Automation, AutomationListParams](c, "automations", "automation_id")
}

// Tags is the typed handle on tags (list only).
func (c *Client) Tags() tributary.Handle[Tag, ListParams] {
	return listOnly[Tag, ListParams](c, "tags")
}

// SatisfactionRatings is the typed handle on satisfaction_ratings.
func (c *Client) SatisfactionRatings() Entity[SatisfactionRating, SatisfactionRatingListParams] {
	return entity[SatisfactionRating, SatisfactionRatingListParams](c, "satisfaction_ratings", "satisfaction_rating_id")
}

// GroupMemberships is the typed handle on group_memberships (list only).
func (c *Client) GroupMemberships() tributary.Handle[GroupMembership, ListParams] {
	return listOnly[GroupMembership, ListParams](c, "group_memberships")
}

// OrganizationMemberships is the typed handle on organization_memberships
// (list only).
func (c *Client) OrganizationMemberships() tributary.Handle[OrganizationMembership, ListParams] {
	return listOnly[OrganizationMembership, ListParams](c, "organization_memberships")
}

// SLAPolicies is the typed handle on sla_policies.
func (c *Client) SLAPolicies() Entity[SLAPolicy, ListParams] {
	return entity[SLAPolicy, ListParams](c, "sla_policies", "sla_policy_id")
}

// TicketForms is the typed handle on ticket_forms.
func (c *Client) TicketForms() Entity[TicketForm, TicketFormListParams] {
	return entity[TicketForm, TicketFormListParams](c, "ticket_forms", "ticket_form_id")
}

// Articles is the typed handle on Help Center articles.
func (c *Client) Articles() Entity[Article, ArticleListParams] {
	return entity[Article, ArticleListParams](c, "articles", "id")
}

// ArticleAttachments is the typed handle on article_attachments; get takes
// two ids, see GetArticleAttachment.
func (c *Client) ArticleAttachments() tributary.Handle[ArticleAttachment, ArticleAttachmentListParams] {
	return listOnly[ArticleAttachment, ArticleAttachmentListParams](c, "article_attachments")
}

// GetArticleAttachment reads one attachment of an article.
func (c *Client) GetArticleAttachment(ctx context.Context, articleID, attachmentID int64) (ArticleAttachment, error) {
	return c.ArticleAttachments().Get(ctx, tributary.Params{"article_id": articleID, "attachment_id": attachmentID})
}
