// Package doctest reads the examples of Markdown documents (shell
// transcripts, shell commands, Go snippets), so that its tests can run
// and check them and a changed flag breaks the build rather than the
// reader. Fences returns every fenced block with its info string and the
// "<!-- doctest: … -->" directive before it; Console reads a console
// block; ShellCommands and Invocations find the tributary commands of a
// shell block; Snippets reads the regions of Go source that the pages'
// go blocks must equal. docs/testing.md says what a page may hold.
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

// Parse returns the runnable blocks of a Markdown document: its fences
// whose info string is "console".
func Parse(doc string) []Block {
	var blocks []Block
	for _, f := range Fences(doc) {
		if f.Info == "console" {
			blocks = append(blocks, Console(f))
		}
	}
	return blocks
}

// Console reads a console fence as a transcript.
func Console(f Fence) Block {
	b := Block{Line: f.Line}
	cont := false // the last command line ended in a backslash
	for i, line := range strings.Split(strings.TrimSuffix(f.Text, "\n"), "\n") {
		if cont {
			c := &b.Commands[len(b.Commands)-1]
			c.Text += "\n" + line
			cont = strings.HasSuffix(line, "\\")
			setExit(c)
			continue
		}
		if text, ok := strings.CutPrefix(line, "$ "); ok {
			b.Commands = append(b.Commands, Command{Line: f.Line + 1 + i, Text: text})
			c := &b.Commands[len(b.Commands)-1]
			cont = strings.HasSuffix(text, "\\")
			setExit(c)
			continue
		}
		if len(b.Commands) == 0 {
			continue // text before the first command is not checked
		}
		c := &b.Commands[len(b.Commands)-1]
		c.Output = append(c.Output, line)
	}
	for i := range b.Commands {
		out := b.Commands[i].Output
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		if len(out) == 0 {
			out = nil
		}
		b.Commands[i].Output = out
	}
	return b
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

// Fence is one fenced code block of a Markdown document, whatever its
// info string.
type Fence struct {
	Line int    // the line of the opening fence, from 1
	Info string // the info string: "console", "sh", "go", "yaml", …
	Text string // the lines between the fences, each ending in a newline
	// Directive is what the HTML comment "<!-- doctest: … -->" on the
	// last non-blank line before the fence says ("background", "file
	// clients.yaml"), or "".
	Directive string
}

var directive = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->$`)

// Fences returns every fenced code block of a Markdown document, in
// order; a fence inside a longer one is text of the outer block.
func Fences(doc string) []Fence {
	var (
		out    []Fence
		cur    *Fence
		fence  string
		indent int    // the opening fence's indentation, removed from its lines
		last   string // the last non-blank line outside blocks
	)
	for i, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if strings.HasPrefix(trimmed, "```") {
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
				indent = len(line) - len(strings.TrimLeft(line, " "))
				f := Fence{Line: i + 1, Info: strings.TrimSpace(strings.TrimPrefix(trimmed, fence))}
				if m := directive.FindStringSubmatch(last); m != nil {
					f.Directive = m[1]
				}
				out = append(out, f)
				cur = &out[len(out)-1]
				continue
			}
			if trimmed != "" {
				last = trimmed
			}
			continue
		}
		if closes(trimmed, fence) {
			cur, fence, last = nil, "", ""
			continue
		}
		for i := 0; i < indent && strings.HasPrefix(line, " "); i++ {
			line = line[1:]
		}
		cur.Text += line + "\n"
	}
	return out
}

// ShellCommands returns the commands of a shell block: each line, joined
// with the next when it ends in a backslash, without blank lines and
// comment lines.
func ShellCommands(text string) []string {
	var out []string
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		if cur == "" && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		out = append(out, cur+line)
		cur = ""
	}
	if strings.TrimSpace(cur) != "" {
		out = append(out, cur)
	}
	return out
}

