package chain_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

// These tests run the observers on real samplers of package gibbs, by
// single-site steps and by sweeps (steps returning chain.Any).

type observeFunc func(int64, int, []float64)

func (f observeFunc) Observe(t int64, i int, x []float64) { f(t, i, x) }

// kernels returns s as a single-site kernel and as a sweep kernel.
func kernels(s gibbs.Sampler) map[string]chain.Kernel {
	return map[string]chain.Kernel{"single-site": s, "sweeps": gibbs.Sweeper{Sampler: s}}
}

// TestHistogramsMatchBruteForce: Histograms, Means and Joint2D agree with
// counting every state, and pooling a run with itself changes nothing.
func TestHistogramsMatchBruteForce(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Interval(-1, 2))
	b.AddVariable(factorgraph.Discrete(2)) // not histogrammed
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, -4, 4, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(factorgraph.NewFunc([]int{1, 2}, -4, 4, func(x []float64) float64 { return -x[1] * x[2] }))
	b.AddFactor(factorgraph.NewFunc([]int{2, 3}, 0, 1, func(x []float64) float64 { return x[3] * (x[2] + 1) / 3 }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"single-site", "sweeps"} {
		s, err := continuous.NewPGITS(g, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := factorgraph.Intervals(g)
		h, err := chain.NewHistograms(lo, hi, 7)
		if err != nil {
			t.Fatal(err)
		}
		j, err := chain.NewJoint2D(0, 2, -1, 2, -1, 2, 4, 5)
		if err != nil {
			t.Fatal(err)
		}
		means := chain.NewMeans(g.NumVars())
		brute := make([][]float64, 3)
		sums := make([]float64, 4)
		for i := range brute {
			brute[i] = make([]float64, 7)
		}
		bj := make([]float64, 20)
		obs := observeFunc(func(_ int64, _ int, x []float64) {
			for i, v := range x {
				if i < 3 {
					brute[i][min(int((v+1)/3*7), 6)]++
				}
				sums[i] += v
			}
			bj[min(int((x[0]+1)/3*4), 3)*5+min(int((x[2]+1)/3*5), 4)]++
		})
		c := &chain.Chain{Kernel: kernels(s)[kind], Observers: []chain.Observer{h, j, means, obs}, Burn: 11}
		if err := c.Advance(context.Background(), 3000); err != nil {
			t.Fatal(err)
		}
		n := float64(h.N())
		if h.N() != 3000-11 || j.N() != h.N() || means.N() != h.N() {
			t.Fatalf("%s: observed %d, %d, %d states, want %d", kind, h.N(), j.N(), means.N(), 3000-11)
		}
		for i := range 3 {
			got := h.Var(i)
			for k := range got {
				if math.Abs(got[k]-brute[i][k]/n) > 1e-12 {
					t.Fatalf("%s: x%d bin %d: %v, brute force %v", kind, i, k, got[k], brute[i][k]/n)
				}
			}
			if math.Abs(h.Mean(i)-sums[i]/n) > 1e-9 {
				t.Errorf("%s: mean of x%d: %v, brute force %v", kind, i, h.Mean(i), sums[i]/n)
			}
		}
		if h.Var(3) != nil || !math.IsNaN(h.Mean(3)) {
			t.Errorf("%s: the discrete variable was histogrammed", kind)
		}
		for i, m := range means.Mean() {
			if math.Abs(m-sums[i]/n) > 1e-9 {
				t.Errorf("%s: Means: x%d %v, brute force %v", kind, i, m, sums[i]/n)
			}
		}
		for cell, p := range j.Probs() {
			if math.Abs(p-bj[cell]/n) > 1e-12 {
				t.Fatalf("%s: joint cell %d: %v, brute force %v", kind, cell, p, bj[cell]/n)
			}
		}
		if a, b := j.Means(); math.Abs(a-sums[0]/n) > 1e-9 || math.Abs(b-sums[2]/n) > 1e-9 {
			t.Errorf("%s: joint means %v, %v; brute force %v, %v", kind, a, b, sums[0]/n, sums[2]/n)
		}

		pooled, err := chain.PoolHistograms(h, h)
		if err != nil {
			t.Fatal(err)
		}
		if p, q := pooled.Var(1), h.Var(1); math.Abs(p[3]-q[3]) > 1e-12 || math.Abs(pooled.Mean(1)-h.Mean(1)) > 1e-12 || pooled.N() != 2*h.N() {
			t.Errorf("%s: pooling histograms with themselves changed them", kind)
		}
		pj, err := chain.PoolJoint2D(j, j)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pj.Probs(), j.Probs()) || pj.N() != 2*j.N() {
			t.Errorf("%s: pooling a joint histogram with itself changed it", kind)
		}
		if pm := chain.PoolMeans(means, means); !reflect.DeepEqual(pm, means.Mean()) {
			t.Errorf("%s: pooled means %v, means %v", kind, pm, means.Mean())
		}
		other, _ := chain.NewHistograms(lo, hi, 6)
		if _, err := chain.PoolHistograms(h, other); err == nil {
			t.Errorf("%s: histograms of 7 and 6 bins pooled", kind)
		}
		otherJ, _ := chain.NewJoint2D(0, 1, -1, 2, -1, 2, 4, 5)
		if _, err := chain.PoolJoint2D(j, otherJ); err == nil {
			t.Errorf("%s: joint histograms of other coordinates pooled", kind)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := chain.NewJoint2D(1, 1, 0, 1, 0, 1, 2, 2); return err },
		func() error { _, err := chain.NewJoint2D(0, 1, 1, 1, 0, 1, 2, 2); return err },
		func() error { _, err := chain.NewJoint2D(0, 1, 0, 1, 0, 1, 0, 2); return err },
		func() error { _, err := chain.NewHistograms([]float64{0}, []float64{1, 2}, 2); return err },
		func() error { _, err := chain.NewTrace([]int{-1}, 1, 4); return err },
	} {
		if bad() == nil {
			t.Error("a bad observer was accepted")
		}
	}
}

