package uai_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/potts"
)

// streamModels are small models of every feature ReadGraph handles: a zero
// (a hard factor), an empty scope (a constant), BAYES tables, runs of
// tables of one shape broken by another shape, evidence.
var streamModels = []struct {
	name, in string
	ev       uai.Evidence
}{
	{"sample", sampleUAI, nil},
	{"sample evidence", sampleUAI, uai.Evidence{{Var: 1, Value: 1}}},
	{"bayes", "BAYES 2 2 2 2 1 0 2 0 1 2 0.3 0.7 4 0.9 0.1 0.2 0.8", uai.Evidence{{Var: 1, Value: 0}}},
	{"constant", "MARKOV 2 3 2 4 1 0 0 1 1 2 0 1 3 1 2 3 1 2.5 1 0.5 6 1 0 2 3 4 5", nil},
	{"shapes", "MARKOV 4 2 2 3 2 6 1 0 1 1 2 0 1 2 2 3 1 2 1 3 2 0.5 1 2 1 2 4 1 2 3 4 4 0 1 1 1 3 1 1 2 2 3 4 5",
		uai.Evidence{{Var: 3, Value: 1}, {Var: 0, Value: 0}}},
	{"potts form", "MARKOV 3 2 2 2 3 2 0 1 2 1 2 2 0 2 4 2 1 1 2 4 2 1 1 2 4 3 1 1 3", nil},
}

// mustKernelEqual fails unless a and b are the same compiled graph: the
// kernel's arrays (rows, ops, tables, pick tables) and what the graph says
// of its factors.
func mustKernelEqual(t *testing.T, a, b *factorgraph.Graph) {
	t.Helper()
	// Every exported array of the kernel, whatever its layout, but the
	// tables: a bulk table's potential stays in Tabs when it compiles as a
	// Potts pair, so a table op's Ref may differ; the ops must reference the
	// same scope and potential.
	ka, kb := compiled.GraphOf(a), compiled.GraphOf(b)
	k1, k2 := reflect.ValueOf(ka).Elem(), reflect.ValueOf(kb).Elem()
	for k := range k1.NumField() {
		f := k1.Type().Field(k)
		if !f.IsExported() || f.Name == "Tabs" || f.Name == "Ops" || f.Name == "Hard" || strings.HasPrefix(f.Name, "Pair") {
			continue
		}
		if !reflect.DeepEqual(k1.Field(k).Interface(), k2.Field(k).Interface()) {
			t.Fatalf("kernel %s differs:\nmodel  %v\nstream %v", f.Name, k1.Field(k), k2.Field(k))
		}
	}
	// The tables laid out in their rows (PairOff) are those whose potential
	// is their own, which differs where the stream reader shares one
	// potential across a run of equal tables: where both lay an op's table
	// out, the same values, read at the same other variable.
	for o := range ka.Ops {
		if ka.PairOff == nil || kb.PairOff == nil || ka.PairOff[o] < 0 || kb.PairOff[o] < 0 {
			continue
		}
		n := len(ka.Tabs.Values(ka.Ops[o].Ref))
		t1, t2 := ka.PairTab[ka.PairOff[o]:][:n], kb.PairTab[kb.PairOff[o]:][:n]
		if ka.PairOther[o] != kb.PairOther[o] || !slices.Equal(t1, t2) {
			t.Fatalf("op %d: laid out %d %v and %d %v", o, ka.PairOther[o], t1, kb.PairOther[o], t2)
		}
	}
	for _, ops := range [][2][]compiled.Op{{ka.Ops, kb.Ops}, {ka.Hard, kb.Hard}} {
		if len(ops[0]) != len(ops[1]) {
			t.Fatalf("%d and %d ops", len(ops[0]), len(ops[1]))
		}
		for k, o1 := range ops[0] {
			o2 := ops[1][k]
			if o1.Kind == compiled.Table && o2.Kind == compiled.Table {
				v1, v2 := ka.Tabs.Vars[ka.Tabs.Off[o1.Ref]:ka.Tabs.Off[o1.Ref+1]], kb.Tabs.Vars[kb.Tabs.Off[o2.Ref]:kb.Tabs.Off[o2.Ref+1]]
				p1, p2 := ka.Tabs.Pots[ka.Tabs.Pot[o1.Ref]], kb.Tabs.Pots[kb.Tabs.Pot[o2.Ref]]
				if !slices.Equal(v1, v2) || !reflect.DeepEqual(p1, p2) {
					t.Fatalf("op %d: tables %v %v and %v %v", k, v1, p1, v2, p2)
				}
				o1.Ref, o2.Ref = 0, 0
			}
			if o1 != o2 {
				t.Fatalf("op %d: %+v and %+v", k, o1, o2)
			}
		}
	}
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"NumVars", a.NumVars(), b.NumVars()}, {"NumFactors", a.NumFactors(), b.NumFactors()}, {"Free", a.Free(), b.Free()},
		{"L", a.L(), b.L()}, {"Psi", a.Psi(), b.Psi()}, {"MaxDegree", a.MaxDegree(), b.MaxDegree()},
		{"String", a.String(), b.String()},
	} {
		if !reflect.DeepEqual(c.a, c.b) {
			t.Fatalf("%s differs:\nmodel  %v\nstream %v", c.name, c.a, c.b)
		}
	}
	for f := range a.NumFactors() {
		lo1, hi1 := a.FactorRange(f)
		lo2, hi2 := b.FactorRange(f)
		if lo1 != lo2 || hi1 != hi2 || a.FactorName(f) != b.FactorName(f) {
			t.Fatalf("factor %d: %s [%v, %v] and %s [%v, %v]", f, a.FactorName(f), lo1, hi1, b.FactorName(f), lo2, hi2)
		}
	}
}

