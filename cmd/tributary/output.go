package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/tributary-dev/tributary"
)

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// pageOutput is what exec prints for one page (list, api_search) or one
// record (get): the records as the source sent them, the page's meta, and
// the params of the following page (null on the last).
type pageOutput struct {
	Records []tributary.Record `json:"records"`
	Meta    map[string]any     `json:"meta"`
	Next    tributary.Params   `json:"next"`
}

// ndjson writes one JSON value per line. Every line reaches the output
// whole, so the output is valid NDJSON wherever it stops. Lines are buffered
// and flushed every flushEvery by a goroutine that close stops, so a slow
// walk still streams.
type ndjson struct {
	mu   sync.Mutex
	w    *bufio.Writer
	line bytes.Buffer
	n    int
	err  error // the first write error, also seen by the flusher

	stop chan struct{}
	done chan struct{}
}

const flushEvery = 200 * time.Millisecond

func newNDJSON(w io.Writer) *ndjson {
	o := &ndjson{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-o.stop:
				return
			case <-t.C:
				o.mu.Lock()
				if o.err == nil && o.w.Buffered() > 0 {
					o.err = o.w.Flush()
				}
				o.mu.Unlock()
			}
		}
	}()
	return o
}

// write writes raw, a JSON value, compacted onto one line.
func (o *ndjson) write(raw []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	o.line.Reset()
	if err := json.Compact(&o.line, raw); err != nil {
		return err
	}
	o.line.WriteByte('\n')
	if o.w.Available() < o.line.Len() && o.w.Buffered() > 0 {
		// Flush first, so that the buffer never sends part of a line.
		if o.err = o.w.Flush(); o.err != nil {
			return o.err
		}
	}
	if _, o.err = o.w.Write(o.line.Bytes()); o.err != nil {
		return o.err
	}
	o.n++
	return nil
}

// close stops the flusher and flushes what is left.
func (o *ndjson) close() error {
	close(o.stop)
	<-o.done
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	return o.w.Flush()
}
