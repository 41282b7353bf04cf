package factorgraph_test

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// allocated returns the bytes allocated so far (runtime.MemStats.TotalAlloc).
func allocated() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}

// TestMemoryLimit: the bulk adds and Build refuse a graph over the
// builder's memory limit before allocating it, with a *MemoryError naming
// the call, the estimate and the limit; a negative limit and domains above
// MaxDomain are refused too. Each refusal allocates under 1 MB.
func TestMemoryLimit(t *testing.T) {
	pairs := func(m int) ([]int32, []int32, []float64) { // m pairs over variables 0 and 1
		return make([]int32, m), make([]int32, m), make([]float64, m)
	}
	pa, pb, pw := pairs(100000) // the caller's, allocated before the measure
	for k := range pb {
		pb[k] = 1
	}
	pb[0] = 0
	table := make([]float64, 1<<18)
	many := make([]factorgraph.Factor, 5000)
	for k := range many {
		many[k] = factorgraph.NewPotts(0, 1, 1)
	}
	for _, c := range []struct {
		name  string
		limit float64
		build func(b *factorgraph.Builder)
		want  string
	}{
		{"variables, 2^28", 1 << 30, func(b *factorgraph.Builder) { b.AddVariables(1<<28, factorgraph.Discrete(2)) },
			"factorgraph: AddVariables(268435456, {0..1}) (after 0 variables): the graph needs about 21.3 GB, more than the limit of 1 GB (Builder.SetMaxBytes)"},
		{"variables, 2^31-1", 1 << 30, func(b *factorgraph.Builder) { b.AddVariables(math.MaxInt32, factorgraph.Discrete(2)) },
			"AddVariables(2147483647, {0..1}) (after 0 variables): the graph needs about 170 GB"},
		{"variables after some", 1 << 20, func(b *factorgraph.Builder) {
			b.AddVariables(1000, factorgraph.Discrete(2))
			b.AddVariables(10000, factorgraph.Discrete(2))
		}, "AddVariables(10000, {0..1}) (after 1000 variables): the graph needs about 1.14 MB, more than the limit of 1 MB"},
		{"pairs", 1 << 20, func(b *factorgraph.Builder) {
			b.AddVariables(2, factorgraph.Discrete(2))
			b.AddPottsPairs(pa, pb, pw)
		}, "factorgraph: AddPottsPairs of 100000 pairs (after 0 factors): the graph needs about 4.07 MB, more than the limit of 1 MB"},
		{"tables", 1 << 20, func(b *factorgraph.Builder) {
			b.AddVariables(2, factorgraph.Discrete(512))
			b.AddTables(pb[:2], []int{512, 512}, table)
		}, "factorgraph: AddTables of 1 factors of 262144 entries (after 0 factors): the graph needs about 2.25 MB, more than the limit of 1 MB"},
		{"factors at Build", 1 << 19, func(b *factorgraph.Builder) {
			b.AddVariables(2, factorgraph.Discrete(2))
			for _, f := range many {
				b.AddFactor(f)
			}
		}, "factorgraph: Build (2 variables, 5000 factors): the graph needs about 1.24 MB, more than the limit of 512 KB"},
		{"Grow", 1 << 20, func(b *factorgraph.Builder) {
			b.AddVariables(2, factorgraph.Discrete(2))
			b.Grow(factorgraph.Size{Tables: 100000, TableVars: 200000, Potentials: 100000})
		}, "factorgraph: Grow(100000 table factors of 200000 variables, 100000 potentials, 0 factors) (after 0 factors): the graph needs about"},
		{"negative limit", -1, func(b *factorgraph.Builder) { b.AddVariables(2, factorgraph.Discrete(2)) },
			"memory limit -1 (Builder.SetMaxBytes): want a number of bytes > 0"},
		{"NaN limit", math.NaN(), func(b *factorgraph.Builder) { b.AddVariables(2, factorgraph.Discrete(2)) }, "memory limit NaN"},
		{"domain 2^31-1", 0, func(b *factorgraph.Builder) { b.AddVariables(3, factorgraph.Discrete(math.MaxInt32)) },
			"factorgraph: variable 0: domain size 2147483647 > 16777216 (MaxDomain"},
		{"domain MaxDomain+1", 0, func(b *factorgraph.Builder) {
			b.AddVariable(factorgraph.Discrete(2))
			b.AddVariable(factorgraph.Discrete(factorgraph.MaxDomain + 1))
		}, "factorgraph: variable 1: domain size 16777217 > 16777216"},
	} {
		runtime.GC()
		before := allocated()
		b := factorgraph.NewBuilder()
		b.SetMaxBytes(c.limit)
		c.build(b)
		_, err := b.Build()
		alloc := allocated() - before
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if alloc > 1<<20 {
			t.Errorf("%s: %.0f bytes allocated to refuse the graph", c.name, alloc)
		}
		var me *factorgraph.MemoryError
		if errors.As(err, &me) && !(me.Need > me.Limit && me.Limit == c.limit || c.limit == 0) {
			t.Errorf("%s: %+v: want Need > Limit = %v", c.name, me, c.limit)
		}
	}

	// MaxDomain itself costs nothing in the graph.
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(factorgraph.MaxDomain))
	if g, err := b.Build(); err != nil || g.MaxDomainSize() != factorgraph.MaxDomain {
		t.Errorf("two variables of MaxDomain values: %v", err)
	}
}