// mustSameChains runs Gibbs and Poisson-Gibbs for steps updates from the
// same seed on a and b and fails unless their states agree throughout.
func mustSameChains(t *testing.T, a, b *factorgraph.Graph, steps int) {
	t.Helper()
	for _, s := range []struct {
		name string
		make func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error)
	}{
		{"gibbs", func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error) { return site.NewGibbs(g, r, nil) }},
		{"pgibbs", func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(g, r, nil)
		}},
	} {
		s1, err1 := s.make(a, rand.New(rand.NewPCG(7, 11)))
		s2, err2 := s.make(b, rand.New(rand.NewPCG(7, 11)))
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("%s: errors %v and %v", s.name, err1, err2)
		}
		if err1 != nil {
			t.Logf("%s: %v", s.name, err1)
			continue
		}
		for k := range steps {
			s1.Step()
			s2.Step()
			if k%97 == 0 || k == steps-1 {
				if !slices.Equal(s1.State(), s2.State()) {
					t.Fatalf("%s: states differ after %d updates", s.name, k+1)
				}
			}
		}
		if s1.Stats() != s2.Stats() || fmt.Sprint(s1.Err()) != fmt.Sprint(s2.Err()) {
			t.Fatalf("%s: stats %+v, %v and %+v, %v", s.name, s1.Stats(), s1.Err(), s2.Stats(), s2.Err())
		}
	}
}

// modelPath is what ReadGraph replaces: Read, then Graph.
func modelPath(in []byte, ev uai.Evidence) (*factorgraph.Graph, *uai.Model, error) {
	m, err := uai.Read(bytes.NewReader(in))
	if err != nil {
		return nil, nil, err
	}
	g, err := m.Graph(ev)
	if err != nil {
		return nil, nil, err
	}
	return g, m, nil
}

// mustSame compares ReadGraph with Read and Graph on one input: the same
// error text, or the same Info, graph and chains.
func mustSame(t *testing.T, in []byte, ev uai.Evidence, steps int) {
	t.Helper()
	g1, m, err1 := modelPath(in, ev)
	g2, info, err2 := uai.ReadGraph(bytes.NewReader(in), ev)
	if err1 != nil || err2 != nil {
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Fatalf("errors differ:\nRead+Graph %v\nReadGraph  %v", err1, err2)
		}
		return
	}
	if want := m.Info(); !reflect.DeepEqual(info, want) {
		t.Fatalf("Info %+v, want %+v", info, want)
	}
	mustKernelEqual(t, g1, g2)
	if steps > 0 {
		mustSameChains(t, g1, g2, steps)
	}
}

