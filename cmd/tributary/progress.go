package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// meter shows the progress of long work on stderr, drawn by progressbar. A
// nil *meter is quiet: every method does nothing, so callers never test
// whether progress is on.
type meter struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	what  string
	start time.Time
	unit  string // "records", "hits", or "" for bytes
	// counted is false while records are not counted as they come (a
	// replica's sync): only pages are shown, and the count given to setCount.
	counted bool
	// total is the number of records the source says the walk has (0:
	// unknown); with it the description shows the time left.
	total int64

	mu        sync.Mutex // pages are counted by the HTTP transport
	n, pages  int64
	described time.Time
}

// recordMeter starts a meter of records (unit: "records", "hits") and
// pages, or returns nil when progress is off. counted is false when the
// records are not seen as they come: setCount gives their number at the end.
// toStdout says the records are written to stdout as they come.
func (a *app) recordMeter(what, unit string, counted, toStdout bool) *meter {
	if !a.showProgress(toStdout) {
		return nil
	}
	m := &meter{w: a.stderr, what: what, start: time.Now(), unit: unit, counted: counted}
	m.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(m.description(false)),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(100*time.Millisecond),
		// No timer goroutine: the line is redrawn as records and pages arrive.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionClearOnFinish(),
	)
	return m
}

// byteMeter starts a meter of bytes out of total (-1 when unknown), with
// rate and time left, or returns nil when progress is off.
func (a *app) byteMeter(what string, total int64, toStdout bool) *meter {
	if !a.showProgress(toStdout) {
		return nil
	}
	m := &meter{w: a.stderr, what: what, start: time.Now()}
	m.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionClearOnFinish(),
	)
	return m
}

// description is the text before a record meter's spinner, and with
// final its summary line; m.mu is held. While a walk whose total is known
// runs, it shows the count out of the total and the time left at the rate
// so far.
func (m *meter) description(final bool) string {
	if !m.counted {
		return fmt.Sprintf("%s: %d %s", m.what, m.pages, plural(m.pages, "page"))
	}
	if final || m.total <= 0 {
		return fmt.Sprintf("%s: %d %s, %d %s", m.what, m.n, m.unit, m.pages, plural(m.pages, "page"))
	}
	s := fmt.Sprintf("%s: %d of %d %s, %d %s", m.what, m.n, m.total, m.unit, m.pages, plural(m.pages, "page"))
	if elapsed := time.Since(m.start); m.n > 0 && m.n < m.total && elapsed > 0 {
		left := time.Duration(float64(elapsed) * float64(m.total-m.n) / float64(m.n))
		s += ", ETA " + left.Round(time.Second).String()
	}
	return s
}

// setTotal gives the number of records the walk will yield, when the
// source says (0: unknown).
func (m *meter) setTotal(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.total = n
	m.mu.Unlock()
}

func plural(n int64, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// add counts n more records (or bytes).
func (m *meter) add(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.n += int64(n)
	m.mu.Unlock()
	m.redescribe(false)
	_ = m.bar.Add(n)
}

// setCount sets the number of records at the end of an uncounted walk.
func (m *meter) setCount(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.n, m.counted = int64(n), true
	m.mu.Unlock()
}

// page counts one more page.
func (m *meter) page() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.pages++
	m.mu.Unlock()
	m.redescribe(true)
}

// redescribe updates a record meter's description, at most every 100ms
// unless now.
func (m *meter) redescribe(now bool) {
	if m.unit == "" {
		return
	}
	m.mu.Lock()
	if !now && time.Since(m.described) < 100*time.Millisecond {
		m.mu.Unlock()
		return
	}
	m.described = time.Now()
	d := m.description(false)
	m.mu.Unlock()
	m.bar.Describe(d)
}

// done removes the bar and leaves a summary line: what was done, how long it
// took.
func (m *meter) done() {
	if m == nil {
		return
	}
	_ = m.bar.Finish()
	_ = m.bar.Clear()
	m.mu.Lock()
	defer m.mu.Unlock()
	took := time.Since(m.start).Round(time.Millisecond)
	if m.unit == "" {
		fmt.Fprintf(m.w, "%s: %s in %s\n", m.what, sizeIEC(m.n), took)
		return
	}
	fmt.Fprintf(m.w, "%s in %s\n", m.description(true), took)
}

// sizeIEC renders a byte count.
func sizeIEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for x := n / unit; x >= unit; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
