package mcp

import (
	"context"
	"errors"
	"math"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/search"
)

// The error kinds a tool result names in error.kind, for an agent to act on.
const (
	KindInvalidArguments   = "invalid_arguments"   // the tool's own arguments: a missing or ill-typed field
	KindUnknownConnector   = "unknown_connector"   // no connector of that name is configured
	KindUnknownEntity      = "unknown_entity"      // the kind has no such entity
	KindUnsupportedAction  = "unsupported_action"  // the entity does not offer the action (here)
	KindInvalidParams      = "invalid_params"      // a parameter is missing, unknown, ill-typed or out of range
	KindInvalidCredentials = "invalid_credentials" // the connector's credentials are incomplete
	KindUnauthorized       = "unauthorized"        // the source rejected the credentials (401)
	KindForbidden          = "forbidden"           // the credentials lack access (403)
	KindNotFound           = "not_found"           // no such record (404)
	KindRateLimited        = "rate_limited"        // wait retry_after_seconds, then try again
	KindServer             = "server_error"        // the source failed after the retries
	KindUnreachable        = "unreachable"         // the source's host could not be reached (DNS, network, firewall, proxy)
	KindPaging             = "paging"              // the source's paging did not advance
	KindUnexpected         = "unexpected_response" // the source's answer could not be read
	KindTimeout            = "timeout"             // the call took longer than allowed
	KindCanceled           = "canceled"            // the client canceled the call
	KindTooLarge           = "too_large"           // a download above the configured size
	KindNotConfigured      = "not_configured"      // the server is not set up for this (no download directory)
	KindDownloadFailed     = "download_failed"     // the file changed or could not be read or written
	KindInternal           = "internal"            // a bug: please report it
)

// toolError is the "error" object of a failed tool result.
type toolError struct {
	Kind       string   `json:"kind"`
	Message    string   `json:"message"`
	Connector  string   `json:"connector,omitempty"`
	Entity     string   `json:"entity,omitempty"`
	Action     string   `json:"action,omitempty"`
	Param      string   `json:"param,omitempty"`
	Allowed    []string `json:"allowed,omitempty"`
	Status     int      `json:"status,omitempty"`
	Code       string   `json:"code,omitempty"`
	Retryable  bool     `json:"retryable,omitempty"`
	RetryAfter float64  `json:"retry_after_seconds,omitempty"`
	RequestID  string   `json:"request_id,omitempty"`
}

func (e *toolError) Error() string { return e.Message }

// sentinels maps the library's sentinels to error kinds, in the order they
// are tried.
var sentinels = []struct {
	err  error
	kind string
}{
	{tributary.ErrUnknownEntity, KindUnknownEntity},
	{tributary.ErrUnsupportedAction, KindUnsupportedAction},
	{tributary.ErrInvalidParams, KindInvalidParams},
	{search.ErrInvalidQuery, KindInvalidParams},
	{tributary.ErrInvalidCredentials, KindInvalidCredentials},
	{tributary.ErrUnauthorized, KindUnauthorized},
	{tributary.ErrForbidden, KindForbidden},
	{tributary.ErrNotFound, KindNotFound},
	{tributary.ErrRateLimited, KindRateLimited},
	{tributary.ErrUnreachable, KindUnreachable},
	{tributary.ErrServer, KindServer},
	{tributary.ErrPaging, KindPaging},
	{tributary.ErrUnexpectedResponse, KindUnexpected},
	{download.ErrChanged, KindDownloadFailed},
	{context.DeadlineExceeded, KindTimeout},
	{context.Canceled, KindCanceled},
}

// toToolError describes err for an agent. The message is the library's own
// (which never contains a secret), verbatim.
func toToolError(connector string, err error) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		if te.Connector == "" {
			te.Connector = connector
		}
		return te
	}
	out := &toolError{Kind: KindInternal, Message: err.Error(), Connector: connector}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			out.Kind = s.kind
			break
		}
	}
	var e *tributary.Error
	if errors.As(err, &e) {
		out.Entity, out.Action, out.Param = e.Entity, string(e.Action), e.Param
		out.Status, out.Code, out.Retryable, out.RequestID = e.StatusCode, e.Code, e.Retryable, e.RequestID
		if e.RetryAfter > 0 {
			out.RetryAfter = math.Ceil(e.RetryAfter.Seconds())
		}
	}
	if out.Kind == KindRateLimited && out.RetryAfter == 0 {
		out.Retryable = true
	}
	return out
}