// TestReadGraphSame: on every shared model (with its evidence) and the
// small models above, ReadGraph returns the graph Read and Graph return,
// array for array, and the same chains for a seed.
func TestReadGraphSame(t *testing.T) {
	for _, c := range streamModels {
		t.Run(c.name, func(t *testing.T) { mustSame(t, []byte(c.in), c.ev, 3000) })
	}
	dir, err := findData()
	if err != nil {
		t.Skipf("%v: the shared models not compared", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".uai") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		t.Run(strings.TrimSuffix(e.Name(), ".uai"), func(t *testing.T) {
			if fi, err := e.Info(); err != nil || testing.Short() && fi.Size() > 20<<20 {
				t.Skip("larger than 20 MB: skipped with -short")
			}
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ev uai.Evidence
			if _, err := os.Stat(path + ".evid"); err == nil {
				if ev, err = uai.ReadEvidenceFile(path + ".evid"); err != nil {
					t.Fatal(err)
				}
			}
			mustSame(t, in, ev, 3000)
		})
	}
}

// TestReadGraphErrors: malformed models, bad evidence and models Graph
// refuses give the error Read and Graph give, word for word — including a
// parse error after a BAYES table that is not a CPT (Read reads to the end
// first) and a zero constant before a bad table.
func TestReadGraphErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		ev       uai.Evidence
		want     string
	}{
		{"empty", "", nil, "line 1: unexpected end of input: want the model type"},
		{"type", "MARKOW 1 2", nil, `token "MARKOW"`},
		{"absurd variables", "MARKOV 1000000000000", nil, "want the number of variables in [1, 16777216]"},
		{"absurd cardinality", "MARKOV 2\n2 99999999999", nil, "want the cardinality of variable 1 in [1, 16777216]"},
		{"cardinality over MaxDomain", "MARKOV 2\n2 16777217", nil, "want the cardinality of variable 1 in [1, 16777216]"},
		{"absurd factors", "MARKOV 1 2 99999999", nil, "want the number of factors in [0, 16777216]"},
		{"absurd table", "MARKOV 3 65536 65536 65536 1 3 0 1 2", nil, "(MaxTableSize)"},
		{"absurd total", "MARKOV 1 16777216 17 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0", nil, "(MaxTotalSize)"},
		{"scope range", "MARKOV 2 2 2 1\n2 0 2", nil, `line 2: token "2": want a variable of factor 0 in [0, 1]`},
		{"scope repeat", "MARKOV 2 2 2 1\n2 1 1", nil, "variable 1 repeated"},
		{"truncated scopes", "MARKOV 2 2 2 2 1 0\n", nil, "want the scope size of factor 1"},
		{"truncated tables", "MARKOV 1 2 1 1 0\n2 0.5\n", nil, "line 2: unexpected end of input: want entry 1 of factor 0"},
		{"truncated count", "MARKOV 1 2 2 1 0 1 0\n2 0.5 0.5\n", nil, "want the number of entries of factor 1"},
		{"bad count", "MARKOV 1 2 1 1 0\n3 0.5 0.5 0.5", nil, `line 2: token "3": factor 0 has 3 entries, want 2`},
		{"bad count in a run", "MARKOV 2 2 2 2 1 0 1 1\n2 0.5 0.5\n3 0.5 0.5 0.5", nil, `line 3: token "3": factor 1 has 3 entries, want 2`},
		{"nan", "MARKOV 1 2 1 1 0 2 NaN 1", nil, `token "NaN": want a finite number (entry 0 of factor 0)`},
		{"inf", "MARKOV 1 2 1 1 0 2 1 inf", nil, "want a finite number (entry 1 of factor 0)"},
		{"negative", "MARKOV 1 2 1 1 0 2 0.5 -0.5", nil, `token "-0.5": want a non-negative number (entry 1 of factor 0)`},
		{"not a number", "MARKOV 1 2 1 1 0\n2 0.5\n0.5x", nil, `line 3: token "0.5x": want a number (entry 1 of factor 0)`},
		{"trailing", "MARKOV 1 2 1 1 0 2 0.5 0.5\n\n7", nil, `line 3: token "7": trailing data after the last table`},
		{"cpt", "BAYES\n1\n2\n1\n1 0\n2\n0.5 0.6\n", nil, "row 0 sums to 1.1"},
		{"cpt then parse error", "BAYES 1 2 2 1 0 1 0 2 0.5 0.6 2 0.5 x", nil, `token "x": want a number (entry 1 of factor 1)`},
		{"cpt empty scope", "BAYES 1 2 2 0 1 0 1 1 2 0.5 0.5", nil, "factor 0: a BAYES factor needs a scope"},
		{"second cpt", "BAYES 1 2 2 1 0 1 0 2 0.5 0.5 2 0.5 0.6", nil, "factor 1, the CPT of variable 0: row 0 sums to 1.1"},
		{"zero constant", "MARKOV 2 2 2 2 0 2 0 1 1 0 4 0 0 0 0", nil, "uai: factor 0: constant factor 0"},
		{"all zero", "MARKOV 2 2 2 2 1 0 2 0 1 2 1 1 4 0 0 0 0", nil, "factor 1 (vars 0,1): every table entry is −Inf"},
		{"evidence range", sampleUAI, uai.Evidence{{Var: 3, Value: 0}}, "observation 0: variable 3 out of range [0, 3)"},
		{"evidence value", sampleUAI, uai.Evidence{{Var: 2, Value: 3}}, "value 3 of variable 2 outside its domain {0..2}"},
		{"evidence twice", sampleUAI, uai.Evidence{{Var: 2, Value: 1}, {Var: 2, Value: 1}}, "variable 2 observed twice"},
		{"evidence before zero constant", "MARKOV 1 2 1 0 1 0", uai.Evidence{{Var: 0, Value: 2}}, "value 2 of variable 0"},
		{"evidence on a zero", "MARKOV 1 2 1 1 0 2 0 1", uai.Evidence{{Var: 0, Value: 0}}, ""},
		{"long token", "MARKOV " + strings.Repeat("9", 2000), nil, "token longer than 1024 bytes"},
	} {
		_, _, err1 := modelPath([]byte(c.in), c.ev)
		_, _, err2 := uai.ReadGraph(strings.NewReader(c.in), c.ev)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("%s: errors differ:\nRead+Graph %v\nReadGraph  %v", c.name, err1, err2)
		}
		if err2 == nil && c.want != "" || err2 != nil && !strings.Contains(err2.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err2, c.want)
		}
	}
}

