// Package modeltest checks that a factorgraph.Model keeps the contract the
// samplers rely on, as gonum's graph/testgraph does for graphs: a user who
// implements Model (an implicit model whose factors are generated, not
// stored) runs Check, or Test in a test, before handing it to a sampler.
//
// The checks, on every variable (or, for large models, an evenly spaced
// sample of them) and on random states drawn from a fixed seed:
//
//   - the counts: Free ascending and exactly the variables not Observed,
//     evidence in its domain, domains valid;
//   - the bounds: Bound(i, k) finite and positive for the soft factors of
//     A[i], +Inf for the hard ones; Li(i) = Σ_k Bound(i, k) over the soft
//     factors, L() = max Li and MaxDegree() = max |A[i]| over the free
//     variables; Describe's range hi − lo = Bound;
//   - the values: Eval in [0, Bound] for a soft factor, in [0, +Inf) or
//     −Inf for a hard one, never NaN; EvalAll equal to Eval at every value
//     of a discrete variable, and leaving the state as it found it;
//   - the minibatch: Pick draws the soft factor k of A[i] with probability
//     Bound(i, k)/Li(i) (a chi-square test of many draws at a fixed
//     significance, the seed fixed: a correct model passes the same way
//     every time);
//   - concurrency: Eval and EvalAll from several goroutines on their own
//     states give what they give alone (run the test with -race to see
//     the data races a shared scratch would cause).
//
// A model that passes is not proved correct — the values are its own
// business — but one that fails would make a sampler's chain wrong or
// its checks misfire.
package modeltest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// maxChecked bounds the variables checked one by one: a larger model is
// checked on maxChecked of them, evenly spaced.
const maxChecked = 256

// Draws of Pick per variable, and the significance of its chi-square
// test (one in a million: a correct model fails it that rarely, and the
// seed is fixed).
const (
	pickDraws = 20000
	pickAlpha = 1e-6
)

// Check returns the violations of the Model contract it finds in m (nil if
// none), joined, each naming the variable and factor; the random states
// and Pick's draws come from seed.
func Check(m factorgraph.Model, seed uint64) error {
	if m == nil {
		return errors.New("modeltest: nil model")
	}
	c := &checker{m: m, r: rand.New(rand.NewPCG(seed, 0x6d6f64656c))}
	c.counts()
	if len(c.errs) > 0 {
		return errors.Join(c.errs...) // the rest reads what these broke
	}
	c.bounds()
	x := c.state()
	for _, i := range c.checked() {
		c.values(i, x)
		c.pick(i)
	}
	c.concurrent()
	return errors.Join(c.errs...)
}

// Test runs Check in a test, reporting each violation as an error of t.
func Test(t *testing.T, m factorgraph.Model, seed uint64) {
	t.Helper()
	if err := Check(m, seed); err != nil {
		var j interface{ Unwrap() []error }
		if errors.As(err, &j) {
			for _, e := range j.Unwrap() {
				t.Error(e)
			}
			return
		}
		t.Error(err)
	}
}

// checker holds a Check's model, generator and findings.
type checker struct {
	m    factorgraph.Model
	r    *rand.Rand
	errs []error
}

func (c *checker) fail(format string, args ...any) {
	if len(c.errs) < 50 {
		c.errs = append(c.errs, fmt.Errorf("modeltest: "+format, args...))
	}
}

// counts checks the variables: domains, evidence, Free.
func (c *checker) counts() {
	m, n := c.m, c.m.NumVars()
	if n < 0 {
		c.fail("NumVars() = %d", n)
		return
	}
	free := m.Free()
	if !slices.IsSorted(free) {
		c.fail("Free() is not in increasing order")
	}
	k := 0
	for i := range n {
		d := m.Domain(i)
		if d.IsDiscrete() && d.Size < 1 || !d.IsDiscrete() && !(d.Lo < d.Hi) {
			c.fail("variable %d: domain %v", i, d)
		}
		v, obs := m.Observed(i)
		inFree := k < len(free) && free[k] == i
		if inFree {
			k++
		}
		switch {
		case obs && inFree:
			c.fail("variable %d is observed (at %v) and in Free()", i, v)
		case !obs && !inFree:
			c.fail("variable %d is not observed and not in Free()", i)
		case obs && !d.Contains(v):
			c.fail("variable %d is observed at %v, outside its domain %v", i, v, d)
		}
	}
	if k != len(free) {
		c.fail("Free() lists %d variables out of range or twice", len(free)-k)
	}
}

// checked returns the free variables checked one by one.
func (c *checker) checked() []int {
	free := c.m.Free()
	if len(free) <= maxChecked {
		return free
	}
	out := make([]int, maxChecked)
	for j := range out {
		out[j] = free[j*len(free)/maxChecked]
	}
	return out
}

