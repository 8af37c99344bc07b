package tributary

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/pagination"
)

// Sentinel errors. Every error the library returns for a failed operation is
// an *Error that matches one of these with errors.Is.
var (
	// ErrUnknownEntity: the kind has no entity of that name.
	ErrUnknownEntity = errors.New("unknown entity")
	// ErrUnsupportedAction: the entity does not offer the action (in this mode).
	ErrUnsupportedAction = errors.New("unsupported action")
	// ErrInvalidParams: a parameter is missing, unknown, of the wrong type or
	// out of range; or the source rejected the request as malformed (400/422).
	ErrInvalidParams = errors.New("invalid params")
	// ErrUnknownKind: no connector kind has that connector_type.
	ErrUnknownKind = errors.New("unknown connector type")
	// ErrInvalidCredentials: the credentials given to a constructor are
	// missing fields or mix two methods.
	ErrInvalidCredentials = errors.New("invalid credentials")
	// ErrNotFound: the source has no such record (404).
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the source rejected the credentials (401), or a
	// token refresh failed.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: the credentials lack access (403).
	ErrForbidden = errors.New("forbidden")
	// ErrRateLimited: the source's rate limit or quota is exhausted and
	// waiting did not fit the retry policy or the context.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnreachable: the source's host could not be reached: its DNS name
	// does not resolve (a mistyped subdomain or instance URL, or no
	// network), or no connection could be made (refused, timed out: the
	// network, a firewall or a proxy). The message names the host and the
	// likely cause. A name that does not resolve is not retried and the
	// error is not Retryable; a failed connection is retried under the
	// RetryPolicy first.
	ErrUnreachable = errors.New("unreachable host")
	// ErrServer: the source failed (5xx) after the retries allowed.
	ErrServer = errors.New("server error")
	// ErrPaging: the source's paging did not advance (a repeated cursor or
	// next URL) or could not be read; the walk stops instead of looping.
	ErrPaging = pagination.ErrStalled
	// ErrCursorExpired: a cursor the source issued for a walk (Intercom's
	// company scroll, closed after a minute unused) has expired at the
	// source, so the page after it cannot be had: the walk must start
	// again from the beginning. It is neither the caller's mistake nor a
	// failure a retry of the same request could mend.
	ErrCursorExpired = errors.New("cursor expired")
	// ErrUnexpectedResponse: the source answered with a body the library
	// could not read (malformed JSON, valid JSON of another shape, a
	// missing envelope); the message says what was expected and what
	// arrived.
	ErrUnexpectedResponse = errors.New("unexpected response")
)

// Error describes a failed operation. It never contains a secret.
type Error struct {
	// Kind is the connector_type; Entity and Action name the operation.
	Kind   string
	Entity string
	Action Action
	// Param names the offending parameter of a validation error.
	Param string

	// StatusCode is the HTTP status of the source's answer, 0 when no
	// request was sent.
	StatusCode int
	// Code is the source's own error code (Zendesk "RecordNotFound",
	// Salesforce "INVALID_FIELD", Intercom "not_found", ...).
	Code string
	// Message is the source's or the library's explanation.
	Message string
	// RequestID is the source's id of the failed request, for support.
	RequestID string
	// RetryAfter is how long the source asked to wait, when it said so.
	RetryAfter time.Duration
	// Retryable reports whether trying again later could succeed.
	Retryable bool

	// Err is the sentinel this error matches (ErrNotFound, ...).
	Err error
	// Cause is the underlying error, if any (a network error, a decoder error).
	Cause error
}

// Error renders the error on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("tributary: ")
	if e.Kind != "" {
		b.WriteString(e.Kind)
		b.WriteByte(' ')
	}
	if e.Entity != "" {
		b.WriteString(e.Entity)
		if e.Action != "" {
			b.WriteByte('.')
			b.WriteString(string(e.Action))
		}
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("error")
	}
	if e.Param != "" {
		fmt.Fprintf(&b, ": parameter %q", e.Param)
	}
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.StatusCode)
		if e.Code != "" {
			b.WriteString(" ")
			b.WriteString(e.Code)
		}
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request id %s]", e.RequestID)
	}
	if e.Cause != nil && e.Message == "" {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As see both the sentinel and the cause.
func (e *Error) Unwrap() []error {
	out := make([]error, 0, 2)
	if e.Err != nil {
		out = append(out, e.Err)
	}
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}

// SentinelForStatus maps an HTTP status to the sentinel it means.
func SentinelForStatus(status int) error {
	switch {
	case status == 401:
		return ErrUnauthorized
	case status == 403:
		return ErrForbidden
	case status == 404 || status == 410:
		return ErrNotFound
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	case status == 416:
		return ErrInvalidParams
	case status >= 400:
		return ErrInvalidParams
	}
	return ErrUnexpectedResponse
}

func paramError(kind, entity string, a Action, param, format string, args ...any) *Error {
	return &Error{Kind: kind, Entity: entity, Action: a, Param: param, Err: ErrInvalidParams, Message: fmt.Sprintf(format, args...)}
}