// mutate returns in with one random change: cut at a byte, a byte replaced,
// deleted or inserted, or a token replaced by a number of another kind.
func mutate(r *rand.Rand, in []byte) []byte {
	out := slices.Clone(in)
	if len(out) == 0 {
		return out
	}
	k := r.IntN(len(out))
	const alphabet = "0123456789 \n.-e+xcNa"
	switch r.IntN(5) {
	case 0:
		return out[:k]
	case 1:
		out[k] = alphabet[r.IntN(len(alphabet))]
	case 2:
		out = slices.Delete(out, k, k+1)
	case 3:
		out = slices.Insert(out, k, alphabet[r.IntN(len(alphabet))])
	default:
		toks := []string{"0", "1", "2", "-1", "1e999", "NaN", "0.0", "3", "17", "65536", "x"}
		for k > 0 && out[k-1] > ' ' {
			k--
		}
		e := k
		for e < len(out) && out[e] > ' ' {
			e++
		}
		out = slices.Concat(out[:k], []byte(toks[r.IntN(len(toks))]), out[e:])
	}
	return out
}

// TestReadGraphMutations: thousands of corrupted models (cut short, a byte
// changed, a token replaced), from a fixed seed: ReadGraph never panics and
// returns Read and Graph's error word for word, or, when the corruption
// still reads, the same graph.
func TestReadGraphMutations(t *testing.T) {
	srcs := [][]byte{[]byte(sampleUAI)}
	for _, c := range streamModels {
		srcs = append(srcs, []byte(c.in))
	}
	if dir, err := findData(); err == nil {
		for _, name := range []string{"Grids_11.uai", "Promedus_11.uai", "CSP_11.uai"} {
			if in, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				srcs = append(srcs, in)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 5))
	n := 3000
	if testing.Short() {
		n = 600
	}
	for k := range n {
		src := srcs[k%len(srcs)]
		in := mutate(r, src)
		if r.IntN(3) == 0 {
			in = mutate(r, in)
		}
		ok := t.Run("", func(t *testing.T) { mustSame(t, in, nil, 0) })
		if !ok {
			if len(in) > 400 {
				in = in[:400]
			}
			t.Fatalf("mutation %d: input (first 400 bytes) %q", k, in)
		}
	}
}

