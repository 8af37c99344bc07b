package vendorspec

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// allowList is testdata/vendor-specs/allow-<vendor>.txt: the differences
// between fixtures and the description that are the description's fault,
// each with its reason. A line is
//
//	<fixture name or glob>[#<exchange, from 1>] | <text of the difference> | <reason>
//
// and "#" starts a comment line. A difference is allowed when an entry's
// fixture matches, its exchange (if given) is the one, and the difference
// contains the text.
type allowList struct {
	file    string
	entries []*allowEntry
}

type allowEntry struct {
	line     int
	fixture  string
	exchange int // 0: any
	text     string
	reason   string

	mu   sync.Mutex
	used bool
}

func readAllowList(file string) (*allowList, error) {
	l := &allowList{file: filepath.Base(file)}
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 || strings.TrimSpace(parts[1]) == "" || strings.TrimSpace(parts[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want <fixture>[#<exchange>] | <text of the difference> | <reason>", l.file, n)
		}
		e := &allowEntry{line: n, fixture: strings.TrimSpace(parts[0]), text: strings.TrimSpace(parts[1]), reason: strings.TrimSpace(parts[2])}
		if i := strings.LastIndexByte(e.fixture, '#'); i >= 0 {
			x, err := strconv.Atoi(e.fixture[i+1:])
			if err != nil || x < 1 {
				return nil, fmt.Errorf("%s:%d: exchange %q: want a number from 1", l.file, n, e.fixture[i+1:])
			}
			e.fixture, e.exchange = e.fixture[:i], x
		}
		if _, err := path.Match(e.fixture, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: fixture %q: %w", l.file, n, e.fixture, err)
		}
		l.entries = append(l.entries, e)
	}
	return l, sc.Err()
}

// allowed returns the reason a difference of a fixture's exchange (from 1)
// is allowed, and marks the entry used.
func (l *allowList) allowed(fixture string, exchange int, problem string) (string, bool) {
	for _, e := range l.entries {
		if ok, _ := path.Match(e.fixture, fixture); !ok {
			continue
		}
		if e.exchange != 0 && e.exchange != exchange {
			continue
		}
		if !strings.Contains(problem, e.text) {
			continue
		}
		e.mu.Lock()
		e.used = true
		e.mu.Unlock()
		return fmt.Sprintf("%s:%d: %s", l.file, e.line, e.reason), true
	}
	return "", false
}

// unused returns the entries that name one of the fixtures but allowed no
// difference: they are stale, and must go.
func (l *allowList) unused(fixtures []string) []string {
	var out []string
	for _, e := range l.entries {
		e.mu.Lock()
		used := e.used
		e.mu.Unlock()
		if used {
			continue
		}
		for _, f := range fixtures {
			if ok, _ := path.Match(e.fixture, f); ok {
				out = append(out, fmt.Sprintf("%s:%d (%s): allows no difference any more; remove it", l.file, e.line, e.fixture))
				break
			}
		}
	}
	return out
}
