package uai

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Observation is one observed variable and its value.
type Observation struct {
	Var, Value int
}

// Evidence is a set of observed variables, in the order of the file. A
// variable appears at most once.
type Evidence []Observation

// evToken is an integer of an evidence file and its line.
type evToken struct {
	v, line int
	tok     string
}

// ReadEvidence reads a .evid file and returns its evidence: the only
// sample of the current format, or the first sample of the older
// multi-sample format (see ReadEvidenceSamples for the formats and the rule
// that tells them apart). The values are not checked against a model; see
// Model.CheckEvidence.
func ReadEvidence(r io.Reader) (Evidence, error) {
	samples, err := ReadEvidenceSamples(r)
	if err != nil {
		return nil, err
	}
	return samples[0], nil
}

// ReadEvidenceSamples reads a .evid file and returns all its samples (at
// least one, possibly empty). A file is a sequence of non-negative integers
// separated by white space (lines do not matter; comment lines start with
// 'c'). Three forms exist, tried in this order:
//
//  1. one sample, the current UAI format: n v_1 x_1 … v_n x_n, exactly
//     1+2n integers (variable v_k observed at value x_k). "0" is no
//     evidence.
//  2. the older multi-sample format: S ≥ 1, then S samples each written as
//     in form 1, exactly consuming the file. "1 0" is one empty sample.
//  3. a file of zeros only, such as "0 0" or "0\n0" (one.uai.evid): no
//     evidence, one empty sample.
//
// Form 1 takes precedence: "2 0 1 5 1" reads as variables 0 and 5 both at
// value 1, although it would also parse as two samples. A file that fits
// no form is an error naming the line and token where form 1 fails (a
// truncated file or trailing data). A variable repeated within a sample is
// an error.
func ReadEvidenceSamples(r io.Reader) ([]Evidence, error) {
	s := newScanner(r, "evidence")
	var toks []evToken
	for {
		tok, ok := s.next()
		if !ok {
			break
		}
		v, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil || v < 0 || v > MaxTableSize {
			return nil, s.fail(tok, "want an integer in [0, %d]", MaxTableSize)
		}
		toks = append(toks, evToken{v: int(v), line: s.tokLine, tok: string(tok)})
	}
	if s.err != nil || len(toks) == 0 {
		return nil, s.eof("want the number of observed variables")
	}
	// Form 1.
	if n := toks[0].v; len(toks) == 1+2*n {
		ev, _, err := parseSample(toks, 0)
		if err != nil {
			return nil, err
		}
		return []Evidence{ev}, nil
	}
	// Form 2.
	if S := toks[0].v; S >= 1 {
		samples, pos := make([]Evidence, 0, min(S, chunk)), 1
		for range S {
			ev, next, err := parseSample(toks, pos)
			if err != nil {
				samples = nil
				break
			}
			samples, pos = append(samples, ev), next
		}
		if samples != nil && pos == len(toks) {
			return samples, nil
		}
	}
	// Form 3.
	zeros := true
	for _, t := range toks {
		zeros = zeros && t.v == 0
	}
	if zeros {
		return []Evidence{{}}, nil
	}
	// Report form 1's failure.
	n := toks[0].v
	if len(toks) < 1+2*n {
		last := toks[len(toks)-1]
		return nil, &ParseError{In: "evidence", Line: last.line, Msg: fmt.Sprintf(
			"%d variable/value pairs announced (%d integers), the file has %d integers and is not a list of samples either",
			n, 1+2*n, len(toks))}
	}
	t := toks[1+2*n]
	return nil, &ParseError{In: "evidence", Line: t.line, Token: t.tok, Msg: fmt.Sprintf(
		"trailing data after %d variable/value pairs (and not a list of samples either)", n)}
}

// parseSample parses the sample n v_1 x_1 … starting at toks[pos] and
// returns it with the position after it.
func parseSample(toks []evToken, pos int) (Evidence, int, error) {
	last := toks[len(toks)-1]
	if pos >= len(toks) {
		return nil, 0, &ParseError{In: "evidence", Line: last.line, Msg: "want the number of observed variables of a sample"}
	}
	n := toks[pos].v
	if n > (len(toks)-pos-1)/2 {
		return nil, 0, &ParseError{In: "evidence", Line: last.line, Msg: fmt.Sprintf("%d variable/value pairs announced, fewer follow", n)}
	}
	ev := make(Evidence, n)
	seen := make(map[int]bool, n)
	for k := range ev {
		v, x := toks[pos+1+2*k], toks[pos+2+2*k]
		if seen[v.v] {
			return nil, 0, &ParseError{In: "evidence", Line: v.line, Token: v.tok, Msg: fmt.Sprintf("variable %d observed twice", v.v)}
		}
		seen[v.v] = true
		ev[k] = Observation{Var: v.v, Value: x.v}
	}
	return ev, pos + 1 + 2*n, nil
}

// ReadEvidenceFile reads the evidence in the named file (see ReadEvidence);
// errors name the file.
func ReadEvidenceFile(name string) (Evidence, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ev, err := ReadEvidence(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ev, nil
}

// WriteEvidence writes ev in the current one-sample format, n v_1 x_1 …
// v_n x_n on one line. It returns an error, before writing, for a negative
// variable or value or a repeated variable.
func WriteEvidence(w io.Writer, ev Evidence) error {
	seen := make(map[int]bool, len(ev))
	for k, o := range ev {
		if o.Var < 0 || o.Value < 0 || o.Var > MaxTableSize || o.Value > MaxTableSize {
			return fmt.Errorf("uai: evidence: observation %d: variable %d = %d out of range", k, o.Var, o.Value)
		}
		if seen[o.Var] {
			return fmt.Errorf("uai: evidence: observation %d: variable %d observed twice", k, o.Var)
		}
		seen[o.Var] = true
	}
	bw := bufio.NewWriter(w)
	buf := strconv.AppendInt(nil, int64(len(ev)), 10)
	for _, o := range ev {
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(o.Var), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(o.Value), 10)
	}
	buf = append(buf, '\n')
	bw.Write(buf)
	return bw.Flush()
}

// CheckEvidence reports the first observation of ev that does not fit m:
// a variable out of range or repeated, or a value outside the variable's
// domain 0, …, Cards[v]−1.
func (m *Model) CheckEvidence(ev Evidence) error { return checkEvidence(m.Cards, ev) }

// checkEvidence checks ev against the cardinalities cards: Model's and
// Info's CheckEvidence.
func checkEvidence(cards []int, ev Evidence) error {
	seen := make(map[int]bool, len(ev))
	for k, o := range ev {
		switch {
		case o.Var < 0 || o.Var >= len(cards):
			return fmt.Errorf("uai: evidence: observation %d: variable %d out of range [0, %d)", k, o.Var, len(cards))
		case seen[o.Var]:
			return fmt.Errorf("uai: evidence: observation %d: variable %d observed twice", k, o.Var)
		case o.Value < 0 || o.Value >= cards[o.Var]:
			return fmt.Errorf("uai: evidence: observation %d: value %d of variable %d outside its domain {0..%d}",
				k, o.Value, o.Var, cards[o.Var]-1)
		}
		seen[o.Var] = true
	}
	return nil
}