// FuzzReadGraph: ReadGraph never panics, and agrees with Read and Graph:
// the same error text, or the same graph; and with a memory limit of
// 64 MB, neither ReadGraph nor Read allocates more (mustWithinLimit).
func FuzzReadGraph(f *testing.F) {
	for _, c := range streamModels {
		f.Add(c.in)
	}
	addShared(f, ".uai", 4<<10)
	f.Add("MARKOV 2 16777216 2 16 " + strings.Repeat("1 0 ", 16) + "16777216 0.5 0.5")
	f.Add("MARKOV\n16777216\n2 2 2")
	f.Add("MARKOV 3 2 2 2\n16777216\n1 0")
	f.Add("MARKOV 2 2 2147483647 1 1 0 2 0.5 0.5")
	f.Fuzz(func(t *testing.T, in string) {
		mustSame(t, []byte(in), nil, 0)
		mustWithinLimit(t, in)
	})
}

// fuzzLimit is the memory limit of the fuzz targets' readers.
const fuzzLimit = 64 << 20

// mustWithinLimit fails if ReadGraph or Read, with a memory limit of
// fuzzLimit, allocates more than it on in.
func mustWithinLimit(t *testing.T, in string) {
	t.Helper()
	o := uai.Options{MaxBytes: fuzzLimit}
	for _, r := range []struct {
		how  string
		read func() error
	}{
		{"ReadGraph", func() error { _, _, err := o.ReadGraph(strings.NewReader(in), nil); return err }},
		{"Read", func() error { _, err := o.Read(strings.NewReader(in)); return err }},
	} {
		before := allocated()
		err := r.read()
		if alloc := allocated() - before; alloc > fuzzLimit {
			t.Fatalf("%s: %.0f bytes allocated, more than the limit %d (error %v)", r.how, alloc, fuzzLimit, err)
		}
	}
}

// TestReadGraphProblem: the files of a problem read with the model streamed,
// and errors naming their file as ReadProblem's and Graph's do.
func TestReadGraphProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := write("m.uai", sampleUAI)
	evid := write("m.evid", "1 1 1")
	mar := write("m.MAR", "MAR 3 2 0.5 0.5 2 0 1 3 0.2 0.3 0.5")
	p, err := uai.ReadGraphProblem(model, evid, mar)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := uai.ReadProblem(model, evid, mar)
	if err != nil {
		t.Fatal(err)
	}
	g, err := pr.Model.Graph(pr.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	mustKernelEqual(t, g, p.Graph)
	if !reflect.DeepEqual(p.Info, pr.Model.Info()) || !slices.Equal(p.Evidence, pr.Evidence) || !slices.EqualFunc(p.Exact, pr.Exact, slices.Equal) {
		t.Errorf("problem %+v %v %v, want %+v %v %v", p.Info, p.Evidence, p.Exact, pr.Model.Info(), pr.Evidence, pr.Exact)
	}
	zero := write("zero.uai", "MARKOV 1 2 1 0 1 0")
	for _, c := range []struct {
		model, evid, mar, want string
	}{
		{filepath.Join(dir, "missing.uai"), "", "", "missing.uai: no such file"},
		{write("bad.uai", "MARKOV 1 2 1 1 0\n2 0.5 0.5x"), "", "", `bad.uai: uai: line 2: token "0.5x": want a number`},
		{model, write("bad.evid", "1 2 5"), "", "bad.evid: uai: evidence: observation 0: value 5 of variable 2"},
		{model, write("x.evid", "1 x 5"), "", `x.evid: uai: evidence: line 1: token "x"`},
		{model, "", write("short.MAR", "MAR 1 2 0.5 0.5"), "short.MAR: uai: marginals: 1 variables, the model has 3"},
		{zero, write("z.evid", "1 0 3"), "", "z.evid: uai: evidence: observation 0: value 3 of variable 0"},
		{zero, "", write("z.MAR", "MAR 2 2 0.5 0.5 2 0.5 0.5"), "z.MAR: uai: marginals: 2 variables, the model has 1"},
		{zero, "", "", "zero.uai: uai: factor 0: constant factor 0"},
		{write("allzero.uai", "MARKOV 1 2 1 1 0 2 0 0"), "", "", "allzero.uai: uai: factorgraph: factor 0 (vars 0): every table entry is −Inf"},
	} {
		_, err := uai.ReadGraphProblem(c.model, c.evid, c.mar)
		want := func() error {
			pr, err := uai.ReadProblem(c.model, c.evid, c.mar)
			if err != nil {
				return err
			}
			if _, err := pr.Model.Graph(pr.Evidence); err != nil {
				return fmt.Errorf("%s: %w", c.model, err)
			}
			return nil
		}()
		if err == nil || !strings.Contains(err.Error(), c.want) || fmt.Sprint(want) != err.Error() {
			t.Errorf("%s %s %s: error %v, want %q (ReadProblem and Graph: %v)", c.model, c.evid, c.mar, err, c.want, want)
		}
	}
	if _, _, err := uai.ReadGraphFile(zero, nil); err == nil || !strings.HasPrefix(err.Error(), zero+": uai: factor 0") {
		t.Errorf("ReadGraphFile: error %v, want it to name the file", err)
	}
}

