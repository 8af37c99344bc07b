package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/kinds"
)

// downloadTarget says where a download goes.
type downloadTarget struct {
	path      string // "" or "-": stdout
	rangeSpec string // --range
	resume    bool
}

func (a *app) downloadCmd() *cobra.Command {
	var (
		conn connFlags
		pf   paramFlags
		t    downloadTarget
	)
	cmd := &cobra.Command{
		Use:   "download <type> <entity>",
		Short: "Stream a file to disk, with ranges and resume",
		Long: `download runs the download action of an entity and streams the file to
-o FILE (or to stdout). A dropped connection is resumed by the library
without duplicating a byte. --range asks for part of the file
(bytes=FIRST-LAST, bytes=FIRST-, bytes=-N). --resume continues a partial
FILE from its size: after Ctrl-C or a failure, run the same command again
with --resume. A file that changed on the server since the partial download
is refused rather than spliced (FILE.tributary-resume keeps what the server
said about it until the download completes).

` + exitHelp,
		Example: `  tributary download zendesk-support attachments --sandbox -p attachment_id=30000000000000 -o screenshot.png
  tributary download github release_assets --sandbox -p owner=octo -p repo=hello -p asset_id=40000028 -o hello.tar.gz
  tributary download github file_content --sandbox -p owner=octo -p repo=hello -p path=data/large.bin --range bytes=0-1023 -o head.bin

  # after Ctrl-C or a dropped connection, continue where the file ends
  tributary download github file_content --sandbox -p owner=octo -p repo=hello -p path=data/large.bin -o large.bin --resume`,
		Args:              exactArgs(2),
		ValidArgsFunction: completeTypeEntity(func(e tributary.Entity) bool { return e.Supports(tributary.ActionDownload) }),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind, entity := args[0], args[1]
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if _, err := checkOperation(kind, es, entity, tributary.ActionDownload); err != nil {
				return err
			}
			op := operation{kind: kind, entities: es, entity: entity, action: tributary.ActionDownload}
			params, err := a.params(op, pf)
			if err != nil {
				return err
			}
			if t.resume && (t.path == "" || t.path == "-") {
				return usageErr(cmd, "--resume continues a file: give -o FILE")
			}
			if _, ok := params["range_header"]; ok && t.rangeSpec != "" {
				return usageErr(cmd, "give the range once: --range or -p range_header")
			}
			s, err := a.open(cmd, &conn, kind)
			if err != nil {
				return err
			}
			defer s.close()
			return a.download(cmd.Context(), s, op, params, t)
		}),
	}
	conn.add(cmd, true)
	addParamFlags(cmd, &pf)
	cmd.Flags().StringVarP(&t.path, "output", "o", "", "write to FILE (default: stdout)")
	cmd.Flags().StringVar(&t.rangeSpec, "range", "", "download only this byte range: bytes=FIRST-LAST, bytes=FIRST- or bytes=-N")
	cmd.Flags().BoolVar(&t.resume, "resume", false, "continue a partial -o FILE from its size")
	return cmd
}

// resumeState is what FILE.tributary-resume keeps while a download is
// incomplete: the server's validator of the file and the range FILE holds
// the start of.
type resumeState struct {
	Validator string `json:"validator,omitempty"`
	Start     int64  `json:"start"` // the file's byte that FILE starts with
	End       int64  `json:"end"`   // the last byte wanted, -1 for the end
}

func stateFile(path string) string { return path + ".tributary-resume" }

