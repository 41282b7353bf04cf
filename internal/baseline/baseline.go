// Package baseline holds the honest baselines of DESIGN §9: hand-written,
// model-specific heat-bath loops of the kind a user would write for one
// model in forty lines, tuned (one byte of state a site, flat arrays, no
// interface call or range check, accumulators indexed without bounds
// checks, no function call in an inner loop). Package bench benchmarks
// them beside the library's samplers (sampler=handwritten), and the
// crossover experiment of package experiments/studies times them as the degree
// grows: a speed-up the project states is quoted against them, not only
// against the library's own plain Gibbs. They sample the same
// conditionals as the library's samplers on the same models
// (baseline_test.go checks it) and draw from a *rand.Rand (PCG) as the
// library does.
package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	lat "github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/potts"
)

// MaxStates bounds q for the hand-written loops: their state is
// one byte a site, and their per-value accumulators are [256]float64
// arrays indexed by that byte, which needs no bounds check.
const MaxStates = 256

// heatBathDraw draws v ∈ {0, …, q−1} with probability ∝ exp(u[v]) by
// max-subtracted exponentials (u is overwritten), as every heat-bath loop
// here does; the library's samplers draw the same way.
func heatBathDraw(r *rand.Rand, u []float64) uint8 {
	mx := u[0]
	for _, e := range u[1:] {
		mx = max(mx, e)
	}
	total := 0.0
	for v, e := range u {
		p := math.Exp(e - mx)
		u[v] = p
		total += p
	}
	t := r.Float64() * total
	for v, p := range u {
		if t < p {
			return uint8(v)
		}
		t -= p
	}
	return uint8(len(u) - 1) // rounding left t ≥ 0 after the last weight
}

// PottsHeatBath is the honest baseline for the Gaussian-kernel Potts model
// of package potts (the Poisson-Gibbs paper's model at potts.Paper()): a
// random-scan heat-bath over compressed-sparse-row neighbour arrays,
// written for this one model.
//
// Site i's neighbours are nbr[start[i]:start[i+1]] with pair weights
// w = β·exp(−γ·(Δrow² + Δcol²)), every other site of the non-periodic
// Width×Width lattice whose weight is not exactly 0 in float64 (the pairs
// of potts.New, rebuilt here from the parameters alone). An update of i
// accumulates u[v] = Σ_j w_ij·δ(v, x_j) by u[x_j] += w_ij (into two
// accumulators, even and odd neighbours, to halve the chain of dependent
// additions when neighbours share a value) and draws x_i ∝ exp(u[v]).
type PottsHeatBath struct {
	q      int
	start  []int32
	nbr    []int32
	w      []float64
	x      []uint8
	ua, ub [MaxStates]float64
	r      *rand.Rand
}

// NewPottsHeatBath builds the loop for p, with a state drawn uniformly
// from r.
func NewPottsHeatBath(p potts.Params, r *rand.Rand) (*PottsHeatBath, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.States > MaxStates {
		return nil, fmt.Errorf("bench: hand-written Potts loop: %d states, at most %d", p.States, MaxStates)
	}
	wd := p.Width
	n := wd * wd
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("bench: hand-written Potts loop: %d sites", n)
	}
	kernel := make([]float64, n) // by (|Δrow|, |Δcol|), the expression of potts.New
	for dr := range wd {
		for dc := range wd {
			kernel[dr*wd+dc] = p.Beta * math.Exp(-p.Gamma*float64(dr*dr+dc*dc))
		}
	}
	h := &PottsHeatBath{q: p.States, start: make([]int32, n+1), x: make([]uint8, n), r: r}
	for i := range n {
		ri, ci := i/wd, i%wd
		for j := range n {
			if w := kernel[absInt(ri-j/wd)*wd+absInt(ci-j%wd)]; j != i && w != 0 {
				h.nbr = append(h.nbr, int32(j))
				h.w = append(h.w, w)
			}
		}
		if len(h.nbr) > math.MaxInt32 {
			return nil, fmt.Errorf("bench: hand-written Potts loop: more than 2³¹ neighbour entries")
		}
		h.start[i+1] = int32(len(h.nbr))
	}
	for i := range h.x {
		h.x[i] = uint8(r.IntN(p.States))
	}
	return h, nil
}