// gridUAI returns a MARKOV model of a w×w grid of binary variables, a
// unary table on each and a pair table on each edge, one shape after the
// other: the layout of the large segmentation models.
func gridUAI(w int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	n := w * w
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 2
		m.Scopes = append(m.Scopes, []int{i})
		m.Tables = append(m.Tables, []float64{r.Float64(), r.Float64()})
	}
	for i := range n {
		for _, j := range []int{i + 1, i + w} {
			if j < n && (j != i+1 || j%w != 0) {
				m.Scopes = append(m.Scopes, []int{i, j})
				a, b := 1+r.Float64(), r.Float64()
				m.Tables = append(m.Tables, []float64{a, b, b, a})
			}
		}
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestReadGraphAllocs: ReadGraph allocates per run of tables, not per
// factor.
func TestReadGraphAllocs(t *testing.T) {
	in := gridUAI(60) // 3,600 unary and 7,080 pair factors
	nf := 3600 + 7080
	stream := testing.AllocsPerRun(3, func() {
		if _, _, err := uai.ReadGraph(bytes.NewReader(in), nil); err != nil {
			t.Fatal(err)
		}
	})
	model := testing.AllocsPerRun(3, func() {
		if _, _, err := modelPath(in, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d factors: ReadGraph %.0f allocations (%.4f a factor), Read+Graph %.0f (%.2f a factor)",
		nf, stream, stream/float64(nf), model, model/float64(nf))
	if stream > float64(nf)/20 {
		t.Errorf("ReadGraph: %.0f allocations for %d factors, want fewer than one per 20 factors", stream, nf)
	}
}

// largestShared returns the largest shared model file, or "" without the
// data.
func largestShared() string {
	dir, err := findData()
	if err != nil {
		return ""
	}
	ents, _ := os.ReadDir(dir)
	best, size := "", int64(-1)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".uai") && fi.Size() > size {
			best, size = filepath.Join(dir, e.Name()), fi.Size()
		}
	}
	return best
}

// heapPeak samples the heap (live objects and not yet swept garbage) every
// 100 µs until stopped and returns the largest value seen above base.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		if v := read(); v > peak.Load() {
			peak.Store(v)
		}
		close(done)
		<-finished
		if p := peak.Load(); p > base {
			return p - base
		}
		return 0
	}
}

