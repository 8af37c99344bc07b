// Command table runs every performance comparison of issue 8 and prints
// one Markdown table: Tributary beside the best Go client of each vendor
// (go-github, go-salesforce, go-jira, Google's drive/v3, slack-go, stripe-go: the peers list) and beside a plain net/http + encoding/json
// loop for every kind, on the same fake pages in the same run, with the
// download, prefetch and heap checks.
//
//	cd bench && go run ./table            # about two minutes
//	cd bench && go run ./table -long      # 1 GiB download, 1,000,000-record heap walk
//	cd bench && go run ./table -count 1 -benchtime 1x -check  # CI's short run
//
// Figures are medians of -count runs; the ratios compare runs made side
// by side, which is what survives a noisy machine. With -check the command
// fails when a figure is missing or misses its target by a factor of more
// than 8: a listing paced to its vendor's rate limit is 15 to 250 times
// slower than its net/http baseline, which a short run on a busy machine
// still tells apart from noise (one walk each on a loaded machine put a
// ratio targeted at 2× at 0.55×).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	count := flag.Int("count", 3, "rounds: runs of each benchmark, interleaved")
	benchtime := flag.String("benchtime", "10x", "go test -benchtime for the listing benchmarks")
	long := flag.Bool("long", false, "download 1 GiB and walk 1,000,000 records (TRIBUTARY_LONG=1)")
	root := flag.String("root", "..", "the library's module, from the current directory")
	check := flag.Bool("check", false, "fail when a figure is missing or far off its target")
	flag.Parse()
	if err := run(os.Stdout, *root, *count, *benchtime, *long, *check); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

// row is one line of the table: x is the measure compared with goal, at
// least goal when more is better, at most goal otherwise.
type row struct {
	what, tributary, other, ratio, target string
	met                                   bool
	x, goal                               float64
	more                                  bool
}

// far reports whether r has no figure or misses its goal by more than a
// factor of 8.
func (r row) far() bool {
	if r.x <= 0 {
		return true
	}
	if r.more {
		return r.x < r.goal/8
	}
	return r.x > r.goal*8
}

func run(w io.Writer, root string, count int, benchtime string, long, check bool) error {
	bench, err := filepath.Abs(filepath.Join(root, "bench"))
	if err != nil {
		return err
	}
	// The kinds' listing benchmarks: each kind's bench_test.go (not
	// ./kinds/..., which would link the fakes' test binaries for nothing).
	benches, err := filepath.Glob(filepath.Join(root, "kinds", "*", "bench_test.go"))
	if err != nil || len(benches) == 0 {
		return fmt.Errorf("no kinds/*/bench_test.go under %s", root)
	}
	var kindPkgs []string
	for _, f := range benches {
		kindPkgs = append(kindPkgs, "./"+filepath.ToSlash(filepath.Join("kinds", filepath.Base(filepath.Dir(f)))))
	}
	// Each round runs every client once, so that a client and its
	// comparison are measured minutes apart at most, not a whole -count
	// apart: a busy machine then slows both.
	var peerOut, kinds string
	for range count {
		out, err := goTest(bench, nil, "-run", "^$", "-bench", peerPattern(), "-benchtime", benchtime, "-count", "1", ".")
		if err != nil {
			return err
		}
		peerOut += out
		out, err = goTest(root, nil, append([]string{"-run", "^$", "-bench", "^BenchmarkList", "-benchtime", benchtime, "-count", "1"}, kindPkgs...)...)
		if err != nil {
			return err
		}
		kinds += out
	}
	var env []string
	if long {
		env = []string{"TRIBUTARY_LONG=1"}
	}
	dl, err := goTest(root, env, "-count=1", "-v", "-run", "^TestDownloadThroughput$", "./internal/reliability/")
	if err != nil {
		return err
	}
	pre, err := goTest(root, nil, "-count=1", "-v", "-run", "^TestAllFetchesPlannedPagesAtOnce$", "./pagination/")
	if err != nil {
		return err
	}
	heap, err := goTest(root, env, "-count=1", "-v", "-run", "^TestWalkHeapIsFlat$", "./kinds/zendesk/")
	if err != nil {
		return err
	}

	b := parseBench(peerOut + kinds)
	var rows []row
	peer := func(what, ours, theirs string, speed, allocs float64) {
		t, p := b.median(ours, "records/s"), b.median(theirs, "records/s")
		rows = append(rows, ratioRow(what+", records/s", t, p, speed, true))
		if allocs > 0 {
			t, p := b.median(ours, "allocs/record"), b.median(theirs, "allocs/record")
			rows = append(rows, ratioRow(what+", allocs/record", t, p, allocs, false))
		}
	}
	for _, p := range peers {
		peer(p.what, "bench."+p.walk+"Tributary"+p.ours, "bench."+p.walk+p.theirs, p.speed, p.allocs)
	}
	for _, k := range b.kinds() {
		peer(k+", typed, vs net/http + encoding/json", k+".typed", k+".nethttp", 2, 0)
	}
	rows = append(rows, downloadRows(dl)...)
	rows = append(rows, prefetchRow(pre), heapRow(heap))

	fmt.Fprintf(w, "| measure | Tributary | other | ratio | target | met |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		met := "yes"
		if !r.met {
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.what, r.tributary, r.other, r.ratio, r.target, met)
	}
	if check {
		var far []string
		for _, r := range rows {
			if r.far() {
				far = append(far, fmt.Sprintf("%s: %s, target %s", r.what, r.ratio, r.target))
			}
		}
		if len(far) > 0 {
			return fmt.Errorf("-check: %d figures missing or far off their targets:\n%s", len(far), strings.Join(far, "\n"))
		}
	}
	return nil
}