// NewPairsHeatBath builds the same loop over the pair list of p (package
// potts's shapes without locality: Sparse, PowerLaw, Bipartite), each pair
// w·δ(x_i, x_j) entered in both endpoints' rows, with a state drawn
// uniformly from r: the honest baseline of BenchmarkSparse.
func NewPairsHeatBath(p *potts.Pairs, r *rand.Rand) (*PottsHeatBath, error) {
	switch {
	case p.Q < 1 || p.Q > MaxStates:
		return nil, fmt.Errorf("baseline: hand-written pairs loop: %d states, want 1 to %d", p.Q, MaxStates)
	case p.N < 1 || p.N > math.MaxInt32 || 2*len(p.W) > math.MaxInt32:
		return nil, fmt.Errorf("baseline: hand-written pairs loop: %d variables and %d pairs", p.N, len(p.W))
	case len(p.I) != len(p.W) || len(p.J) != len(p.W):
		return nil, fmt.Errorf("baseline: hand-written pairs loop: %d, %d and %d endpoints and weights", len(p.I), len(p.J), len(p.W))
	}
	h := &PottsHeatBath{q: p.Q, start: make([]int32, p.N+1), x: make([]uint8, p.N), r: r}
	for k := range p.W { // counting sort of both ends into rows
		i, j := p.I[k], p.J[k]
		if uint(i) >= uint(p.N) || uint(j) >= uint(p.N) {
			return nil, fmt.Errorf("baseline: hand-written pairs loop: pair %d joins %d and %d of %d variables", k, i, j, p.N)
		}
		h.start[i+1]++
		h.start[j+1]++
	}
	for i := range p.N {
		h.start[i+1] += h.start[i]
	}
	h.nbr, h.w = make([]int32, 2*len(p.W)), make([]float64, 2*len(p.W))
	next := append([]int32(nil), h.start[:p.N]...)
	for k, wk := range p.W {
		i, j := p.I[k], p.J[k]
		h.nbr[next[i]], h.w[next[i]] = j, wk
		next[i]++
		h.nbr[next[j]], h.w[next[j]] = i, wk
		next[j]++
	}
	for i := range h.x {
		h.x[i] = uint8(r.IntN(p.Q))
	}
	return h, nil
}

// conditional sets u[v] = Σ_j w_ij·δ(v, x_j) for v < q and returns u[:q].
func (h *PottsHeatBath) conditional(i int) []float64 {
	nb := h.nbr[h.start[i]:h.start[i+1]]
	w := h.w[h.start[i]:h.start[i+1]]
	w = w[:len(nb)]
	ua, ub := &h.ua, &h.ub
	clear(ua[:h.q])
	clear(ub[:h.q])
	x := h.x
	k := 0
	for ; k+1 < len(nb); k += 2 {
		ua[x[nb[k]]] += w[k]
		ub[x[nb[k+1]]] += w[k+1]
	}
	if k < len(nb) {
		ua[x[nb[k]]] += w[k]
	}
	u := ua[:h.q]
	for v := range u {
		u[v] += ub[v]
	}
	return u
}

// update resamples site i from its conditional.
func (h *PottsHeatBath) update(i int) { h.x[i] = heatBathDraw(h.r, h.conditional(i)) }

// Step resamples a uniformly chosen site (random scan).
func (h *PottsHeatBath) Step() { h.update(h.r.IntN(len(h.x))) }

// Sweep resamples every site once, in index order (systematic scan): the
// rows are read in the order they are stored.
func (h *PottsHeatBath) Sweep() {
	for i := range h.x {
		h.update(i)
	}
}

// MeanDegree returns the mean number of neighbours a step visits.
func (h *PottsHeatBath) MeanDegree() float64 { return float64(len(h.nbr)) / float64(len(h.x)) }

// MaxDegree returns the largest number of neighbours of a site (Δ).
func (h *PottsHeatBath) MaxDegree() int {
	d := 0
	for i := range len(h.x) {
		d = max(d, int(h.start[i+1]-h.start[i]))
	}
	return d
}

