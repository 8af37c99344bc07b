package engine

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
)

// ErrorRule declares, as data, how a source reports a failure inside a
// response body, whatever the HTTP status: Slack answers 200 with
// {"ok": false, "error": "channel_not_found"}, a GraphQL API answers 200
// (or 400) with {"errors": [{"message": …, "extensions": {"code":
// "RATELIMITED"}}]}. One mechanism reads it for every kind (Kind.Errors):
// a 2xx answer that carries such a failure becomes the same
// *tributary.Error, matching the same sentinels, as an error status would,
// and a rate limit reported this way is waited for and retried like a 429.
// On an error status the rule, when it finds the failure, stands in for
// the kind's ParseError.
type ErrorRule struct {
	// OK is the dot path of a boolean member that is false when the call
	// failed (Slack's "ok"); Code and Message are then read in the body.
	OK string
	// List is the dot path of an array of error objects whose presence,
	// non-empty, means the call failed (GraphQL's "errors"); Code and
	// Message are then read in its first element, and the messages of all
	// of them are joined.
	List string
	// Code and Message are dot paths of the vendor's error code and
	// message ("error"; "extensions.code", "message").
	Code, Message string
	// Detail, when set, is the dot path of a member that completes the
	// message (Slack's "needed": the scope a missing_scope lacks).
	Detail string
	// Codes maps a vendor code to the sentinel it means
	// (tributary.ErrRateLimited for "ratelimited", ErrNotFound for
	// "channel_not_found", ...).
	Codes map[string]error
	// Messages maps a prefix of the message to a sentinel, for vendors
	// whose codes are coarser than their messages (Linear answers a missing
	// record with code INVALID_INPUT and "Entity not found: Issue"). Codes
	// win.
	Messages map[string]error
}

// ErrInBody is the Cause of an error that the kind's ErrorRule found in
// an answer's body: a rate limit reported there is one the transport did
// not wait for (it judges statuses), so the engine does.
var ErrInBody = errors.New("the source reported the failure in the answer's body")

// find reads the failure a body reports, if any: the vendor's code, its
// message, and the sentinel the rule maps it to (nil: not mapped).
func (r *ErrorRule) find(body []byte) (code, msg string, sentinel error, failed bool) {
	if first, _, _ := strings.Cut(r.OK+r.List, "."); !bytes.Contains(body, []byte(`"`+first+`"`)) && !bytes.Contains(body, []byte(`\u`)) {
		// A body that never spells the member's name (nor a \u escape,
		// which could spell it) has no such member: a page of records is
		// not walked once more to find that out.
		return "", "", nil, false
	}
	var at []byte
	switch {
	case r.OK != "":
		raw, ok := jsonx.Lookup(body, strings.Split(r.OK, ".")...)
		if !ok {
			return "", "", nil, false
		}
		if v, isBool := jsonx.Bool(raw); !isBool || v {
			return "", "", nil, false
		}
		at = body
	case r.List != "":
		raw, ok := jsonx.Lookup(body, strings.Split(r.List, ".")...)
		if !ok {
			return "", "", nil, false
		}
		elems, err := jsonx.SplitArray(raw)
		if err != nil || len(elems) == 0 {
			return "", "", nil, false
		}
		at = elems[0]
		var msgs []string
		for _, el := range elems {
			if m := r.text(el, r.Message); m != "" && !containsStr(msgs, m) {
				msgs = append(msgs, m)
			}
		}
		msg = strings.Join(msgs, "; ")
	default:
		return "", "", nil, false
	}
	code = r.text(at, r.Code)
	if r.OK != "" {
		msg = r.text(at, r.Message)
	}
	if d := r.text(at, r.Detail); d != "" {
		msg = strings.TrimSpace(msg + " (" + r.Detail + ": " + d + ")")
	}
	if s, ok := r.Codes[code]; ok && code != "" {
		return code, msg, s, true
	}
	for prefix, s := range r.Messages {
		if strings.HasPrefix(msg, prefix) {
			return code, msg, s, true
		}
	}
	return code, msg, nil, true
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// text reads a string (or a number, as written) at a dot path of raw.
func (r *ErrorRule) text(raw []byte, path string) string {
	if path == "" {
		return ""
	}
	v, ok := jsonx.Lookup(raw, strings.Split(path, ".")...)
	if !ok {
		return ""
	}
	if s, ok := jsonx.String(v); ok {
		return s
	}
	if _, ok := jsonx.Int(v); ok {
		return strings.TrimSpace(string(v))
	}
	return ""
}

// bodyError applies the kind's error rule to a 2xx answer's body: nil
// when the body reports no failure.
func (c *Connector) bodyError(entity string, a tributary.Action, resp *http.Response, body []byte) *tributary.Error {
	r := c.kind.Errors
	if r == nil {
		return nil
	}
	code, msg, sentinel, failed := r.find(body)
	if !failed {
		return nil
	}
	if sentinel == nil {
		sentinel = tributary.ErrUnexpectedResponse
	}
	e := &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: sentinel, Code: code, Message: msg, Cause: ErrInBody}
	if e.Message == "" {
		e.Message = "the source reported a failure in a " + http.StatusText(resp.StatusCode) + " answer"
	}
	c.finishError(e, resp)
	return e
}

// parseRule fills e from an error status's body by the kind's error rule;
// false when the rule finds nothing there (the kind's ParseError then
// reads it).
func (c *Connector) parseRule(resp *http.Response, body []byte, e *tributary.Error) bool {
	r := c.kind.Errors
	if r == nil {
		return false
	}
	code, msg, sentinel, failed := r.find(body)
	if !failed {
		return false
	}
	e.Code, e.Message, e.Cause = code, msg, ErrInBody
	if sentinel != nil {
		e.Err = sentinel
	}
	return true
}
