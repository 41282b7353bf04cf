package minibatch

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// chiSquareP returns the p-value of Pearson's statistic for observed counts
// against expected probabilities (cells with zero probability must be empty).
func chiSquareP(t *testing.T, obs []int, p []float64) float64 {
	t.Helper()
	n := 0
	for _, o := range obs {
		n += o
	}
	stat, df := 0.0, -1
	for k := range obs {
		if p[k] == 0 {
			if obs[k] != 0 {
				t.Fatalf("cell %d has probability 0 but %d observations", k, obs[k])
			}
			continue
		}
		e := p[k] * float64(n)
		stat += (float64(obs[k]) - e) * (float64(obs[k]) - e) / e
		df++
	}
	if df < 1 {
		return 1
	}
	return distuv.ChiSquared{K: float64(df)}.Survival(stat)
}

// aliasCases are the weights of the alias frequency tests.
var aliasCases = []struct {
	name string
	w    []float64
}{
	{"single", []float64{3}},
	{"uniform", []float64{1, 1, 1, 1}},
	{"skewed", []float64{1000, 1, 1, 1, 0.001}},
	{"zeros", []float64{0, 2, 0, 1, 0}},
	{"random", func() []float64 {
		r := rand.New(rand.NewPCG(7, 7))
		w := make([]float64, 50)
		for i := range w {
			w[i] = r.ExpFloat64()
		}
		return w
	}()},
}

// aliasFrequencyP returns the chi-square p-value of 200000 picks against
// the normalised weights w.
func aliasFrequencyP(t *testing.T, w []float64, pick func() int) float64 {
	t.Helper()
	total := 0.0
	for _, x := range w {
		total += x
	}
	p := make([]float64, len(w))
	for k, x := range w {
		p[k] = x / total
	}
	obs := make([]int, len(w))
	for range 200000 {
		obs[pick()]++
	}
	return chiSquareP(t, obs, p)
}

func TestAliasFrequencies(t *testing.T) {
	for _, tt := range aliasCases {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAlias(tt.w)
			if err != nil {
				t.Fatal(err)
			}
			total := 0.0
			for _, w := range tt.w {
				total += w
			}
			for k, w := range tt.w {
				if got := a.weight(k); math.Abs(got-w/total) > 1e-12 {
					t.Errorf("table weight of %d = %v, want %v", k, got, w/total)
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			if pv := aliasFrequencyP(t, tt.w, func() int { return a.Pick(r) }); pv < 1e-4 {
				t.Errorf("chi-square p = %g: frequencies do not match weights %v", pv, tt.w)
			}
		})
	}
}

// pickWith is Alias.Pick with the column pick passed in.
func pickWith(a Alias, r *rand.Rand, column func(*rand.Rand, int) (int, float64)) int {
	k, u := column(r, len(a.Prob))
	if u < a.Prob[k] {
		return k
	}
	return int(a.Index[k])
}

// correlatedColumn is a broken Column: its threshold comes from the same
// top bits of the word that chose the column, so that u ∈ [k/n, (k+1)/n).
func correlatedColumn(r *rand.Rand, n int) (int, float64) {
	x := r.Uint64()
	hi, _ := bits.Mul64(x, uint64(n))
	return int(hi), unit(x)
}