// BenchmarkReadGraph reads the largest shared model, a 300×300 grid
// (269,400 factors) and a 300×300 Potts lattice of one coupling (179,400
// pairs, one table repeated) into a graph, streamed (ReadGraph) and through a Model
// (Read, then Graph, the Model kept as ReadProblem's callers keep it). Besides
// time and allocations it reports live-B, the heap the result holds,
// peak-B, the largest heap sampled while reading (garbage included), and
// allocs/factor.
func BenchmarkReadGraph(b *testing.B) {
	inputs := []struct {
		name string
		in   []byte
	}{{"grid300", gridUAI(300)}, {"potts300", repeatedUAI(300, false)}}
	if path := largestShared(); path != "" {
		in, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append([]struct {
			name string
			in   []byte
		}{{strings.TrimSuffix(filepath.Base(path), ".uai"), in}}, inputs...)
	}
	// A random geometric graph of 10⁶ variables and 5·10⁶ Potts pairs as a
	// file holds it (396 MB of text, written on first use), streamed only.
	var geometric []byte
	b.Run("geometric1e6/stream", func(b *testing.B) {
		if geometric == nil {
			geometric = geometricUAI(b)
		}
		in := geometric
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		var g *factorgraph.Graph
		for b.Loop() {
			var err error
			if g, _, err = uai.ReadGraph(bytes.NewReader(in), nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(g.Bytes())/float64(g.NumFactors()), "graph-B/pair")
	})
	for _, in := range inputs {
		nf := 0
		for _, path := range []string{"stream", "model"} {
			b.Run(in.name+"/"+path, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(in.in)))
				var keep []any
				var peak, live uint64
				var ms0, ms1 runtime.MemStats
				for range b.N {
					keep = nil
					stop := heapPeak()
					runtime.ReadMemStats(&ms0)
					if path == "stream" {
						g, info, err := uai.ReadGraph(bytes.NewReader(in.in), nil)
						if err != nil {
							b.Fatal(err)
						}
						keep, nf = []any{g, info}, g.NumFactors()
					} else {
						g, m, err := modelPath(in.in, nil)
						if err != nil {
							b.Fatal(err)
						}
						keep, nf = []any{g, m}, g.NumFactors()
					}
					peak = max(peak, stop())
					runtime.GC()
					runtime.ReadMemStats(&ms1)
					live = ms1.HeapAlloc - ms0.HeapAlloc
				}
				runtime.KeepAlive(keep)
				b.ReportMetric(float64(live), "live-B")
				b.ReportMetric(float64(peak), "peak-B")
				b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(nf), "allocs/factor")
				b.ReportMetric(float64(nf), "factors")
			})
		}
	}
}

// TestGridUAI checks the benchmark's model: it reads, and ReadGraph builds
// what Graph builds (a grid of runs of two shapes).
func TestGridUAI(t *testing.T) {
	in := gridUAI(6)
	mustSame(t, in, uai.Evidence{{Var: 7, Value: 1}}, 2000)
	if _, m, err := modelPath(in, nil); err != nil || len(m.Scopes) != 36+60 || math.IsNaN(m.Tables[40][0]) {
		t.Fatalf("grid model: %v", err)
	}
}

// TestReadContext: a reading stops once its context is done: at once for
// a context cancelled before, within milliseconds for one cancelled while
// a large model is read; the error wraps the context's, whatever token
// the reading was cut in.
func TestReadContext(t *testing.T) {
	var b strings.Builder
	const n = 400
	fmt.Fprintf(&b, "MARKOV\n%d\n%s\n%d\n", n, strings.Repeat("2 ", n), n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&b, "2 %d %d\n", i, j)
		}
	}
	for range n * (n - 1) / 2 {
		b.WriteString("4 0.125 1.5 2.25e-3 1\n")
	}
	text := b.String()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, read := range map[string]func(o uai.Options) error{
		"Read":      func(o uai.Options) error { _, err := o.Read(strings.NewReader(text)); return err },
		"ReadGraph": func(o uai.Options) error { _, _, err := o.ReadGraph(strings.NewReader(text), nil); return err },
	} {
		if err := read(uai.Options{Context: ctx}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled before: %v, want context.Canceled", name, err)
		}
		for _, after := range []time.Duration{time.Millisecond, 5 * time.Millisecond} {
			c, cancel := context.WithCancel(context.Background())
			time.AfterFunc(after, cancel)
			start := time.Now()
			err := read(uai.Options{Context: c})
			cancel()
			if took := time.Since(start); err == nil {
				t.Logf("%s: read whole in %v before the cancellation", name, took)
			} else if !errors.Is(err, context.Canceled) {
				t.Errorf("%s, cancelled after %v: %v, want context.Canceled", name, after, err)
			} else if took > after+500*time.Millisecond {
				t.Errorf("%s, cancelled after %v: returned after %v", name, after, took)
			}
		}
	}
}

