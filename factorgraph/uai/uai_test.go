package uai_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// sampleUAI is the sample.uai of the shared data: comments, blank lines,
// tables over rows, one zero.
const sampleUAI = `c This is a sample model that shows up in documentation for this file
c format. It is trivial, but see one.uai for a minimal file (single
c boolean variable)

MARKOV
3
2 2 3
3
1 0
2 0 1
2 1 2

2
 0.436 0.564

4
 0.128 0.872
 0.920 0.080

6
 0.210 0.333 0.457
 0.811 0.000 0.189
`

func TestReadSample(t *testing.T) {
	m, err := uai.Read(strings.NewReader(sampleUAI))
	if err != nil {
		t.Fatal(err)
	}
	want := &uai.Model{
		Type:   uai.Markov,
		Cards:  []int{2, 2, 3},
		Scopes: [][]int{{0}, {0, 1}, {1, 2}},
		Tables: [][]float64{{0.436, 0.564}, {0.128, 0.872, 0.920, 0.080}, {0.210, 0.333, 0.457, 0.811, 0, 0.189}},
	}
	if err := equalModels(m, want); err != nil {
		t.Fatal(err)
	}
	if h := m.HardFactors(); h != 1 {
		t.Errorf("HardFactors = %d, want 1", h)
	}
}

