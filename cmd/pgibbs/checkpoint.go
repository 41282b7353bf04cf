package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pgibbs/pgibbs/gibbs"
)

// Checkpoints. A sampling subcommand run with -checkpoint FILE stops its
// chains at a step boundary every -checkpoint-every and on SIGINT/SIGTERM,
// and writes FILE atomically (temporary file + rename): the command line,
// and per chain the steps done, the PCG state, the sampler's and observers'
// snapshots and the length of its trace file. `-resume FILE` rebuilds the
// run from the stored command line and continues it bit for bit: the final
// state, the outputs and the trace files are those of an uninterrupted run
// with the same seed.
//
// File format: one header line "pgibbs-checkpoint <version> sha256:<hex>",
// the SHA-256 of the rest of the file, then the JSON payload. A file that
// fails the checksum, is of another version or belongs to another command
// is refused with a message saying which.

const (
	checkpointMagic   = "pgibbs-checkpoint"
	checkpointVersion = 1
)

// checkpoint is the payload of a checkpoint file.
type checkpoint struct {
	Command string       `json:"command"`
	Args    []string     `json:"args"`
	Trace   string       `json:"trace,omitempty"`
	Chains  []chainCheck `json:"chains"`
	Written string       `json:"written"`
}

// chainCheck is one chain's part of a checkpoint.
type chainCheck struct {
	Steps      int64             `json:"steps"`
	RNG        []byte            `json:"rng"`
	Sampler    json.RawMessage   `json:"sampler"`
	Observers  []json.RawMessage `json:"observers,omitempty"`
	TraceBytes int64             `json:"trace_bytes,omitempty"`
}

// writeCheckpoint writes c to path atomically.
func writeCheckpoint(path string, c *checkpoint) error {
	c.Written = time.Now().UTC().Format(time.RFC3339)
	payload, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	sum := sha256.Sum256(payload)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %d sha256:%s\n", checkpointMagic, checkpointVersion, hex.EncodeToString(sum[:]))
	buf.Write(payload)
	buf.WriteByte('\n')
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := f.Name()
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// readCheckpoint reads and verifies a checkpoint file.
func readCheckpoint(path string) (*checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	header, payload, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("%s: not a pgibbs checkpoint (no header line)", path)
	}
	fields := strings.Fields(string(header))
	if len(fields) != 3 || fields[0] != checkpointMagic || !strings.HasPrefix(fields[2], "sha256:") {
		return nil, fmt.Errorf("%s: not a pgibbs checkpoint (header %.60q)", path, header)
	}
	if v, err := strconv.Atoi(fields[1]); err != nil || v != checkpointVersion {
		return nil, fmt.Errorf("%s: checkpoint format version %s; this pgibbs reads version %d", path, fields[1], checkpointVersion)
	}
	payload = bytes.TrimSuffix(payload, []byte("\n"))
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(fields[2], "sha256:") {
		return nil, fmt.Errorf("%s: checkpoint is corrupt: its checksum does not match its contents", path)
	}
	var c checkpoint
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%s: checkpoint is corrupt: %v", path, err)
	}
	return &c, nil
}

// control carries a run's checkpoint, resume and trace settings.
type control struct {
	command string
	out     io.Writer     // where the progress bar goes: the flag set's output, stderr
	args    []string      // the run's flags, canonical, for the checkpoint
	file    string        // -checkpoint
	every   time.Duration // -checkpoint-every
	resume  string        // -resume
	trace   string        // -trace
	quiet   bool          // -quiet
	resumed *checkpoint
	// bar shows the run's progress on a terminal (nil: none).
	bar *progress
}

// controlFlagNames are the flags that may differ between a run and its
// resumption.
var controlFlagNames = map[string]bool{"checkpoint": true, "checkpoint-every": true, "resume": true, "trace": true, "quiet": true}

// addControlFlags defines -checkpoint, -checkpoint-every, -resume and
// -trace on fs.
func addControlFlags(fs *flag.FlagSet, command string) *control {
	c := &control{command: command}
	fs.StringVar(&c.file, "checkpoint", "", "write a checkpoint to this file periodically and on SIGINT/SIGTERM")
	fs.DurationVar(&c.every, "checkpoint-every", time.Minute, "interval between checkpoints")
	fs.StringVar(&c.resume, "resume", "", "continue the run saved in this checkpoint (its flags are reused)")
	fs.StringVar(&c.trace, "trace", "", "stream the chains' states to this CSV file (one file a chain: FILE, or FILE with .cK before the extension for K chains), flushed at each checkpoint")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar (it is drawn on stderr only when stderr is a terminal and the run lasts over a second)")
	c.out = fs.Output()
	return c
}