// PairTablesHeatBath is the honest baseline for a pairwise model of dense
// q×q tables of log-potentials (a conditional random field, a restricted
// Boltzmann machine written as tables): a random-scan heat bath whose site
// i holds, for each of its tables in turn, the other variable and the
// table laid out for i (entry x_j·q + v is φ at x_i = v), so that an
// update reads its row as one stream: u[v] += t[x_j·q + v].
type PairTablesHeatBath struct {
	q     int
	start []int32   // site i's row: entries start[i]..start[i+1]−1
	nbr   []int32   // an entry's other variable
	tab   []float64 // an entry's table for its site, q² values at entry·q²
	x     []uint8
	r     *rand.Rand
	u     [MaxStates]float64
}

// NewPairTablesHeatBath returns the loop for n variables of q values and
// the tables of scopes (two variables a table, in pairs: a, b) and vals
// (q² log-potentials a table, φ(x_a, x_b) at x_a·q + x_b, as
// factorgraph.Builder.AddTables reads them with sizes {q, q}), from a
// uniformly random state.
func NewPairTablesHeatBath(n, q int, scopes []int32, vals []float64, r *rand.Rand) (*PairTablesHeatBath, error) {
	qq := q * q
	switch {
	case q < 1 || q > MaxStates:
		return nil, fmt.Errorf("baseline: hand-written pair tables loop: %d states, want 1 to %d", q, MaxStates)
	case n < 1 || n > math.MaxInt32 || len(scopes) > math.MaxInt32:
		return nil, fmt.Errorf("baseline: hand-written pair tables loop: %d variables and %d scope entries", n, len(scopes))
	case len(scopes)%2 != 0 || len(vals) != len(scopes)/2*qq:
		return nil, fmt.Errorf("baseline: hand-written pair tables loop: %d scope entries and %d values, want two and %d a table", len(scopes), len(vals), qq)
	}
	h := &PairTablesHeatBath{q: q, start: make([]int32, n+1), x: make([]uint8, n), r: r}
	for k := 0; k < len(scopes); k += 2 {
		a, b := scopes[k], scopes[k+1]
		if uint(a) >= uint(n) || uint(b) >= uint(n) || a == b {
			return nil, fmt.Errorf("baseline: hand-written pair tables loop: table %d joins %d and %d of %d variables", k/2, a, b, n)
		}
		h.start[a+1]++
		h.start[b+1]++
	}
	for i := range n {
		h.start[i+1] += h.start[i]
	}
	h.nbr, h.tab = make([]int32, len(scopes)), make([]float64, len(scopes)*qq)
	next := append([]int32(nil), h.start[:n]...)
	for k := 0; k < len(scopes); k += 2 {
		a, b := scopes[k], scopes[k+1]
		t := vals[k/2*qq : (k/2+1)*qq]
		ea, eb := int(next[a]), int(next[b])
		h.nbr[ea], h.nbr[eb] = b, a
		ta, tb := h.tab[ea*qq:(ea+1)*qq], h.tab[eb*qq:(eb+1)*qq]
		for xa := range q {
			for xb := range q {
				ta[xb*q+xa] = t[xa*q+xb] // a's row: x_b, then v = x_a
				tb[xa*q+xb] = t[xa*q+xb] // b's row: x_a, then v = x_b
			}
		}
		next[a]++
		next[b]++
	}
	for i := range h.x {
		h.x[i] = uint8(r.IntN(q))
	}
	return h, nil
}

// conditional sets u[v] = Σ over i's tables of φ(x_{i←v}) and returns u[:q].
func (h *PairTablesHeatBath) conditional(i int) []float64 {
	q := h.q
	u := h.u[:q]
	clear(u)
	s, e := int(h.start[i]), int(h.start[i+1])
	nb, tab := h.nbr[s:e], h.tab[s*q*q:e*q*q]
	for k, j := range nb {
		t := tab[k*q*q+int(h.x[j])*q:][:q]
		for v := range u {
			u[v] += t[v]
		}
	}
	return u
}

// Step resamples a uniformly chosen site (random scan).
func (h *PairTablesHeatBath) Step() {
	i := h.r.IntN(len(h.x))
	h.x[i] = heatBathDraw(h.r, h.conditional(i))
}

