package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHelpExamples runs the sandbox examples of every command's --help.
func TestHelpExamples(t *testing.T) {
	t.Chdir(t.TempDir())
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).root()
	ran := 0
	for _, c := range append(root.Commands(), root) {
		for _, line := range shellCommands("```sh\n" + c.Example + "\n```") {
			args, ok := shellWords(strings.TrimSpace(line))
			if !ok {
				t.Fatalf("%s: cannot split %q", c.Name(), line)
			}
			if len(args) < 2 || args[0] != "tributary" || !offline(line, args) && args[1] != "help" {
				continue
			}
			serving := args[1] == "serve" && slices.Contains(args, "--sandbox")
			if args[1] == "serve" && !serving {
				continue // needs keys and clients from the environment
			}
			if i := slices.Index(args, "--listen"); serving && i >= 0 && i+1 < len(args) {
				args[i+1] = "127.0.0.1:0" // the example's port may be taken
			}
			if args[1] == "connect" {
				// The user approves on the consent page the command
				// prints (--sandbox saves nothing).
				r := startConnect(t, context.Background(), nil, nil, append(args[2:], "--no-browser")...)
				consent(t, r.url(t), "approve")
				if code := r.wait(t); code != 0 {
					t.Errorf("%s --help example %s\nexit %d: %s", c.Name(), line, code, r.stderr)
				}
				ran++
				continue
			}
			in := invocation{}
			if slices.Contains(args, "--every") || serving {
				// Runs until interrupted: Ctrl-C once the first round's
				// table is out (sync) or the service listens (serve), at
				// most after 5 s; between two rounds (exit 0), or during
				// one (130).
				ctx, cancel := context.WithCancel(context.Background())
				defer time.AfterFunc(5*time.Second, cancel).Stop()
				out, errs := &syncBuffer{}, &syncBuffer{}
				in.ctx, in.stdout, in.stderr = ctx, out, errs
				go func() {
					for ctx.Err() == nil {
						if strings.Count(out.String(), "\n") >= 3 || strings.Contains(errs.String(), "listening on") {
							cancel()
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			if r := in.run(t, args[1:]...); r.code != 0 && (in.ctx == nil || r.code != exitInterrupted) {
				t.Errorf("%s --help example %s\nexit %d: %s", c.Name(), line, r.code, r.stderr)
			}
			ran++
		}
	}
	if ran < 20 {
		t.Errorf("ran %d examples", ran)
	}
}

// offline reports whether a command line runs offline: against the
// sandbox, on the catalogue alone, or on a store file (which an earlier
// sync --sandbox line fills), never on a PostgreSQL server.
func offline(line string, args []string) bool {
	if i := slices.Index(args, "--store"); i >= 0 && i+1 < len(args) {
		return !strings.HasPrefix(args[i+1], "postgres") && !strings.Contains(line, "--credentials")
	}
	return strings.Contains(line, "--sandbox") || args[1] == "kinds" || args[1] == "describe"
}

// shellCommands returns the lines of the sh code blocks of a Markdown
// document, with backslash-continued lines joined.
func shellCommands(doc string) []string {
	var out []string
	in := false
	cur := ""
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\")
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}

// shellWords splits a command line as sh would, up to the first unquoted
// pipe, redirection, separator or comment: words, single and double quotes.
func shellWords(line string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.IndexByte("|>;&#", c) >= 0 && !inWord:
			return words, true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}
