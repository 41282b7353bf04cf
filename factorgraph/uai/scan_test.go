package uai

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// refScanner is the scanner before it scanned the buffer in place (a
// ReadByte a byte), verbatim but for the names: the reference the new one
// must match token for token, line for line, error for error.
type refScanner struct {
	in      string
	r       *bufio.Reader
	line    int
	bol     bool
	tokLine int
	tok     []byte
	err     error
}

func (s *refScanner) next() (tok []byte, ok bool) {
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

func (s *refScanner) skipLine() error {
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

// failingReader returns its text, then err.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// randomText returns text of tokens, blanks of every kind, comment lines
// and the occasional long token, from an alphabet that makes each case
// likely.
func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(200) {
		switch k := r.IntN(20); {
		case k < 8:
			b.WriteString(strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(9)-4)), 'g', -1, 64))
		case k < 10:
			b.WriteString(" \t\n\r\v\f"[r.IntN(6):][:1])
		case k < 12:
			b.WriteString("\nc a comment c\n")
		case k < 13:
			b.WriteString("  c  still a comment")
		case k < 14:
			b.WriteString(strings.Repeat("7", maxToken-2+r.IntN(5)))
		case k < 15:
			b.WriteString("cat")
		default:
			b.WriteString(strconv.Itoa(r.IntN(1000)))
		}
		if r.IntN(3) > 0 {
			b.WriteString(" \n"[r.IntN(2):][:1])
		}
	}
	return b.String()
}

// TestScannerReference: the scanner returns what the byte-at-a-time
// scanner returned — every token, its line, the line after it, the end
// and the error (a token too long, a read error mid-token) — on random
// texts read through buffers of 16 bytes to 64 KB, so that tokens,
// comments and line ends straddle fills. A scanner that loses a token's
// part before a fill, or the line of a comment's end, fails it (checked).
func TestScannerReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	readErr := errors.New("disk on fire")
	for trial := range 400 {
		text := randomText(r)
		size := []int{16, 17, 31, 64, 1000, 64 << 10}[trial%6]
		var src, ref io.Reader = strings.NewReader(text), strings.NewReader(text)
		if trial%5 == 0 {
			src, ref = &failingReader{strings.NewReader(text), readErr}, &failingReader{strings.NewReader(text), readErr}
		}
		s := newScannerSize(src, "", size)
		want := &refScanner{r: bufio.NewReaderSize(ref, size), line: 1, bol: true, tokLine: 1}
		for k := 0; ; k++ {
			got, ok := s.next()
			w, wok := want.next()
			if ok != wok || string(got) != string(w) || s.line != want.line || s.tokLine != want.tokLine || s.bol != want.bol {
				t.Fatalf("trial %d (buffer %d), token %d: got %q %v (line %d, token line %d), want %q %v (line %d, token line %d)",
					trial, size, k, got, ok, s.line, s.tokLine, w, wok, want.line, want.tokLine)
			}
			if fmt.Sprint(s.err) != fmt.Sprint(want.err) {
				t.Fatalf("trial %d, token %d: error %v, want %v", trial, k, s.err, want.err)
			}
			if !ok {
				break
			}
		}
	}
}

// TestParseNumbers: parseFloat and parseInt give strconv's value and
// error, bit for bit, on the numbers UAI files hold and on every form
// their fast paths must leave to strconv; a fast path that rounds twice
// (m·10^e computed as m·10·10…) fails it (checked).
func TestParseNumbers(t *testing.T) {
	toks := []string{"0", "-0", "+0", "0.0", "1", "1.", ".5", ".", "", "+", "-", "e5", "1e", "1e+", "1e-", "1E5",
		"1e22", "1e23", "1e-22", "1e-23", "9007199254740991", "9007199254740992", "9007199254740993",
		"1234567890123456789", "12345678901234567890", "0.1", "0.2", "0.3", "2.718281828459045",
		"0.36787944117144233", "1e308", "1e309", "4.9e-324", "1e-400", "inf", "-Inf", "NaN", "0x1p-2",
		"1_000", "1e0001", "1e00001", "--1", "+-1", "1.2.3", "1e5e5", "00000000000000000001",
		"0000000000000000000.1", "123456789012345678", "-123456789012345678", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "1 ", " 1", "١"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		v := r.Float64() * math.Pow(10, float64(r.IntN(60)-30))
		switch r.IntN(4) {
		case 0:
			toks = append(toks, strconv.FormatFloat(v, 'g', -1, 64))
		case 1:
			toks = append(toks, strconv.FormatFloat(v, 'f', r.IntN(20), 64))
		case 2:
			toks = append(toks, strconv.FormatFloat(v, 'e', r.IntN(18), 64))
		default:
			toks = append(toks, strconv.Itoa(r.IntN(1<<62)-1<<61))
		}
	}
	for _, tok := range toks {
		got, err := parseFloat([]byte(tok))
		want, werr := strconv.ParseFloat(tok, 64)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("parseFloat(%q) = %v, %v; strconv: %v, %v", tok, got, err, want, werr)
		}
		gi, err := parseInt([]byte(tok))
		wi, werr := strconv.ParseInt(tok, 10, 64)
		if gi != wi || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("parseInt(%q) = %v, %v; strconv: %v, %v", tok, gi, err, wi, werr)
		}
	}
}