// download streams the file of op to t.
//
// --resume asks for the rest of the file from one byte before FILE's end:
// that byte must be FILE's last byte (a cheap check that FILE is a prefix of
// this file), and a complete FILE gets exactly that byte back, so resuming
// a finished download succeeds without a 416. When FILE.tributary-resume
// holds the server's validator, a file that changed since is refused.
func (a *app) download(ctx context.Context, s *session, op operation, params tributary.Params, t downloadTarget) error {
	rng := t.rangeSpec
	rangeError := func(format string, args ...any) error { return op.flagError("--range", format, args...) }
	if v, ok := params["range_header"].(string); ok {
		rng = v
		rangeError = func(format string, args ...any) error { return op.paramError("range_header", format, args...) }
	}
	want := &download.Range{Start: 0, End: -1}
	if rng != "" {
		r, err := download.ParseRange(rng)
		if err != nil {
			return rangeError("%v", err)
		}
		want = &r
	}
	toStdout := t.path == "" || t.path == "-"
	if toStdout && a.isTerminal(a.stdout) {
		return &usageError{msg: "not writing a file to the terminal: give -o FILE, or redirect stdout"}
	}

	var have int64 // bytes of FILE already downloaded
	var prev resumeState
	if t.resume {
		fi, err := os.Stat(t.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		default:
			have = fi.Size()
		}
		prev = resumeState{Start: want.Start, End: want.End}
		if b, err := os.ReadFile(stateFile(t.path)); err == nil {
			_ = json.Unmarshal(b, &prev)
		}
		if have > 0 && prev.Start < 0 {
			return rangeError("--resume cannot continue a suffix range (bytes=-N) without %s", stateFile(t.path))
		}
	}
	p := params.Clone()
	delete(p, "range_header")
	switch {
	case have > 0:
		p["range_header"] = download.Range{Start: prev.Start + have - 1, End: prev.End}.String()
	case rng != "":
		p["range_header"] = want.String()
	}

	stream, err := s.conn.Download(ctx, op.entity, p)
	if err != nil {
		return err
	}
	defer stream.Close()
	if have > 0 && prev.Validator != "" && stream.Validator != "" && prev.Validator != stream.Validator {
		return &tributary.Error{Kind: op.kind, Entity: op.entity, Action: op.action, Err: download.ErrChanged,
			Message: fmt.Sprintf("the file changed on the server since %s was started; remove it and download again", t.path)}
	}

	total := stream.Size
	if stream.Range != nil {
		total = stream.Range.Last - stream.Range.First + 1
	}

	var out io.Writer = a.stdout
	var file *os.File
	if !toStdout {
		if have > 0 {
			if err := checkOverlap(t.path, have, stream); err != nil {
				return err
			}
			total--
			file, err = os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND, 0)
		} else {
			file, err = os.Create(t.path)
		}
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
		if have == 0 {
			st := resumeState{Validator: stream.Validator, Start: 0, End: -1}
			if stream.Range != nil {
				st.Start, st.End = stream.Range.First, stream.Range.Last
			}
			if err := writeFileAtomic(stateFile(t.path), st); err != nil {
				return err
			}
		}
	}

	what := op.entity
	if !toStdout {
		what = t.path
	}
	if have > 0 {
		what += " (resumed at " + strconv.FormatInt(have, 10) + " bytes)"
	}
	m := a.byteMeter(what, total, toStdout)
	n, err := io.Copy(writerFunc(func(b []byte) (int, error) {
		k, err := out.Write(b)
		m.add(k)
		return k, err
	}), stream)
	m.done()
	if err != nil {
		if ctx.Err() != nil {
			done := fmt.Sprintf("%d bytes written", n)
			if !toStdout {
				done = fmt.Sprintf("%d bytes written to %s; run the same command with --resume to continue", have+n, t.path)
			}
			return &interrupted{done: done, err: err}
		}
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return err
		}
		_ = os.Remove(stateFile(t.path))
	}
	return nil
}

// checkOverlap reads the first byte of a resumed stream, which must be the
// last byte of the partial file.
func checkOverlap(path string, have int64, stream io.Reader) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, have-1); err != nil {
		return err
	}
	first := make([]byte, 1)
	if _, err := io.ReadFull(stream, first); err != nil {
		return fmt.Errorf("resuming %s: %w", path, err)
	}
	if first[0] != last[0] {
		return fmt.Errorf("%s is not the start of this file (its last byte differs from the server's): remove it and download again", path)
	}
	return nil
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