// TestAliasCatchesCorrelatedThreshold shows that the frequency check of
// TestAliasFrequencies, same picks and sample size, rejects an alias pick
// whose threshold u is not independent of its column k, on every table
// where the pick depends on u at all (single and uniform tables have
// Prob = 1 everywhere). pickWith is checked against Alias.Pick first.
func TestAliasCatchesCorrelatedThreshold(t *testing.T) {
	for _, tt := range aliasCases {
		a, _ := NewAlias(tt.w)
		r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		for range 1000 {
			if x, y := a.Pick(r1), pickWith(a, r2, Column); x != y {
				t.Fatalf("%s: Alias.Pick gave %d, pickWith(Column) %d", tt.name, x, y)
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		pv := aliasFrequencyP(t, tt.w, func() int { return pickWith(a, r, correlatedColumn) })
		if broken := tt.name != "single" && tt.name != "uniform"; broken && pv > 1e-4 {
			t.Errorf("%s: a correlated column/threshold pick passed the check (p = %g)", tt.name, pv)
		}
		t.Logf("%s: correlated pick p = %.3g", tt.name, pv)
	}
}

// TestColumn checks Column's split of one word: the column from the high
// word of x·n, the threshold from the top 53 bits of the low word.
func TestColumn(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 1000, 1 << 20, 1<<31 - 1} {
		r1, r2 := rand.New(rand.NewPCG(uint64(n), 3)), rand.New(rand.NewPCG(uint64(n), 3))
		for range 100 {
			k, u := Column(r1, n)
			x := r2.Uint64()
			hi, lo := bits.Mul64(x, uint64(n))
			if k != int(hi) || u != float64(lo>>11)/(1<<53) || k < 0 || k >= n || u < 0 || u >= 1 {
				t.Fatalf("n=%d: Column = (%d, %v) for x = %#x", n, k, u, x)
			}
		}
	}
	// Extremes: the largest word gives the last column and u < 1.
	k, u := columnOf(math.MaxUint64, 5)
	if k != 4 || !(u < 1) {
		t.Errorf("x = 2⁶⁴−1, n = 5: (%d, %v)", k, u)
	}
}

func columnOf(x uint64, n int) (int, float64) {
	hi, lo := bits.Mul64(x, uint64(n))
	return int(hi), unit(lo)
}

func TestAliasErrors(t *testing.T) {
	for _, w := range [][]float64{nil, {}, {0, 0}, {1, -1}, {1, math.NaN()}, {math.Inf(1)}} {
		if _, err := NewAlias(w); err == nil {
			t.Errorf("NewAlias(%v) succeeded, want an error", w)
		}
	}
}

// rateSource asks for s_k ~ Poisson(rate[k]) with rate[k] ≤ total·w[k]/W.
type rateSource struct {
	a     Alias
	rate  []float64
	bound []float64 // total·w_k/W
}

func (s *rateSource) Pick(r *rand.Rand) int { return s.a.Pick(r) }
func (s *rateSource) Keep(k int) float64    { return s.rate[k] / s.bound[k] }

func TestDrawPoissonMeans(t *testing.T) {
	w := []float64{1, 2, 0.5, 4, 0.25}
	rate := []float64{0.3, 2, 0.5, 1, 0} // each ≤ total·w/W below
	total := 0.0
	for _, x := range w {
		total += x
	}
	// total·w_k/W with total = W: the bound is w_k itself.
	a, err := NewAlias(w)
	if err != nil {
		t.Fatal(err)
	}
	src := &rateSource{a: a, rate: rate, bound: w}
	r := rand.New(rand.NewPCG(3, 4))
	c := NewCounts(len(w))
	const n = 100000
	sum := make([]float64, len(w))
	sumSq := make([]float64, len(w))
	zero := make([]int, len(w))
	picks := 0
	for range n {
		picks += Draw(r, total, src, c)
		for k := range w {
			s := float64(c.Count(k))
			sum[k] += s
			sumSq[k] += s * s
			if s == 0 {
				zero[k]++
			}
		}
	}
	if got, want := float64(picks)/n, total; math.Abs(got-want) > 5*math.Sqrt(want/n) {
		t.Errorf("mean picks %v, want %v", got, want)
	}
	for k := range w {
		mean := sum[k] / n
		variance := sumSq[k]/n - mean*mean
		se := math.Sqrt(rate[k]/n) + 1e-12
		if math.Abs(mean-rate[k]) > 5*se {
			t.Errorf("item %d: mean count %v, want Poisson mean %v", k, mean, rate[k])
		}
		// A Poisson's variance equals its mean and P(0) = e^{−rate}.
		if math.Abs(variance-rate[k]) > 0.05*rate[k]+1e-9 {
			t.Errorf("item %d: count variance %v, want %v", k, variance, rate[k])
		}
		p0 := math.Exp(-rate[k])
		if got := float64(zero[k]) / n; math.Abs(got-p0) > 5*math.Sqrt(p0*(1-p0)/n)+1e-9 {
			t.Errorf("item %d: P(s=0) = %v, want %v", k, got, p0)
		}
	}
}

// TestDrawCatchesWrongRate makes sure the check above can fail: a source
// whose keep probability is off by 10% for one item is detected.
func TestDrawCatchesWrongRate(t *testing.T) {
	w := []float64{1, 1}
	a, _ := NewAlias(w)
	src := &rateSource{a: a, rate: []float64{0.9, 0.5}, bound: w}
	r := rand.New(rand.NewPCG(5, 6))
	c := NewCounts(2)
	const n = 100000
	sum := 0.0
	for range n {
		Draw(r, 2, src, c)
		sum += float64(c.Count(0))
	}
	if mean, want := sum/n, 1.0; math.Abs(mean-want) <= 5*math.Sqrt(want/n) {
		t.Errorf("a rate of 0.9 passed as 1.0 (mean %v)", mean)
	}
}

func TestCounts(t *testing.T) {
	c := NewCounts(5)
	for _, k := range []int{3, 1, 3, 3, 4} {
		c.Add(k)
	}
	if got := c.Keys(); len(got) != 3 || got[0] != 3 || got[1] != 1 || got[2] != 4 {
		t.Errorf("keys %v, want [3 1 4]", got)
	}
	if c.Count(3) != 3 || c.Count(1) != 1 || c.Count(0) != 0 {
		t.Errorf("counts %d %d %d, want 3 1 0", c.Count(3), c.Count(1), c.Count(0))
	}
	c.Reset()
	if c.Len() != 0 || c.Count(3) != 0 {
		t.Errorf("after Reset: len %d, count(3) %d", c.Len(), c.Count(3))
	}
	// Stamp wrap-around clears old counts.
	c.Add(2)
	c.cur = math.MaxUint32
	c.Reset()
	c.Add(0)
	if c.Count(2) != 0 || c.Count(0) != 1 {
		t.Errorf("after wrap: count(2) %d count(0) %d", c.Count(2), c.Count(0))
	}
}

func TestDrawDeterministic(t *testing.T) {
	w := []float64{1, 2, 3}
	a, _ := NewAlias(w)
	src := &rateSource{a: a, rate: []float64{0.5, 1, 2}, bound: w}
	run := func() []int {
		r := rand.New(rand.NewPCG(9, 9))
		c := NewCounts(3)
		var out []int
		for range 100 {
			Draw(r, 6, src, c)
			out = append(out, c.Count(0), c.Count(1), c.Count(2))
		}
		return out
	}
	a1, a2 := run(), run()
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatalf("same seed, different draws at %d", i)
		}
	}
}