// TestReadLayouts: the same model written with CRLF line ends, tabs, values
// wrapped anywhere, comments between tokens, a byte order mark, BAYES and
// lower case.
func TestReadLayouts(t *testing.T) {
	want := &uai.Model{Type: uai.Markov, Cards: []int{2, 3}, Scopes: [][]int{{0, 1}}, Tables: [][]float64{{1, 2, 3, 4, 5, 6e-5}}}
	for name, in := range map[string]string{
		"one line": "MARKOV 2 2 3 1 2 0 1 6 1 2 3 4 5 6e-5",
		"crlf":     "MARKOV\r\n2\r\n2 3\r\n1\r\n2 0 1\r\n\r\n6\r\n1 2 3\r\n4 5 6e-5\r\n",
		"tabs":     "MARKOV\n2\n2\t3\n1\n2\t0\t1\n6\n1\t2\t3\t4\t5\t6E-005\n",
		"wrapped":  "MARKOV\n2\n2\n3\n1\n2 0\n1\n6 1 2\n3 4\n5\n0.00006\n",
		"comments": "c head\nMARKOV\n  c indented comment\n2\n2 3\nc between\n1\n2 0 1\n6\n1 2 3 4 5 6e-5\nc tail",
		"bom":      "\xEF\xBB\xBFMARKOV 2 2 3 1 2 0 1 6 1 2 3 4 5 6e-5\n\n\n",
		"lower":    "markov 2 2 3 1 2 0 1 6 1.0 2.0 3.0 4.0 5.0 0.6e-4",
	} {
		m, err := uai.Read(strings.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := equalModels(m, want); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	m, err := uai.Read(strings.NewReader("BAYES 2 2 2 2 1 0 2 0 1 2 0.3 0.7 4 0.9 0.1 0.2 0.8"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != uai.Bayes {
		t.Errorf("type %q, want BAYES", m.Type)
	}
}

// TestReadErrors: malformed input gives a *ParseError naming the line and
// the token.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // substring of the message
	}{
		{"empty", "", "line 1: unexpected end of input: want the model type"},
		{"only comments", "c nothing\nc here\n", "unexpected end of input: want the model type"},
		{"type", "MARKOW 1 2", `line 1: token "MARKOW": want the model type MARKOV or BAYES`},
		{"n not a number", "MARKOV\nx", `line 2: token "x": want an integer (the number of variables)`},
		{"n zero", "MARKOV 0", `token "0": want the number of variables in [1, 16777216]`},
		{"n absurd", "MARKOV 1000000000000", `token "1000000000000": want the number of variables in [1, 16777216]`},
		{"n overflow", "MARKOV 99999999999999999999999", `want the number of variables in [1, 16777216]`},
		{"card zero", "MARKOV 2\n2 0", `line 2: token "0": want the cardinality of variable 1 in [1, 16777216]`},
		{"card over MaxDomain", "MARKOV 2\n2 2147483647", `line 2: token "2147483647": want the cardinality of variable 1 in [1, 16777216]`},
		{"card float", "MARKOV 1\n2.0", `token "2.0": want an integer (the cardinality of variable 0)`},
		{"truncated cards", "MARKOV 3\n2 2\n", "line 2: unexpected end of input: want the cardinality of variable 2"},
		{"factors negative", "MARKOV 1 2 -1", `token "-1": want the number of factors in [0, 16777216]`},
		{"scope too big", "MARKOV 1 2 1 2 0 0", `token "2": want the scope size of factor 0 in [0, 1]`},
		{"scope var range", "MARKOV 2 2 2 1\n2 0 2", `line 2: token "2": want a variable of factor 0 in [0, 1]`},
		{"scope repeat", "MARKOV 2 2 2 1\n2 1 1", `line 2: token "1": variable 1 repeated in the scope of factor 0`},
		{"table too big", "MARKOV 3 65536 65536 65536 1 3 0 1 2", `token "1": factor 0: table larger than 67108864 entries (MaxTableSize)`},
		{"total too big", "MARKOV 1 16777216 17 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0", `factor 16: tables larger than 268435456 entries in total (MaxTotalSize)`},
		{"count", "MARKOV 1 2 1 1 0\n3 0.5 0.5 0.5", `line 2: token "3": factor 0 has 3 entries, want 2`},
		{"value", "MARKOV 1 2 1 1 0\n2 0.5\n0.5x", `line 3: token "0.5x": want a number (entry 1 of factor 0)`},
		{"negative", "MARKOV 1 2 1 1 0 2 0.5 -0.5", `token "-0.5": want a non-negative number (entry 1 of factor 0)`},
		{"nan", "MARKOV 1 2 1 1 0 2 NaN 1", `token "NaN": want a finite number (entry 0 of factor 0)`},
		{"inf", "MARKOV 1 2 1 1 0 2 1 inf", `token "inf": want a finite number (entry 1 of factor 0)`},
		{"overflow value", "MARKOV 1 2 1 1 0 2 1 1e999", `token "1e999": want a finite number`},
		{"truncated table", "MARKOV 1 2 1 1 0\n2 0.5\n", "line 2: unexpected end of input: want entry 1 of factor 0"},
		{"truncated scopes", "MARKOV 2 2 2 2 1 0\n", "unexpected end of input: want the scope size of factor 1"},
		{"trailing", "MARKOV 1 2 1 1 0 2 0.5 0.5\n\n7", `line 3: token "7": trailing data after the last table`},
		{"long token", "MARKOV " + strings.Repeat("9", 2000), "token longer than 1024 bytes"},
	}
	for _, tc := range tests {
		_, err := uai.Read(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", tc.name, err, tc.want)
		}
		var pe *uai.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %T is not a *ParseError", tc.name, err)
		}
	}
}

// TestWriteRoundTrip: Write then Read returns the same model, including
// numbers that need 17 digits, tiny and huge values, zeros, an empty scope
// and a row wider than the writer's wrap.
func TestWriteRoundTrip(t *testing.T) {
	wide := make([]float64, 40)
	for k := range wide {
		wide[k] = float64(k) / 7
	}
	m := &uai.Model{
		Type:   uai.Markov,
		Cards:  []int{2, 3, 40, 1},
		Scopes: [][]int{{1, 0}, {}, {2}, {3, 0}},
		Tables: [][]float64{{0.1, 1 - 0.1, 1.0 / 3, 2.0 / 3, 0, 1}, {5e-324}, wide, {math.MaxFloat64, 1e-300}},
	}
	var sb strings.Builder
	if err := m.Write(&sb); err != nil {
		t.Fatal(err)
	}
	got, err := uai.Read(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, sb.String())
	}
	if err := equalModels(got, m); err != nil {
		t.Fatal(err)
	}
}

