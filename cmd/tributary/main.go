// Command tributary runs the operations of the Tributary contract from the
// shell: it lists the connector kinds, describes their catalogues, runs one
// operation or walks every page, downloads files and searches, obtains an
// account's credentials through the vendor's OAuth consent (connect), in direct
// mode (your credentials), against the built-in fakes (--sandbox) or through
// the hosted service (--hosted).
//
//	go install github.com/tributary-dev/tributary/cmd/tributary@latest
//	tributary kinds
//	tributary describe zendesk-support tickets
//	tributary exec zendesk-support tickets list --sandbox -p per_page=5
//	tributary exec zendesk-support tickets list --sandbox --all > tickets.ndjson
//
// Every command has --help with examples. Exit codes: 0 success, 1 other
// failure, 2 usage or validation, 3 authentication, 4 not found, 5 rate
// limited, 130 interrupted.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first Ctrl-C the command winds down; a second one
		// kills it as usual.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the process exit code.
// Tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: &lockedWriter{w: stderr}, getenv: os.LookupEnv, isTerminal: isTerminal}
	return a.run(ctx, args)
}

// lockedWriter serializes the writes to w: the service's log lines, its
// sandbox webhook receiver and the progress of syncs write to stderr from
// several goroutines, each line in one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