// TestPoolMarginals: pooled marginals weigh each run by its number of
// observed states (brute-force counts over two runs of different lengths),
// and pooling a run with itself changes nothing.
func TestPoolMarginals(t *testing.T) {
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([][]float64, g.NumVars())
	for i := range counts {
		counts[i] = make([]float64, 3)
	}
	total := 0.0
	var ms []*chain.Marginals
	for k, steps := range []int64{3000, 7000} {
		s, err := site.NewPoissonGibbs(g, chain.Streams(5, 2)[k], nil)
		if err != nil {
			t.Fatal(err)
		}
		mg := chain.NewMarginals(factorgraph.Sizes(g))
		count := observeFunc(func(_ int64, _ int, x []float64) {
			for i, v := range x {
				counts[i][int(v)]++
			}
			total++
		})
		c := &chain.Chain{Kernel: s, Observers: []chain.Observer{mg, count}, Burn: 100}
		if err := c.Advance(context.Background(), steps); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, mg)
	}
	pooled := chain.PoolMarginals(ms...)
	for i := range pooled {
		for v, p := range pooled[i] {
			if want := counts[i][v] / total; math.Abs(p-want) > 1e-12 {
				t.Fatalf("pooled P(x%d=%d) = %v, brute force %v", i, v, p, want)
			}
		}
	}
	if got, want := chain.PoolMarginals(ms[1], ms[1]), ms[1].Probs(); !reflect.DeepEqual(got, want) {
		t.Errorf("pooling a run with itself changed it: %v vs %v", got[3], want[3])
	}
	c := ms[0].Counts()
	if sum := c[5][0] + c[5][1] + c[5][2]; sum != float64(ms[0].N()) || ms[0].N() != 3000-100 {
		t.Errorf("counts of x5 sum to %v over %d states", sum, ms[0].N())
	}
}

