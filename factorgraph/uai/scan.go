package uai

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ParseError reports malformed input: the line, the offending token (empty
// at the end of the input) and what was wanted there.
type ParseError struct {
	In    string // "" for a model, "evidence" or "marginals"
	Line  int    // 1-based line of the token (the last line at end of input)
	Token string // the token, or "" for an unexpected end of input
	Msg   string // what was wrong, e.g. "want a number"
}

func (e *ParseError) Error() string {
	in := ""
	if e.In != "" {
		in = e.In + ": "
	}
	if e.Token == "" {
		return fmt.Sprintf("uai: %sline %d: unexpected end of input: %s", in, e.Line, e.Msg)
	}
	tok := e.Token
	if len(tok) > maxShownToken {
		tok = tok[:maxShownToken] + "…"
	}
	return fmt.Sprintf("uai: %sline %d: token %q: %s", in, e.Line, tok, e.Msg)
}

const (
	maxShownToken = 40   // bytes of a token quoted in an error message
	maxToken      = 1024 // longest token accepted
)

// scanner splits UAI text into whitespace-separated tokens, skipping
// comment lines (lines whose first non-blank character is 'c') and a
// leading UTF-8 byte order mark, and tracks line numbers for messages.
// It scans its buffer in place: a token that lies in it is returned as a
// view of it, and only one that straddles two reads is copied (a 400-MB
// model's tokens cost about a nanosecond a byte, against a call a byte
// through bufio.Reader.ReadByte).
type scanner struct {
	in      string // ParseError.In
	src     io.Reader
	buf     []byte // buf[p:n] is read and not yet scanned
	p, n    int
	line    int  // line of the byte about to be scanned
	bol     bool // only blanks scanned so far on the current line
	tokLine int  // line of the last token returned
	tok     []byte
	acc     []byte // a token straddling two reads, so far
	rerr    error  // the error that ended the input (io.EOF at its end), once buf is scanned
	err     error  // a read error other than io.EOF, once the input before it is scanned
}

// scanBuffer is the bytes a scanner reads at a time.
const scanBuffer = 64 << 10

func newScanner(r io.Reader, in string) *scanner {
	return newScannerSize(r, in, scanBuffer)
}

// newScannerSize is newScanner reading size bytes at a time (tests: tokens
// straddling reads).
func newScannerSize(r io.Reader, in string, size int) *scanner {
	s := &scanner{in: in, src: r, buf: make([]byte, max(size, 4)), line: 1, bol: true, tokLine: 1}
	for s.n < 3 && s.rerr == nil {
		s.read()
	}
	if s.n >= 3 && s.buf[0] == 0xEF && s.buf[1] == 0xBB && s.buf[2] == 0xBF {
		s.p = 3
	}
	return s
}

// read appends what src gives to buf[:n]; after maxEmptyReads reads that
// give nothing, the input ends with io.ErrNoProgress (as bufio's).
func (s *scanner) read() {
	for range maxEmptyReads {
		k, err := s.src.Read(s.buf[s.n:])
		s.n += k
		if err != nil {
			s.rerr = err
			return
		}
		if k > 0 {
			return
		}
	}
	s.rerr = io.ErrNoProgress
}

const maxEmptyReads = 100

// fill reads the next part of the input into buf once it is all scanned,
// and reports whether there is any; at the end of the input it records a
// read error other than io.EOF in s.err.
func (s *scanner) fill() bool {
	s.p, s.n = 0, 0
	if s.rerr == nil {
		s.read()
	}
	if s.n > 0 {
		return true
	}
	if s.rerr != nil && !errors.Is(s.rerr, io.EOF) && s.err == nil {
		s.err = s.rerr
	}
	return false
}

// space[c] says whether byte c separates tokens.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

func isSpace(c byte) bool { return space[c] }

// next returns the next token, or ok = false at the end of the input (or on
// a read error, kept in s.err). The token is valid until the next call.
func (s *scanner) next() (tok []byte, ok bool) {
	if !s.skipBlanks() {
		return nil, false
	}
	s.tokLine, s.bol = s.line, false
	s.acc = s.acc[:0]
	for {
		start, k := s.p, s.p
		for k < s.n && !space[s.buf[k]] {
			k++
		}
		if len(s.acc)+k-start > maxToken {
			t := append(s.acc, s.buf[start:start+maxToken-len(s.acc)]...)
			s.err = &ParseError{In: s.in, Line: s.line, Token: string(t), Msg: fmt.Sprintf("token longer than %d bytes", maxToken)}
			return nil, false
		}
		if k < s.n {
			if s.buf[k] == '\n' {
				s.line++
				s.bol = true
			}
			s.p = k + 1
			if len(s.acc) > 0 {
				s.tok = append(s.acc, s.buf[start:k]...)
			} else {
				s.tok = s.buf[start:k]
			}
			return s.tok, true
		}
		s.acc = append(s.acc, s.buf[start:k]...)
		if !s.fill() {
			s.tok = s.acc
			return s.tok, true
		}
	}
}

// decimal is next and parseFloat in one pass for the usual token of a
// UAI file, digits[.digits] ending inside the buffer: it returns its
// digits as an integer m, frac the digits after the point (−1: no point),
// and ok, having moved past it as next does; where the token is anything
// else (a sign, an exponent, over 15 digits, straddling a read) it returns
// ok = false at the token's start, for next. m < 10¹⁵ < 2⁵³ and frac ≤ 15,
// so m / 10^frac is parseFloat's value, bit for bit.
func (s *scanner) decimal() (m uint64, frac int, ok bool) {
	if !s.skipBlanks() {
		return 0, 0, false
	}
	buf, k := s.buf[s.p:s.n], 0
	for ; k < len(buf) && buf[k]-'0' <= 9; k++ {
		m = 10*m + uint64(buf[k]-'0')
	}
	digits := k
	frac = -1
	if k < len(buf) && buf[k] == '.' {
		k++
		start := k
		for ; k < len(buf) && buf[k]-'0' <= 9; k++ {
			m = 10*m + uint64(buf[k]-'0')
		}
		frac = k - start
		digits += frac
	}
	if digits == 0 || digits > 15 || k == len(buf) || !space[buf[k]] {
		return 0, 0, false
	}
	s.tokLine, s.bol = s.line, false
	s.tok = buf[:k]
	if buf[k] == '\n' {
		s.line++
		s.bol = true
	}
	s.p += k + 1
	return m, frac, true
}

// skipBlanks moves past blanks and comment lines to the next token's
// first byte, and reports whether there is one.
func (s *scanner) skipBlanks() bool {
	for {
		for s.p < s.n {
			c := s.buf[s.p]
			if !space[c] {
				if !s.bol || c != 'c' {
					return true
				}
				if !s.skipLine() {
					return false
				}
				continue
			}
			if c == '\n' {
				s.line++
				s.bol = true
			}
			s.p++
		}
		if !s.fill() {
			return false
		}
	}
}

// skipLine moves past the rest of a comment line, and reports whether
// the input goes on.
func (s *scanner) skipLine() bool {
	for {
		if j := bytes.IndexByte(s.buf[s.p:s.n], '\n'); j >= 0 {
			s.p += j + 1
			s.line++
			s.bol = true
			return true
		}
		if !s.fill() {
			return false
		}
	}
}

// fail returns a ParseError at the last token.
func (s *scanner) fail(tok []byte, format string, args ...any) error {
	return &ParseError{In: s.in, Line: s.tokLine, Token: string(tok), Msg: fmt.Sprintf(format, args...)}
}

// eof returns the error for a missing token: the read error, or a
// ParseError saying what was wanted.
func (s *scanner) eof(format string, args ...any) error {
	if s.err != nil {
		var pe *ParseError
		if errors.As(s.err, &pe) {
			return pe
		}
		if s.in != "" {
			return fmt.Errorf("uai: %s: line %d: %w", s.in, s.line, s.err)
		}
		return fmt.Errorf("uai: line %d: %w", s.line, s.err)
	}
	line := s.line
	if s.bol && line > 1 {
		line-- // a trailing newline does not start a line of its own
	}
	return &ParseError{In: s.in, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// anys returns xs as arguments of a message. The readers name tokens by
// integers (a variable, a factor, an entry) passed as ...int and boxed only
// here, when a message is made: a token read costs no allocation.
func anys(xs ...int) []any {
	a := make([]any, len(xs))
	for k, x := range xs {
		a[k] = x
	}
	return a
}

// int reads an integer in [lo, hi]; format and args name it in messages.
func (s *scanner) int(lo, hi int, format string, args ...int) (int, error) {
	m, frac, ok := s.decimal()
	if ok && frac < 0 && int64(m) <= int64(hi) && int64(m) >= int64(lo) {
		return int(m), nil
	}
	tok := s.tok // decimal's, out of range or not an integer
	if !ok {
		if tok, ok = s.next(); !ok {
			return 0, s.eof("want "+format, anys(args...)...)
		}
	}
	v, err := parseInt(tok)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, s.fail(tok, "want an integer ("+format+")", anys(args...)...)
	}
	if err != nil || v < int64(lo) || v > int64(hi) {
		return 0, s.fail(tok, "want "+format+" in [%d, %d]", anys(append(args[:len(args):len(args)], lo, hi)...)...)
	}
	return int(v), nil
}

// prob reads a finite non-negative number; format and args name it in
// messages.
func (s *scanner) prob(format string, args ...int) (float64, error) {
	if m, frac, ok := s.decimal(); ok {
		if frac <= 0 {
			return float64(m), nil
		}
		return float64(m) / pow10[frac], nil // parseFloat's exact path
	}
	tok, ok := s.next()
	if !ok {
		return 0, s.eof("want "+format, anys(args...)...)
	}
	v, err := parseFloat(tok)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, s.fail(tok, "want a number ("+format+")", anys(args...)...)
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, s.fail(tok, "want a finite number ("+format+")", anys(args...)...)
	case v < 0:
		return 0, s.fail(tok, "want a non-negative number ("+format+")", anys(args...)...)
	}
	return v + 0, nil // +0 turns −0 into 0
}

// end checks that nothing but blanks and comments is left.
func (s *scanner) end(what string) error {
	if tok, ok := s.next(); ok {
		return s.fail(tok, "trailing data after %s", what)
	}
	if s.err != nil {
		return s.eof("")
	}
	return nil
}

// parseInt is strconv.ParseInt(string(tok), 10, 64), without the string
// for a token of at most 18 digits after an optional sign.
func parseInt(tok []byte) (int64, error) {
	d := tok
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return strconv.ParseInt(string(tok), 10, 64)
	}
	var v int64
	for _, c := range d {
		if c-'0' > 9 {
			return strconv.ParseInt(string(tok), 10, 64)
		}
		v = 10*v + int64(c-'0')
	}
	if tok[0] == '-' {
		v = -v
	}
	return v, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat is strconv.ParseFloat(string(tok), 64), bit for bit. A
// decimal [±]digits[.digits][(e|E)[±]digits] of at most 19 digits whose
// value is m·10^e with m < 2⁵³ and |e| ≤ 22 is m times or divided by
// 10^|e|: both exact in float64, so one correctly rounded operation gives
// the correctly rounded value (Clinger 1990; strconv's own exact path).
// Anything else — more digits, a larger exponent, inf, nan, hexadecimal,
// underscores, a malformed token — goes to strconv.
func parseFloat(tok []byte) (float64, error) {
	d, neg := tok, false
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		neg, d = d[0] == '-', d[1:]
	}
	var m uint64
	digits, frac, k := 0, 0, 0
	for ; k < len(d) && d[k]-'0' <= 9; k++ {
		m = 10*m + uint64(d[k]-'0')
		digits++
	}
	if k < len(d) && d[k] == '.' {
		k++
		for ; k < len(d) && d[k]-'0' <= 9; k++ {
			m = 10*m + uint64(d[k]-'0')
			digits++
			frac++
		}
	}
	exp := 0
	if k < len(d) && (d[k] == 'e' || d[k] == 'E') && digits > 0 {
		k++
		eneg := false
		if k < len(d) && (d[k] == '+' || d[k] == '-') {
			eneg, k = d[k] == '-', k+1
		}
		ed := 0
		for ; k < len(d) && d[k]-'0' <= 9 && ed < 4; k++ {
			exp = 10*exp + int(d[k]-'0')
			ed++
		}
		if ed == 0 {
			return strconv.ParseFloat(string(tok), 64)
		}
		if eneg {
			exp = -exp
		}
	}
	exp -= frac
	if k != len(d) || digits == 0 || digits > 19 || m >= 1<<53 || exp < -22 || exp > 22 {
		return strconv.ParseFloat(string(tok), 64)
	}
	f := float64(m)
	if exp < 0 {
		f /= pow10[-exp]
	} else {
		f *= pow10[exp]
	}
	if neg {
		f = -f
	}
	return f, nil
}
