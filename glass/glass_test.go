package glass

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// logPotential returns Σ_φ φ(x) over the factors of g: EvalFactor gives
// φ − lo, and the declared lo is added back.
func logPotential(g *factorgraph.Graph, x []float64) float64 {
	sum := 0.0
	for f := range g.NumFactors() {
		lo, _ := g.FactorRange(f)
		sum += g.EvalFactor(f, x) + lo
	}
	return sum
}

// states calls fn with every state of n binary variables.
func states(n int, fn func(x []float64)) {
	x := make([]float64, n)
	for m := range 1 << n {
		for i := range n {
			x[i] = float64(m >> i & 1)
		}
		fn(x)
	}
}

func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, a := range v {
		mx = max(mx, a)
	}
	s := 0.0
	for _, a := range v {
		s += math.Exp(a - mx)
	}
	return mx + math.Log(s)
}

// enumeration is a glass and its graph by brute force: log Z of the
// formula exp(−βE) and of the graph, the largest difference of the two
// normalised distributions, and the graph's marginals π(x_i = 1).
type enumeration struct {
	logZ, logZGraph float64
	maxDiff         float64
	marg1           []float64
}

func enumerate(in *Instance, g *factorgraph.Graph) enumeration {
	n := g.NumVars()
	var lf, lg []float64
	states(n, func(x []float64) {
		lf = append(lf, -in.Spec.Beta*in.Energy(x))
		lg = append(lg, logPotential(g, x))
	})
	e := enumeration{logZ: logSumExp(lf), logZGraph: logSumExp(lg), marg1: make([]float64, n)}
	for m := range lf {
		pf, pg := math.Exp(lf[m]-e.logZ), math.Exp(lg[m]-e.logZGraph)
		e.maxDiff = max(e.maxDiff, math.Abs(pf-pg))
		for i := range n {
			if m>>i&1 == 1 {
				e.marg1[i] += pg
			}
		}
	}
	return e
}

var enumSpecs = []Spec{
	{L: 3, Beta: 0.7, FieldSD: 0.5, Seed: 1},
	{L: 3, Beta: 2, FieldSD: 0.1, Seed: 2},
	{L: 3, Beta: 1.1, Seed: 3}, // no fields
	{L: 3, Beta: 0.9, FieldSD: 1, Periodic: true, Seed: 4},
	{L: 2, Beta: 1.3, FieldSD: 0.3, Periodic: true, Seed: 5}, // double bonds
	{L: 4, Beta: 0.5, FieldSD: 0.2, Seed: 6},
}

// TestEnumerate checks the graph against the formula on every state of
// small glasses: its normalised distribution equals exp(−βE)/Z, its
// log-potential is −βE + LogZShift() state by state, and elim's exact log Z
// and marginals agree with enumeration, log Z after the shift.
func TestEnumerate(t *testing.T) {
	for _, s := range enumSpecs {
		in, err := Draw(s)
		if err != nil {
			t.Fatal(err)
		}
		g, err := in.Graph()
		if err != nil {
			t.Fatal(err)
		}
		shift := in.LogZShift()
		states(g.NumVars(), func(x []float64) {
			if d := logPotential(g, x) - (-s.Beta*in.Energy(x) + shift); math.Abs(d) > 1e-9 {
				t.Fatalf("%+v at %v: graph log-potential − (−βE + C) = %v", s, x, d)
			}
		})
		e := enumerate(in, g)
		if e.maxDiff > 1e-12 {
			t.Errorf("%+v: distributions differ by up to %v", s, e.maxDiff)
		}
		if d := e.logZGraph - (e.logZ + shift); math.Abs(d) > 1e-9 {
			t.Errorf("%+v: log Z of the graph %v, of the formula %v + shift %v", s, e.logZGraph, e.logZ, shift)
		}
		comps, err := elim.Plan(context.Background(), g, elim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		logZ := elim.ClampedLogPotential(g)
		for _, c := range comps {
			res, err := c.Solve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			logZ += res.LogZ
			for k, v := range res.Vars {
				if d := res.Marginals[k][1] - e.marg1[v]; math.Abs(d) > 1e-9 {
					t.Errorf("%+v: elim's π(x%d = 1) = %v, enumerated %v", s, v, res.Marginals[k][1], e.marg1[v])
				}
			}
		}
		if math.Abs(logZ-e.logZGraph) > 1e-9 || math.Abs(logZ-shift-e.logZ) > 1e-9 {
			t.Errorf("%+v: elim's log Z %v, enumerated %v (graph) = %v (formula) + %v", s, logZ, e.logZGraph, e.logZ, shift)
		}
	}
}

// TestEnumerateCatches checks that the enumeration tells a wrong pair
// weight: the Potts pair W = βJ (the Ising coupling read as a Potts one)
// instead of 2βJ.
func TestEnumerateCatches(t *testing.T) {
	for _, s := range enumSpecs {
		in, err := Draw(s)
		if err != nil {
			t.Fatal(err)
		}
		b := factorgraph.NewBuilder()
		b.AddVariables(s.L*s.L, factorgraph.Discrete(2))
		for _, bd := range in.Bonds {
			b.AddFactor(factorgraph.NewPotts(bd.A, bd.B, s.Beta*bd.J))
		}
		for i, h := range in.Field {
			b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{-s.Beta * h, s.Beta * h}))
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if e := enumerate(in, g); e.maxDiff < 1e-3 {
			t.Errorf("%+v: W = βJ passes: distributions differ by %v", s, e.maxDiff)
		}
	}
}

