package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
)

// binary is the command, built once, for the tests that run it as a
// subprocess (tributary mcp over stdio and HTTP).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tributary-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "tributary")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the command: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(pgtest.Main(m), goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// result is what one run of the command printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// invocation describes one in-process run of the command.
type invocation struct {
	env        map[string]string
	stdin      io.Reader
	stdout     io.Writer // default: a buffer returned in result.stdout
	stderr     io.Writer // also receives what is written to stderr, as it is written
	ctx        context.Context
	isTerminal bool // stderr is a terminal
}

// cli runs the command with args and no environment, stdin or terminal.
func cli(t *testing.T, args ...string) result {
	t.Helper()
	return invocation{}.run(t, args...)
}

// run runs the command in-process, as main does, with the invocation's
// environment in place of the process's.
func (in invocation) run(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if in.stdin == nil {
		in.stdin = strings.NewReader("")
	}
	out := in.stdout
	if out == nil {
		out = &stdout
	}
	if in.ctx == nil {
		in.ctx = context.Background()
	}
	var errw io.Writer = &stderr
	if in.stderr != nil {
		errw = io.MultiWriter(&stderr, in.stderr)
	}
	// As run does, stderr serialized: the service writes its log, and
	// the sandbox's webhook receiver its events, from several goroutines.
	lw := &lockedWriter{w: errw}
	a := &app{stdin: in.stdin, stdout: out, stderr: lw,
		getenv:     func(k string) (string, bool) { v, ok := in.env[k]; return v, ok },
		isTerminal: func(w io.Writer) bool { return in.isTerminal && w == lw },
		// The fakes enforce no rate limit: at Zendesk's exports' 10
		// requests a minute, each sync after the first would wait 6 s.
		connOptions: []tributary.Option{tributary.WithoutPacing()}}
	code := a.run(in.ctx, args)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// decode parses JSON output into v.
func decode(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}

// lines splits NDJSON output and checks every line is one JSON object.
func lines(t *testing.T, s string) []map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	if !strings.HasSuffix(s, "\n") {
		t.Fatalf("output does not end with a newline: %q", s[max(0, len(s)-80):])
	}
	var out []map[string]any
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil || dec.More() {
			t.Fatalf("line %d is not one JSON object: %v: %.200s", i+1, err, l)
		}
		out = append(out, m)
	}
	return out
}

// want checks the exit code and, when empty is set, that stderr is empty.
func (r result) want(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstderr: %s\nstdout: %.500s", r.code, code, r.stderr, r.stdout)
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a test's
// hooks.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
