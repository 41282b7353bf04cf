package lattice

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
)

// The exact torus results are checked against the density of states g(k) of
// small tori (k the number of unsatisfied bonds, E = 2k − 2mn), counted
// exactly in integers twice: by enumerating states with Lattice.Energy, which
// ties the convention to the lattice's, and by a column transfer matrix,
// which reaches 6×6 and rectangles.

// betaC is the critical coupling ln(1 + √2)/2 of the 2-D Ising model.
var betaC = math.Log(1+math.Sqrt2) / 2

// transferDOS returns g(k) of the m×n torus (m spins a column, n columns,
// 2mn bonds; at side 2 a pair is joined by two bonds) from a transfer matrix
// over columns, for each fixed first column.
func transferDOS(m, n int) []float64 {
	bonds := 2 * m * n
	cols := 1 << m
	vert := func(c int) int { // unsatisfied bonds inside a column, periodic
		rot := (c>>1 | (c&1)<<(m-1))
		return popcount(c ^ rot)
	}
	g := make([]float64, bonds+1)
	dp, next := make([][]float64, cols), make([][]float64, cols)
	for c := range cols {
		dp[c], next[c] = make([]float64, bonds+1), make([]float64, bonds+1)
	}
	for first := range cols {
		for c := range cols {
			clear(dp[c])
		}
		dp[first][vert(first)] = 1
		for range n - 1 {
			for c := range cols {
				clear(next[c])
			}
			for c := range cols {
				for d := range cols {
					shift := popcount(c^d) + vert(d)
					for k, w := range dp[c][:bonds+1-shift] {
						next[d][k+shift] += w
					}
				}
			}
			dp, next = next, dp
		}
		for c := range cols {
			shift := popcount(c ^ first)
			for k, w := range dp[c][:bonds+1-shift] {
				g[k+shift] += w
			}
		}
	}
	return g
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

// latticeDOS returns g(k) of the size×size nearest-neighbour Ising lattice by
// enumerating its states and reading k off Lattice.Energy.
func latticeDOS(t *testing.T, size int) []float64 {
	l := mustNew(t, Params{Dim: 2, Size: size, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
	n := l.Sites()
	g := make([]float64, 2*n+1)
	x := make([]float64, n)
	for s := range 1 << n {
		for i := range x {
			x[i] = float64(s >> i & 1)
		}
		e := l.Energy(x) * float64(n) // −2n + 2k
		k := int(math.Round((e + 2*float64(n)) / 2))
		if math.Abs(e-float64(2*k-2*n)) > 1e-9 {
			t.Fatalf("state %d: H = %v is not −2n + 2k", s, e)
		}
		g[k]++
	}
	return g
}

// dosExact returns ln Z and ⟨H⟩/sites from g(k) at β.
func dosExact(g []float64, sites int, beta float64) (logZ, energy float64) {
	bonds := float64(2 * sites)
	top := math.Inf(-1)
	for k, w := range g {
		if w > 0 {
			top = max(top, -beta*(2*float64(k)-bonds))
		}
	}
	var z, ez float64
	for k, w := range g {
		if w > 0 {
			e := 2*float64(k) - bonds
			p := w * math.Exp(-beta*e-top)
			z += p
			ez += p * e
		}
	}
	return top + math.Log(z), ez / z / float64(sites)
}

// torusBetas are the couplings the exact checks use: tiny, high-temperature,
// critical (where Kaufman's γ₀ vanishes), just off it, low-temperature,
// antiferromagnetic.
var torusBetas = []float64{1e-6, 0.05, 0.3, betaC, betaC * (1 + 1e-9), 0.5, 1, 3, -0.2, -1}

// checkTorus compares isingTorus(m, n, β) with the density of states g for
// every β of torusBetas it accepts (the antiferromagnet on even sides):
// the energy per site to 1e−12 and ln Z to 1e−12 relative.
func checkTorus(t *testing.T, m, n int, g []float64) {
	t.Helper()
	for _, beta := range torusBetas {
		z, err := isingTorus(m, n, beta)
		if odd := m%2 != 0 || n%2 != 0; beta < 0 && odd {
			if err == nil {
				t.Errorf("%d×%d at β = %v: no error for the frustrated antiferromagnet", m, n, beta)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		lz, u := dosExact(g, m*n, beta)
		if math.Abs(z.energy-u) > 1e-12 || math.Abs(z.logZ-lz) > 1e-12*math.Abs(lz) {
			t.Errorf("%d×%d at β = %v: energy %.16g, ln Z %.16g; enumeration %.16g, %.16g", m, n, beta, z.energy, z.logZ, u, lz)
		}
	}
}

// TestTransferDOS: the transfer-matrix density of states equals the one
// enumerated with Lattice.Energy (3×3 and 4×4: 2⁹ and 2¹⁶ states), count by
// count, and sums to 2^{mn} on the other shapes.
func TestTransferDOS(t *testing.T) {
	for _, size := range []int{3, 4} {
		got, want := transferDOS(size, size), latticeDOS(t, size)
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("%d×%d: g(%d) = %v by transfer matrix, %v by enumeration", size, size, k, got[k], want[k])
			}
		}
	}
	for _, mn := range [][2]int{{2, 2}, {2, 5}, {3, 4}, {5, 3}, {6, 6}} {
		total := 0.0
		for _, w := range transferDOS(mn[0], mn[1]) {
			total += w
		}
		if total != math.Ldexp(1, mn[0]*mn[1]) {
			t.Errorf("%v: Σ g = %v, want 2^%d", mn, total, mn[0]*mn[1])
		}
	}
}

// TestIsingTorusExact: Kaufman's formula against exact enumeration on the
// 3×3 and 4×4 lattices the package builds (through Lattice.Energy) and, by
// the transfer matrix, on the 2×2 torus (doubled bonds), 5×5, 6×6 and
// rectangles of both parities in both orientations, at every β of
// torusBetas.
func TestIsingTorusExact(t *testing.T) {
	for _, size := range []int{3, 4} {
		checkTorus(t, size, size, latticeDOS(t, size))
	}
	for _, mn := range [][2]int{{2, 2}, {5, 5}, {6, 6}, {2, 3}, {3, 2}, {2, 5}, {3, 4}, {4, 3}, {5, 6}, {6, 5}, {4, 6}} {
		checkTorus(t, mn[0], mn[1], transferDOS(mn[0], mn[1]))
	}
	u, err := IsingTorusEnergy(4, 0.4)
	if want, _ := isingTorus(4, 4, 0.4); err != nil || u != want.energy {
		t.Errorf("IsingTorusEnergy(4, 0.4) = %v, %v; want %v", u, err, want.energy)
	}
	lz, err := IsingTorusLogZ(4, 0.4)
	if want, _ := isingTorus(4, 4, 0.4); err != nil || lz != want.logZ {
		t.Errorf("IsingTorusLogZ(4, 0.4) = %v, %v; want %v", lz, err, want.logZ)
	}
}

// TestIsingTorusDerivative: the analytic energy equals −(1/n)·∂ln Z/∂β by a
// sixth-order central difference of IsingTorusLogZ, to 1e−9, on large tori
// around β_c. Near β_c ln Z/n varies on the scale 1/L, so the step is
// h = 0.01/L: the truncation error, O(h⁶·∂⁷(ln Z/n)), and the rounding
// error, about 10⁻¹⁶/h, both stay near 10⁻¹¹ (at L = 32, the fourth-order
// difference with h = 10⁻³ is still 10⁻⁷ off).
func TestIsingTorusDerivative(t *testing.T) {
	for _, size := range []int{32, 128, 1000} {
		h := 0.01 / float64(size)
		for _, beta := range []float64{0.2, betaC - 0.01, betaC, betaC + 0.01, 0.7} {
			f := func(k float64) float64 {
				lz, err := IsingTorusLogZ(size, beta+k*h)
				if err != nil {
					t.Fatal(err)
				}
				return lz / float64(size*size)
			}
			fd := -(45*(f(1)-f(-1)) - 9*(f(2)-f(-2)) + f(3) - f(-3)) / (60 * h)
			u, err := IsingTorusEnergy(size, beta)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(u-fd) > 1e-9 {
				t.Errorf("L = %d, β = %v: energy %.12g, −∂(ln Z/n)/∂β ≈ %.12g", size, beta, u, fd)
			}
		}
	}
}

// criticalEnergyAmplitude is lim L·(u_L(β_c) + √2) on L×L tori: the
// free-fermion (conformal) torus value −2θ₂θ₃θ₄/(θ₂ + θ₃ + θ₄) at nome e^{−π},
// where θ₂ = θ₄ = 2^{−1/4}θ₃ and θ₃² = √π/Γ(3/4)², so −√2·θ₃²/(1 + 2^{3/4}).
func criticalEnergyAmplitude() float64 {
	g := math.Gamma(0.75)
	return -math.Sqrt2 * math.Sqrt(math.Pi) / (g * g) / (1 + math.Pow(2, 0.75))
}

// TestIsingTorusOnsager: large tori approach Onsager's infinite lattice. Away
// from β_c (ξ ≈ 1.6 at β = 0.3, ≈ 0.9 at 0.6) the finite-size correction is
// O(e^{−L/ξ}) and the 256×256 torus matches to 1e−12. At β_c it is O(1/L):
// u_L < −√2, and L·(u_L + √2) converges monotonically (each doubling of L,
// 16 … 4096, moves it by less than a third of the previous move) to
// criticalEnergyAmplitude (−0.6224395), within 1e−7 at L = 4096.
func TestIsingTorusOnsager(t *testing.T) {
	for _, beta := range []float64{0.3, 0.6} {
		u, err := IsingTorusEnergy(256, beta)
		if err != nil || math.Abs(u-onsagerEnergy(beta)) > 1e-12 {
			t.Errorf("β = %v: 256×256 torus %.15g (%v), Onsager %.15g", beta, u, err, onsagerEnergy(beta))
		}
	}
	limit := criticalEnergyAmplitude()
	prev, step := math.NaN(), math.Inf(1)
	for size := 16; size <= 4096; size *= 2 {
		u, err := IsingTorusEnergy(size, betaC)
		if err != nil {
			t.Fatal(err)
		}
		c := float64(size) * (u + math.Sqrt2)
		t.Logf("L = %4d: u(β_c) = %.12f, L(u + √2) = %.9f (limit %.9f)", size, u, c, limit)
		if d := math.Abs(c - prev); d >= step/3 {
			t.Errorf("L = %d: L(u + √2) moved by %v, the previous doubling by %v", size, d, step)
		} else if !math.IsNaN(d) {
			step = d
		}
		prev = c
	}
	if math.Abs(prev-limit) > 1e-7 {
		t.Errorf("L = 4096: L(u + √2) = %v, want %v", prev, limit)
	}
}

// TestIsingTorusLimits: β = 0, tiny β (u = −2 tanh β + O(β³) on any torus of
// side ≥ 3 — checked to 1e−6 relative at β = 10⁻⁸, which needs the
// cancellation-free derivative), the ground state above β = 40 and
// continuity there, the antiferromagnet's symmetry, and the errors.
func TestIsingTorusLimits(t *testing.T) {
	u, err := IsingTorusEnergy(8, 0)
	lz, _ := IsingTorusLogZ(8, 0)
	if u != 0 || err != nil || math.Abs(lz-64*math.Ln2) > 1e-12 {
		t.Errorf("β = 0: energy %v (%v), ln Z %v; want 0, 64 ln 2", u, err, lz)
	}
	if u, _ := IsingTorusEnergy(16, 1e-8); math.Abs(u/(-2e-8)-1) > 1e-6 {
		t.Errorf("β = 1e−8: energy %v, want ≈ −2e−8", u)
	}
	lo, _ := IsingTorusEnergy(64, torusGroundBeta)
	hi, _ := IsingTorusEnergy(64, math.Nextafter(torusGroundBeta, 100))
	lzLo, _ := IsingTorusLogZ(64, torusGroundBeta)
	lzHi, _ := IsingTorusLogZ(64, math.Nextafter(torusGroundBeta, 100))
	if lo != -2 || hi != -2 || math.Abs(lzHi-lzLo) > 1e-12*lzLo {
		t.Errorf("β = 40⁻/40⁺: energies %v, %v; ln Z %v, %v", lo, hi, lzLo, lzHi)
	}
	for _, size := range []int{2, 8, 64} {
		pos, _ := IsingTorusEnergy(size, 0.6)
		neg, err := IsingTorusEnergy(size, -0.6)
		if err != nil || neg != -pos {
			t.Errorf("L = %d: energy %v at β = −0.6 (%v), %v at 0.6", size, neg, err, pos)
		}
	}
	for _, tc := range []struct {
		size int
		beta float64
	}{{1, 0.4}, {0, 0.4}, {maxTorusSide + 1, 0.4}, {8, math.NaN()}, {8, math.Inf(1)}, {7, -0.3}} {
		if _, err := IsingTorusEnergy(tc.size, tc.beta); err == nil {
			t.Errorf("IsingTorusEnergy(%d, %v): no error", tc.size, tc.beta)
		}
		if _, err := IsingTorusLogZ(tc.size, tc.beta); err == nil {
			t.Errorf("IsingTorusLogZ(%d, %v): no error", tc.size, tc.beta)
		}
	}
}

// TestIsingTorusSampled: chromatic Gibbs sweeps of the 16×16 Ising lattice at
// β_c measure the energy per site of the exact finite torus (within 4
// standard errors) and a Binder cumulant within 4 standard errors + 0.02 of
// U* = 0.6107 (its finite-size correction at L = 16 is below 0.01).
func TestIsingTorusSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40 000-sweep chain")
	}
	const size = 16
	l := mustNew(t, Params{Dim: 2, Size: size, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: betaC})
	classes, err := l.Colouring()
	if err != nil {
		t.Fatal(err)
	}
	c, err := chromatic.New(gibbsFactory(t, "gibbs"), l, classes, chain.Streams(5, 2), &gibbs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeasurer(l, nil, ExactEnergy)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 41000 {
		c.Sweep()
		if s >= 1000 {
			m.Measure(c.State())
		}
	}
	res, err := m.Result()
	if err != nil {
		t.Fatal(err)
	}
	exact, err := IsingTorusEnergy(size, betaC)
	if err != nil {
		t.Fatal(err)
	}
	ub, err := BinderCumulant(m.Magnetisations())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("L = %d at β_c: energy %.5f ± %.5f (exact %.5f, τ %.1f), Binder %.4f ± %.4f (τ %.1f, plateau %v)",
		size, res.Energy.Mean, res.Energy.Err, exact, res.Energy.Tau, ub.Mean, ub.Err, ub.Tau, ub.Plateau)
	if !agrees(res.Energy, exact) || !res.Energy.Plateau {
		t.Errorf("energy %v ± %v, exact %v", res.Energy.Mean, res.Energy.Err, exact)
	}
	if math.Abs(ub.Mean-0.6107) > 4*ub.Err+0.02 || !ub.Plateau {
		t.Errorf("Binder cumulant %v ± %v (plateau %v), want ≈ 0.6107", ub.Mean, ub.Err, ub.Plateau)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
}
