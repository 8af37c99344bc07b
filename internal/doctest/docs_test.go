package doctest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// root is the repository's top directory, from this package's.
const root = "../.."

// page is a Markdown page whose examples are tested.
type page struct {
	name   string // relative to the repository's top: docs/search.md
	fences []Fence
}

// pages are README.md and docs/*.md, read.
func pages(t *testing.T) []page {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []page
	for _, file := range append([]string{filepath.Join(root, "README.md")}, files...) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, file)
		out = append(out, page{name: name, fences: Fences(string(text))})
	}
	return out
}

// TestDocs runs every runnable example (see the package comment) of
// README.md and docs/*.md against the sandbox: the tributary command is
// built once and put first on PATH, and each page's blocks run in order,
// each in a fresh bash, in a scratch directory of that page's with a
// scratch HOME, no credentials in the environment, and an unreachable
// HTTP proxy, so that nothing but loopback is reached. A page's
// "background" block (a tributary serve) runs for the page's later
// blocks, on a free port that replaces 127.0.0.1:8080 in them; its
// "file" blocks are written into its directory. The pages run in
// parallel.
func TestDocs(t *testing.T) {
	bin := tributaryBinary(t)
	total := 0
	for _, pg := range pages(t) {
		name, fences := pg.name, pg.fences
		runs := false
		for _, f := range fences {
			if f.Info == "console" {
				total += len(Console(f).Commands)
				runs = true
			}
		}
		if !runs {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work, env := t.TempDir(), environment(t, filepath.Dir(bin))
			var svc *service
			for _, f := range fences {
				switch {
				case strings.HasPrefix(f.Directive, "file "):
					path := filepath.Join(work, strings.TrimSpace(strings.TrimPrefix(f.Directive, "file ")))
					if err := os.WriteFile(path, []byte(f.Text), 0o600); err != nil {
						t.Fatal(err)
					}
				case f.Directive == "background":
					if svc != nil {
						t.Fatalf("%s:%d: a second background block on one page", name, f.Line)
					}
					svc = startService(t, name, f, work, env)
				case f.Directive != "":
					t.Fatalf("%s:%d: unknown doctest directive %q (background, file NAME)", name, f.Line, f.Directive)
				case f.Info == "console":
					b := Console(f)
					if svc != nil {
						b = svc.substitute(b)
					}
					t.Run(fmt.Sprintf("line%d", b.Line), func(t *testing.T) {
						runBlock(t, name, b, work, env)
					})
				}
			}
			if svc != nil {
				svc.stop(t)
			}
		})
	}
	if total < 30 {
		t.Errorf("ran %d commands in all; the README and docs/ should hold the whole offline tour", total)
	}
}

// TestShellCommands checks every tributary command of the pages' sh
// blocks, which need what the tests do not have (an account, a browser,
// a public URL): the command and its flags, which the command parses
// before it prints its help (the command line with --help added must exit
// 0). And an npx command of the MCP Inspector names the version CI runs
// (.ci/mcp-inspector), the one the docs' commands are known to work with.
func TestShellCommands(t *testing.T) {
	bin := tributaryBinary(t)
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "mcp-inspector"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^INSPECTOR_VERSION=(\S+)`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/mcp-inspector sets no INSPECTOR_VERSION")
	}
	inspector := "@modelcontextprotocol/inspector@" + string(m[1]) + " "
	env := environment(t, filepath.Dir(bin))
	checked := 0
	for _, pg := range pages(t) {
		name := pg.name
		for _, f := range pg.fences {
			if f.Info != "sh" || f.Directive != "" {
				continue
			}
			for _, line := range ShellCommands(f.Text) {
				if strings.Contains(line, "@modelcontextprotocol/inspector") && !strings.Contains(line, inspector) {
					t.Errorf("%s:%d: %s\nnames no version of the Inspector, or another than CI's: write %s", name, f.Line, line, strings.TrimSpace(inspector))
				}
				for _, args := range Invocations(line) {
					checked++
					cmd := exec.Command(bin, append(args, "--help")...)
					cmd.Dir, cmd.Env = t.TempDir(), env
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Errorf("%s:%d: tributary %s\n%v: %s", name, f.Line, strings.Join(args, " "), err, firstLine(out))
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d commands of sh blocks; the pages hold more", checked)
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// service is a page's background tributary serve.
type service struct {
	cmd  *exec.Cmd
	addr string // host:port
	log  string
}

// startService starts the page's background block, a tributary serve, on
// a free port, and waits until it listens.
func startService(t *testing.T, page string, f Fence, dir string, env []string) *service {
	t.Helper()
	cmds := ShellCommands(f.Text)
	if f.Info != "sh" || len(cmds) != 1 || !strings.HasPrefix(cmds[0], "tributary serve ") {
		t.Fatalf("%s:%d: a background block is one tributary serve command in an sh block", page, f.Line)
	}
	log := filepath.Join(dir, fmt.Sprintf("serve-%d.log", f.Line))
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	s := &service{log: log}
	s.cmd = exec.Command("bash", "-c", "exec "+cmds[0]+" --listen 127.0.0.1:0")
	s.cmd.Dir, s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = dir, env, out, out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil { // not stopped: the page failed first
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			_ = s.cmd.Wait()
		}
	})
	listening := regexp.MustCompile(`listening on http://(\S+)`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		if m := listening.FindSubmatch(b); m != nil {
			s.addr = string(m[1])
			return s
		}
		if syscall.Kill(s.cmd.Process.Pid, 0) != nil {
			break
		}
	}
	b, _ := os.ReadFile(log)
	t.Fatalf("%s:%d: $ %s\ndid not listen within 60 s:\n%s", page, f.Line, cmds[0], b)
	return nil
}

