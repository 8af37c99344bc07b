package reliability

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/race"
	"github.com/tributary-dev/tributary/kinds"
)

// The download throughput check (issue 8): a large file from a fake, read
// (a) with a plain http.Get and io.Copy of its body, and (b) through a
// kind's download action (GitHub's file_content, tributary.Execute), on the
// same fake and the same response. Tributary must keep at least 0.9× the
// plain throughput, in under 32 MiB of resident memory.
//
// Memory is measured honestly: the file exists nowhere in full. The fake
// serves a synthetic io.ReadSeeker whose bytes repeat a 65,521-byte random
// pattern (a prime period, so that a byte delivered at the wrong offset
// changes the checksum), through http.ServeContent like every fake's
// ServeFile, ranges included. Each download runs in a child process (this
// test binary re-executed) whose peak resident set (VmHWM in
// /proc/self/status) covers the client alone: the fake stays in the parent.
//
// By default the file is 64 MiB and the ratio must be at least 0.7 (CI
// machines are noisy); TRIBUTARY_LONG=1 downloads 1 GiB and asks for 0.9:
//
//	TRIBUTARY_LONG=1 go test -run '^TestDownloadThroughput$' -v ./internal/reliability/
//
// Under -race a 16 MiB file is checked for its bytes, its checksum and the
// RSS growth only: the race detector's slowdown and shadow memory make the
// ratio and the absolute RSS meaningless.

const (
	// throughputChildEnv carries a child's assignment (JSON); set, the
	// test binary is a child that downloads once and prints its figures.
	throughputChildEnv = "TRIBUTARY_THROUGHPUT_CHILD"
	// throughputMarker starts the line a child prints its result on.
	throughputMarker = "tributary-throughput-result: "
	// synthPeriod is the period of the synthetic file's bytes: prime, and
	// not a multiple of any buffer size, so misplaced bytes are caught.
	synthPeriod = 65521
	// throughputMaxRSS is the ceiling on a Tributary child's peak RSS.
	throughputMaxRSS = 32 << 20
	// throughputMaxGrowth bounds how much any child's peak RSS may grow
	// during the download (race builds included).
	throughputMaxGrowth = 8 << 20
	// throughputOwner, throughputRepo and throughputFile name the fake's
	// file as GitHub's file_content download does.
	throughputOwner, throughputRepo, throughputFile = "octo", "hello", "data/big.bin"
)

// synthPattern is the synthetic file's repeating bytes.
var synthPattern = func() []byte {
	b := make([]byte, synthPeriod)
	r := rand.NewChaCha8([32]byte{'t', 'r', 'i', 'b', 'u', 't', 'a', 'r', 'y'})
	_, _ = r.Read(b)
	return b
}()

// synthFile is a deterministic file of size bytes held as one period of
// its pattern: an io.ReadSeeker for http.ServeContent.
type synthFile struct {
	size, off int64
}

func (f *synthFile) Read(p []byte) (int, error) {
	if f.off >= f.size {
		return 0, io.EOF
	}
	if rest := f.size - f.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	n := 0
	for n < len(p) {
		n += copy(p[n:], synthPattern[(f.off+int64(n))%synthPeriod:])
	}
	f.off += int64(n)
	return n, nil
}

func (f *synthFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.size
	default:
		return 0, errors.New("synthFile.Seek: bad whence")
	}
	if offset < 0 {
		return 0, errors.New("synthFile.Seek: negative position")
	}
	f.off = offset
	return offset, nil
}

// synthServer is a minimal GitHub fake for file_content's raw download of
// a size-byte synthetic file, answered the way fakeserver.ServeFile answers
// (Range, If-Range, a strong ETag). Every response closes its connection,
// so that no idle connection outlives a child (goleak) whichever client
// made it; both clients pay the same.
type synthServer struct {
	*httptest.Server
	requests atomic.Int64
}

