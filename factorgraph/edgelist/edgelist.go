package edgelist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Sizes of the parts of a PGEL file, in bytes (see the package
// documentation).
const (
	Magic       = "PGEL"
	Version     = 1
	HeaderSize  = 24
	RecordSize  = 16
	TrailerSize = 8
)

// Defaults of Options.
const (
	// DefaultMaxPairs is the most pairs Read accepts by default: 2³¹
	// pairs, 32 GiB of records.
	DefaultMaxPairs = 1 << 31
	// DefaultMaxVars is the most variables Read accepts by default: 2²⁸,
	// 6 GiB of domains in the builder.
	DefaultMaxVars = 1 << 28
)

// maxIndex is the largest n the format holds: variable indices are int32.
// q is at most factorgraph.MaxDomain.
const maxIndex = math.MaxInt32

// readerBytes is what a reader allocates besides the graph: its buffered
// reader and its chunk of records.
const readerBytes = 2 * chunkRecords * RecordSize

// chunkRecords is the records decoded from one read: 64 KiB.
const chunkRecords = 4096

// Options bounds what a reader accepts; the zero value gives the defaults.
// The limits are checked against the header before anything is allocated
// for it.
type Options struct {
	// MaxPairs is the most pairs accepted (16 bytes each in the input and
	// in memory); 0 means DefaultMaxPairs.
	MaxPairs int64
	// MaxVars is the most variables accepted; 0 means DefaultMaxVars.
	MaxVars int
	// MaxBytes is the most memory, in bytes, that reading the file and
	// building its graph may take, estimated from the header's n and m
	// (factorgraph.Size.BuildBytes, and the reader's buffers); 0 means
	// factorgraph.DefaultMaxBytes(), the machine's memory; +Inf, no limit.
	// The graph's builder gets the same limit.
	MaxBytes float64
}

// Pairs is the content of a PGEL file: N variables of Q states and the
// Potts pairs W[k]·δ(x_{I[k]}, x_{J[k]}), in the form
// factorgraph.Builder.AddPottsPairs takes.
type Pairs struct {
	N, Q int       // variables and states
	I, J []int32   // the pairs' variables
	W    []float64 // their weights
}

// FormatError reports an input that is not a valid PGEL file: the byte
// offset of the field at fault, counted from the start of the header, and
// the pair it belongs to (−1 for the header and the trailer).
type FormatError struct {
	Offset int64
	Pair   int64
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Pair >= 0 {
		return fmt.Sprintf("edgelist: byte %d (pair %d): %s", e.Offset, e.Pair, e.Msg)
	}
	return fmt.Sprintf("edgelist: byte %d: %s", e.Offset, e.Msg)
}

func formatErr(off, pair int64, format string, args ...any) error {
	return &FormatError{Offset: off, Pair: pair, Msg: fmt.Sprintf(format, args...)}
}

// check reports the first reason n, q and the pairs do not make a valid
// file, as the reader reports it, with the byte offsets a file would have.
func check(n, q int, i, j []int32, w []float64) error {
	switch {
	case len(i) != len(j) || len(i) != len(w):
		return fmt.Errorf("edgelist: %d, %d and %d values in i, j and w", len(i), len(j), len(w))
	case n < 1 || n > maxIndex:
		return formatErr(8, -1, "%d variables: want 1 to %d", n, maxIndex)
	case q < 1 || q > factorgraph.MaxDomain:
		return formatErr(12, -1, "%d states: want 1 to %d (factorgraph.MaxDomain)", q, factorgraph.MaxDomain)
	}
	for k := range w {
		if err := checkPair(n, int64(k), i[k], j[k], w[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkPair checks pair k, (a, b, x), among n variables.
func checkPair(n int, k int64, a, b int32, x float64) error {
	off := HeaderSize + RecordSize*k
	switch {
	case uint32(a) >= uint32(n):
		return formatErr(off, k, "variable i = %d out of range [0, %d)", a, n)
	case uint32(b) >= uint32(n):
		return formatErr(off+4, k, "variable j = %d out of range [0, %d)", b, n)
	case a == b:
		return formatErr(off+4, k, "i = j = %d: a Potts pair couples two variables", a)
	case math.IsNaN(x) || math.IsInf(x, 0):
		return formatErr(off+8, k, "weight %v: want a finite number", x)
	}
	return nil
}

// Write writes the Potts model of n variables with q states and the pairs
// w[k]·δ(x_{i[k]}, x_{j[k]}) to dst in the PGEL format. It checks
// everything first and writes nothing if the model is not valid: slices of
// different lengths, n outside [1, 2³¹−1], q outside [1,
// factorgraph.MaxDomain], a variable out of range, a pair i = j, a NaN or
// infinite weight.
func Write(dst io.Writer, n, q int, i, j []int32, w []float64) error {
	if err := check(n, q, i, j, w); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(dst, chunkRecords*RecordSize)
	var hdr [HeaderSize]byte
	copy(hdr[:4], Magic)
	binary.LittleEndian.PutUint32(hdr[4:], Version)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(n))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(q))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(len(w)))
	bw.Write(hdr[:])
	buf := make([]byte, 0, chunkRecords*RecordSize)
	for k := range w {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(i[k]))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(j[k]))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(w[k]))
		if len(buf) == cap(buf) {
			bw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(w)))
	bw.Write(buf)
	return bw.Flush()
}