func TestDraw(t *testing.T) {
	s := Spec{L: 100, Beta: 2, FieldSD: 0.5, Seed: 7}
	a, err := Draw(s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Draw(s)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same Spec drew two instances")
	}
	// The couplings depend on the seed alone; the fields on σ linearly.
	s2 := s
	s2.Beta, s2.FieldSD = 3, 1
	c, _ := Draw(s2)
	if !reflect.DeepEqual(a.Bonds, c.Bonds) {
		t.Error("the couplings changed with β and FieldSD")
	}
	for i := range a.Field {
		if c.Field[i] != 2*a.Field[i] {
			t.Fatalf("h_%d = %v at σ = 1, %v at σ = 0.5", i, c.Field[i], a.Field[i])
		}
	}
	s3 := s
	s3.Seed++
	d, _ := Draw(s3)
	if reflect.DeepEqual(a.Bonds, d.Bonds) || reflect.DeepEqual(a.Field, d.Field) {
		t.Error("seeds 7 and 8 drew the same couplings or fields")
	}
	// 19800 bonds between nearest neighbours, each J = ±1, half of each
	// within 5 standard deviations (√19800/2 ≈ 70); fields of SD 0.5.
	if len(a.Bonds) != s.NumBonds() || s.NumBonds() != 19800 {
		t.Fatalf("%d bonds, NumBonds %d; want 19800", len(a.Bonds), s.NumBonds())
	}
	plus := 0
	for _, bd := range a.Bonds {
		if dr, dc := bd.B/s.L-bd.A/s.L, bd.B%s.L-bd.A%s.L; dr*dr+dc*dc != 1 {
			t.Fatalf("bond %+v joins sites that are not neighbours", bd)
		}
		switch bd.J {
		case 1:
			plus++
		case -1:
		default:
			t.Fatalf("bond %+v: J not ±1", bd)
		}
	}
	if math.Abs(float64(plus)-9900) > 5*70 {
		t.Errorf("%d of 19800 couplings are +1", plus)
	}
	ss := 0.0
	for _, h := range a.Field {
		ss += h * h
	}
	if sd := math.Sqrt(ss / 10000); math.Abs(sd-0.5) > 0.5*5/math.Sqrt(20000) {
		t.Errorf("fields of SD %v, want 0.5", sd)
	}
}

// TestGraphShape counts variables, factors and bonds, free and periodic.
func TestGraphShape(t *testing.T) {
	for _, tc := range []struct {
		s              Spec
		bonds, factors int
	}{
		{Spec{L: 5, Beta: 1, FieldSD: 0.1}, 40, 65},
		{Spec{L: 5, Beta: 1, FieldSD: 0.1, Periodic: true}, 50, 75},
		{Spec{L: 5, Beta: 1}, 40, 40},
		{Spec{L: 2, Beta: 1, Periodic: true}, 8, 8},
	} {
		g, err := New(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if tc.s.NumBonds() != tc.bonds || g.NumFactors() != tc.factors || g.NumVars() != tc.s.L*tc.s.L {
			t.Errorf("%+v: %d bonds, %d factors, %d variables; want %d, %d, %d", tc.s, tc.s.NumBonds(), g.NumFactors(), g.NumVars(), tc.bonds, tc.factors, tc.s.L*tc.s.L)
		}
		for f := range tc.bonds {
			if lo, hi := g.FactorRange(f); hi-lo != 2*tc.s.Beta {
				t.Errorf("%+v: pair factor %d has range [%v, %v], want width 2β", tc.s, f, lo, hi)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{L: 1, Beta: 1}, "glass: L = 1: need at least 2"},
		{Spec{L: -3, Beta: 1}, "L = -3"},
		{Spec{L: MaxL + 1, Beta: 1}, "more than 46340"},
		{Spec{L: 3, Beta: 0}, "β = 0: need a finite β > 0"},
		{Spec{L: 3, Beta: -1}, "β = -1"},
		{Spec{L: 3, Beta: math.NaN()}, "β = NaN"},
		{Spec{L: 3, Beta: math.Inf(1)}, "β = +Inf"},
		{Spec{L: 3, Beta: 1, FieldSD: -0.1}, "FieldSD = -0.1: need a finite FieldSD ≥ 0"},
		{Spec{L: 3, Beta: 1, FieldSD: math.NaN()}, "FieldSD = NaN"},
		{Spec{L: 3, Beta: 1, FieldSD: math.Inf(1)}, "FieldSD = +Inf"},
		{Spec{L: 3, Beta: math.MaxFloat64}, "2β overflows"},
		{Spec{L: 3, Beta: 1e308, FieldSD: 1e10, Seed: 1}, "overflows"},
	} {
		_, err := New(tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", tc.s, err, tc.want)
		}
	}
	// A hand-made instance with too few fields or a bond out of range.
	in, _ := Draw(Spec{L: 3, Beta: 1, FieldSD: 1})
	bad := *in
	bad.Field = bad.Field[:4]
	if _, err := bad.Graph(); err == nil {
		t.Error("Graph accepted 4 fields for 9 sites")
	}
	bad = *in
	bad.Bonds = append([]Bond{{A: 0, B: 9, J: 1}}, in.Bonds...)
	if _, err := bad.Graph(); err == nil {
		t.Error("Graph accepted a bond to site 9 of 9")
	}
	if e := bad.Energy(make([]float64, 9)); !math.IsNaN(e) {
		t.Errorf("Energy with a bond to site 9 of 9 = %v, want NaN", e)
	}
	for _, x := range [][]float64{make([]float64, 8), {0, 1, 0, 1, 2, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, -1}} {
		if e := in.Energy(x); !math.IsNaN(e) {
			t.Errorf("Energy(%v) = %v, want NaN", x, e)
		}
	}
}