// IsingCheckerboard is the honest baseline for the nearest-neighbour Ising
// model π(s) ∝ exp(β Σ_<ij> s_i s_j) on an n×n torus (n even): spins
// s = ±1 in int8, a heat-bath in checkerboard order (all even sites, then
// all odd), and the conditional P(s_i = +1) = 1/(1 + exp(−2β·h)) of the
// neighbour sum h ∈ {−4, −2, 0, 2, 4} tabulated once as thresholds
// t_h = ⌊P·2⁶⁴⌋ against which a site compares one r.Uint64() — without a
// branch (the borrow of r.Uint64() − t_h is the new spin's bit), which
// halves the time of a sweep near β_c, where the comparison is a coin flip
// to the branch predictor.
type IsingCheckerboard struct {
	n   int
	s   []int8
	thr [16]uint64 // thr[h+4]; 16 entries so that a uint8 index needs no bounds check
	r   *rand.Rand
}

// NewIsingCheckerboard returns the loop on an n×n torus at β, with spins
// drawn uniformly from r.
func NewIsingCheckerboard(n int, beta float64, r *rand.Rand) (*IsingCheckerboard, error) {
	if n < 4 || n%2 != 0 {
		return nil, fmt.Errorf("bench: checkerboard Ising: side %d: need an even side ≥ 4", n)
	}
	if math.IsNaN(beta) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("bench: checkerboard Ising: β = %v", beta)
	}
	c := &IsingCheckerboard{n: n, s: make([]int8, n*n), r: r}
	for h := -4; h <= 4; h += 2 {
		c.thr[h+4] = probThreshold(1 / (1 + math.Exp(-2*beta*float64(h))))
	}
	for i := range c.s {
		c.s[i] = int8(2*r.IntN(2) - 1)
	}
	return c, nil
}

// probThreshold returns t with P(u < t) = p for u uniform on 64 bits
// (to within 2⁻⁶⁴).
func probThreshold(p float64) uint64 {
	switch t := math.Ldexp(p, 64); {
	case !(t > 0):
		return 0
	case t >= 0x1p64:
		return math.MaxUint64
	default:
		return uint64(t)
	}
}

// Sweep updates every site once: the even sites (row + column even), then
// the odd ones.
func (c *IsingCheckerboard) Sweep() {
	n, s := c.n, c.s
	for parity := range 2 {
		for row := range n {
			up := s[((row+n-1)%n)*n:][:n]
			dn := s[((row+1)%n)*n:][:n]
			me := s[row*n:][:n]
			for col := (row + parity) & 1; col < len(me); col += 2 {
				l, rt := col-1, col+1
				if l < 0 {
					l = n - 1
				}
				if rt == n {
					rt = 0
				}
				h := up[col] + dn[col] + me[l] + me[rt]
				_, below := bits.Sub64(c.r.Uint64(), c.thr[uint8(h+4)&15], 0) // 1 if r.Uint64() < threshold
				me[col] = int8(2*below) - 1
			}
		}
	}
}

// Energy returns −(1/n²) Σ_<ij> s_i s_j, the energy per site.
func (c *IsingCheckerboard) Energy() float64 { return isingEnergy(c.n, c.s) }

// isingEnergy returns −(1/n²) Σ_<ij> s_i s_j of spins s on the n×n torus.
func isingEnergy(n int, s []int8) float64 {
	e := 0
	for row := range n {
		for col := range n {
			si := int(s[row*n+col])
			e += si * (int(s[row*n+(col+1)%n]) + int(s[((row+1)%n)*n+col]))
		}
	}
	return -float64(e) / float64(n*n)
}

// IsingSW is the honest baseline of the Swendsen–Wang sweep on the
// nearest-neighbour Ising torus: spins ±1 in int8; every site tests its
// right and lower neighbour, and an agreeing pair is bonded when one
// r.Uint64() falls below ⌊(1 − e^{−2β})·2⁶⁴⌋; bonds join sites in an
// int32 union–find (union by size, path halving); each root draws a fresh
// spin (one bit) and every site copies its root's. It is what a physicist
// writes for this one model: no alias tables, no Poisson process.
type IsingSW struct {
	n            int
	s, flip      []int8
	parent, size []int32
	thr          uint64
	r            *rand.Rand
}