// TestValidate: Write refuses invalid models before writing.
func TestValidate(t *testing.T) {
	ok := func() *uai.Model {
		return &uai.Model{Type: uai.Markov, Cards: []int{2, 2}, Scopes: [][]int{{0, 1}}, Tables: [][]float64{{1, 2, 3, 4}}}
	}
	tests := []struct {
		name   string
		modify func(m *uai.Model)
		want   string
	}{
		{"type", func(m *uai.Model) { m.Type = "CSP" }, `model type "CSP"`},
		{"no variables", func(m *uai.Model) { m.Cards = nil; m.Scopes = nil; m.Tables = nil }, "0 variables"},
		{"card", func(m *uai.Model) { m.Cards[1] = 0 }, "variable 1: cardinality 0"},
		{"lengths", func(m *uai.Model) { m.Tables = nil }, "1 scopes for 0 tables"},
		{"scope range", func(m *uai.Model) { m.Scopes[0][1] = 2 }, "factor 0: variable 2 out of range"},
		{"scope repeat", func(m *uai.Model) { m.Scopes[0][1] = 0 }, "factor 0: variable 0 repeated"},
		{"table length", func(m *uai.Model) { m.Tables[0] = m.Tables[0][:3] }, "factor 0: table has 3 entries, want 4"},
		{"nan", func(m *uai.Model) { m.Tables[0][2] = math.NaN() }, "factor 0: entry 2 is NaN"},
		{"negative", func(m *uai.Model) { m.Tables[0][3] = -1 }, "factor 0: entry 3 is -1"},
	}
	for _, tc := range tests {
		m := ok()
		tc.modify(m)
		var sb strings.Builder
		err := m.Write(&sb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if sb.Len() != 0 {
			t.Errorf("%s: Write wrote %d bytes of an invalid model", tc.name, sb.Len())
		}
		if _, err := m.Graph(nil); err == nil {
			t.Errorf("%s: Graph accepted an invalid model", tc.name)
		}
	}
}

func TestEvidenceForms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []uai.Evidence
	}{
		{"none", "0", []uai.Evidence{{}}},
		{"none, newline", "0\n", []uai.Evidence{{}}},
		{"zeros twice (one.uai.evid)", "0\n0\n", []uai.Evidence{{}}},
		{"zeros on a line", "0 0", []uai.Evidence{{}}},
		{"one sample", "2 5 1 3 0", []uai.Evidence{{{5, 1}, {3, 0}}}},
		{"wrapped, comment", "c evidence\n2 5 1\n3 0\n", []uai.Evidence{{{5, 1}, {3, 0}}}},
		{"form 1 wins", "2 0 1 5 1", []uai.Evidence{{{0, 1}, {5, 1}}}},
		{"one empty sample", "1 0", []uai.Evidence{{}}},
		{"two samples", "2\n1 4 1\n2 0 0 1 1\n", []uai.Evidence{{{4, 1}}, {{0, 0}, {1, 1}}}},
	}
	for _, tc := range tests {
		got, err := uai.ReadEvidenceSamples(strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.EqualFunc(got, tc.want, func(a, b uai.Evidence) bool { return slices.Equal(a, b) }) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		first, err := uai.ReadEvidence(strings.NewReader(tc.in))
		if err != nil || !slices.Equal(first, tc.want[0]) {
			t.Errorf("%s: ReadEvidence = %v, %v; want %v", tc.name, first, err, tc.want[0])
		}
	}
}

func TestEvidenceErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "uai: evidence: line 1: unexpected end of input: want the number of observed variables"},
		{"not a number", "1 x 0", `uai: evidence: line 1: token "x": want an integer`},
		{"negative", "1 3 -1", `token "-1": want an integer in [0, 67108864]`},
		{"truncated", "3 1 0\n2 1", "line 2: unexpected end of input: 3 variable/value pairs announced (7 integers), the file has 5 integers"},
		{"trailing", "1 1 0\n9 9", `line 2: token "9": trailing data after 1 variable/value pairs`},
		{"repeated", "2 4 1\n4 0", `line 2: token "4": variable 4 observed twice`},
	}
	for _, tc := range tests {
		_, err := uai.ReadEvidence(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	m := &uai.Model{Type: uai.Markov, Cards: []int{2, 3}, Scopes: [][]int{{0, 1}}, Tables: [][]float64{{1, 1, 1, 1, 1, 1}}}
	for _, tc := range []struct {
		ev   uai.Evidence
		want string
	}{
		{uai.Evidence{{2, 0}}, "observation 0: variable 2 out of range [0, 2)"},
		{uai.Evidence{{1, 2}, {1, 2}}, "observation 1: variable 1 observed twice"},
		{uai.Evidence{{0, 0}, {1, 3}}, "observation 1: value 3 of variable 1 outside its domain {0..2}"},
	} {
		if err := m.CheckEvidence(tc.ev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckEvidence(%v) = %v, want %q", tc.ev, err, tc.want)
		}
		if _, err := m.Graph(tc.ev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Graph(%v) = %v, want %q", tc.ev, err, tc.want)
		}
	}
}

func TestEvidenceRoundTrip(t *testing.T) {
	ev := uai.Evidence{{7, 1}, {0, 2}, {100, 0}}
	var sb strings.Builder
	if err := uai.WriteEvidence(&sb, ev); err != nil {
		t.Fatal(err)
	}
	if sb.String() != "3 7 1 0 2 100 0\n" {
		t.Errorf("WriteEvidence wrote %q", sb.String())
	}
	got, err := uai.ReadEvidence(strings.NewReader(sb.String()))
	if err != nil || !slices.Equal(got, ev) {
		t.Errorf("round trip: %v, %v", got, err)
	}
	if err := uai.WriteEvidence(&sb, uai.Evidence{{1, 0}, {1, 1}}); err == nil {
		t.Error("WriteEvidence accepted a repeated variable")
	}
}

func TestMarginals(t *testing.T) {
	for name, in := range map[string]string{
		"one line":  "MAR 2 2 0.25 0.75 3 0.1 0.2 0.7",
		"two lines": "MAR\n2 2 0.25 0.75 3 0.1 0.2 0.7\n",
		"wrapped":   "c solver output\nMAR\n2\n2 0.25 0.75\n3 0.1\n0.2 0.7\n",
	} {
		p, err := uai.ReadMarginals(strings.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := [][]float64{{0.25, 0.75}, {0.1, 0.2, 0.7}}
		if !slices.EqualFunc(p, want, slices.Equal) {
			t.Errorf("%s: %v, want %v", name, p, want)
		}
	}
	p := [][]float64{{1.0 / 3, 2.0 / 3}, {0, 1, 0}}
	var sb strings.Builder
	if err := uai.WriteMarginals(&sb, p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sb.String(), "MAR\n2 2 0.3333333333333333 0.6666666666666666 3 0 1 0\n") {
		t.Errorf("WriteMarginals wrote %q", sb.String())
	}
	got, err := uai.ReadMarginals(strings.NewReader(sb.String()))
	if err != nil || !slices.EqualFunc(got, p, slices.Equal) {
		t.Errorf("round trip: %v, %v", got, err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"header", "MARGINALS 1 2 0.5 0.5", `token "MARGINALS": want MAR`},
		{"truncated", "MAR 2 2 0.5 0.5 2 0.5", "uai: marginals: line 1: unexpected end of input: want p(x_1 = 1)"},
		{"negative", "MAR 1 2 -0.5 1.5", `token "-0.5": want a non-negative number (p(x_0 = 0))`},
		{"domain", "MAR 1 0", `token "0": want the domain size of variable 0 in [1, 67108864]`},
		{"trailing", "MAR 1 1 1\n1", `line 2: token "1": trailing data after the last marginal`},
	} {
		_, err := uai.ReadMarginals(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range [][][]float64{nil, {{}}, {{math.NaN(), 1}}, {{-1, 2}}, {{math.Inf(1)}}} {
		if err := uai.WriteMarginals(&sb, bad); err == nil {
			t.Errorf("WriteMarginals(%v) accepted", bad)
		}
	}
	m := &uai.Model{Type: uai.Markov, Cards: []int{2, 3}, Scopes: [][]int{}, Tables: [][]float64{}}
	if err := m.CheckMarginals([][]float64{{0.5, 0.5}}); err == nil || !strings.Contains(err.Error(), "1 variables, the model has 2") {
		t.Errorf("CheckMarginals: %v", err)
	}
	if err := m.CheckMarginals([][]float64{{0.5, 0.5}, {1, 0}}); err == nil || !strings.Contains(err.Error(), "variable 1 has 2 values, its domain in the model 3") {
		t.Errorf("CheckMarginals: %v", err)
	}
}

// TestGraph: tables become log-potential tables, zeros hard factors,
// evidence is clamped, an empty scope is a constant, and Build's errors name
// the factor.
func TestGraph(t *testing.T) {
	m, err := uai.Read(strings.NewReader(sampleUAI))
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Graph(uai.Evidence{{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if free := g.Free(); !slices.Equal(free, []int{0, 2}) {
		t.Errorf("free variables %v, want [0 2]", free)
	}
	if v, ok := g.Observed(1); !ok || v != 1 {
		t.Errorf("Observed(1) = %v, %v", v, ok)
	}
	if _, hard := g.Degree(2); hard != 1 {
		t.Errorf("variable 2 has %d hard factors, want 1 (the table with a zero)", hard)
	}
	x := []float64{1, 1, 2}
	if got, want := g.EvalFactor(2, x)+func() float64 { lo, _ := g.FactorRange(2); return lo }(), math.Log(0.189); math.Abs(got-want) > 1e-12 {
		t.Errorf("factor 2 at %v = %v, want log 0.189 = %v", x, got, want)
	}
	if v := g.EvalFactor(2, []float64{0, 1, 1}); !math.IsInf(v, -1) {
		t.Errorf("factor 2 at the zero entry = %v, want −Inf", v)
	}

	c := &uai.Model{Type: uai.Markov, Cards: []int{3}, Scopes: [][]int{{}, {0}}, Tables: [][]float64{{2.5}, {1, 2, 3}}}
	if g, err := c.Graph(nil); err != nil || g.NumFactors() != 2 {
		t.Errorf("constant factor: %v", err)
	}
	// A constant on a huge domain costs nothing (Graph once spread it over a
	// table of 2^26 entries, which the fuzzer found).
	huge := &uai.Model{Type: uai.Markov, Cards: []int{factorgraph.MaxDomain}, Scopes: [][]int{{}}, Tables: [][]float64{{2}}}
	if _, err := huge.Graph(nil); err != nil {
		t.Errorf("constant on a huge domain: %v", err)
	}
	huge.Cards[0]++
	if _, err := huge.Graph(nil); err == nil || !strings.Contains(err.Error(), "cardinality 16777217: want 1 to 16777216 (factorgraph.MaxDomain)") {
		t.Errorf("a domain above MaxDomain: error %v", err)
	}
	z := &uai.Model{Type: uai.Markov, Cards: []int{2, 2}, Scopes: [][]int{{0}, {0, 1}}, Tables: [][]float64{{1, 1}, {0, 0, 0, 0}}}
	if _, err := z.Graph(nil); err == nil || !strings.Contains(err.Error(), "factor 1 (vars 0,1)") {
		t.Errorf("all-zero table: error %v, want it to name factor 1 (vars 0,1)", err)
	}
	z.Scopes[1], z.Tables[1] = []int{}, []float64{0}
	if _, err := z.Graph(nil); err == nil || !strings.Contains(err.Error(), "factor 1") {
		t.Errorf("zero constant: error %v, want it to name factor 1", err)
	}
}

// TestBayesCPT: a BAYES model's tables must be conditional distributions of
// the last variable of their scope; a row that does not sum to 1 is
// reported, naming the factor, the child and the row.
func TestBayesCPT(t *testing.T) {
	for _, tc := range []struct {
		file, want string
	}{
		{"BAYES\n2\n2 3\n2\n1 0\n2 0 1\n2\n0.4 0.6\n6\n0.2 0.3 0.5 0.1 0.1 0.8\n", ""},
		{"BAYES\n2\n2 3\n2\n1 0\n2 0 1\n2\n0.4 0.6\n6\n0.2 0.3 0.5 0.1 0.1 0.7\n", "factor 1, the CPT of variable 1: row 1 sums to"},
		{"BAYES\n1\n2\n1\n1 0\n2\n0.5 0.6\n", "row 0 sums to 1.1"},
		{"BAYES\n1\n2\n1\n1 0\n2\n0.3333 0.6667\n", ""}, // rounded probabilities pass
		{"MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.6\n", ""},      // potentials need not sum to 1
	} {
		_, err := uai.Read(strings.NewReader(tc.file))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.file, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one with %q", tc.file, err, tc.want)
		}
	}
}
