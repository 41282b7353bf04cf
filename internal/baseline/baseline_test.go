package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgibbs/pgibbs/factorgraph"
	lat "github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/potts"
)

// libraryConditional returns U_v = Σ_{φ∈A[i]} φ̃(x_{i←v}) for v < q, the
// conditional energies the library's plain Gibbs sampler computes on m.
func libraryConditional(m factorgraph.Model, i, q int, x []float64) []float64 {
	u := make([]float64, q)
	buf := make([]float64, q)
	soft, hard := m.Degree(i)
	for k := range soft + hard {
		m.EvalAll(i, k, x, buf)
		for v, e := range buf {
			u[v] += e
		}
	}
	return u
}

// condDiff returns the largest difference between two conditional energies
// after each is shifted to u[0] = 0 (energies are defined up to a constant).
func condDiff(a, b []float64) float64 {
	d := 0.0
	for v := range a {
		d = max(d, math.Abs((a[v]-a[0])-(b[v]-b[0])))
	}
	return d
}

// argmaxAbs returns the index of the largest |w[k]|: the weight whose
// change a conditional must show.
func argmaxAbs(w []float64) int {
	best := 0
	for k, v := range w {
		if math.Abs(v) > math.Abs(w[best]) {
			best = k
		}
	}
	return best
}

func bytesToFloats(x []uint8) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// pottsCondDiff compares the hand-written loop's conditional with the
// library's at every site and returns the largest difference.
func pottsCondDiff(t *testing.T, h *PottsHeatBath, g factorgraph.Model) float64 {
	t.Helper()
	x := bytesToFloats(h.x)
	worst := 0.0
	for i := range len(h.x) {
		hand := append([]float64(nil), h.conditional(i)...)
		worst = max(worst, condDiff(hand, libraryConditional(g, i, h.q, x)))
	}
	return worst
}