// NewIsingSW returns the loop on an n×n torus at β ≥ 0, spins drawn from r.
func NewIsingSW(n int, beta float64, r *rand.Rand) (*IsingSW, error) {
	if n < 3 || !(beta >= 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("bench: Swendsen–Wang Ising: side %d, β = %v: need a side ≥ 3 and a finite β ≥ 0", n, beta)
	}
	c := &IsingSW{n: n, s: make([]int8, n*n), flip: make([]int8, n*n), parent: make([]int32, n*n), size: make([]int32, n*n),
		thr: probThreshold(-math.Expm1(-2 * beta)), r: r}
	for i := range c.s {
		c.s[i] = int8(2*r.IntN(2) - 1)
	}
	return c, nil
}

func (c *IsingSW) find(a int32) int32 {
	p := c.parent
	for p[a] != a {
		p[a] = p[p[a]]
		a = p[a]
	}
	return a
}

func (c *IsingSW) union(a, b int32) {
	ra, rb := c.find(a), c.find(b)
	if ra == rb {
		return
	}
	if c.size[ra] < c.size[rb] {
		ra, rb = rb, ra
	}
	c.parent[rb] = ra
	c.size[ra] += c.size[rb]
}

// Energy returns the energy per site.
func (c *IsingSW) Energy() float64 { return isingEnergy(c.n, c.s) }

// Sweep is one Swendsen–Wang update of every site.
func (c *IsingSW) Sweep() {
	n, s := c.n, c.s
	for i := range c.parent {
		c.parent[i], c.size[i] = int32(i), 1
	}
	for row := range n {
		dn := ((row + 1) % n) * n
		for col := range n {
			i := row*n + col
			rt := row*n + (col+1)%n
			if s[i] == s[rt] && c.r.Uint64() < c.thr {
				c.union(int32(i), int32(rt))
			}
			if s[i] == s[dn+col] && c.r.Uint64() < c.thr {
				c.union(int32(i), int32(dn+col))
			}
		}
	}
	for i := range c.parent {
		if c.parent[i] == int32(i) {
			c.flip[i] = int8(2*(c.r.Uint64()>>63)) - 1
		}
	}
	for i := range s {
		s[i] = c.flip[c.find(int32(i))]
	}
}

// StencilHeatBath is the honest baseline for translation-invariant
// two-dimensional Potts models: a random-scan heat-bath whose update of
// site i = (r, c) loops over the coupled offsets (Δr, Δc) of one shared
// table, the neighbour (r + Δr, c + Δc), and adds its weight β·J to
// u[x_j]; then one categorical draw. No neighbour list is stored: the
// table has one entry per offset (K entries, not n·K), shared by every
// site.
//
// The offsets are stored as row runs: for each Δr, the weights of the
// contiguous columns Δc = lo, …, hi that carry its non-zero couplings
// (zeros inside a run, the site itself included, add nothing), so that the
// boundary costs two index computations a run instead of one a neighbour
// and the inner loop streams a row of the state and of the weights. On a
// periodic lattice the neighbour's coordinates wrap modulo N (a run then
// covers at most two segments of a state row); on an open one the runs
// are clipped to the lattice.
type StencilHeatBath struct {
	n, q     int
	periodic bool
	runs     []offsetRun
	w        []float64
	k        int // coupled offsets (periodic), or offsets within reach (open)
	x        []uint8
	u        [MaxStates]float64
	r        *rand.Rand
}

// offsetRun is the offsets (dr, dc0), …, (dr, dc0 + len − 1) with weights
// w[off : off+len].
type offsetRun struct{ dr, dc0, off, len int }