// TestMemoryLimitDefault: by default the limit is the machine's memory: a
// builder refuses 2³¹−1 variables (170 GB to build) where the machine has
// less, and allocates nothing for them.
func TestMemoryLimitDefault(t *testing.T) {
	need := factorgraph.Size{Vars: math.MaxInt32, DomainSize: 2}.BuildBytes()
	if factorgraph.DefaultMaxBytes() >= need {
		t.Skipf("this machine has %.0f bytes, enough for %.0f", factorgraph.DefaultMaxBytes(), need)
	}
	runtime.GC()
	before := allocated()
	b := factorgraph.NewBuilder()
	b.AddVariables(math.MaxInt32, factorgraph.Discrete(2))
	_, err := b.Build()
	var me *factorgraph.MemoryError
	if !errors.As(err, &me) || me.Limit != factorgraph.DefaultMaxBytes() || me.Need != need {
		t.Fatalf("error %v, want a MemoryError of %.0f bytes over the default limit %.0f", err, need, factorgraph.DefaultMaxBytes())
	}
	if alloc := allocated() - before; alloc > 1<<20 {
		t.Errorf("%.0f bytes allocated to refuse the graph", alloc)
	}
}

// TestMemoryLimitEdge: a graph whose building is estimated just under a
// small limit is built, and allocates no more than the limit; one
// variable more is refused. So is the same graph's Build when the limit is
// lowered after the adds.
func TestMemoryLimitEdge(t *testing.T) {
	const limit = 4 << 20
	const m = 1000
	size := func(n int) factorgraph.Size { return factorgraph.Size{Vars: n, DomainSize: 3, Pairs: m} }
	n := 2
	for size(2*n).BuildBytes() <= limit {
		n *= 2
	}
	for step := n / 2; step > 0; step /= 2 { // the largest n within the limit
		if size(n+step).BuildBytes() <= limit {
			n += step
		}
	}
	a, c, w := make([]int32, m), make([]int32, m), make([]float64, m)
	for k := range m {
		a[k], c[k], w[k] = int32(k), int32(k+1), 1
	}
	build := func(n int) (*factorgraph.Graph, float64, error) {
		runtime.GC()
		before := allocated()
		b := factorgraph.NewBuilder()
		b.SetMaxBytes(limit)
		b.AddVariables(n, factorgraph.Discrete(3))
		b.AddPottsPairs(a, c, w)
		g, err := b.Build()
		return g, allocated() - before, err
	}
	g, alloc, err := build(n)
	if err != nil {
		t.Fatalf("%d variables, estimated %.0f: %v", n, size(n).BuildBytes(), err)
	}
	t.Logf("%d variables and %d pairs: estimated %.0f bytes, allocated %.0f, the graph holds %d; the limit %d", n, m, size(n).BuildBytes(), alloc, g.Bytes(), limit)
	if alloc+16*m > limit { // the pairs are the caller's
		t.Errorf("%d variables: %.0f bytes allocated, more than the limit %d", n, alloc, limit)
	}
	if _, _, err := build(n + 1); err == nil || !strings.Contains(err.Error(), "more than the limit of 4 MB (Builder.SetMaxBytes)") {
		t.Errorf("%d variables: error %v", n+1, err)
	}
}