func newSynthServer(t testing.TB, size int64) *synthServer {
	s := &synthServer{}
	want := throughputURL("")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if r.URL.Path != want {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("ETag", `"synthetic-`+strconv.FormatInt(size, 10)+`"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Connection", "close")
		http.ServeContent(w, r, "big.bin", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), &synthFile{size: size})
	}))
	t.Cleanup(s.Close)
	return s
}

// throughputURL is the file's URL on the fake at base: the one GitHub's
// file_content download requests.
func throughputURL(base string) string {
	return base + "/repos/" + throughputOwner + "/" + throughputRepo + "/contents/" + throughputFile
}

// crcSink is an io.Writer that checksums what it is given (CRC-32C, which
// costs far less than the transfer, unlike SHA-256 at these rates).
type crcSink struct{ crc uint32 }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (c *crcSink) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, p)
	return len(p), nil
}

// throughputJob is a child's assignment.
type throughputJob struct {
	// Mode is "plain" (http.Get, io.Copy of the body) or "tributary"
	// (tributary.Execute of github file_content's download).
	Mode string
	// Sink is "discard" (io.Copy to io.Discard) or "crc" (io.Copy to a
	// CRC-32C writer).
	Sink string
	// BaseURL is the fake's origin.
	BaseURL string
}

// throughputResult is what a child measured.
type throughputResult struct {
	Bytes   int64
	CRC     uint32
	Seconds float64
	// HWMBefore and HWM are the peak RSS before the download started and
	// at its end, in bytes; -1 when /proc/self/status is unavailable.
	HWMBefore, HWM int64
	// CPU is the CPU time the process spent during the download, in
	// seconds (every thread's, from /proc/self/task/*/schedstat); -1 when
	// unavailable.
	CPU float64
	// Allocs and AllocBytes are the heap allocations made during the
	// download.
	Allocs, AllocBytes uint64
	Err                string
}

func (r throughputResult) mbps() float64 { return float64(r.Bytes) / r.Seconds / 1e6 }

// cpuMBps is the client's throughput per CPU second: what it would reach
// with a core to itself and a server that keeps up.
func (r throughputResult) cpuMBps() float64 { return float64(r.Bytes) / r.CPU / 1e6 }

// opener returns what job downloads with: a function that sends the
// request and returns the body to read.
func (job throughputJob) opener(ctx context.Context) (func() (io.ReadCloser, error), error) {
	switch job.Mode {
	case "plain":
		return func() (io.ReadCloser, error) {
			resp, err := http.Get(throughputURL(job.BaseURL))
			if err != nil {
				return nil, err
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
			}
			return resp.Body, nil
		}, nil
	case "tributary":
		c, err := kinds.Open("github", map[string]any{"token": "ghp_throughput"}, tributary.WithBaseURL(job.BaseURL))
		if err != nil {
			return nil, err
		}
		return func() (io.ReadCloser, error) {
			r, err := tributary.Execute(ctx, c, tributary.Request{Entity: "file_content", Action: tributary.ActionDownload,
				Params: tributary.Params{"owner": throughputOwner, "repo": throughputRepo, "path": throughputFile}})
			if err != nil {
				return nil, err
			}
			return r.Download, nil
		}, nil
	}
	return nil, errors.New("unknown mode " + job.Mode)
}

// copyOnce opens the file and copies it all to sink.
func copyOnce(open func() (io.ReadCloser, error), sink io.Writer) (int64, error) {
	body, err := open()
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.Copy(sink, body)
	if err != nil {
		return n, fmt.Errorf("after %d bytes: %w", n, err)
	}
	return n, nil
}

// measure runs job once in this process and returns what it measured.
func (job throughputJob) measure(ctx context.Context) throughputResult {
	var res throughputResult
	var sink io.Writer = io.Discard
	crc := &crcSink{}
	if job.Sink == "crc" {
		sink = crc
	}
	open, err := job.opener(ctx)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	runtime.GC()
	var before, after runtime.MemStats
	res.HWMBefore = peakRSS()
	cpu0 := cpuTime()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res.Bytes, err = copyOnce(open, sink)
	res.Seconds = time.Since(start).Seconds()
	runtime.ReadMemStats(&after)
	if cpu1 := cpuTime(); cpu0 >= 0 && cpu1 >= 0 {
		res.CPU = (cpu1 - cpu0).Seconds()
	} else {
		res.CPU = -1
	}
	res.HWM = peakRSS()
	res.Allocs, res.AllocBytes = after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
	res.CRC = crc.crc
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or -1 where /proc/self/status does not tell.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// cpuTime returns the CPU time every thread of the process has run, or -1
// where /proc does not tell (schedstat's first field: nanoseconds on CPU).
func cpuTime() time.Duration {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	var total time.Duration
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/schedstat")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // the thread has just exited
			}
			return -1
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		total += time.Duration(ns)
	}
	return total
}

// strictTiming reports whether the tests should hold the latency and
// throughput targets (TRIBUTARY_STRICT_TIMING set, as CI's step for them
// does, without -race and without other tests running beside). Elsewhere
// those figures are logged, not asserted: on a loaded machine, or under
// -race, they measure the machine, and a suite that fails when the
// machine is busy fails at random.
func strictTiming() bool { return os.Getenv("TRIBUTARY_STRICT_TIMING") != "" }

// runThroughputChild downloads job in a new process (this test binary)
// and returns its result.
func runThroughputChild(t *testing.T, job throughputJob) throughputResult {
	t.Helper()
	spec, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDownloadThroughput$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), throughputChildEnv+"="+string(spec))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s/%s child: %v\n%s%s", job.Mode, job.Sink, err, out, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), throughputMarker); ok {
			var res throughputResult
			if err := json.Unmarshal([]byte(v), &res); err != nil {
				t.Fatalf("%s/%s child: %v in %q", job.Mode, job.Sink, err, v)
			}
			return res
		}
	}
	t.Fatalf("%s/%s child printed no result:\n%s%s", job.Mode, job.Sink, out, stderr.Bytes())
	return throughputResult{}
}

// TestDownloadThroughput compares a plain io.Copy of the fake's response
// with GitHub's file_content download through tributary.Execute, each in a
// child process of its own, to io.Discard and to a CRC-32C checksum.
//
// On a shared machine a run's throughput depends mostly on how the client
// and the fake happen to be scheduled: single runs of the same code differ
// by 1.5×, and the best of a few runs is at the mercy of one lucky run. So
// the two are run in pairs, one right after the other, the order
// alternating from round to round (ABBA), and what is checked is the
// geometric mean of the pairs' ratios, over both sinks (a pair shares its
// sink). Per sink, that mean and the best throughput of each are logged
// beside it, with each one's throughput per CPU second (go test -v).
func TestDownloadThroughput(t *testing.T) {
	if spec := os.Getenv(throughputChildEnv); spec != "" {
		var job throughputJob
		if err := json.Unmarshal([]byte(spec), &job); err != nil {
			t.Fatalf("child assignment %q: %v", spec, err)
		}
		b, _ := json.Marshal(job.measure(t.Context()))
		fmt.Printf("%s%s\n", throughputMarker, b)
		return
	}
	var size int64 = 64 << 20
	minRatio, rounds := 0.7, 7
	if os.Getenv("TRIBUTARY_LONG") != "" {
		size, minRatio, rounds = 1<<30, 0.9, 9
	}
	if race.Enabled {
		size, rounds = 16<<20, 1
	}
	srv := newSynthServer(t, size)
	want := &crcSink{}
	if _, err := io.Copy(want, &synthFile{size: size}); err != nil {
		t.Fatal(err)
	}

	type key struct{ mode, sink string }
	runs := map[key][]throughputResult{}
	sinks := []string{"discard", "crc"}
	for round := range rounds {
		for _, sink := range sinks {
			order := []string{"plain", "tributary"}
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, mode := range order {
				before := srv.requests.Load()
				res := runThroughputChild(t, throughputJob{Mode: mode, Sink: sink, BaseURL: srv.URL})
				if res.Err != "" {
					t.Fatalf("round %d, %s to %s: %s", round+1, mode, sink, res.Err)
				}
				if res.Bytes != size {
					t.Fatalf("round %d, %s to %s: %d bytes, want %d", round+1, mode, sink, res.Bytes, size)
				}
				if sink == "crc" && res.CRC != want.crc {
					t.Fatalf("round %d, %s: CRC-32C %08x, want %08x", round+1, mode, res.CRC, want.crc)
				}
				if n := srv.requests.Load() - before; n != 1 {
					t.Errorf("round %d, %s to %s: %d requests, want 1", round+1, mode, sink, n)
				}
				// Whatever the build, the download itself must not grow
				// the process by anything like the file.
				if grew := res.HWM - res.HWMBefore; res.HWM >= 0 && grew > throughputMaxGrowth {
					t.Errorf("round %d, %s to %s: peak RSS grew by %.1f MiB during the download, want at most %d MiB",
						round+1, mode, sink, mib(grew), throughputMaxGrowth>>20)
				}
				t.Logf("round %d %-9s to %-7s %7.1f MB/s (%7.1f per CPU-second)  peak RSS %5.1f MiB (%5.1f before)  %4d allocs, %5.1f KiB",
					round+1, mode, sink, res.mbps(), res.cpuMBps(), mib(res.HWM), mib(res.HWMBefore), res.Allocs, float64(res.AllocBytes)/1024)
				runs[key{mode, sink}] = append(runs[key{mode, sink}], res)
			}
		}
	}
	var pairs []float64
	for _, sink := range sinks {
		plain, trib := runs[key{"plain", sink}], runs[key{"tributary", sink}]
		ratios := make([]float64, rounds)
		for i := range ratios {
			ratios[i] = trib[i].mbps() / plain[i].mbps()
		}
		pairs = append(pairs, ratios...)
		bestPlain, bestTrib := best(plain, throughputResult.mbps), best(trib, throughputResult.mbps)
		rss := slices.MaxFunc(trib, func(a, b throughputResult) int { return cmp.Compare(a.HWM, b.HWM) }).HWM
		plainRSS := slices.MaxFunc(plain, func(a, b throughputResult) int { return cmp.Compare(a.HWM, b.HWM) }).HWM
		t.Logf("%d MiB to %s, %d rounds: tributary/plain %.3f (geometric mean of the rounds); best: plain %.1f MB/s, tributary %.1f MB/s (%.3f); "+
			"best per CPU-second: plain %.1f MB, tributary %.1f MB; peak RSS: tributary %.1f MiB, plain %.1f MiB",
			size>>20, sink, rounds, geomean(ratios), bestPlain, bestTrib, bestTrib/bestPlain,
			best(plain, throughputResult.cpuMBps), best(trib, throughputResult.cpuMBps), mib(rss), mib(plainRSS))
		if strictTiming() && !race.Enabled && rss >= throughputMaxRSS {
			t.Errorf("to %s: tributary's peak RSS is %.1f MiB, want under %d MiB", sink, mib(rss), throughputMaxRSS>>20)
		}
	}
	ratio := geomean(pairs)
	t.Logf("%d MiB: tributary's throughput is %.3f× plain io.Copy's (geometric mean of %d pairs; want at least %.2f×)", size>>20, ratio, len(pairs), minRatio)
	if strictTiming() && !race.Enabled && ratio < minRatio {
		t.Errorf("tributary's throughput is %.3f× plain io.Copy's (geometric mean of %d pairs), want at least %.2f×", ratio, len(pairs), minRatio)
	}
	if race.Enabled {
		t.Log("built with -race: the race detector's slowdown and shadow memory make the ratio and the RSS meaningless, so only the bytes, their checksum and the RSS growth are checked")
	}
}

// best returns the highest f over runs.
func best(runs []throughputResult, f func(throughputResult) float64) float64 {
	b := f(runs[0])
	for _, r := range runs[1:] {
		b = max(b, f(r))
	}
	return b
}

// geomean returns the geometric mean of xs.
func geomean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// BenchmarkDownloadThroughput is the in-process form of the comparison:
// client and fake share the process, so it gives throughput (MB/s) and
// allocations, not RSS. Each op downloads 64 MiB to io.Discard.
//
//	go test -run '^$' -bench DownloadThroughput -benchtime=10x -count=3 ./internal/reliability/
func BenchmarkDownloadThroughput(b *testing.B) {
	const size = 64 << 20
	srv := newSynthServer(b, size)
	for _, mode := range []string{"plain", "tributary"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			open, err := throughputJob{Mode: mode, BaseURL: srv.URL}.opener(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if n, err := copyOnce(open, io.Discard); err != nil || n != size {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}
