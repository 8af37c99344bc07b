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
	st, err := readStat(pid)
	return st.self, err
}

// procStat is what the fleet reads of a process's /proc/<pid>/stat.
type procStat struct {
	ppid int
	// self is its CPU time (user and system), children that of its
	// children it has waited for.
	self, children time.Duration
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	// After the command: state is field 3, ppid 4, utime 14, stime 15,
	// cutime 16 and cstime 17.
	if len(f) < 15 {
		return procStat{}, errors.New("short /proc stat")
	}
	var n [5]int64
	for j, k := range []int{1, 11, 12, 13, 14} {
		if n[j], err = strconv.ParseInt(f[k], 10, 64); err != nil {
			return procStat{}, err
		}
	}
	const ticks = 100 // USER_HZ on Linux
	return procStat{ppid: int(n[0]), self: time.Duration(n[1]+n[2]) * time.Second / ticks,
		children: time.Duration(n[3]+n[4]) * time.Second / ticks}, nil
}

// treeCPU is the CPU time so far of process pid and of its children,
// those alive and those it has waited for: PostgreSQL's, for its
// postmaster, whose backends are its children.
func treeCPU(pid int) (time.Duration, error) {
	root, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	total := root.self + root.children
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range dir {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(child); err == nil && st.ppid == pid {
			total += st.self
		}
	}
	return total, nil
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