// substitute puts the service's address where the page says
// 127.0.0.1:8080, serve's default.
func (s *service) substitute(b Block) Block {
	r := strings.NewReplacer("127.0.0.1:8080", s.addr, "localhost:8080", s.addr)
	cmds := make([]Command, len(b.Commands))
	for i, c := range b.Commands {
		c.Text = r.Replace(c.Text)
		if c.Output != nil {
			out := make([]string, len(c.Output))
			for j, l := range c.Output {
				out[j] = r.Replace(l)
			}
			c.Output = out
		}
		cmds[i] = c
	}
	b.Commands = cmds
	return b
}

// stop ends the service as a reader does (SIGTERM), which it must obey
// within 30 s, exiting 0.
func (s *service) stop(t *testing.T) {
	t.Helper()
	_ = syscall.Kill(s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b, _ := os.ReadFile(s.log)
			t.Errorf("the background tributary serve ended with %v:\n%s", err, b)
		}
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Error("the background tributary serve did not stop within 30 s of SIGTERM")
	}
}

// bin is the tributary command, built once for the package's tests.
var bin struct {
	once      sync.Once
	dir, path string
	err       error
}

// tributaryBinary builds the tributary command once (TestMain removes it).
func tributaryBinary(t *testing.T) string {
	t.Helper()
	bin.once.Do(func() {
		if bin.dir, bin.err = os.MkdirTemp("", "doctest-bin"); bin.err != nil {
			return
		}
		bin.path = filepath.Join(bin.dir, "tributary")
		cmd := exec.Command("go", "build", "-o", bin.path, "./cmd/tributary")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			bin.err = fmt.Errorf("go build ./cmd/tributary: %v\n%s", err, out)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return bin.path
}

// TestFirstCommands keeps the README's two first commands true: the first
// block is exactly the quickstart and the test command, the quickstart
// runs offline with no credentials in the environment, and .ci/run runs
// the same test command.
func TestFirstCommands(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(readme), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{"go run ./examples/quickstart", "go test ./..."}; strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the README's first block is %q, want %q", cmds, want)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go test \./\.\.\.$`).Match(ci) {
		t.Error(".ci/run does not run the README's test command, go test ./...")
	}
	bin := build(t, "./examples/quickstart", "quickstart")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir, cmd.Env = t.TempDir(), environment(t, filepath.Dir(bin))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quickstart without credentials: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "running against the built-in Zendesk fake") {
		t.Errorf("the quickstart without credentials did not say it runs on the fake:\n%s", out)
	}
}