// TestObserverRestoreErrors: an observer refuses a snapshot of another kind
// of object (another observer, a sampler) or of another shape, and restores
// a good one.
func TestObserverRestoreErrors(t *testing.T) {
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	s, err := site.NewGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	type observer interface {
		chain.Observer
		chain.Snapshotter
	}
	mustHist := func(bins int) observer {
		h, err := chain.NewHistograms([]float64{0, 0}, []float64{1, 1}, bins)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	mustJoint := func(nx int) observer {
		j, err := chain.NewJoint2D(0, 1, 0, 1, 0, 1, nx, 3)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	mustTrace := func(vars []int) observer {
		tr, err := chain.NewTrace(vars, 1, 8)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, tc := range []struct {
		name        string
		make, other func() observer
	}{
		{"marginals", func() observer { return chain.NewMarginals([]int{2, 3}) }, func() observer { return chain.NewMarginals([]int{2, 4}) }},
		{"means", func() observer { return chain.NewMeans(2) }, func() observer { return chain.NewMeans(3) }},
		{"histograms", func() observer { return mustHist(4) }, func() observer { return mustHist(5) }},
		{"joint2d", func() observer { return mustJoint(2) }, func() observer { return mustJoint(3) }},
		{"trace", func() observer { return mustTrace([]int{0, 1}) }, func() observer { return mustTrace([]int{1, 0}) }},
	} {
		o := tc.make()
		x := []float64{1, 0}
		for n := int64(1); n <= 5; n++ {
			x[n%2] = float64(n % 2)
			o.Observe(n, chain.Any, x)
		}
		good, err := o.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		otherShape, _ := tc.other().Snapshot()
		means, _ := chain.NewMeans(2).Snapshot()
		bad := map[string][]byte{"not JSON": []byte("{"), "sampler": sampler, "other shape": otherShape,
			"other version": []byte(strings.Replace(string(good), `"version":1`, `"version":9`, 1))}
		if tc.name != "means" {
			bad["means"] = means
		}
		fresh := tc.make()
		for what, data := range bad {
			if err := fresh.Restore(data); err == nil {
				t.Errorf("%s: restored from a snapshot of %s", tc.name, what)
			}
		}
		if err := fresh.Restore(good); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if again, _ := fresh.Snapshot(); string(again) != string(good) {
			t.Errorf("%s: restored snapshot %s, want %s", tc.name, again, good)
		}
	}
	// A marginal count of a value the coordinate does not have.
	mg := chain.NewMarginals([]int{2})
	mg.Observe(1, 0, []float64{1})
	good, _ := mg.Snapshot()
	if err := chain.NewMarginals([]int{2}).Restore([]byte(strings.Replace(string(good), `"cur":[1]`, `"cur":[2]`, 1))); err == nil {
		t.Error("marginals restored a coordinate holding value 2 of 2")
	}
}

// TestStreamsPinned: the streams are those gibbs.StreamSource gave before
// package chain took them over, so seeds keep their chains.
func TestStreamsPinned(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		c     int
		first uint64
	}{
		{0, 0, 0xedaab3844b9e825f},
		{0, 1, 0xe5ff4a51cbf8a69d},
		{0, 2, 0xb9e9724b92354b8a},
		{7, 0, 0x906f30085d3e4cde},
		{7, 1, 0xad56d2abbebe2257},
		{7, 2, 0x99d337dfbc07ab5d},
	} {
		if got := chain.Source(tc.seed, tc.c).Uint64(); got != tc.first {
			t.Errorf("Source(%d, %d) starts with %#x, want %#x", tc.seed, tc.c, got, tc.first)
		}
		if got := chain.Streams(tc.seed, 3)[tc.c].Uint64(); got != tc.first {
			t.Errorf("Streams(%d, 3)[%d] starts with %#x, want %#x", tc.seed, tc.c, got, tc.first)
		}
	}
	a, b := fmt.Sprint(chain.Streams(7, 2)[1].Uint64()), fmt.Sprint(chain.Streams(7, 5)[1].Uint64())
	if a != b {
		t.Error("stream 1 depends on the number of streams")
	}
}
