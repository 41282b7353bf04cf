package chain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// agreement is a user's scalar summary of a state of line3: how many of the
// two bonds agree.
func agreement(x []float64) float64 {
	n := 0.0
	if x[0] == x[1] {
		n++
	}
	if x[1] == x[2] {
		n++
	}
	return n
}

// A scalar summary traced by four chains of different lengths (as a
// Duration would stop them), summarised in one call.
func ExampleScalarTrace() {
	g := line3()
	var traces []*chain.ScalarTrace
	for c, steps := range []int64{40000, 50000, 60000, 45000} {
		src := chain.Source(7, c)
		s, err := site.NewGibbs(g, rand.New(src), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		tr, err := chain.NewScalarTrace(agreement, 3, 1<<20) // once a sweep of 3 sites
		if err != nil {
			fmt.Println(err)
			return
		}
		ch := &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{tr}, Burn: 300}
		if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{ch}); err != nil {
			fmt.Println(err)
			return
		}
		traces = append(traces, tr)
	}
	s, kept, err := diag.SummarizeUnequal(chain.ScalarChains(traces...))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("kept %d draws a chain; mean agreement %.1f, R̂ < 1.01: %v\n", kept, s.Mean, s.RHat < 1.01)
	// Output:
	// kept 13233 draws a chain; mean agreement 1.6, R̂ < 1.01: true
}

// Rao–Blackwellised marginals in one call, and the answer for a kernel
// that cannot give them.
func ExampleNewRBMarginals() {
	g := line3()
	src := chain.Source(2, 0)
	s, err := site.NewGibbs(g, rand.New(src), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := chain.NewRBMarginals(s, factorgraph.Sizes(g))
	if err != nil {
		fmt.Println(err)
		return
	}
	ch := &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{m}, Burn: 1000}
	if err := (&chain.Runner{Steps: 1000000}).Run(context.Background(), []*chain.Chain{ch}); err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range m.Probs() {
		fmt.Printf("P(x%d = 1) ≈ %.2f\n", i, p[1])
	}
	mg, _ := mingibbs.NewMGPMH(g, rand.New(chain.Source(1, 1)), nil)
	if _, err := chain.NewRBMarginals(mg, factorgraph.Sizes(g)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// P(x0 = 1) ≈ 0.73
	// P(x1 = 1) ≈ 0.65
	// P(x2 = 1) ≈ 0.59
	// chain: Rao–Blackwellised marginals need a Conditioner kernel, whose steps report the distribution they draw from; *mingibbs.MGPMH is not one (count visits with NewMarginals instead)
}

func TestNewRBMarginals(t *testing.T) {
	g := line3()
	s, err := site.NewGibbs(g, rand.New(chain.Source(3, 0)), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := chain.NewRBMarginals(s, factorgraph.Sizes(g))
	if err != nil || !m.RaoBlackwellised() {
		t.Fatalf("Gibbs: %v, Rao–Blackwellised %v", err, m != nil && m.RaoBlackwellised())
	}
	mg, err := mingibbs.NewMGPMH(g, rand.New(chain.Source(3, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := chain.NewRBMarginals(mg, factorgraph.Sizes(g)); m != nil || err == nil || !strings.Contains(err.Error(), "*mingibbs.MGPMH") {
		t.Fatalf("MGPMH: %v, %v; want an error naming *mingibbs.MGPMH", m, err)
	}
}

// stepper is a kernel whose state is its step count, to check a
// ScalarTrace's schedule against a Trace's.
type stepper struct{ x []float64 }

func (s *stepper) Step() int        { s.x[0]++; return 0 }
func (s *stepper) State() []float64 { return s.x }
func (s *stepper) Err() error       { return nil }

func TestScalarTraceMatchesTrace(t *testing.T) {
	calls := 0
	sq := func(x []float64) float64 { calls++; return x[0] * x[0] }
	st, err := chain.NewScalarTrace(sq, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := chain.NewTrace([]int{0}, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	k := &stepper{x: []float64{0}}
	for n := int64(1); n <= 200; n++ {
		k.Step()
		st.Observe(n, 0, k.State())
		tr.Observe(n, 0, k.State())
	}
	got, want := st.Draws(), tr.Draws()[0]
	if len(got) != len(want) || st.Every() != tr.Every() {
		t.Fatalf("scalar trace %v every %d, trace %v every %d", got, st.Every(), want, tr.Every())
	}
	for i := range got {
		if got[i] != want[i]*want[i] {
			t.Fatalf("draw %d: %v, want %v", i, got[i], want[i]*want[i])
		}
	}
	if calls > 200/3 {
		t.Errorf("f evaluated %d times in 200 steps at most every 3rd", calls)
	}
	if _, err := chain.NewScalarTrace(nil, 1, 2); err == nil {
		t.Error("nil function accepted")
	}
}

func TestTraceChains(t *testing.T) {
	a, _ := chain.NewTrace([]int{2, 0}, 1, 100)
	b, _ := chain.NewTrace([]int{2, 0}, 1, 100)
	for n := int64(1); n <= 5; n++ {
		a.Observe(n, 0, []float64{float64(n), 0, 10 * float64(n)})
		if n <= 3 {
			b.Observe(n, 0, []float64{-float64(n), 0, -10 * float64(n)})
		}
	}
	out, err := chain.TraceChains(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out); got != "[[[10 20 30 40 50] [-10 -20 -30]] [[1 2 3 4 5] [-1 -2 -3]]]" {
		t.Errorf("TraceChains = %s", got)
	}
	c, _ := chain.NewTrace([]int{2, 1}, 1, 100)
	if _, err := chain.TraceChains(a, c); err == nil {
		t.Error("traces of different coordinates accepted")
	}
}