// TestPottsHeatBathConditional checks that the hand-written Potts loop,
// built from potts.Params alone, computes the conditional of the library's
// factor graph potts.New builds: same neighbours, same weights, at every
// site, for the paper's model and for small ones, including a kernel
// narrow enough that most pairs underflow to an exact 0 and are left out.
func TestPottsHeatBathConditional(t *testing.T) {
	for _, p := range []potts.Params{
		potts.Paper(),
		{Width: 5, States: 3, Beta: 1.3, Gamma: 0.7},
		{Width: 6, States: 4, Beta: 2, Gamma: 300}, // only d² ≤ 2 survives exp(−300·d²)
		{Width: 2, States: 2, Beta: 0.5, Gamma: 1},
	} {
		t.Run(fmt.Sprintf("width=%d/q=%d/gamma=%g", p.Width, p.States, p.Gamma), func(t *testing.T) {
			g, err := potts.New(p)
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewPottsHeatBath(p, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			for i := range len(h.x) {
				if soft, hard := g.Degree(i); int(h.start[i+1]-h.start[i]) != soft+hard {
					t.Fatalf("site %d: %d neighbours, the factor graph has %d factors", i, h.start[i+1]-h.start[i], soft+hard)
				}
			}
			tol := 1e-12 * g.L()
			if d := pottsCondDiff(t, h, g); d > tol {
				t.Fatalf("conditionals differ by %g (tolerance %g)", d, tol)
			}
			// The comparison catches a single wrong weight.
			h.w[argmaxAbs(h.w)] *= 1.001
			if d := pottsCondDiff(t, h, g); !(d > tol) {
				t.Errorf("a weight changed by 0.1%%: difference %g not above the tolerance %g", d, tol)
			}

			// The stencil loop on the same model.
			st, err := NewPottsStencil(p, rand.New(rand.NewPCG(3, 5)))
			if err != nil {
				t.Fatal(err)
			}
			if d := stencilCondDiff(st, g); d > tol {
				t.Fatalf("stencil: conditionals differ by %g (tolerance %g)", d, tol)
			}
			st.w[argmaxAbs(st.w)] *= 1.001
			if d := stencilCondDiff(st, g); !(d > tol) {
				t.Errorf("stencil: a weight changed by 0.1%%: difference %g not above the tolerance %g", d, tol)
			}
		})
	}
}

// TestPairsHeatBathConditional checks the hand-written loop over a pair
// list against the library's graph of the same pairs (AddPottsPairs) at
// every site, on each shape of package potts, a repeated pair included,
// and that the comparison catches one wrong weight.
func TestPairsHeatBathConditional(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sparse, err := potts.Sparse(300, 6, 4, 0.3, r)
	if err != nil {
		t.Fatal(err)
	}
	power, err := potts.PowerLaw(300, 4, 2.5, 3, 0.2, r)
	if err != nil {
		t.Fatal(err)
	}
	bip, err := potts.Bipartite(12, 5, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	repeated := &potts.Pairs{N: 3, Q: 2, I: []int32{0, 0, 1}, J: []int32{1, 1, 2}, W: []float64{0.5, 0.25, -1}}
	for name, p := range map[string]*potts.Pairs{"sparse": sparse, "powerlaw": power, "bipartite": bip, "repeated": repeated} {
		t.Run(name, func(t *testing.T) {
			g, err := p.Build()
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewPairsHeatBath(p, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-12 * max(1, g.L())
			if d := pottsCondDiff(t, h, g); d > tol {
				t.Fatalf("conditionals differ by %g (tolerance %g)", d, tol)
			}
			h.w[len(h.w)/2] *= 1.001
			if d := pottsCondDiff(t, h, g); !(d > tol) {
				t.Errorf("a weight changed by 0.1%%: difference %g not above the tolerance %g", d, tol)
			}
		})
	}
	for _, p := range []*potts.Pairs{
		{N: 2, Q: 0},
		{N: 2, Q: 2, I: []int32{0}, J: []int32{2}, W: []float64{1}},
		{N: 2, Q: 2, I: []int32{0}, J: []int32{1}, W: []float64{1, 2}},
	} {
		if _, err := NewPairsHeatBath(p, r); err == nil {
			t.Errorf("NewPairsHeatBath(%+v): no error", *p)
		}
	}
}

// stencilCondDiff compares the stencil loop's conditional with the
// library's at every site and returns the largest difference.
func stencilCondDiff(h *StencilHeatBath, m factorgraph.Model) float64 {
	x := bytesToFloats(h.x)
	worst := 0.0
	for i := range len(h.x) {
		hand := append([]float64(nil), h.conditional(i)...)
		worst = max(worst, condDiff(hand, libraryConditional(m, i, h.q, x)))
	}
	return worst
}

// TestHeatBathDraw checks the categorical draw of the hand-written loops:
// repeated updates of one site (whose conditional does not depend on its
// own value) against the exact conditional, by a chi-square test.
func TestHeatBathDraw(t *testing.T) {
	p := potts.Params{Width: 4, States: 5, Beta: 1.5, Gamma: 0.3}
	h, err := NewPottsHeatBath(p, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	const i, n = 5, 200_000
	u := append([]float64(nil), h.conditional(i)...)
	probs := make([]float64, len(u))
	z := 0.0
	for v, e := range u {
		probs[v] = math.Exp(e)
		z += probs[v]
	}
	counts := make([]float64, p.States)
	for range n {
		h.update(i)
		counts[h.x[i]]++
	}
	chi2 := 0.0
	for v, c := range counts {
		e := n * probs[v] / z
		chi2 += (c - e) * (c - e) / e
	}
	if pv := (distuv.ChiSquared{K: float64(p.States - 1)}).Survival(chi2); pv < 1e-4 {
		t.Errorf("draw frequencies %v against probabilities %v: χ² = %.1f, p = %.2g", counts, probs, chi2, pv)
	}
}

// TestLatticeHeatBathConditional checks that the hand-written lattice
// loop, which enumerates its offsets from the kernel, computes the
// conditional of lattice.New's implicit model at every site: full-torus
// power laws on even and odd sides, the Gaussian kernel (finite reach), a
// cutoff, the nearest-neighbour kernel and a negative β.
func TestLatticeHeatBathConditional(t *testing.T) {
	for _, p := range []lat.Params{
		{Dim: 2, Size: 20, Coupling: lat.PowerLaw{Sigma: 1}, Spin: lat.Potts(10), Beta: 0.56},
		{Dim: 2, Size: 15, Coupling: lat.PowerLaw{Sigma: 0.5}, Spin: lat.Potts(3), Beta: 1},
		{Dim: 2, Size: 40, Coupling: lat.Gaussian{Gamma: 1.5}, Spin: lat.Potts(10), Beta: 4.6},
		{Dim: 2, Size: 16, Coupling: lat.PowerLaw{Sigma: 1}, Spin: lat.Potts(4), Beta: 0.3, Cutoff: 3},
		{Dim: 2, Size: 6, Coupling: lat.NearestNeighbour{}, Spin: lat.Potts(2), Beta: 0.4},
		{Dim: 2, Size: 9, Coupling: lat.PowerLaw{Sigma: 1}, Spin: lat.Potts(3), Beta: -0.7},
	} {
		t.Run(fmt.Sprintf("%v/N=%d/cut=%g/beta=%g", p.Coupling, p.Size, p.Cutoff, p.Beta), func(t *testing.T) {
			l, err := lat.New(p)
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewLatticeHeatBath(p, rand.New(rand.NewPCG(7, 8)))
			if err != nil {
				t.Fatal(err)
			}
			if h.k != l.NumOffsets() {
				t.Fatalf("%d coupled offsets, the lattice has %d", h.k, l.NumOffsets())
			}
			check := func() float64 { return stencilCondDiff(h, l) }
			tol := 1e-12 * l.L()
			if d := check(); d > tol {
				t.Fatalf("conditionals differ by %g (tolerance %g)", d, tol)
			}
			h.w[argmaxAbs(h.w)] *= 1.001
			if d := check(); !(d > tol) {
				t.Errorf("a weight changed by 0.1%%: difference %g not above the tolerance %g", d, tol)
			}
		})
	}
}

// TestIsingCheckerboardConditional checks the tabulated heat-bath
// probabilities against the conditional of the library's nearest-neighbour
// Ising lattice at every site of a random state.
func TestIsingCheckerboardConditional(t *testing.T) {
	const n, beta = 8, 0.37
	c, err := NewIsingCheckerboard(n, beta, rand.New(rand.NewPCG(9, 10)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lat.New(lat.Params{Dim: 2, Size: n, Coupling: lat.NearestNeighbour{}, Spin: lat.Ising(), Beta: beta})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, n*n)
	for i, s := range c.s {
		x[i] = float64((s + 1) / 2)
	}
	seen := map[int]bool{}
	for i := range n * n {
		r, col := i/n, i%n
		h := int(c.s[((r+n-1)%n)*n+col]) + int(c.s[((r+1)%n)*n+col]) + int(c.s[r*n+(col+n-1)%n]) + int(c.s[r*n+(col+1)%n])
		seen[h] = true
		u := libraryConditional(l, i, 2, x)
		want := 1 / (1 + math.Exp(u[0]-u[1]))
		if got := math.Ldexp(float64(c.thr[h+4]), -64); math.Abs(got-want) > 1e-15 {
			t.Errorf("site %d, neighbour sum %d: P(+1) = %v, library %v", i, h, got, want)
		}
	}
	if len(seen) < 4 {
		t.Logf("only neighbour sums %v occur in the test state", seen)
	}
}

// exactIsingEnergy returns the exact mean energy per site of the n×n
// nearest-neighbour Ising torus at β by enumerating its 2^(n²) states.
func exactIsingEnergy(n int, beta float64) float64 {
	sites := n * n
	var num, z float64
	for code := range 1 << sites {
		e := 0
		spin := func(r, c int) int { return 2*(code>>(((r+n)%n)*n+(c+n)%n)&1) - 1 }
		for r := range n {
			for c := range n {
				e -= spin(r, c) * (spin(r, c+1) + spin(r+1, c))
			}
		}
		w := math.Exp(-beta * float64(e))
		num += float64(e) * w
		z += w
	}
	return num / z / float64(sites)
}

// isingRunEnergy runs the checkerboard loop on the 4×4 torus at β and
// returns the mean energy per site and its standard error by batch means.
func isingRunEnergy(t *testing.T, beta float64, seed uint64) (mean, se float64) {
	t.Helper()
	c, err := NewIsingCheckerboard(4, beta, rand.New(rand.NewPCG(seed, 11)))
	if err != nil {
		t.Fatal(err)
	}
	return sweepEnergy(c)
}

// sweepEnergy runs c for 1000 sweeps, then 50 batches of 2000 sweeps, and
// returns the mean energy per site and its batch-means standard error.
func sweepEnergy(c interface {
	Sweep()
	Energy() float64
}) (mean, se float64) {
	for range 1000 {
		c.Sweep()
	}
	const batches, per = 50, 2000
	var bm [batches]float64
	for b := range batches {
		for range per {
			c.Sweep()
			bm[b] += c.Energy()
		}
		bm[b] /= per
		mean += bm[b]
	}
	mean /= batches
	v := 0.0
	for _, x := range bm {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / (batches - 1) / batches)
}

// TestIsingCheckerboardEnergy checks the checkerboard loop's stationary
// distribution: its mean energy per site on the 4×4 torus at β = 0.3
// against the exact value by enumeration of the 65 536 states, within 4
// standard errors — and that the same check rejects the loop run at a
// β 5% off.
func TestIsingCheckerboardEnergy(t *testing.T) {
	const beta = 0.3
	exact := exactIsingEnergy(4, beta)
	mean, se := isingRunEnergy(t, beta, 1)
	t.Logf("4×4 torus, β = %g: exact %.5f, checkerboard %.5f ± %.5f", beta, exact, mean, se)
	if math.Abs(mean-exact) > 4*se {
		t.Errorf("energy per site %.5f ± %.5f, exact %.5f", mean, se, exact)
	}
	wrong, wse := isingRunEnergy(t, beta*1.05, 2)
	t.Logf("β = %g: checkerboard %.5f ± %.5f", beta*1.05, wrong, wse)
	if math.Abs(wrong-exact) <= 4*wse {
		t.Errorf("the check does not tell β = %g from %g: %.5f ± %.5f against %.5f", beta*1.05, beta, wrong, wse, exact)
	}
}

// TestIsingSWEnergy checks the hand-written Swendsen–Wang loop as
// TestIsingCheckerboardEnergy checks the heat bath: the 4×4 torus at
// β = 0.4 against enumeration, and a run at a β 5% off rejected.
func TestIsingSWEnergy(t *testing.T) {
	const beta = 0.4
	exact := exactIsingEnergy(4, beta)
	for _, tc := range []struct {
		beta  float64
		agree bool
	}{{beta, true}, {beta * 1.05, false}} {
		c, err := NewIsingSW(4, tc.beta, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		mean, se := sweepEnergy(c)
		t.Logf("4×4 torus, β = %g: Swendsen–Wang %.5f ± %.5f, exact at β = %g %.5f", tc.beta, mean, se, beta, exact)
		if got := math.Abs(mean-exact) <= 4*se; got != tc.agree {
			t.Errorf("β = %g: energy %.5f ± %.5f against exact %.5f: agreement %v, want %v", tc.beta, mean, se, exact, got, tc.agree)
		}
	}
}

// TestBaselineErrors checks that the loops reject what they cannot run.
func TestBaselineErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	if _, err := NewPottsHeatBath(potts.Params{Width: 4, States: 300, Beta: 1, Gamma: 1}, r); err == nil {
		t.Error("300 states: no error")
	}
	if _, err := NewPottsHeatBath(potts.Params{Width: 1, States: 3, Beta: 1, Gamma: 1}, r); err == nil {
		t.Error("width 1: no error")
	}
	if _, err := NewIsingCheckerboard(5, 0.3, r); err == nil {
		t.Error("odd side: no error")
	}
	for _, p := range []lat.Params{
		{Dim: 3, Size: 8, Coupling: lat.NearestNeighbour{}, Spin: lat.Potts(2), Beta: 1},
		{Dim: 2, Size: 8, Coupling: lat.NearestNeighbour{}, Spin: lat.Ising(), Beta: 1},
		{Dim: 2, Size: 8, Spin: lat.Potts(2), Beta: 1},
	} {
		if _, err := NewLatticeHeatBath(p, r); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// chainStats returns, for a chain with pair weights w and fields u, the
// exact P(x_i = 1) and P(x_i = x_{i+1}) by enumeration.
func chainStats(w []float64, u [][2]float64) (p1, agree []float64) {
	n := len(u)
	p1, agree = make([]float64, n), make([]float64, n-1)
	z := 0.0
	for s := range 1 << n {
		e := 0.0
		for i := range n {
			e += u[i][s>>i&1]
			if i+1 < n && s>>i&1 == s>>(i+1)&1 {
				e += w[i]
			}
		}
		p := math.Exp(e)
		z += p
		for i := range n {
			p1[i] += p * float64(s>>i&1)
			if i+1 < n && s>>i&1 == s>>(i+1)&1 {
				agree[i] += p
			}
		}
	}
	for i := range p1 {
		p1[i] /= z
	}
	for i := range agree {
		agree[i] /= z
	}
	return p1, agree
}

// TestIsingChainFFBS checks the hand-written forward-filtering backward-
// sampling loop: its draws (independent, each exact) give the marginals
// and neighbour agreements of a 7-variable chain with random weights and
// fields, computed by enumeration, within 4.5 standard errors; the same
// check rejects the loop run with every pair weight 30% too large.
func TestIsingChainFFBS(t *testing.T) {
	const n, draws = 7, 40000
	r := rand.New(rand.NewPCG(5, 6))
	w, u := make([]float64, n-1), make([][2]float64, n)
	for i := range w {
		w[i] = 0.5 + 1.5*r.Float64()
	}
	for i := range u {
		u[i] = [2]float64{r.NormFloat64(), r.NormFloat64()}
	}
	p1, agree := chainStats(w, u)
	for _, tc := range []struct {
		scale float64
		agree bool
	}{{1, true}, {1.3, false}} {
		ws := make([]float64, len(w))
		for i := range w {
			ws[i] = w[i] * tc.scale
		}
		c, err := NewIsingChainFFBS(ws, u, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		ones, same := make([]float64, n), make([]float64, n-1)
		for range draws {
			c.Sample()
			for i, v := range c.x {
				ones[i] += float64(v)
				if i+1 < n && v == c.x[i+1] {
					same[i]++
				}
			}
		}
		worst := 0.0
		for _, pair := range [][2][]float64{{ones, p1}, {same, agree}} {
			for i, cnt := range pair[0] {
				p := pair[1][i]
				worst = max(worst, math.Abs(cnt/draws-p)/math.Sqrt(p*(1-p)/draws))
			}
		}
		t.Logf("pair weights ×%g: largest z %.2f", tc.scale, worst)
		if (worst <= 4.5) != tc.agree {
			t.Errorf("pair weights ×%g: largest z %.2f, agreement with the exact chain %v, want %v", tc.scale, worst, worst <= 4.5, tc.agree)
		}
	}
	if _, err := NewIsingChainFFBS([]float64{1}, [][2]float64{{0, 0}}, r); err == nil {
		t.Error("mismatched weights and fields accepted")
	}
}

// TestPairTablesHeatBathConditional checks that the hand-written pair
// tables loop computes the conditional of the factor graph that
// Builder.AddTables builds from the same scopes and values, at every site
// of a random bipartite model of 3-valued variables, and that one changed
// table shows.
func TestPairTablesHeatBathConditional(t *testing.T) {
	const n, q = 12, 3
	r := rand.New(rand.NewPCG(7, 8))
	var scopes []int32
	var vals []float64
	for a := range n / 2 {
		for b := n / 2; b < n; b++ {
			if r.IntN(3) > 0 {
				scopes = append(scopes, int32(a), int32(b))
				for range q * q {
					vals = append(vals, r.NormFloat64())
				}
			}
		}
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(q))
	b.AddTables(scopes, []int{q, q}, vals)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewPairTablesHeatBath(n, q, scopes, vals, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	diff := func() float64 {
		x := bytesToFloats(h.x)
		worst := 0.0
		for i := range n {
			hand := append([]float64(nil), h.conditional(i)...)
			worst = max(worst, condDiff(hand, libraryConditional(g, i, q, x)))
		}
		return worst
	}
	if d := diff(); d > 1e-12 {
		t.Fatalf("conditionals differ by %g", d)
	}
	e := len(h.nbr) / 2 // one table of one row, changed at every x_j by 0.01·v
	for c := range q * q {
		h.tab[e*q*q+c] += 0.01 * float64(c%q)
	}
	if d := diff(); !(d > 1e-3) {
		t.Errorf("a table changed by 0.01·v: difference %g", d)
	}
	if _, err := NewPairTablesHeatBath(n, q, scopes[:3], vals, r); err == nil {
		t.Error("an odd scope list was accepted")
	}
}
