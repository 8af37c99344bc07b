package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// build compiles cmd/tributary once, into dir, from the library's module
// at root.
func build(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "tributary")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/tributary")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cmd/tributary: %v\n%s", err, out)
	}
	return bin, nil
}

// proc is one `tributary serve` process of the fleet.
type proc struct {
	n    int
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:port
	log  string // its stderr's file
	done chan error

	// cpu0 is its CPU time when the fleet started running; cpu its CPU
	// time over the run (to its kill, for the killed one) and syncs the
	// syncs it completed, both set at the end.
	cpu0, cpu time.Duration
	syncs     float64
	killed    bool
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startProc starts process n: bin serve with args and env, its stderr in
// dir, and waits until it listens.
func startProc(ctx context.Context, bin, dir string, n int, args, env []string) (*proc, error) {
	logFile := filepath.Join(dir, fmt.Sprintf("serve-%d.log", n))
	lf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer lf.Close() // the child has its own descriptor
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{n: n, cmd: cmd, log: logFile, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); ; {
		if m := listening.FindStringSubmatch(readHead(logFile)); m != nil {
			p.url = m[1]
			return p, nil
		}
		select {
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("serve %d exited before listening (%v):\n%s", n, err, tail(logFile))
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("serve %d not listening after 60 s:\n%s", n, tail(logFile))
		}
	}
}

// readHead returns the first 64 KiB of file.
func readHead(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	return string(b)
}

// tail returns the end of file, for errors.
func tail(file string) string {
	b, _ := os.ReadFile(file)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// stop ends the process: SIGTERM, then SIGKILL after 30 s.
func (p *proc) stop() {
	if p.killed {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
	}
}

// kill ends the process with SIGKILL.
func (p *proc) kill() {
	p.killed = true
	_ = p.cmd.Process.Kill()
	err := <-p.done
	p.done <- err
}

// cpuTime returns the process's CPU time so far (user and system), from
// /proc/<pid>/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	// After the command: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(u+st) * time.Second / ticks, nil
}

// completedSyncs reads from p's /metrics the syncs it completed
// (tributary_syncs_total, every kind and outcome).
func completedSyncs(ctx context.Context, p *proc) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var total float64
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "tributary_syncs_total{") {
			continue
		}
		if j := strings.LastIndexByte(line, ' '); j > 0 {
			v, err := strconv.ParseFloat(line[j+1:], 64)
			if err == nil {
				total += v
			}
		}
	}
	return total, sc.Err()
}