// Invocations returns the argument lists of the tributary commands a shell
// line runs: a simple command whose command word is tributary (after
// variable assignments), one run by another command after "--" (claude mcp
// add … -- tributary mcp), and those of its command substitutions. Quotes
// are removed; a parameter or command substitution stands as the word
// "1"; redirections and comments are left out.
func Invocations(line string) [][]string {
	var out [][]string
	words, subs := shellWords(line)
	for _, s := range subs {
		out = append(out, Invocations(s)...)
	}
	var cmd []string
	flush := func() {
		args := cmd
		cmd = nil
		for len(args) > 0 && isAssignment(args[0]) {
			args = args[1:]
		}
		if len(args) > 0 && (args[0] == "export" || args[0] == "env") {
			return
		}
		for i, w := range args {
			if w == "tributary" && (i == 0 || args[i-1] == "--") {
				out = append(out, append([]string(nil), args[i+1:]...))
				return
			}
		}
	}
	for _, w := range words {
		if w.op {
			flush()
			continue
		}
		cmd = append(cmd, w.text)
	}
	flush()
	return out
}

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && varName.MatchString(name)
}

// word is a shell word, or an operator that ends a simple command.
type word struct {
	text string
	op   bool
}

// shellWords splits a line into words and operators, the way a POSIX
// shell does for the common cases, and returns the text of its command
// substitutions ($(…)) apart.
func shellWords(line string) (words []word, subs []string) {
	var (
		cur      strings.Builder
		inWord   bool
		skipNext bool // the next word is a redirection's target
	)
	end := func() {
		if inWord {
			if !skipNext {
				words = append(words, word{text: cur.String()})
			}
			skipNext = false
		}
		cur.Reset()
		inWord = false
	}
	// substitution reads $(…) from i (at '$') and returns the index after it.
	substitution := func(i int) int {
		depth, j := 0, i+1
		for ; j < len(line); j++ {
			switch line[j] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					subs = append(subs, line[i+2:j])
					return j + 1
				}
			case '\'':
				if k := strings.IndexByte(line[j+1:], '\''); k >= 0 {
					j += k + 1
				}
			}
		}
		subs = append(subs, line[i+2:])
		return len(line)
	}
	// parameter reads $NAME or ${…} from i (at '$') and returns the index
	// after it.
	parameter := func(i int) int {
		if i+1 < len(line) && line[i+1] == '{' {
			if k := strings.IndexByte(line[i:], '}'); k >= 0 {
				return i + k + 1
			}
			return len(line)
		}
		j := i + 1
		for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= '0' && line[j] <= '9') {
			j++
		}
		return j
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
			i++
		case c == '#' && !inWord:
			end()
			return words, subs
		case c == '\'':
			inWord = true
			k := strings.IndexByte(line[i+1:], '\'')
			if k < 0 {
				cur.WriteString(line[i+1:])
				i = len(line)
				break
			}
			cur.WriteString(line[i+1 : i+1+k])
			i += k + 2
		case c == '"':
			inWord = true
			i++
			for i < len(line) && line[i] != '"' {
				switch {
				case line[i] == '\\' && i+1 < len(line):
					cur.WriteByte(line[i+1])
					i += 2
				case strings.HasPrefix(line[i:], "$("):
					i = substitution(i)
					cur.WriteString("1")
				case line[i] == '$':
					i = parameter(i)
					cur.WriteString("1")
				default:
					cur.WriteByte(line[i])
					i++
				}
			}
			i++
		case c == '\\' && i+1 < len(line):
			inWord = true
			cur.WriteByte(line[i+1])
			i += 2
		case strings.HasPrefix(line[i:], "$("):
			inWord = true
			i = substitution(i)
			cur.WriteString("1")
		case c == '$':
			inWord = true
			i = parameter(i)
			cur.WriteString("1")
		case c == '|' || c == ';' || c == '&' || c == '(' || c == ')':
			end()
			words = append(words, word{op: true})
			i++
		case c == '>' || c == '<':
			// A redirection: 2> file, > file, >> file, 2>&1.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			end()
			for i < len(line) && (line[i] == '>' || line[i] == '<' || line[i] == '&') {
				i++
			}
			if i < len(line) && line[i] >= '0' && line[i] <= '9' && line[i-1] == '&' {
				i++ // 2>&1
				break
			}
			skipNext = true
		default:
			inWord = true
			cur.WriteByte(c)
			i++
		}
	}
	end()
	return words, subs
}