// TestScannerNumbers: int and prob, whose usual tokens take decimal's
// one pass, read what the byte-at-a-time scanner and strconv read — the
// same values bit for bit, the same errors word for word, the same lines —
// on random texts of numbers in every form (signs, exponents, 15 to 20
// digits, integers out of range, trailing points) through buffers of 16
// bytes to 64 KB. A decimal that mis-scales a fraction, or keeps a token
// it refuses, fails it (checked).
func TestScannerNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	forms := []func() string{
		func() string { return strconv.Itoa(r.IntN(40) - 5) },
		func() string { return strconv.FormatFloat(r.Float64()*10, 'f', r.IntN(18), 64) },
		func() string { return strconv.FormatFloat(r.Float64(), 'g', -1, 64) },
		func() string { return strconv.FormatFloat(r.ExpFloat64()*1e5, 'e', r.IntN(10), 64) },
		func() string { return strings.Repeat("9", 14+r.IntN(7)) },
		func() string { return strconv.Itoa(r.IntN(30)) + "." },
		func() string { return "-" + strconv.Itoa(r.IntN(9)) },
		func() string { return "+" + strconv.Itoa(r.IntN(9)) },
		func() string { return "0" + strconv.Itoa(r.IntN(9)) + ".50" },
		func() string { return "c comment\n" + strconv.Itoa(r.IntN(9)) },
		func() string { return "x" },
	}
	for trial := range 300 {
		var b strings.Builder
		kinds := make([]bool, 0, 200) // true: read as prob, false: as int
		for range 1 + r.IntN(150) {
			b.WriteString(forms[r.IntN(len(forms))]())
			b.WriteString(" \n\t"[r.IntN(3):][:1])
			kinds = append(kinds, r.IntN(2) == 0)
		}
		text := b.String()
		if r.IntN(4) == 0 { // a last token without a blank after it
			text = strings.TrimRight(text, " \n\t")
		}
		size := []int{16, 17, 23, 64, 4096, 64 << 10}[trial%6]
		s := newScannerSize(strings.NewReader(text), "", size)
		ref := &refScanner{r: bufio.NewReaderSize(strings.NewReader(text), size), line: 1, bol: true, tokLine: 1}
		for k, isProb := range kinds {
			var got, want string
			if isProb {
				v, err := s.prob("entry %d", k)
				got = fmt.Sprintf("%x %v", math.Float64bits(v), err)
				want = refNumber(ref, true, k)
			} else {
				v, err := s.int(0, 30, "count %d", k)
				got = fmt.Sprintf("%d %v", v, err)
				want = refNumber(ref, false, k)
			}
			if got != want || s.line != ref.line || s.tokLine != ref.tokLine {
				t.Fatalf("trial %d (buffer %d), token %d: got %s (line %d, token line %d), want %s (line %d, token line %d)\ntext %q",
					trial, size, k, got, s.line, s.tokLine, want, ref.line, ref.tokLine, text)
			}
		}
	}
}

// refNumber reads the next token of ref as int(0, 30) or prob read it
// before decimal, and formats the value and error as TestScannerNumbers
// compares them.
func refNumber(ref *refScanner, isProb bool, k int) string {
	s := &scanner{}
	tok, ok := ref.next()
	s.tok, s.tokLine, s.line, s.bol, s.err = tok, ref.tokLine, ref.line, ref.bol, ref.err
	if !ok {
		err := s.eof("want count %d", k)
		if isProb {
			err = s.eof("want entry %d", k)
			return fmt.Sprintf("%x %v", math.Float64bits(0), err)
		}
		return fmt.Sprintf("%d %v", 0, err)
	}
	if isProb {
		v, err := strconv.ParseFloat(string(tok), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return fmt.Sprintf("%x %v", math.Float64bits(0), s.fail(tok, "want a number (entry %d)", k))
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Sprintf("%x %v", math.Float64bits(0), s.fail(tok, "want a finite number (entry %d)", k))
		case v < 0:
			return fmt.Sprintf("%x %v", math.Float64bits(0), s.fail(tok, "want a non-negative number (entry %d)", k))
		}
		return fmt.Sprintf("%x %v", math.Float64bits(v+0), nil)
	}
	v, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%d %v", 0, s.fail(tok, "want an integer (count %d)", k))
	}
	if err != nil || v < 0 || v > 30 {
		return fmt.Sprintf("%d %v", 0, s.fail(tok, "want count %d in [%d, %d]", k, 0, 30))
	}
	return fmt.Sprintf("%d %v", v, nil)
}