// build compiles a main package of the module into a scratch directory.
func build(t *testing.T, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// environment is the whole environment of an example: nothing of the
// test's own but the shell's tools, so no credentials and no store.
func environment(t *testing.T, bin string) []string {
	home, tmp := t.TempDir(), t.TempDir()
	return []string{
		"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"TERM=dumb",
		// Go does not proxy loopback: the sandbox is reached, and anything
		// else fails at once.
		"HTTP_PROXY=http://127.0.0.1:9",
		"HTTPS_PROXY=http://127.0.0.1:9",
	}
}

// runBlock runs a block's commands as one bash script, a marker after each
// command carrying its exit status, and checks each command's status and
// output.
func runBlock(t *testing.T, file string, b Block, dir string, env []string) {
	token := rand.Text()
	var script strings.Builder
	script.WriteString("set -o pipefail\n")
	for _, c := range b.Commands {
		fmt.Fprintf(&script, "%s\n__rc=$?; printf '@@%s %%d@@\\n' \"$__rc\"\n", c.Text, token)
	}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = dir, env
	// The output goes to a file, not a pipe: a server a block leaves
	// running cannot hold the test up, and is killed with its group.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if syscall.Kill(-cmd.Process.Pid, 0) == nil {
		t.Errorf("%s:%d: the block left a process running (killed)", file, b.Line)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		t.Errorf("%s:%d: the block did not finish within 90 s", file, b.Line)
	} else if err != nil && !errors.As(err, new(*exec.ExitError)) {
		t.Fatal(err)
	}
	all, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile(`\n?@@` + regexp.QuoteMeta(token) + ` (\d+)@@\n`)
	chunks := marker.Split(string(all), -1)
	codes := marker.FindAllStringSubmatch(string(all), -1)
	for i, c := range b.Commands {
		if i >= len(codes) {
			t.Errorf("%s:%d: $ %s\ndid not run (the block stopped before it); output so far:\n%s", file, c.Line, c.Text, all)
			return
		}
		code, _ := strconv.Atoi(codes[i][1])
		got := chunks[i]
		if code != c.Exit {
			t.Errorf("%s:%d: $ %s\nexit status %d, want %d; output:\n%s", file, c.Line, c.Text, code, c.Exit, got)
		}
		if c.Output != nil && !Match(c.Output, got) {
			t.Errorf("%s:%d: $ %s\noutput:\n%s\nwant (... matching anything):\n%s", file, c.Line, c.Text, got, strings.Join(c.Output, "\n"))
		}
	}
}

// TestGoSnippets keeps the pages' Go true: every go block of README.md and
// docs/*.md is, character for character, a region (see Snippets) of a
// docs_example_test.go file (sandbox's; webhook's for the one that needs
// a Standard Webhooks library), where it compiles with the tests of a
// package that links what it needs already; a region in an Example with
// an Output comment runs there, and the output the page shows after it
// (its last comment lines) is the output checked.
func TestGoSnippets(t *testing.T) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "docs_example_test.go" {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs_example_test.go (%v)", err)
	}
	regions := map[string][]Snippet{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := Snippets(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		f, _ = filepath.Rel(root, f)
		for _, s := range ss {
			s.Page = f + ":" + strconv.Itoa(s.Line) + " " + s.Page
			page := s.Page[strings.LastIndexByte(s.Page, ' ')+1:]
			regions[page] = append(regions[page], s)
			if shown := s.ShownOutput(); s.Output != nil && shown != nil && !slices.Equal(shown, s.Output) {
				t.Errorf("%s: the region shows the output %q, the example prints %q", s.Page, s.ShownOutput(), s.Output)
			}
		}
	}
	blocks := 0
	for _, pg := range pages(t) {
		name := pg.name
		var gos []Fence
		for _, f := range pg.fences {
			if f.Info == "go" {
				gos = append(gos, f)
			}
		}
		blocks += len(gos)
		have := regions[name]
		delete(regions, name)
		for i, f := range gos {
			if i >= len(have) {
				t.Errorf("%s:%d: this go block is in no region of a docs_example_test.go (// doc: %s … // end doc), so nothing compiles it", name, f.Line, name)
				continue
			}
			if diff := cmp.Diff(have[i].Text, f.Text); diff != "" {
				t.Errorf("%s:%d: the go block differs from its region %s (-region +page):\n%s", name, f.Line, have[i].Page, diff)
			}
		}
		for _, s := range have[min(len(have), len(gos)):] {
			t.Errorf("%s: a region for a go block the page does not have", s.Page)
		}
	}
	for page, ss := range regions {
		t.Errorf("%s: a region for %s, which is not a page the tests read", ss[0].Page, page)
	}
	if blocks < 15 {
		t.Errorf("compared %d go blocks; the README and docs/ hold more", blocks)
	}
}
