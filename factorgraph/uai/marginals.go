package uai

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadMarginals reads marginals in the UAI .MAR format: the word MAR, the
// number of variables n, then for each variable its domain size d and d
// probabilities, separated by any white space (one line or several; comment
// lines start with 'c'). Entries must be finite and non-negative; that they
// sum to 1 is left to the consumer (files print six digits). Malformed input
// returns a *ParseError naming the line and token, with the limits MaxVars,
// MaxTableSize (per variable) and MaxTotalSize (in total) checked before
// allocating.
func ReadMarginals(r io.Reader) ([][]float64, error) {
	s := newScanner(r, "marginals")
	tok, ok := s.next()
	if !ok {
		return nil, s.eof("want MAR")
	}
	if !strings.EqualFold(string(tok), "MAR") {
		return nil, s.fail(tok, "want MAR")
	}
	n, err := s.int(1, MaxVars, "the number of variables")
	if err != nil {
		return nil, err
	}
	out := make([][]float64, 0, min(n, chunk))
	total := 0
	for i := range n {
		d, err := s.int(1, MaxTableSize, "the domain size of variable %d", i)
		if err != nil {
			return nil, err
		}
		if total += d; total > MaxTotalSize {
			return nil, s.fail(s.tok, "marginals larger than %d entries in total (MaxTotalSize)", MaxTotalSize)
		}
		p := make([]float64, 0, min(d, chunk))
		for v := range d {
			x, err := s.prob("p(x_%d = %d)", i, v)
			if err != nil {
				return nil, err
			}
			p = append(p, x)
		}
		out = append(out, p)
	}
	if err := s.end("the last marginal"); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadMarginalsFile reads the marginals in the named file (see
// ReadMarginals); errors name the file.
func ReadMarginalsFile(name string) ([][]float64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ReadMarginals(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// WriteMarginals writes p in the UAI .MAR format, as UAI solvers do: the
// line MAR, then n d_1 p_1(0) … d_2 … on one line, numbers in the shortest
// form that ReadMarginals reads back exactly. It returns an error, before
// writing, when p is empty, or a marginal is empty or has a NaN, infinite or
// negative entry.
func WriteMarginals(w io.Writer, p [][]float64) error {
	if len(p) == 0 {
		return fmt.Errorf("uai: marginals: no variables")
	}
	for i, pi := range p {
		if len(pi) == 0 {
			return fmt.Errorf("uai: marginals: variable %d has an empty marginal", i)
		}
		for v, x := range pi {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("uai: marginals: variable %d: p(%d) = %v: want a finite non-negative number", i, v, x)
			}
		}
	}
	bw := bufio.NewWriter(w)
	buf := append(make([]byte, 0, 256), "MAR\n"...)
	buf = strconv.AppendInt(buf, int64(len(p)), 10)
	for _, pi := range p {
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(len(pi)), 10)
		for _, x := range pi {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x+0, 'g', -1, 64)
		}
		if len(buf) > 32<<10 {
			bw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, '\n')
	bw.Write(buf)
	return bw.Flush()
}

// WriteMarginalsFile writes p to the named file (see WriteMarginals).
func WriteMarginalsFile(name string, p [][]float64) error {
	var sb strings.Builder
	if err := WriteMarginals(&sb, p); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(sb.String()), 0o644)
}

// CheckMarginals reports whether p can be marginals of m: one vector per
// variable, of the variable's domain size.
func (m *Model) CheckMarginals(p [][]float64) error { return checkMarginals(m.Cards, p) }

// checkMarginals checks p against the cardinalities cards: Model's and
// Info's CheckMarginals.
func checkMarginals(cards []int, p [][]float64) error {
	if len(p) != len(cards) {
		return fmt.Errorf("uai: marginals: %d variables, the model has %d", len(p), len(cards))
	}
	for i, pi := range p {
		if len(pi) != cards[i] {
			return fmt.Errorf("uai: marginals: variable %d has %d values, its domain in the model %d", i, len(pi), cards[i])
		}
	}
	return nil
}