// NewLatticeHeatBath returns the stencil loop for the implicit periodic
// lattice lattice.New(p) (Dim 2, Potts spins; a cutoff is honoured): every
// kernel, the power law of every pair of sites included, with a state drawn
// uniformly from r. It enumerates the offsets from the kernel itself, one
// canonical representative per other site with components in (−N/2, N/2],
// as the lattice does.
func NewLatticeHeatBath(p lat.Params, r *rand.Rand) (*StencilHeatBath, error) {
	switch {
	case p.Dim != 2:
		return nil, fmt.Errorf("bench: hand-written lattice loop: dimension %d, want 2", p.Dim)
	case p.Spin.Kind != lat.PottsSpins || p.Spin.States < 2 || p.Spin.States > MaxStates:
		return nil, fmt.Errorf("bench: hand-written lattice loop: spins %v, want Potts with 2 to %d states", p.Spin, MaxStates)
	case p.Coupling == nil:
		return nil, errors.New("bench: hand-written lattice loop: no kernel")
	case p.Size < 3 || p.Size > 1<<14:
		return nil, fmt.Errorf("bench: hand-written lattice loop: side %d", p.Size)
	}
	n := p.Size
	maxD2 := math.Inf(1)
	if reach := p.Coupling.Reach(); reach > 0 {
		maxD2 = float64(reach)
	}
	if p.Cutoff > 0 {
		maxD2 = min(maxD2, math.Floor(p.Cutoff*p.Cutoff))
	}
	h := &StencilHeatBath{n: n, q: p.Spin.States, periodic: true, r: r}
	err := h.build(-((n - 1) / 2), n/2, func(dr, dc int) float64 {
		if d2 := dr*dr + dc*dc; d2 > 0 && float64(d2) <= maxD2 {
			return p.Beta * p.Coupling.Coupling(2, d2)
		}
		return 0
	})
	return h, err
}

// NewPottsStencil returns the stencil loop for the Gaussian-kernel Potts
// model of package potts (open boundaries, weight β·exp(−γ·(Δr² + Δc²))
// for every offset with |Δr|, |Δc| < Width, rebuilt from p), with a state
// drawn uniformly from r. It is the PottsHeatBath's model without the
// neighbour lists: on the 40×40 and 80×80 lattices those no longer fit in
// the caches, and this loop is the faster baseline.
func NewPottsStencil(p potts.Params, r *rand.Rand) (*StencilHeatBath, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.States > MaxStates {
		return nil, fmt.Errorf("bench: hand-written Potts stencil: %d states, at most %d", p.States, MaxStates)
	}
	h := &StencilHeatBath{n: p.Width, q: p.States, r: r}
	err := h.build(-(p.Width - 1), p.Width-1, func(dr, dc int) float64 {
		if dr == 0 && dc == 0 {
			return 0
		}
		return p.Beta * math.Exp(-p.Gamma*float64(dr*dr+dc*dc)) // the expression of potts.New
	})
	return h, err
}

// build tabulates weight(Δr, Δc) for Δr, Δc ∈ [lo, hi] as row runs and
// draws the initial state.
func (h *StencilHeatBath) build(lo, hi int, weight func(dr, dc int) float64) error {
	row := make([]float64, hi-lo+1)
	for dr := lo; dr <= hi; dr++ {
		first, last := -1, -1
		for dc := lo; dc <= hi; dc++ {
			w := weight(dr, dc)
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("bench: hand-written stencil: weight %v at offset (%d,%d)", w, dr, dc)
			}
			row[dc-lo] = w
			if w != 0 {
				h.k++
				if first < 0 {
					first = dc - lo
				}
				last = dc - lo
			}
		}
		if first >= 0 {
			h.runs = append(h.runs, offsetRun{dr: dr, dc0: first + lo, off: len(h.w), len: last - first + 1})
			h.w = append(h.w, row[first:last+1]...)
		}
	}
	if h.k == 0 {
		return errors.New("bench: hand-written stencil: no coupled pair")
	}
	h.x = make([]uint8, h.n*h.n)
	for i := range h.x {
		h.x[i] = uint8(h.r.IntN(h.q))
	}
	return nil
}

// conditional sets u[v] = Σ_k w_k·δ(v, x_{i+offset k}) and returns u[:q].
func (h *StencilHeatBath) conditional(i int) []float64 {
	n := h.n
	r0, c0 := i/n, i%n
	u := &h.u
	clear(u[:h.q])
	for _, run := range h.runs {
		rr, col := r0+run.dr, c0+run.dc0
		var a, b int // columns [a, b) of row rr, at weights from w[run.off + a − col]
		if h.periodic {
			if rr < 0 {
				rr += n
			} else if rr >= n {
				rr -= n
			}
			if col < 0 {
				col += n
			} else if col >= n {
				col -= n
			}
			if m := n - col; run.len > m { // the run wraps: columns 0 … len−m−1 first
				w := h.w[run.off+m:][:run.len-m]
				xs := h.x[rr*n:][:len(w)]
				for t, xj := range xs {
					u[xj] += w[t]
				}
				a, b = col, n
			} else {
				a, b = col, col+run.len
			}
		} else {
			if rr < 0 || rr >= n {
				continue
			}
			a, b = max(col, 0), min(col+run.len, n)
			if a >= b {
				continue
			}
		}
		w := h.w[run.off+a-col:][:b-a]
		xs := h.x[rr*n+a:][:len(w)]
		for t, xj := range xs {
			u[xj] += w[t]
		}
	}
	return u[:h.q]
}