// peerComparison is one row of the peers' part of the table: the
// benchmarks Benchmark<walk>Tributary<ours> and Benchmark<walk><theirs> of
// the bench module, the same walk of the same fake, and the targets: at
// least speed times the peer's records/s, at most allocs times its
// allocations a record (0: not compared).
type peerComparison struct {
	what, walk, ours, theirs string
	speed, allocs            float64
}

// peers are the comparisons with each vendor's most used Go client, where
// the module proxy serves one (bench/*_test.go).
var peers = []peerComparison{
	{"GitHub issues, typed, vs go-github v92", "GitHubIssues", "Typed", "GoGitHub", 2.5, 0.5},
	{"GitHub issues, pass-through Records, vs go-github v92", "GitHubIssues", "Generic", "GoGitHub", 5, 0},
	{"Salesforce SOQL, typed, vs go-salesforce v3", "SalesforceQuery", "Typed", "GoSalesforce", 3, 1.0 / 3},
	{"Jira issues, typed, vs go-jira v1.16", "JiraIssues", "Typed", "GoJira", 2, 0},
	{"Drive files, typed, vs google.golang.org/api/drive/v3", "DriveFiles", "Typed", "GoogleAPI", 2, 0},
	{"Slack messages, typed, vs slack-go v0.35", "SlackMessages", "Typed", "SlackGo", 2, 0},
	{"Stripe customers, typed, vs stripe-go v82.5", "StripeCustomers", "Typed", "StripeGo", 2, 0},
}

// peerPattern is the -bench pattern of every peer comparison's walks.
func peerPattern() string {
	var walks []string
	for _, p := range peers {
		if !slices.Contains(walks, p.walk) {
			walks = append(walks, p.walk)
		}
	}
	return "^Benchmark(" + strings.Join(walks, "|") + ")"
}

// goTest runs go test in dir and returns its output; a failing run is an
// error that carries its output.
func goTest(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	fmt.Fprintf(os.Stderr, "running go test %s (in %s)\n", strings.Join(args, " "), dir)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// benchResults holds every metric of every benchmark run, keyed by
// "<package>.<variant>" and unit.
type benchResults map[string]map[string][]float64

// parseBench reads go test -bench output. A benchmark is named by its
// package's last element and a variant: for the kinds, typed, generic or
// nethttp, whichever the benchmark's name ends with.
func parseBench(out string) benchResults {
	res := benchResults{}
	pkg := ""
	suffix := regexp.MustCompile(`-\d+$`)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "pkg:" {
			pkg = f[1][strings.LastIndex(f[1], "/")+1:]
			continue
		}
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(suffix.ReplaceAllString(f[0], ""), "Benchmark")
		if pkg != "bench" {
			low := strings.ToLower(strings.NewReplacer("_", "", "/", "").Replace(name))
			for _, v := range []string{"typed", "generic", "nethttp"} {
				if strings.HasSuffix(low, v) {
					name = v
				}
			}
		}
		key := pkg + "." + name
		if res[key] == nil {
			res[key] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				res[key][f[i+1]] = append(res[key][f[i+1]], v)
			}
		}
	}
	return res
}

