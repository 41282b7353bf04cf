package uai

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Anytime .MAR files
//
// The UAI inference competitions let a solver improve its answer while it
// runs. Their result format (UAI 2014 "Result file Format",
// https://personal.utdallas.edu/~vibhav.gogate/uai14-competition/resformat.html;
// the same text for UAI 2016 and the 2022 competition,
// https://uaicompetition.github.io/uai-competition-dev/file-formats/result-format/)
// is: the first line holds only the task (MAR); "Solvers can write more then
// one solution by writing -BEGIN- at the head of the new solution. We will
// only consider the last solution in the file", with the example
//
//	MAR
//	<SOLUTION>
//	-BEGIN-
//	<SOLUTION>
//
// and a MAR solution is the line "n d_1 p_1(0) … d_2 …". A solver past its
// time limit is killed with SIGKILL and "the final output solution" is
// scored (UAI 2014 "Solver Requirements"). libDAI's UAI 2010 solver
// (examples/uai2010-aie-solver.cpp) writes the same way: the task line, the
// first solution, then "-BEGIN-" before each later one, flushing after
// each; its solutions also start with the number of evidence cases, a line
// the 2014 format dropped and this file format does not have.

// ErrNoSolution is returned, wrapped, by [ReadAnytimeMAR] for an input that
// holds no complete solution: an empty file (what [CreateAnytimeMAR] leaves
// before the first [AnytimeMAR.Write]), the MAR line alone, or only a torn
// first solution.
var ErrNoSolution = errors.New("no complete solution")

const beginMarker = "-BEGIN-"

// AnytimeMAR writes successive marginal estimates to a .MAR file in the
// anytime form of the UAI inference competitions: the line MAR and the
// first solution, then for each later solution a line -BEGIN- and the
// solution, each solution on one line with numbers in the shortest form that
// reads back exactly (as [WriteMarginals]). Scorers take the last solution.
//
// Each [AnytimeMAR.Write] appends one solution with a single write of bytes
// built in memory and then syncs the file to disk, so the file only ever
// grows by whole solutions, each ending with its newline; if the write or
// the sync fails, the file is truncated back to the previous solutions.
// Solutions are appended rather than the file replaced by a renamed copy:
// appending costs one solution per Write where rewriting costs the whole
// history (quadratic over a run), it keeps the file's identity (inode,
// permissions, a symbolic link, a reader that holds it open), and it writes
// nothing but the named file. The price is that a reader reading during a
// Write, or a scorer after a SIGKILL that lands inside one, may see the
// start of a solution; [ReadAnytimeMAR] ignores such a torn tail, since a
// solution counts only once the newline that ends it, the last byte of its
// write, is in the file.
//
// An AnytimeMAR is not safe for concurrent use.
type AnytimeMAR struct {
	name  string
	f     *os.File
	size  int64 // bytes of the complete solutions in the file
	cards []int // domain sizes, fixed by the first solution
	n     int   // solutions written
	err   error // set when a failed write could not be undone
}

// CreateAnytimeMAR creates the named file, or truncates it if it exists (a
// new run must not leave an older run's solutions to be scored), and returns
// a writer for it. The file stays empty until the first Write. Errors name
// the file.
func CreateAnytimeMAR(name string) (*AnytimeMAR, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &AnytimeMAR{name: name, f: f}, nil
}

// Write appends p as a new solution and syncs the file. The first solution
// fixes the number of variables and their domain sizes; a later solution of
// another shape is an error, as are the errors of [WriteMarginals] (no
// variables, an empty marginal, a NaN, infinite or negative entry), all
// reported before anything is written. That p sums to 1 is the caller's
// business. Errors name the file; after a failed Write the file holds the
// previous solutions and Write may be called again, unless the failed
// bytes could not be removed, in which case every later Write returns that
// error.
func (a *AnytimeMAR) Write(p [][]float64) error {
	switch {
	case a.err != nil:
		return a.err
	case a.f == nil:
		return fmt.Errorf("%s: uai: anytime marginals: Write after Close", a.name)
	}
	if err := a.checkShape(p); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	var b bytes.Buffer
	if err := WriteMarginals(&b, p); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	sol := b.Bytes() // "MAR\n" + the solution line, newline-terminated
	if a.n > 0 {
		sol = append([]byte(beginMarker+"\n"), sol[len("MAR\n"):]...)
	}
	if _, err := a.f.WriteAt(sol, a.size); err != nil {
		return a.undo(err)
	}
	if err := a.f.Sync(); err != nil {
		return a.undo(err)
	}
	a.size += int64(len(sol))
	a.n++
	if a.cards == nil {
		a.cards = make([]int, len(p))
		for i, pi := range p {
			a.cards[i] = len(pi)
		}
	}
	return nil
}