// WriteFile writes the model to the named file with Write; on an error the
// file is removed. Errors name the file.
func WriteFile(name string, n, q int, i, j []int32, w []float64) error {
	if err := check(n, q, i, j, w); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = Write(f, n, q, i, j, w)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Read reads a PGEL file with the default Options and builds its factor
// graph (see Options.Read).
func Read(r io.Reader) (*factorgraph.Graph, error) { return Options{}.Read(r) }

// ReadFile reads the named PGEL file with the default Options (see
// Options.ReadFile).
func ReadFile(name string) (*factorgraph.Graph, error) { return Options{}.ReadFile(name) }

// ReadPairs reads a PGEL file with the default Options (see
// Options.ReadPairs).
func ReadPairs(r io.Reader) (*Pairs, error) { return Options{}.ReadPairs(r) }

// Read reads a PGEL file (see ReadPairs) and builds its factor graph: n
// variables factorgraph.Discrete(q) and the pairs added with one
// Builder.AddPottsPairs, factor k pair k — the graph potts.New builds from
// the same pairs. The builder has the memory limit o.MaxBytes.
func (o Options) Read(r io.Reader) (*factorgraph.Graph, error) {
	p, err := o.ReadPairs(r)
	if err != nil {
		return nil, err
	}
	return p.graph(o.MaxBytes)
}

// ReadFile is Read on the named file; errors name the file.
func (o Options) ReadFile(name string) (*factorgraph.Graph, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := o.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

// Graph builds the factor graph of p: N variables factorgraph.Discrete(Q)
// and the pairs, with one Builder.AddPottsPairs (the graph keeps p's
// slices), within the builder's default memory limit.
func (p *Pairs) Graph() (*factorgraph.Graph, error) { return p.graph(0) }

// graph is Graph with the builder's memory limit maxBytes.
func (p *Pairs) graph(maxBytes float64) (*factorgraph.Graph, error) {
	b := factorgraph.NewBuilder()
	b.SetMaxBytes(maxBytes)
	b.AddVariables(p.N, factorgraph.Discrete(p.Q))
	b.AddPottsPairs(p.I, p.J, p.W)
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("edgelist: %w", err)
	}
	return g, nil
}

// ReadPairs reads a PGEL file from r, to its end, and returns its pairs,
// each checked. It refuses a header whose counts exceed o's limits, or, for
// an input of known length (an *os.File of a regular file, or a reader with
// a Len method), do not match the input's length, or declare a graph whose
// reading and building would need more memory than o.MaxBytes, before
// allocating anything for them. Errors are *FormatError values naming the
// byte offset and the pair, a *factorgraph.MemoryError naming the header's
// counts, the estimate and the limit, or errors of r.
func (o Options) ReadPairs(r io.Reader) (*Pairs, error) {
	left, known, err := remaining(r)
	if err != nil {
		return nil, fmt.Errorf("edgelist: %w", err)
	}
	br := bufio.NewReaderSize(r, chunkRecords*RecordSize)
	n, q, m, err := o.readHeader(br)
	if err != nil {
		return nil, err
	}
	total := HeaderSize + RecordSize*int64(m) + TrailerSize
	if known && left != total {
		if left < total {
			return nil, formatErr(left, -1, "truncated: %d pairs make a file of %d bytes, the input has %d", m, total, left)
		}
		return nil, formatErr(total, -1, "%d bytes after the trailer (%d pairs make a file of %d bytes, the input has %d)", left-total, m, total, left)
	}
	if err := o.checkBytes(n, q, m, known); err != nil {
		return nil, err
	}

	p := &Pairs{N: int(n), Q: int(q)}
	capacity := int(m)
	if !known {
		capacity = int(min(m, chunkRecords*16)) // grows with the input, up to m
	}
	p.I, p.J, p.W = make([]int32, 0, capacity), make([]int32, 0, capacity), make([]float64, 0, capacity)
	if err := p.readRecords(br, m); err != nil {
		return nil, err
	}
	if err := readTrailer(br, m); err != nil {
		return nil, err
	}
	return p, nil
}

// readHeader reads and checks the header: n variables of q states, m
// pairs, within o's limits.
func (o Options) readHeader(br *bufio.Reader) (n, q uint32, m uint64, err error) {
	maxPairs, maxVars := o.MaxPairs, o.MaxVars
	if maxPairs <= 0 {
		maxPairs = DefaultMaxPairs
	}
	if maxVars <= 0 {
		maxVars = DefaultMaxVars
	}
	var hdr [HeaderSize]byte
	if n, err := io.ReadFull(br, hdr[:]); err != nil {
		return 0, 0, 0, truncated(err, int64(n), -1, "in the header (24 bytes)")
	}
	if string(hdr[:4]) != Magic {
		return 0, 0, 0, formatErr(0, -1, "magic %q: want %q (not a PGEL edge list)", hdr[:4], Magic)
	}
	if v := binary.LittleEndian.Uint32(hdr[4:]); v != Version {
		return 0, 0, 0, formatErr(4, -1, "version %d: want %d", v, Version)
	}
	n, q = binary.LittleEndian.Uint32(hdr[8:]), binary.LittleEndian.Uint32(hdr[12:])
	m = binary.LittleEndian.Uint64(hdr[16:])
	switch {
	case n < 1 || n > maxIndex || int64(n) > int64(maxVars):
		return 0, 0, 0, formatErr(8, -1, "%d variables: want 1 to %d", n, min(maxIndex, maxVars))
	case q < 1 || q > factorgraph.MaxDomain:
		return 0, 0, 0, formatErr(12, -1, "%d states: want 1 to %d (factorgraph.MaxDomain)", q, factorgraph.MaxDomain)
	case m > uint64(maxPairs) || m > (math.MaxInt-HeaderSize-TrailerSize)/RecordSize:
		return 0, 0, 0, formatErr(16, -1, "%d pairs (%d bytes): more than the limit of %d pairs (Options.MaxPairs)", m, m*RecordSize, maxPairs)
	}
	return n, q, m, nil
}

// readBytes estimates the memory of reading a PGEL file whose header declares
// n variables of q states and m pairs, and of building its graph: the
// graph's (factorgraph.Size.BuildBytes: about 85 bytes a variable and 40
// a pair, the pairs' 16 included, and the pick tables), the reader's
// buffers, and on an input of unknown length the pairs' slices as they
// grow (16 bytes a pair more). Read, ReadFile and ReadPairs refuse a
// header above Options.MaxBytes.
func readBytes(n, q int, m int64, known bool) float64 {
	b := factorgraph.Size{Vars: n, DomainSize: q, Pairs: int(min(m, math.MaxInt32))}.BuildBytes()
	if m > math.MaxInt32 { // beyond what a graph holds: at least 40 bytes a pair
		b += 40 * float64(m-math.MaxInt32)
	}
	b += readerBytes
	if !known {
		b += RecordSize * float64(m)
	}
	return b
}

// checkBytes refuses a header of n variables of q states and m pairs whose
// reading and graph would exceed o.MaxBytes.
func (o Options) checkBytes(n, q uint32, m uint64, known bool) error {
	need := readBytes(int(n), int(q), int64(m), known)
	what := fmt.Sprintf("edgelist: header declares n = %d variables of q = %d states and m = %d pairs", n, q, m)
	return factorgraph.CheckBytes(need, o.MaxBytes, what, "Options.MaxBytes")
}

// readRecords appends the m pair records to p, each checked, reading a
// chunk of records at a time.
func (p *Pairs) readRecords(br *bufio.Reader, m uint64) error {
	n := p.N
	buf := make([]byte, chunkRecords*RecordSize)
	for done := int64(0); done < int64(m); {
		c := min(int64(m)-done, chunkRecords)
		if int64(len(p.W))+c > int64(cap(p.W)) {
			p.grow(int(min(int64(m), max(2*int64(cap(p.W)), int64(len(p.W))+c))))
		}
		got, err := io.ReadFull(br, buf[:c*RecordSize])
		full := int64(got) / RecordSize
		for k := range full {
			rec := buf[k*RecordSize : (k+1)*RecordSize]
			a := int32(binary.LittleEndian.Uint32(rec))
			b := int32(binary.LittleEndian.Uint32(rec[4:]))
			x := math.Float64frombits(binary.LittleEndian.Uint64(rec[8:]))
			if err := checkPair(n, done+k, a, b, x); err != nil {
				return err
			}
			p.I, p.J, p.W = append(p.I, a), append(p.J, b), append(p.W, x)
		}
		if err != nil {
			return truncated(err, HeaderSize+RecordSize*done+int64(got), done+full, fmt.Sprintf("at pair %d of %d", done+full, m))
		}
		done += c
	}
	return nil
}

// readTrailer reads the trailer after m pairs, checks it, and checks that
// the input ends there.
func readTrailer(br *bufio.Reader, m uint64) error {
	var tr [TrailerSize]byte
	off := HeaderSize + RecordSize*int64(m)
	if got, err := io.ReadFull(br, tr[:]); err != nil {
		return truncated(err, off+int64(got), -1, "in the trailer")
	}
	if t := binary.LittleEndian.Uint64(tr[:]); t != m {
		return formatErr(off, -1, "trailer %d: want %d, the header's number of pairs", t, m)
	}
	if _, err := br.ReadByte(); err == nil {
		return formatErr(off+TrailerSize, -1, "data after the trailer")
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("edgelist: byte %d: %w", off+TrailerSize, err)
	}
	return nil
}

// grow sets the capacity of p's slices to c.
func (p *Pairs) grow(c int) {
	i, j, w := make([]int32, len(p.I), c), make([]int32, len(p.J), c), make([]float64, len(p.W), c)
	copy(i, p.I)
	copy(j, p.J)
	copy(w, p.W)
	p.I, p.J, p.W = i, j, w
}

// truncated returns the error of a short read at byte off: a FormatError
// at the end of the input, or r's error.
func truncated(err error, off, pair int64, where string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr(off, pair, "truncated: the input ends %s", where)
	}
	return fmt.Errorf("edgelist: byte %d: %w", off, err)
}

// remaining returns the bytes left in r, if r tells: an *os.File of a
// regular file (its size less the current offset) or a reader with a Len
// method (bytes.Reader, strings.Reader, bytes.Buffer).
func remaining(r io.Reader) (left int64, known bool, err error) {
	switch r := r.(type) {
	case *os.File:
		fi, err := r.Stat()
		if err != nil {
			return 0, false, err
		}
		if !fi.Mode().IsRegular() {
			return 0, false, nil
		}
		pos, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false, nil
		}
		return fi.Size() - pos, true, nil
	case interface{ Len() int }:
		return int64(r.Len()), true, nil
	}
	return 0, false, nil
}
