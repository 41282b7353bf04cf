package uai

import (
	"bufio"
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
type scanner struct {
	in      string // ParseError.In
	r       *bufio.Reader
	line    int  // line of the byte about to be read
	bol     bool // only blanks read so far on the current line
	tokLine int  // line of the last token returned
	tok     []byte
	err     error // a read error other than io.EOF
}

func newScanner(r io.Reader, in string) *scanner {
	s := &scanner{in: in, r: bufio.NewReaderSize(r, 64<<10), line: 1, bol: true, tokLine: 1}
	if b, err := s.r.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		s.r.Discard(3)
	}
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// next returns the next token, or ok = false at the end of the input (or on
// a read error, kept in s.err). The token is valid until the next call.
func (s *scanner) next() (tok []byte, ok bool) {
	s.tok = s.tok[:0]
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			if len(s.tok) > 0 {
				return s.tok, true
			}
			return nil, false
		}
		if isSpace(c) {
			if c == '\n' {
				s.line++
				s.bol = true
			}
			if len(s.tok) > 0 {
				return s.tok, true
			}
			continue
		}
		if len(s.tok) == 0 && s.bol && c == 'c' {
			if err := s.skipLine(); err != nil {
				return nil, false
			}
			continue
		}
		if len(s.tok) == 0 {
			s.tokLine = s.line
		}
		s.bol = false
		if len(s.tok) == maxToken {
			s.err = &ParseError{In: s.in, Line: s.line, Token: string(s.tok), Msg: fmt.Sprintf("token longer than %d bytes", maxToken)}
			return nil, false
		}
		s.tok = append(s.tok, c)
	}
}

// skipLine discards the rest of a comment line.
func (s *scanner) skipLine() error {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return err
		}
		if c == '\n' {
			s.line++
			s.bol = true
			return nil
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
	tok, ok := s.next()
	if !ok {
		return 0, s.eof("want "+format, anys(args...)...)
	}
	v, err := strconv.ParseInt(string(tok), 10, 64)
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
	tok, ok := s.next()
	if !ok {
		return 0, s.eof("want "+format, anys(args...)...)
	}
	v, err := strconv.ParseFloat(string(tok), 64)
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