// checkShape checks p against the shape of the first solution.
func (a *AnytimeMAR) checkShape(p [][]float64) error {
	if a.cards == nil {
		return nil
	}
	if len(p) != len(a.cards) {
		return fmt.Errorf("uai: anytime marginals: %d variables, the first solution has %d", len(p), len(a.cards))
	}
	for i, pi := range p {
		if len(pi) != a.cards[i] {
			return fmt.Errorf("uai: anytime marginals: variable %d has %d values, in the first solution %d", i, len(pi), a.cards[i])
		}
	}
	return nil
}

// undo truncates the file back to its complete solutions after a failed
// write or sync and returns err (an *os.PathError, which names the file).
func (a *AnytimeMAR) undo(err error) error {
	if terr := a.f.Truncate(a.size); terr != nil {
		a.err = fmt.Errorf("%w; removing the partial solution: %w", err, terr)
		return a.err
	}
	return err
}

// Solutions returns the number of solutions written so far.
func (a *AnytimeMAR) Solutions() int { return a.n }

// Close closes the file. Later calls to Write fail; later calls to Close
// return nil. An error names the file.
func (a *AnytimeMAR) Close() error {
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// ReadAnytimeMAR reads an anytime .MAR file (see [AnytimeMAR]) and returns
// its last complete solution and the number of complete solutions. A plain
// .MAR file is an anytime file with one solution. A solution is complete
// when all its numbers are there and white space follows the last one (the
// newline [AnytimeMAR] ends it with; some published .MAR files end with a
// space): a last token that no white space ends, which may be a number cut
// short, and then a last solution that runs out of numbers (or a trailing
// -BEGIN-) are the torn tail of a solution being written and are ignored.
// (So a plain .MAR file cut short reads as having no solution rather than
// as a parse error.) A -BEGIN- before the first solution is accepted.
// Anything else that is malformed, in any solution, is a *ParseError naming
// the line and token; input without a complete solution gives an error
// wrapping [ErrNoSolution]. ReadAnytimeMAR reads all of r; each solution is
// checked against the limits of [ReadMarginals].
func ReadAnytimeMAR(r io.Reader) ([][]float64, int, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("uai: anytime marginals: %w", err)
	}
	end := len(data) // drop a last token that no white space ends: it may be cut
	for end > 0 && !isSpace(data[end-1]) {
		end--
	}
	data = data[:end]
	s := newScanner(bytes.NewReader(data), "anytime marginals")
	noSolution := fmt.Errorf("uai: anytime marginals: %w", ErrNoSolution)
	tok, ok := s.next()
	if !ok {
		if s.err != nil {
			return nil, 0, s.eof("want MAR")
		}
		return nil, 0, noSolution
	}
	if !strings.EqualFold(string(tok), "MAR") {
		return nil, 0, s.fail(tok, "want MAR")
	}
	var last [][]float64
	count := 0
	tok, ok = s.next()
	if ok && string(tok) == beginMarker { // tolerated before the first solution
		tok, ok = s.next()
	}
	for ok {
		p, err := readSolution(s, tok, count+1)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Token == "" && s.err == nil {
				break // the input ends inside the solution: a torn tail
			}
			return nil, 0, err
		}
		last, count = p, count+1
		if tok, ok = s.next(); !ok {
			break
		}
		if string(tok) != beginMarker {
			return nil, 0, s.fail(tok, "want %s or the end of the file after solution %d", beginMarker, count)
		}
		tok, ok = s.next() // none: a -BEGIN- whose solution is torn
	}
	if s.err != nil {
		return nil, 0, s.eof("")
	}
	if count == 0 {
		return nil, 0, noSolution
	}
	return last, count, nil
}

// readSolution reads one solution, "n d_1 p… d_2 …", whose first token, n,
// has been read already; k numbers the solution in messages.
func readSolution(s *scanner, tok []byte, k int) ([][]float64, error) {
	n, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil || n < 1 || n > MaxVars {
		return nil, s.fail(tok, "want the number of variables of solution %d in [1, %d]", k, MaxVars)
	}
	out := make([][]float64, 0, min(int(n), chunk))
	total := 0
	for i := range int(n) {
		d, err := s.int(1, MaxTableSize, "the domain size of variable %d (solution %d)", i, k)
		if err != nil {
			return nil, err
		}
		if total += d; total > MaxTotalSize {
			return nil, s.fail(s.tok, "solution %d larger than %d entries in total (MaxTotalSize)", k, MaxTotalSize)
		}
		p := make([]float64, 0, min(d, chunk))
		for v := range d {
			x, err := s.prob("p(x_%d = %d) (solution %d)", i, v, k)
			if err != nil {
				return nil, err
			}
			p = append(p, x)
		}
		out = append(out, p)
	}
	return out, nil
}

// ReadAnytimeMARFile reads the named anytime .MAR file (see
// [ReadAnytimeMAR]); errors name the file.
func ReadAnytimeMARFile(name string) ([][]float64, int, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	p, n, err := ReadAnytimeMAR(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return p, n, nil
}