// repeatedUAI returns a w×w grid of Potts pairs of one coupling, every
// pair's table the same (as uai.Model.WriteFile writes a lattice), the last
// pair's different if last is set.
func repeatedUAI(w int, last bool) []byte {
	n := w * w
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 3
	}
	for i := range n {
		for _, j := range []int{i + 1, i + w} {
			if j < n && (j != i+1 || j%w != 0) {
				m.Scopes = append(m.Scopes, []int{i, j})
				m.Tables = append(m.Tables, []float64{2, 1, 1, 1, 2, 1, 1, 1, 2})
			}
		}
	}
	if last {
		m.Tables[len(m.Tables)-1] = []float64{3, 1, 1, 1, 3, 1, 1, 1, 3}
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestReadGraphRepeated: a model whose pairs repeat one table is read into
// one potential for the run — the graph Read and Graph build, array for
// array, in about the bytes of its Potts pairs added in bulk
// (Builder.AddPottsPairs), where a table a factor took five times more —,
// and a run whose last table differs keeps every table (its kernel the
// same as Read and Graph's, which a shared table would not be).
func TestReadGraphRepeated(t *testing.T) {
	const w = 60
	for _, last := range []bool{false, true} {
		in := repeatedUAI(w, last)
		mustSame(t, in, nil, 2000)
		g, _, err := uai.ReadGraph(bytes.NewReader(in), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := factorgraph.NewBuilder()
		b.AddVariables(w*w, factorgraph.Discrete(3))
		var is, js []int32
		var ws []float64
		for i := range w * w {
			for _, j := range []int{i + 1, i + w} {
				if j < w*w && (j != i+1 || j%w != 0) {
					is, js, ws = append(is, int32(i)), append(js, int32(j)), append(ws, math.Log(2))
				}
			}
		}
		b.AddPottsPairs(is, js, ws)
		pairs, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(g.Bytes()) / float64(pairs.Bytes())
		t.Logf("last table different %v: %d bytes, %d as Potts pairs (%.2f×)", last, g.Bytes(), pairs.Bytes(), ratio)
		if !last && ratio > 1.6 {
			t.Errorf("one table repeated: %d bytes, %.2f× the %d of its Potts pairs", g.Bytes(), ratio, pairs.Bytes())
		}
		if last && ratio < 2 {
			t.Errorf("tables differing: %d bytes, %.2f× the %d of its Potts pairs: a table a factor expected", g.Bytes(), ratio, pairs.Bytes())
		}
	}
}

// geometricUAI returns potts.Geometric(10⁶, 10, 4, 0.2) with its first
// stream (BenchmarkSparse's geometric graph) as a UAI file: a table
// exp(0.2·δ(x_i, x_j)) a pair, the variables numbered as the points were
// drawn.
func geometricUAI(b *testing.B) []byte {
	p, err := potts.Geometric(1e6, 10, 4, 0.2, rand.New(rand.NewPCG(1, 7)))
	if err != nil {
		b.Fatal(err)
	}
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, p.N), Scopes: make([][]int, len(p.I)), Tables: make([][]float64, len(p.I))}
	for i := range m.Cards {
		m.Cards[i] = p.Q
	}
	tables := map[float64][]float64{}
	for k := range p.I {
		t, ok := tables[p.W[k]]
		if !ok {
			t = make([]float64, p.Q*p.Q)
			for a := range p.Q {
				for c := range p.Q {
					t[a*p.Q+c] = 1
					if a == c {
						t[a*p.Q+c] = math.Exp(p.W[k])
					}
				}
			}
			tables[p.W[k]] = t
		}
		m.Scopes[k], m.Tables[k] = []int{int(p.I[k]), int(p.J[k])}, t
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