// setup finishes flag handling after fs.Parse: on -resume it loads the
// checkpoint, checks that flags given on the command line agree with it
// and re-parses the stored flags; it then records the canonical flags.
func (c *control) setup(fs *flag.FlagSet) error {
	if c.file != "" && c.every <= 0 {
		return usagef("-checkpoint-every %v: need a positive interval", c.every)
	}
	if c.resume != "" {
		ck, err := readCheckpoint(c.resume)
		if err != nil {
			return err
		}
		if ck.Command != c.command {
			return fmt.Errorf("%s: the checkpoint is of `pgibbs %s`, not `pgibbs %s`", c.resume, ck.Command, c.command)
		}
		stored := map[string]string{}
		for _, a := range ck.Args {
			name, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
			stored[name] = value
		}
		var conflict error
		fs.Visit(func(f *flag.Flag) {
			if controlFlagNames[f.Name] || conflict != nil {
				return
			}
			if v, ok := stored[f.Name]; !ok || v != f.Value.String() {
				conflict = usagef("-%s %s differs from the checkpoint's -%s %s: a resumed run keeps its flags", f.Name, f.Value, f.Name, v)
			}
		})
		if conflict != nil {
			return conflict
		}
		if err := fs.Parse(ck.Args); err != nil {
			return fmt.Errorf("%s: the checkpoint's flags do not parse: %v", c.resume, err)
		}
		if c.trace != "" && c.trace != ck.Trace {
			return usagef("-trace %s differs from the checkpoint's trace file %q", c.trace, ck.Trace)
		}
		c.trace = ck.Trace
		if c.file == "" {
			c.file = c.resume // keep checkpointing where the run was
		}
		c.resumed = ck
	}
	if c.bar == nil && c.out != nil {
		c.bar = newProgress(c.out, c.quiet)
	}
	c.args = nil
	fs.VisitAll(func(f *flag.Flag) {
		if !controlFlagNames[f.Name] {
			c.args = append(c.args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return nil
}

// unit is one chain of a run as the segment loop drives it.
type unit interface {
	// advance runs the chain on until it has done `to` steps or ctx is
	// done, and returns the steps done.
	advance(ctx context.Context, to int64) (int64, error)
	// save and load the chain's state for a checkpoint.
	save() (chainCheck, error)
	load(chainCheck) error
}

// progressCounter is implemented by units that publish their step count
// while they advance (same units as runUnits' total), for the progress bar.
type progressCounter interface {
	progressCounter() *atomic.Int64
}

// watch draws the progress of the counters on c.bar, label and total (≤ 0:
// unknown) as for progress.Start, until the returned stop is called.
func (c *control) watch(label string, total int64, counters []*atomic.Int64) (stop func()) {
	if c == nil || c.bar == nil || !c.bar.enabled || len(counters) == 0 {
		return func() {}
	}
	c.bar.Start(label, total)
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(progressInterval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				var sum int64
				for _, n := range counters {
					sum += n.Load()
				}
				c.bar.Set(sum)
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		c.bar.Done()
	}
}

// errInterrupted reports a run stopped by SIGINT/SIGTERM; with a
// checkpoint it says how to resume.
type errInterrupted struct {
	command, file string
}

func (e *errInterrupted) Error() string {
	if e.file == "" {
		return "interrupted"
	}
	return fmt.Sprintf("interrupted; checkpoint written to %s; continue with: pgibbs %s -resume %s", e.file, e.command, e.file)
}

func (e *errInterrupted) Unwrap() error { return context.Canceled }

// stopped reports whether err only says a context ended.
func stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// runUnits runs the chains to `total` steps each, in parallel, in segments
// between checkpoints. It restores them from a resumed checkpoint first.
func (c *control) runUnits(ctx context.Context, units []unit, total int64) ([]int64, error) {
	done := make([]int64, len(units))
	if ck := c.resumed; ck != nil {
		if len(ck.Chains) != len(units) {
			return nil, fmt.Errorf("%s: the checkpoint holds %d chains, the run %d", c.resume, len(ck.Chains), len(units))
		}
		for k, u := range units {
			if err := u.load(ck.Chains[k]); err != nil {
				return nil, fmt.Errorf("%s: chain %d: %w", c.resume, k, err)
			}
			done[k] = ck.Chains[k].Steps
		}
	}
	var counters []*atomic.Int64
	for k, u := range units {
		if p, ok := u.(progressCounter); ok {
			n := p.progressCounter()
			n.Store(done[k])
			counters = append(counters, n)
		}
	}
	stop := c.watch(c.command, total*int64(len(units)), counters)
	defer stop()
	for {
		seg, cancel := context.WithCancel(ctx)
		var timer *time.Timer
		if c.file != "" {
			timer = time.AfterFunc(c.every, cancel)
		}
		errs := make([]error, len(units))
		finished := make(chan int, len(units))
		for k, u := range units {
			go func() {
				done[k], errs[k] = u.advance(seg, total)
				if errs[k] != nil && !stopped(errs[k]) {
					cancel() // a failing chain stops the others
				}
				finished <- k
			}()
		}
		for range units {
			<-finished
		}
		if timer != nil {
			timer.Stop()
		}
		cancel()
		for k, err := range errs {
			if err != nil && !stopped(err) {
				return done, fmt.Errorf("chain %d: %w", k, err)
			}
		}
		complete := true
		for _, d := range done {
			complete = complete && d >= total
		}
		if c.file != "" {
			if err := c.save(units, done); err != nil {
				return done, err
			}
		}
		if complete {
			return done, nil
		}
		if ctx.Err() != nil {
			return done, &errInterrupted{command: c.command, file: c.file}
		}
	}
}

// save writes a checkpoint of the units.
func (c *control) save(units []unit, done []int64) error {
	ck := &checkpoint{Command: c.command, Args: c.args, Trace: c.trace}
	for k, u := range units {
		cc, err := u.save()
		if err != nil {
			return fmt.Errorf("checkpoint of chain %d: %w", k, err)
		}
		cc.Steps = done[k]
		ck.Chains = append(ck.Chains, cc)
	}
	return writeCheckpoint(c.file, ck)
}

// tracePath returns the trace file of chain k of n.
func tracePath(path string, k, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.c%d%s", strings.TrimSuffix(path, ext), k, ext)
}

// traceFile streams rows of a chain's states to a CSV file through a
// buffer flushed at checkpoints; its length at the last flush is what a
// checkpoint records, and a resumed run truncates the file to it, so no row
// is lost or written twice.
type traceFile struct {
	f       *os.File
	w       *bufio.Writer
	written int64 // bytes written, flushed or not
	every   int64 // a row every this many updates (or steps)
	next    int64
	vars    []int
	row     []byte
}

// openTrace creates (or, resuming, truncates to size) the trace file.
func openTrace(path string, vars []int, every int64, resume bool, size int64) (*traceFile, error) {
	t := &traceFile{every: every, next: every, vars: vars}
	var err error
	if resume {
		t.f, err = os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		info, err := t.f.Stat()
		if err != nil {
			return nil, err
		}
		if info.Size() < size {
			t.f.Close()
			return nil, fmt.Errorf("trace: %s is %d bytes, shorter than the %d the checkpoint recorded", path, info.Size(), size)
		}
		if err := t.f.Truncate(size); err != nil {
			return nil, err
		}
		if _, err := t.f.Seek(size, io.SeekStart); err != nil {
			return nil, err
		}
		t.written = size
	} else {
		t.f, err = os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
	}
	t.w = bufio.NewWriterSize(t.f, 1<<16)
	if !resume {
		head := []byte("step")
		for _, i := range vars {
			head = append(head, ",x"...)
			head = strconv.AppendInt(head, int64(i), 10)
		}
		head = append(head, '\n')
		t.write(head)
	}
	return t, nil
}

func (t *traceFile) write(b []byte) {
	n, _ := t.w.Write(b) // errors surface at flush
	t.written += int64(n)
}

// Observe implements gibbs.Observer: a row every t.every updates.
func (t *traceFile) Observe(n int64, _ int, x []float64) {
	if n < t.next {
		return
	}
	t.next = n + t.every
	t.row = strconv.AppendInt(t.row[:0], n, 10)
	for _, i := range t.vars {
		t.row = append(t.row, ',')
		t.row = strconv.AppendFloat(t.row, x[i], 'g', -1, 64)
	}
	t.row = append(t.row, '\n')
	t.write(t.row)
}

// flush writes out the buffer and returns the file's length.
func (t *traceFile) flush() (int64, error) {
	if err := t.w.Flush(); err != nil {
		return 0, fmt.Errorf("trace: %w", err)
	}
	return t.written, nil
}

// close flushes and closes the file.
func (t *traceFile) close() error {
	if _, err := t.flush(); err != nil {
		return err
	}
	return t.f.Close()
}

// Snapshot flushes the file and returns the position of the next row; the
// file's length goes into the checkpoint separately (TraceBytes).
func (t *traceFile) Snapshot() ([]byte, error) {
	if _, err := t.flush(); err != nil {
		return nil, err
	}
	return json.Marshal(struct{ Next int64 }{t.next})
}

// Restore sets the position of the next row.
func (t *traceFile) Restore(data []byte) error {
	var st struct{ Next int64 }
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	t.next = st.Next
	return nil
}

var (
	_ gibbs.Observer    = (*traceFile)(nil)
	_ gibbs.Snapshotter = (*traceFile)(nil)
)