// update resamples site i from its conditional.
func (h *StencilHeatBath) update(i int) { h.x[i] = heatBathDraw(h.r, h.conditional(i)) }

// Step resamples a uniformly chosen site (random scan).
func (h *StencilHeatBath) Step() { h.update(h.r.IntN(len(h.x))) }

// Offsets returns the number of coupled offsets (periodic lattice) or of
// offsets within reach (open one): the neighbours an update visits.
func (h *StencilHeatBath) Offsets() int { return h.k }

func absInt(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// IsingChainFFBS samples an open chain of n binary variables x_i ∈ {0, 1}
// with Potts pairs w_i·[x_i = x_{i+1}] and fields u_i(x_i) jointly, by
// forward filtering and backward sampling: what a user writes for one
// chain-shaped block, the honest baseline of blocked.Blocked. The weights
// are exponentiated once, at construction; a pass is multiply-adds, one
// division a variable to keep the forward probabilities normalised, and one
// uniform variate a variable.
type IsingChainFFBS struct {
	ew    []float64    // e^{w_i}
	eu    [][2]float64 // e^{u_i(v)}
	alpha [][2]float64 // the forward probabilities, normalised
	x     []uint8
	r     *rand.Rand
}

// NewIsingChainFFBS returns the sampler of the chain with pair weights w
// (len n−1) and fields u (len n), starting at x = 0.
func NewIsingChainFFBS(w []float64, u [][2]float64, r *rand.Rand) (*IsingChainFFBS, error) {
	n := len(u)
	if n == 0 || len(w) != n-1 {
		return nil, fmt.Errorf("IsingChainFFBS: %d fields and %d pair weights; want n ≥ 1 and n − 1", n, len(w))
	}
	c := &IsingChainFFBS{ew: make([]float64, len(w)), eu: make([][2]float64, n), alpha: make([][2]float64, n), x: make([]uint8, n), r: r}
	for i, wi := range w {
		c.ew[i] = math.Exp(wi)
	}
	for i, ui := range u {
		c.eu[i] = [2]float64{math.Exp(ui[0]), math.Exp(ui[1])}
		if math.IsInf(c.eu[i][0]+c.eu[i][1], 0) || math.IsNaN(c.eu[i][0]+c.eu[i][1]) {
			return nil, fmt.Errorf("IsingChainFFBS: field %d = %v overflows", i, ui)
		}
	}
	return c, nil
}

// Sample draws the whole chain from its joint distribution.
func (c *IsingChainFFBS) Sample() {
	n := len(c.x)
	a0, a1 := c.eu[0][0], c.eu[0][1]
	s := 1 / (a0 + a1)
	c.alpha[0] = [2]float64{a0 * s, a1 * s}
	for i := 1; i < n; i++ {
		p, e := c.alpha[i-1], c.ew[i-1]
		a0 = c.eu[i][0] * (p[0]*e + p[1])
		a1 = c.eu[i][1] * (p[0] + p[1]*e)
		s = 1 / (a0 + a1)
		c.alpha[i] = [2]float64{a0 * s, a1 * s}
	}
	var v uint8
	if c.r.Float64() >= c.alpha[n-1][0] {
		v = 1
	}
	c.x[n-1] = v
	for i := n - 2; i >= 0; i-- {
		// π(x_i | x_{i+1} = v) ∝ α_i(x_i)·e^{w_i [x_i = v]}
		p0, p1 := c.alpha[i][0], c.alpha[i][1]
		if v == 0 {
			p0 *= c.ew[i]
		} else {
			p1 *= c.ew[i]
		}
		if c.r.Float64()*(p0+p1) >= p0 {
			v = 1
		} else {
			v = 0
		}
		c.x[i] = v
	}
}