func BenchmarkAliasPick(b *testing.B) {
	w := make([]float64, 1000)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range w {
		w[i] = r.Float64()
	}
	a, _ := NewAlias(w)
	b.ReportAllocs()
	s := 0
	for b.Loop() {
		s += a.Pick(r)
	}
	_ = s
}

func BenchmarkDraw(b *testing.B) {
	w := make([]float64, 1000)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range w {
		w[i] = r.Float64()
	}
	a, _ := NewAlias(w)
	rate := make([]float64, len(w))
	for i := range rate {
		rate[i] = w[i] / 2
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	src := &rateSource{a: a, rate: rate, bound: w}
	c := NewCounts(len(w))
	scale := 30 / total // about 30 picks a draw
	for i := range src.bound {
		src.bound[i] = w[i] * scale
		src.rate[i] = src.bound[i] / 2
	}
	b.ReportAllocs()
	for b.Loop() {
		Draw(r, 30, src, c)
	}
}

// eventSource picks uniformly among 4 items, item k an event with
// probability p[k].
type eventSource struct{ p []float64 }

func (e eventSource) Pick(r *rand.Rand) int         { return r.IntN(len(e.p)) }
func (e eventSource) Stop(r *rand.Rand, k int) bool { return r.Float64() < e.p[k] }

// TestDrawUntil: the probability of no event is exp(−total·mean(p)).
func TestDrawUntil(t *testing.T) {
	src := eventSource{p: []float64{0, 0.1, 0.5, 1}}
	r := rand.New(rand.NewPCG(8, 8))
	const n, total = 200000, 1.5
	none, picks := 0, 0
	for range n {
		b, stopped := DrawUntil(r, total, src)
		picks += b
		if !stopped {
			none++
		}
	}
	p := math.Exp(-total * 1.6 / 4)
	if got := float64(none) / n; math.Abs(got-p) > 5*math.Sqrt(p*(1-p)/n) {
		t.Errorf("P(no event) = %v, want %v", got, p)
	}
	// Broken: an event probability of 0.5 read as 0.25 must be detected.
	broken := eventSource{p: []float64{0, 0.1, 0.25, 1}}
	none = 0
	for range n {
		if _, stopped := DrawUntil(r, total, broken); !stopped {
			none++
		}
	}
	if got := float64(none) / n; math.Abs(got-p) <= 5*math.Sqrt(p*(1-p)/n) {
		t.Errorf("a wrong event probability passed: P(no event) = %v", got)
	}
	if picks == 0 {
		t.Error("no picks")
	}
}
