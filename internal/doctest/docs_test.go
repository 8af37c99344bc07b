package doctest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// root is the repository's top directory, from this package's.
const root = "../.."

// TestDocs runs every runnable example (see the package comment) of
// README.md and docs/*.md against the sandbox: the tributary command is
// built once and put first on PATH, and each file's blocks run in order,
// each in a fresh bash, in a scratch directory of that file's with a
// scratch HOME, no credentials in the environment, and an unreachable
// HTTP proxy, so that nothing but loopback is reached.
func TestDocs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	bin := build(t, "./cmd/tributary", "tributary")
	total := 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks := Parse(string(text))
		if len(blocks) == 0 {
			continue
		}
		name, _ := filepath.Rel(root, file)
		t.Run(name, func(t *testing.T) {
			work, env := t.TempDir(), environment(t, filepath.Dir(bin))
			for _, b := range blocks {
				total += len(b.Commands)
				t.Run(fmt.Sprintf("line%d", b.Line), func(t *testing.T) {
					runBlock(t, name, b, work, env)
				})
			}
		})
	}
	if total < 30 {
		t.Errorf("ran %d commands in all; the README and docs/ should hold the whole offline tour", total)
	}
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
