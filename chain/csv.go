package chain

import (
	"bufio"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
)

// RowFunc appends the CSV row (without its newline) for step t and state x
// to dst.
type RowFunc func(dst []byte, t int64, x []float64) []byte

// StateRow returns the RowFunc of a state trace: t, then x[i] for i in vars,
// in the shortest form that reads back exactly. Its header is
// StateHeader(vars).
func StateRow(vars []int) RowFunc {
	return func(dst []byte, t int64, x []float64) []byte {
		dst = strconv.AppendInt(dst, t, 10)
		for _, i := range vars {
			dst = append(dst, ',')
			dst = strconv.AppendFloat(dst, x[i], 'g', -1, 64)
		}
		return dst
	}
}

// StateHeader returns the header "step,x<i>,…" of a StateRow trace.
func StateHeader(vars []int) string {
	b := []byte("step")
	for _, i := range vars {
		b = append(b, ",x"...)
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return string(b)
}

// CSV is an Observer that streams a row every Every steps to a CSV file
// through a buffer. Its snapshot flushes the buffer and records the file's
// length and the SHA-256 of its contents, and Restore, on a file opened with
// OpenCSV, checks that the file still begins with exactly those bytes before
// truncating it to them: a resumed run neither loses nor repeats a row, and
// never truncates a file that is not its own trace.
type CSV struct {
	path    string
	f       *os.File
	w       *bufio.Writer
	h       hash.Hash // of every byte written
	written int64
	every   int64
	next    int64
	row     RowFunc
	buf     []byte
	resume  bool // opened by OpenCSV and not yet restored
	err     error
}

// CreateCSV creates (or truncates) the file at path, writes the header line
// and returns an observer writing row(t, x) every every steps.
func CreateCSV(path, header string, every int64, row RowFunc) (*CSV, error) {
	if every < 1 {
		return nil, fmt.Errorf("chain: CSV trace every %d steps", every)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	c := &CSV{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16), h: sha256.New(), every: every, next: every, row: row}
	c.write(append([]byte(header), '\n'))
	return c, nil
}

// OpenCSV opens the existing trace file at path for a resumed run: nothing
// is written until Restore has checked and truncated it.
func OpenCSV(path string, every int64, row RowFunc) (*CSV, error) {
	if every < 1 {
		return nil, fmt.Errorf("chain: CSV trace every %d steps", every)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return &CSV{path: path, f: f, h: sha256.New(), every: every, next: every, row: row, resume: true}, nil
}

func (c *CSV) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.h.Write(b[:n])
	c.written += int64(n)
	if err != nil {
		c.err = fmt.Errorf("trace %s: %w", c.path, err)
	}
}

// Observe implements Observer.
func (c *CSV) Observe(t int64, _ int, x []float64) {
	if t < c.next {
		return
	}
	if c.resume {
		c.err = fmt.Errorf("trace %s: written before the checkpoint restored it", c.path)
		return
	}
	c.next = t + c.every
	c.buf = append(c.row(c.buf[:0], t, x), '\n')
	c.write(c.buf)
}

// Flush writes out the buffer; it returns the first write error.
func (c *CSV) Flush() error {
	if c.err == nil && c.w != nil {
		if err := c.w.Flush(); err != nil {
			c.err = fmt.Errorf("trace %s: %w", c.path, err)
		}
	}
	return c.err
}

// Close flushes and closes the file.
func (c *CSV) Close() error {
	err := c.Flush()
	if cerr := c.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace %s: %w", c.path, cerr)
	}
	return err
}

type csvState struct {
	Next   int64  `json:"next"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"` // of the file's first Bytes bytes
	Hash   []byte `json:"hash"`   // the running hash's state
}

// Snapshot implements Snapshotter: it flushes the file.
func (c *CSV) Snapshot() ([]byte, error) {
	if c.resume {
		return nil, fmt.Errorf("trace %s: snapshot before restore", c.path)
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	hs, err := c.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	return snapshotObserver("csv", csvState{Next: c.next, Bytes: c.written, SHA256: hex.EncodeToString(c.h.Sum(nil)), Hash: hs})
}

// Restore implements Snapshotter for a CSV opened with OpenCSV: the file
// must begin with the bytes the snapshot recorded (same length and
// SHA-256); it is truncated to them.
func (c *CSV) Restore(data []byte) error {
	st, err := restoreObserver[csvState]("csv", data)
	if err != nil {
		return err
	}
	if !c.resume {
		return fmt.Errorf("trace %s: restore of a trace file created afresh (use OpenCSV)", c.path)
	}
	if st.Bytes < 0 || st.Next < 0 {
		return fmt.Errorf("trace %s: the checkpoint records %d bytes", c.path, st.Bytes)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(c.f, st.Bytes))
	if err != nil {
		return fmt.Errorf("trace %s: %w", c.path, err)
	}
	if n < st.Bytes || hex.EncodeToString(h.Sum(nil)) != st.SHA256 {
		return fmt.Errorf("trace %s: the file is not the trace this checkpoint wrote (its first %d bytes differ); refusing to truncate it", c.path, st.Bytes)
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st.Hash); err != nil || hex.EncodeToString(h.Sum(nil)) != st.SHA256 {
		return errors.Join(fmt.Errorf("trace %s: the checkpoint's hash state is corrupt", c.path), err)
	}
	if err := c.f.Truncate(st.Bytes); err != nil {
		return fmt.Errorf("trace %s: %w", c.path, err)
	}
	if _, err := c.f.Seek(st.Bytes, io.SeekStart); err != nil {
		return fmt.Errorf("trace %s: %w", c.path, err)
	}
	c.h, c.written, c.next, c.resume = h, st.Bytes, st.Next, false
	c.w = bufio.NewWriterSize(c.f, 1<<16)
	return nil
}
