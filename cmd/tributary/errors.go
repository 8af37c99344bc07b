package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// The exit codes (documented in exitHelp).
const (
	exitOK          = 0
	exitOther       = 1
	exitUsage       = 2
	exitAuth        = 3
	exitNotFound    = 4
	exitRateLimited = 5
	exitInterrupted = 130
)

// usageError is a command line that cannot run as written.
type usageError struct {
	msg  string
	help string // the command whose --help to suggest
}

func (e *usageError) Error() string { return e.msg }

// usageErr builds a usage error that points at cmd's help.
func usageErr(cmd *cobra.Command, format string, args ...any) error {
	e := &usageError{msg: fmt.Sprintf(format, args...)}
	if cmd != nil {
		e.help = cmd.CommandPath()
	}
	return e
}

func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// interrupted wraps the cancellation of a command by Ctrl-C with what was
// done before it.
type interrupted struct {
	done string // e.g. "1200 records written"
	err  error
}

func (e *interrupted) Error() string {
	if e.done == "" {
		return "interrupted"
	}
	return "interrupted: " + e.done
}
func (e *interrupted) Unwrap() error { return e.err }

// exitCode maps an error to the exit code a script can test.
func exitCode(ctx context.Context, err error) int {
	var in *interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &in), ctx.Err() != nil && errors.Is(err, context.Canceled):
		return exitInterrupted
	case isUsage(err),
		errors.Is(err, tributary.ErrUnknownKind),
		errors.Is(err, tributary.ErrUnknownEntity),
		errors.Is(err, tributary.ErrUnsupportedAction),
		errors.Is(err, tributary.ErrInvalidParams),
		errors.Is(err, search.ErrInvalidQuery),
		errors.Is(err, download.ErrInvalidRange),
		errors.Is(err, store.ErrInvalid),
		errors.Is(err, store.ErrNotSynced),
		errors.Is(err, connect.ErrConfig):
		return exitUsage
	case errors.Is(err, connect.ErrAccessDenied),
		errors.Is(err, connect.ErrState),
		errors.Is(err, connect.ErrRefused),
		errors.Is(err, tributary.ErrInvalidCredentials),
		errors.Is(err, tributary.ErrUnauthorized),
		errors.Is(err, tributary.ErrForbidden):
		return exitAuth
	case errors.Is(err, tributary.ErrNotFound):
		return exitNotFound
	case errors.Is(err, tributary.ErrRateLimited):
		return exitRateLimited
	}
	return exitOther
}

// errorType names the error for --json-errors: the hosted service's names
// for the library's sentinels, plus usage, invalid_query, file_changed,
// interrupted, connect's access_denied, invalid_state and oauth_refused,
// and error.
func errorType(ctx context.Context, err error) string {
	var te *tributary.Error
	switch code := exitCode(ctx, err); {
	case code == exitInterrupted:
		return "interrupted"
	case isUsage(err):
		return "usage"
	case errors.Is(err, search.ErrInvalidQuery) && !errors.As(err, &te):
		return "invalid_query"
	case errors.Is(err, download.ErrChanged):
		return "file_changed"
	case errors.As(err, &te) && te.Err != nil:
		return hosted.ErrorType(te.Err)
	case errors.Is(err, connect.ErrAccessDenied):
		return "access_denied"
	case errors.Is(err, connect.ErrState):
		return "invalid_state"
	case errors.Is(err, connect.ErrRefused):
		return "oauth_refused"
	}
	return "error"
}

// jsonError is the --json-errors form of an error.
type jsonError struct {
	Type              string  `json:"type"`
	ExitCode          int     `json:"exit_code"`
	Message           string  `json:"message"`
	ConnectorType     string  `json:"connector_type,omitempty"`
	Entity            string  `json:"entity,omitempty"`
	Action            string  `json:"action,omitempty"`
	Param             string  `json:"param,omitempty"`
	Status            int     `json:"status,omitempty"`
	Code              string  `json:"code,omitempty"`
	RequestID         string  `json:"request_id,omitempty"`
	RetryAfterSeconds float64 `json:"retry_after_seconds,omitempty"`
	Retryable         bool    `json:"retryable,omitempty"`
}

// report prints err on stderr, as one line of text or of JSON, and returns
// its exit code. The library's errors never hold a secret, and neither do
// this command's own.
func (a *app) report(ctx context.Context, err error) int {
	code := exitCode(ctx, err)
	msg := oneLine(err)
	if a.jsonErrors {
		je := jsonError{Type: errorType(ctx, err), ExitCode: code, Message: msg}
		var te *tributary.Error
		if errors.As(err, &te) {
			je.ConnectorType, je.Entity, je.Action, je.Param = te.Kind, te.Entity, string(te.Action), te.Param
			je.Status, je.Code, je.RequestID, je.Retryable = te.StatusCode, te.Code, te.RequestID, te.Retryable
			je.RetryAfterSeconds = te.RetryAfter.Seconds()
		}
		b, _ := json.Marshal(map[string]any{"error": je})
		fmt.Fprintf(a.stderr, "%s\n", b)
		return code
	}
	fmt.Fprintln(a.stderr, msg)
	return code
}

// oneLine renders err on one line, prefixed "tributary: ".
func oneLine(err error) string {
	msg := err.Error()
	var u *usageError
	if errors.As(err, &u) && u.help != "" {
		msg += " (see '" + u.help + " --help')"
	}
	if !strings.HasPrefix(msg, "tributary: ") {
		msg = "tributary: " + msg
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
}
