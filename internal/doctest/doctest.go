// Package doctest reads the runnable shell examples of Markdown documents,
// so that a test can run them and a changed flag breaks the build rather
// than the reader.
//
// A runnable example is a fenced code block whose info string is
// "console": a transcript of a shell session. Each line that starts with
// "$ " is a command (a line ending in a backslash continues on the next);
// the lines after a command, up to the next command, are what it prints on
// stdout and stderr together. A command followed by no lines has its
// output left unchecked. In expected output, a line that is only "..."
// stands for any number of lines, and "..." inside a line for any text
// within that line. A command exits 0 unless it ends with a comment
// "# exits N". Blocks marked "sh" (or anything else) are not run.
//
// The conventions are documented for writers in docs/testing.md.
package doctest

import (
	"regexp"
	"strconv"
	"strings"
)

// Block is one runnable example.
type Block struct {
	Line     int       // the line of the opening fence, from 1
	Commands []Command // in order
}

// Command is one command of a Block.
type Command struct {
	Line   int      // the line of its "$ ", from 1
	Text   string   // the shell text, continuation lines joined with newlines
	Exit   int      // the exit status it must end with
	Output []string // the expected output lines; nil when unchecked
}

var exits = regexp.MustCompile(`#\s*exits (\d+)\s*$`)

// Parse returns the runnable blocks of a Markdown document.
func Parse(doc string) []Block {
	var (
		blocks []Block
		cur    *Block
		fence  string
		cont   bool // the last command line ended in a backslash
	)
	for i, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if fence == "" && strings.HasPrefix(trimmed, "```") {
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
				if strings.TrimSpace(strings.TrimPrefix(trimmed, fence)) == "console" {
					blocks = append(blocks, Block{Line: i + 1})
					cur = &blocks[len(blocks)-1]
				}
				continue
			}
			if fence != "" && closes(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if closes(trimmed, fence) {
			cur, fence, cont = nil, "", false
			continue
		}
		if cont {
			c := &cur.Commands[len(cur.Commands)-1]
			c.Text += "\n" + line
			cont = strings.HasSuffix(line, "\\")
			setExit(c)
			continue
		}
		if text, ok := strings.CutPrefix(line, "$ "); ok {
			cur.Commands = append(cur.Commands, Command{Line: i + 1, Text: text})
			c := &cur.Commands[len(cur.Commands)-1]
			cont = strings.HasSuffix(text, "\\")
			setExit(c)
			continue
		}
		if len(cur.Commands) == 0 {
			continue // text before the first command is not checked
		}
		c := &cur.Commands[len(cur.Commands)-1]
		c.Output = append(c.Output, line)
	}
	for b := range blocks {
		for c := range blocks[b].Commands {
			out := blocks[b].Commands[c].Output
			for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
				out = out[:len(out)-1]
			}
			if len(out) == 0 {
				out = nil
			}
			blocks[b].Commands[c].Output = out
		}
	}
	return blocks
}

// closes reports whether a line closes a block opened with fence: only
// backticks, at least as many.
func closes(line, fence string) bool {
	return len(line) >= len(fence) && strings.Trim(line, "`") == ""
}

func setExit(c *Command) {
	if m := exits.FindStringSubmatch(c.Text); m != nil {
		c.Exit, _ = strconv.Atoi(m[1])
	}
}

// Match reports whether got, a command's output, matches the expected
// lines, with "..." as described in the package comment. Trailing spaces
// and trailing blank lines are ignored.
func Match(want []string, got string) bool {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if strings.TrimSpace(got) == "" {
		lines = nil
	}
	return match(want, lines)
}

func match(want, got []string) bool {
	for len(want) > 0 {
		w := strings.TrimRight(want[0], " \t")
		if w == "..." {
			for skip := 0; skip <= len(got); skip++ {
				if match(want[1:], got[skip:]) {
					return true
				}
			}
			return false
		}
		if len(got) == 0 || !matchLine(w, strings.TrimRight(got[0], " \t")) {
			return false
		}
		want, got = want[1:], got[1:]
	}
	return len(got) == 0
}

// matchLine matches one line, "..." standing for any text.
func matchLine(want, got string) bool {
	parts := strings.Split(want, "...")
	if len(parts) == 1 {
		return want == got
	}
	rest, ok := strings.CutPrefix(got, parts[0])
	if !ok {
		return false
	}
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}