func (b benchResults) median(key, unit string) float64 {
	xs := slices.Clone(b[key][unit])
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// kinds lists the packages that have typed and net/http benchmarks.
func (b benchResults) kinds() []string {
	var out []string
	for k := range b {
		if pkg, ok := strings.CutSuffix(k, ".nethttp"); ok {
			out = append(out, pkg)
		}
	}
	slices.Sort(out)
	return out
}

// ratioRow compares ours with theirs: at least target when more is
// better, at most target otherwise.
func ratioRow(what string, ours, theirs, target float64, more bool) row {
	r := row{what: what, tributary: num(ours), other: num(theirs), goal: target, more: more}
	if theirs == 0 || ours == 0 {
		r.ratio = "no figure"
		return r
	}
	x := ours / theirs
	r.x = x
	r.ratio = fmt.Sprintf("%.2f×", x)
	if x < 1 {
		r.ratio = fmt.Sprintf("%.3f×", x)
	}
	if more {
		r.target, r.met = fmt.Sprintf("≥ %.1f×", target), x >= target
	} else {
		r.target, r.met = fmt.Sprintf("≤ %.2f×", target), x <= target
	}
	return r
}

func num(x float64) string {
	switch {
	case x >= 1e4:
		return fmt.Sprintf("%.0fk", x/1e3)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

var (
	dlRatio  = regexp.MustCompile(`(\d+ [MG]iB): tributary's throughput is ([\d.]+)× plain io.Copy's`)
	dlRSS    = regexp.MustCompile(`peak RSS: tributary ([\d.]+) MiB, plain ([\d.]+) MiB`)
	preRatio = regexp.MustCompile(`window 1 (\S+), window 4 (\S+) \(([\d.]+)×\)`)
	heapLine = regexp.MustCompile(`peak live heap after (\d+) tickets: ([\d.]+) MiB; after (\d+): ([\d.]+) MiB`)
)

func downloadRows(out string) []row {
	m := dlRatio.FindStringSubmatch(out)
	if m == nil {
		return []row{{what: "download throughput vs io.Copy", ratio: "no figure"}}
	}
	x, _ := strconv.ParseFloat(m[2], 64)
	rows := []row{{what: "download of " + m[1] + ", throughput vs io.Copy of the same response", tributary: "", other: "",
		ratio: m[2] + "×", target: "≥ 0.9×", met: x >= 0.9, x: x, goal: 0.9, more: true}}
	peak := 0.0
	for _, r := range dlRSS.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(r[1], 64)
		peak = max(peak, v)
	}
	rows = append(rows, row{what: "download of " + m[1] + ", peak resident memory", tributary: fmt.Sprintf("%.1f MiB", peak),
		target: "< 32 MiB", met: peak > 0 && peak < 32, x: peak, goal: 32})
	return rows
}

func prefetchRow(out string) row {
	m := preRatio.FindStringSubmatch(out)
	if m == nil {
		return row{what: "100 pages at 50 ms, default prefetch vs one page ahead", ratio: "no figure"}
	}
	x, _ := strconv.ParseFloat(m[3], 64)
	return row{what: "100 pages at 50 ms, default prefetch vs one page ahead", tributary: m[2], other: m[1],
		ratio: m[3] + "×", target: "≤ 0.6×", met: x <= 0.6, x: x, goal: 0.6}
}

func heapRow(out string) row {
	m := heapLine.FindStringSubmatch(out)
	if m == nil {
		return row{what: "peak live heap of a walk", ratio: "no figure"}
	}
	early, _ := strconv.ParseFloat(m[2], 64)
	late, _ := strconv.ParseFloat(m[4], 64)
	return row{what: fmt.Sprintf("peak live heap, %s records vs %s", m[3], m[1]), tributary: m[4] + " MiB", other: m[2] + " MiB",
		ratio: fmt.Sprintf("%.2f×", late/early), target: "≤ 1.10×", met: late <= early*1.1, x: late / early, goal: 1.1}
}