// bounds checks Bound, Li, L, MaxDegree and Describe's ranges.
func (c *checker) bounds() {
	m := c.m
	l, delta := 0.0, 0
	for _, i := range m.Free() {
		soft, hard := m.Degree(i)
		if soft < 0 || hard < 0 {
			c.fail("variable %d: Degree = %d, %d", i, soft, hard)
			continue
		}
		delta = max(delta, soft+hard)
		li := 0.0
		for k := range soft + hard {
			b := m.Bound(i, k)
			switch {
			case k < soft && !(b > 0 && !math.IsInf(b, 0)):
				c.fail("variable %d, soft factor %d: Bound = %v, want finite and positive", i, k, b)
			case k >= soft && !math.IsInf(b, 1):
				c.fail("variable %d, hard factor %d: Bound = %v, want +Inf", i, k, b)
			}
			if k < soft {
				li += b
			}
			name, lo, hi := m.Describe(i, k)
			if r := hi - lo; k < soft && math.Abs(r-b) > 1e-9*max(1, b) || k >= soft && !math.IsInf(hi, 1) {
				c.fail("variable %d, factor %d (%s): Describe's range [%v, %v] is not Bound = %v", i, k, name, lo, hi, b)
			}
		}
		if got := m.Li(i); math.Abs(got-li) > 1e-9*max(1, li) {
			c.fail("variable %d: Li = %v, the soft factors' bounds sum to %v", i, got, li)
		}
		l = max(l, li)
	}
	if got := m.L(); math.Abs(got-l) > 1e-9*max(1, l) {
		c.fail("L = %v, the largest Li over the free variables is %v", got, l)
	}
	if got := m.MaxDegree(); got != delta {
		c.fail("MaxDegree = %d, the largest |A[i]| over the free variables is %d", got, delta)
	}
}

// state returns a random state: evidence at its values, every other
// variable uniform on its domain.
func (c *checker) state() []float64 {
	return factorgraph.RandomState(c.m, c.r)
}

// values checks Eval and EvalAll on the factors of A[i] at x (and x with
// variable i at each of its values).
func (c *checker) values(i int, x []float64) {
	m := c.m
	soft, hard := m.Degree(i)
	d := m.Domain(i)
	dst := make([]float64, max(d.Size, 0))
	for k := range soft + hard {
		b := m.Bound(i, k)
		v := m.Eval(i, k, x)
		if !inRange(v, b, k >= soft) {
			name, _, _ := m.Describe(i, k)
			c.fail("variable %d, factor %d (%s): Eval = %v outside [0, %v]", i, k, name, v, b)
		}
		if !d.IsDiscrete() {
			continue
		}
		before := slices.Clone(x)
		m.EvalAll(i, k, x, dst)
		if !slices.Equal(before, x) {
			c.fail("variable %d, factor %d: EvalAll changed the state", i, k)
			copy(x, before)
		}
		xi := x[i]
		for val := range dst {
			x[i] = float64(val)
			if e := m.Eval(i, k, x); e != dst[val] && !(math.IsNaN(e) && math.IsNaN(dst[val])) {
				c.fail("variable %d, factor %d, value %d: EvalAll = %v, Eval = %v", i, k, val, dst[val], e)
				break
			}
		}
		x[i] = xi
	}
}

// inRange reports whether v is a factor value within bound b: [0, b] for a
// soft factor, [0, +Inf) or −Inf for a hard one.
func inRange(v, b float64, hard bool) bool {
	if hard {
		return v >= 0 || math.IsInf(v, -1)
	}
	return v >= 0 && v <= b*(1+1e-12)
}

// pick tests Pick's frequencies on A[i] against Bound(i, k)/Li(i) by a
// chi-square test.
func (c *checker) pick(i int) {
	m := c.m
	soft, _ := m.Degree(i)
	if soft == 0 {
		return
	}
	li := m.Li(i)
	counts := make([]float64, soft)
	for range pickDraws {
		k := m.Pick(i, c.r)
		if k < 0 || k >= soft {
			c.fail("variable %d: Pick = %d, not a soft factor of A[i] (0 to %d)", i, k, soft-1)
			return
		}
		counts[k]++
	}
	if soft == 1 {
		return
	}
	// Pool the factors whose expected count is under 5 (the test's rule).
	chi2, df, small, smallExp := 0.0, -1, 0.0, 0.0
	for k, n := range counts {
		e := pickDraws * m.Bound(i, k) / li
		if e < 5 {
			small, smallExp = small+n, smallExp+e
			continue
		}
		chi2 += (n - e) * (n - e) / e
		df++
	}
	if smallExp > 0 {
		chi2 += (small - smallExp) * (small - smallExp) / smallExp
		df++
	}
	if df < 1 {
		return
	}
	if p := (distuv.ChiSquared{K: float64(df)}).Survival(chi2); p < pickAlpha {
		c.fail("variable %d: Pick's frequencies are not Bound/Li (χ² = %.1f on %d degrees of freedom, p = %.2g)", i, chi2, df, p)
	}
}

// concurrent evaluates every checked variable's factors from four
// goroutines on states of their own and compares with one goroutine's
// values.
func (c *checker) concurrent() {
	m := c.m
	vars := c.checked()
	const workers = 4
	states := make([][]float64, workers)
	for w := range states {
		states[w] = c.state()
	}
	eval := func(x []float64) []float64 {
		var out []float64
		for _, i := range vars {
			soft, hard := m.Degree(i)
			for k := range soft + hard {
				out = append(out, m.Eval(i, k, x))
			}
		}
		return out
	}
	want := make([][]float64, workers)
	for w := range want {
		want[w] = eval(states[w])
	}
	got := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w] = eval(states[w])
		}()
	}
	wg.Wait()
	for w := range workers {
		if !slices.EqualFunc(got[w], want[w], func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			c.fail("concurrent Eval on separate states differs from Eval alone (shared scratch?)")
			return
		}
	}
}
