package lattice

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/compiled"
)

// SpinKind is the kind of variable at each site.
type SpinKind int

const (
	// PottsSpins are q-state Potts variables x ∈ {0, …, q−1} with the pair
	// function δ(x_i, x_j).
	PottsSpins SpinKind = iota
	// IsingSpins are Ising spins s = 2x − 1 ∈ {−1, +1} stored as
	// x ∈ {0, 1}, with the pair function s_i·s_j.
	IsingSpins
	// ContinuousSpins are real spins x ∈ [Lo, Hi] with the pair function
	// x_i·x_j.
	ContinuousSpins
)

// Spin describes the variable at each site and its pair function f(x_i, x_j).
type Spin struct {
	Kind   SpinKind
	States int     // q ≥ 2 for PottsSpins; 2 for IsingSpins; unused for ContinuousSpins
	Lo, Hi float64 // the interval of ContinuousSpins
}

// Potts returns q-state Potts spins.
func Potts(q int) Spin { return Spin{Kind: PottsSpins, States: q} }

// Ising returns Ising spins ±1 (stored as 0 for −1 and 1 for +1).
func Ising() Spin { return Spin{Kind: IsingSpins, States: 2} }

// Continuous returns real spins on [lo, hi].
func Continuous(lo, hi float64) Spin { return Spin{Kind: ContinuousSpins, Lo: lo, Hi: hi} }

// String returns e.g. "potts(q=3)", "ising" or "continuous[-1, 1]".
func (s Spin) String() string {
	switch s.Kind {
	case PottsSpins:
		return fmt.Sprintf("potts(q=%d)", s.States)
	case IsingSpins:
		return "ising"
	case ContinuousSpins:
		return fmt.Sprintf("continuous[%g, %g]", s.Lo, s.Hi)
	}
	return fmt.Sprintf("spin kind %d", int(s.Kind))
}

func (s Spin) validate() error {
	switch s.Kind {
	case PottsSpins:
		if s.States < 2 || s.States > MaxStates {
			return fmt.Errorf("%d Potts states: need 2 to %d", s.States, MaxStates)
		}
	case IsingSpins:
		if s.States != 2 {
			return fmt.Errorf("Ising spins with %d states: Ising spins have 2", s.States)
		}
	case ContinuousSpins:
		if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || !(s.Lo < s.Hi) {
			return fmt.Errorf("continuous spin interval [%v, %v] is empty or not finite", s.Lo, s.Hi)
		}
	default:
		return fmt.Errorf("unknown spin kind %d", int(s.Kind))
	}
	return nil
}

// pairRange returns the range [fmin, fmax] of the pair function.
func (s Spin) pairRange() (fmin, fmax float64) {
	switch s.Kind {
	case PottsSpins:
		return 0, 1
	case IsingSpins:
		return -1, 1
	}
	a, b := s.Lo, s.Hi
	fmin = min(a*a, a*b, b*b)
	fmax = max(a*a, a*b, b*b)
	return fmin, fmax
}

// Params describes a periodic lattice model
//
//	π(x) ∝ exp(β Σ_{i<j} J(r_ij) f(x_i, x_j))
//
// on the Size^Dim sites of a Dim-dimensional torus.
type Params struct {
	Dim      int      // 1, 2 or 3
	Size     int      // N, the number of sites along each axis: N^Dim sites
	Coupling Coupling // the coupling J(r)
	Spin     Spin     // the variables and pair function
	Beta     float64  // the inverse temperature β (finite, non-zero; negative flips every coupling)
	// Cutoff, if positive, couples only the pairs at distance r ≤ Cutoff
	// (a finite-range version of a long-range kernel). Zero means no cutoff.
	Cutoff float64
}

// Limits of the lattices New builds.
const (
	// MaxSites is the largest number of sites, N^Dim.
	MaxSites = 1 << 28
	// MaxOffsets is the largest number of coupled offsets K (each a few
	// tens of bytes); use a Cutoff for larger long-range lattices.
	MaxOffsets = 1 << 26
	// MaxStates is the largest number of Potts states.
	MaxStates = 1 << 16
)

// Lattice is an implicit translation-invariant lattice model: a
// factorgraph.Model whose pair factors are generated from a list of K
// coupled offsets, never stored. It is immutable and safe for concurrent use
// by any number of samplers.
//
// The k-th factor of A[i] is the pair {i, Neighbour(i, k)}, a soft factor
// with M = |βJ_k|·(fmax − fmin); offsets are sorted by decreasing |J|, and
// one alias table over them serves every site. Memory is O(K).
type Lattice struct {
	p          Params
	dim, size  int
	n          int
	div        fastDiv // division by size
	geo        compiled.Geometry
	kind       SpinKind
	q          int
	fmin, fmax float64 // range of the pair function
	invSpan    float64 // 1/(fmax − fmin)
	jPerM      float64 // |J_k| = M_k·jPerM
	signBeta   float64 // ±1

	// The offsets, by decreasing M, in the form package gibbs's loops read
	// (compiled.Torus shares both slices): ents[k] the components
	// premultiplied by the strides, w[k] = ±M_k (negative when β·J_k < 0).
	ents  []compiled.TorusEnt
	w     []float64
	l     float64 // L = Σ_k M_k
	jsum  float64 // Σ_k |J_k|
	table *compiled.TorusTable
	// form holds the compiled form of the lattice that package gibbs's hot
	// loops run on (compiled.TorusOf), or none for continuous spins; its
	// type is internal to the module, and nothing of it is part of
	// Lattice's API.
	form
	free []int
	dom  factorgraph.Domain
}

var (
	_ factorgraph.Model     = (*Lattice)(nil)
	_ factorgraph.Adjacency = (*Lattice)(nil)
)

// offset is one coupled displacement during construction.
type offset struct {
	c [3]int32
	j float64
}

// New returns the lattice model p describes. It refuses, with a
// *ParamsError, a dimension other than 1, 2 or 3, a side below 2 (below 3
// for the nearest-neighbour kernel, whose ±1 neighbours would coincide),
// more than MaxSites sites or MaxOffsets coupled offsets, an invalid kernel
// or spin, a coupling that is NaN or infinite, β zero or not finite, and a
// lattice with no coupled pair.
func New(p Params) (*Lattice, error) {
	if err := p.validate(); err != nil {
		return nil, &ParamsError{err}
	}
	offs, err := p.enumerate()
	if err != nil {
		return nil, &ParamsError{err}
	}
	l, err := build(p, offs)
	if err != nil {
		return nil, &ParamsError{err}
	}
	return l, nil
}

// ParamsError is the refusal of parameters that cannot work: New's, and
// Colouring's of a lattice that has no parallel sweep. Err says why,
// without the package's prefix (the words a command line shows beside its
// flags); the message is "lattice: " and Err's.
type ParamsError struct {
	Err error
}

func (e *ParamsError) Error() string { return "lattice: " + e.Err.Error() }

func (e *ParamsError) Unwrap() error { return e.Err }

func (p Params) validate() error {
	if p.Dim < 1 || p.Dim > 3 {
		return fmt.Errorf("dimension %d: need 1, 2 or 3", p.Dim)
	}
	if p.Coupling == nil {
		return errors.New("no coupling kernel")
	}
	minSize := 2
	if _, nn := p.Coupling.(NearestNeighbour); nn {
		minSize = 3
	}
	if p.Size < minSize {
		return fmt.Errorf("side %d: need at least %d sites along each axis for the %v kernel", p.Size, minSize, p.Coupling)
	}
	sites := 1
	for range p.Dim {
		if sites > MaxSites/p.Size {
			return fmt.Errorf("%d^%d sites: more than %d", p.Size, p.Dim, MaxSites)
		}
		sites *= p.Size
	}
	if v, ok := p.Coupling.(Validator); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if err := p.Spin.validate(); err != nil {
		return err
	}
	switch {
	case math.IsNaN(p.Beta) || math.IsInf(p.Beta, 0):
		return fmt.Errorf("β = %v: need a finite β", p.Beta)
	case p.Beta == 0:
		return errors.New("β = 0: every factor is constant; use a non-zero β")
	case !(p.Cutoff >= 0) || math.IsInf(p.Cutoff, 0):
		return fmt.Errorf("cutoff %v: need a finite cutoff ≥ 0 (0 for none)", p.Cutoff)
	}
	return nil
}

// enumerate lists the offsets with a non-zero coupling: one canonical
// representative c_a ∈ (−N/2, N/2] per axis for each other site, within the
// kernel's reach and the cutoff, in no particular order.
func (p Params) enumerate() ([]offset, error) {
	w, box := newOffsetWalk(p)
	w.offs = make([]offset, 0, min(box, MaxOffsets))
	if err := w.visit(0, 0); err != nil {
		return nil, err
	}
	if len(w.offs) == 0 {
		return nil, fmt.Errorf("kernel %v with cutoff %v couples no pair of sites", p.Coupling, p.Cutoff)
	}
	return w.offs, nil
}

// offsetWalk is the state of enumerate's walk over the box of candidate
// offsets.
type offsetWalk struct {
	p      Params
	lo, hi int       // the canonical components along each axis
	maxD2  float64   // the largest squared distance coupled
	memo   []float64 // memo[d2] = J(d2), NaN if not yet computed; nil: no memo
	c      [3]int32  // the offset being visited
	offs   []offset
}

// newOffsetWalk returns the walk of p's offsets and the number of offsets
// in its box.
func newOffsetWalk(p Params) (*offsetWalk, int) {
	n := p.Size
	w := &offsetWalk{p: p, lo: -((n - 1) / 2), hi: n / 2} // canonical components; |c| is the minimal image
	w.maxD2 = math.Inf(1)
	if r := p.Coupling.Reach(); r > 0 {
		w.maxD2 = float64(r)
	}
	if p.Cutoff > 0 {
		w.maxD2 = min(w.maxD2, math.Floor(p.Cutoff*p.Cutoff))
	}
	if w.maxD2 < float64(n*n) { // restrict each axis to |c| ≤ √maxD2
		r := int(math.Sqrt(w.maxD2))
		for r*r > int(w.maxD2) {
			r--
		}
		w.lo, w.hi = max(w.lo, -r), min(w.hi, r)
	}
	// The kernel is a function of d2 alone: memoise it when the distinct
	// squared distances are not many more than the offsets enumerated.
	box, d2max := 1, 0
	for range p.Dim {
		box *= w.hi - w.lo + 1
		d2max += max(w.lo*w.lo, w.hi*w.hi)
	}
	if d2max <= 4*box {
		w.memo = make([]float64, d2max+1)
		for d := range w.memo {
			w.memo[d] = math.NaN() // not yet computed
		}
	}
	return w, box
}

// coupling returns the kernel's J at squared distance d2.
func (w *offsetWalk) coupling(d2 int) float64 {
	if w.memo == nil {
		return w.p.Coupling.Coupling(w.p.Dim, d2)
	}
	if j := w.memo[d2]; !math.IsNaN(j) {
		return j
	}
	j := w.p.Coupling.Coupling(w.p.Dim, d2)
	if !math.IsNaN(j) {
		w.memo[d2] = j
	}
	return j
}

// visit walks the components of the axes from axis on, d2 the squared
// length so far.
func (w *offsetWalk) visit(axis, d2 int) error {
	if axis == w.p.Dim {
		return w.add(d2)
	}
	for v := w.lo; v <= w.hi; v++ {
		w.c[axis] = int32(v)
		if err := w.visit(axis+1, d2+v*v); err != nil {
			return err
		}
	}
	w.c[axis] = 0
	return nil
}

// add appends the offset w.c, of squared length d2, if it is coupled.
func (w *offsetWalk) add(d2 int) error {
	p := w.p
	if d2 == 0 || float64(d2) > w.maxD2 {
		return nil
	}
	j := w.coupling(d2)
	if math.IsNaN(j) || math.IsInf(j, 0) {
		return fmt.Errorf("kernel %v: coupling at offset %v (r² = %d) is %v", p.Coupling, fmtOffset(w.c, p.Dim), d2, j)
	}
	if j == 0 {
		return nil
	}
	if len(w.offs) == MaxOffsets {
		return fmt.Errorf("kernel %v on %d^%d sites couples more than %d offsets per site; set a cutoff", p.Coupling, p.Size, p.Dim, MaxOffsets)
	}
	w.offs = append(w.offs, offset{c: w.c, j: j})
	return nil
}

// build sorts the offsets by decreasing |J| and sets up the model.
func build(p Params, offs []offset) (*Lattice, error) {
	offs = sortOffsets(offs)
	n := 1
	for range p.Dim {
		n *= p.Size
	}
	fmin, fmax := p.Spin.pairRange()
	span := fmax - fmin
	l := &Lattice{
		p: p, dim: p.Dim, size: p.Size, n: n, div: newFastDiv(p.Size), kind: p.Spin.Kind, q: p.Spin.States,
		fmin: fmin, fmax: fmax, invSpan: 1 / span, jPerM: 1 / (span * math.Abs(p.Beta)), signBeta: math.Copysign(1, p.Beta),
		w: make([]float64, len(offs)),
	}
	var err error
	if l.geo, err = compiled.NewGeometry(p.Dim, p.Size); err != nil {
		return nil, err
	}
	if l.kind == ContinuousSpins {
		l.dom = factorgraph.Interval(p.Spin.Lo, p.Spin.Hi)
		l.q = 0
	} else {
		l.dom = factorgraph.Discrete(l.q)
	}
	for k, o := range offs {
		w := p.Beta * o.j // the factor is w·f(x_i, x_j)
		mk := math.Abs(w) * span
		if !(mk > 0) || math.IsInf(mk, 0) {
			return nil, fmt.Errorf("β·J·(range of f) = %v·%v·%v at offset %v is not a finite positive bound", p.Beta, o.j, span, fmtOffset(o.c, p.Dim))
		}
		l.w[k] = math.Copysign(mk, w)
		l.l += mk
		l.jsum += math.Abs(o.j)
	}
	if math.IsInf(l.l, 0) {
		return nil, fmt.Errorf("L = Σ M over %d offsets overflows", len(offs))
	}
	kk := len(offs)
	comps := make([][3]int32, kk)
	m := make([]float64, kk)
	for k, o := range offs {
		comps[k], m[k] = o.c, math.Abs(l.w[k])
	}
	if l.ents, err = compiled.NewEnts(l.dim, l.size, comps, l.w); err != nil {
		return nil, err
	}
	l.table = compiled.NewTorusTable(l.ents)
	if err := l.table.Build(m, make([]int32, kk)); err != nil {
		return nil, err
	}
	if l.kind != ContinuousSpins {
		t, err := compiled.NewTorus(l.dim, l.size, l.q, l.kind == IsingSpins, l.ents, l.w, l.table)
		if err != nil {
			return nil, err
		}
		l.form = compiled.TorusForm(t)
	}
	l.free = make([]int, n)
	for i := range l.free {
		l.free[i] = i
	}
	return l, nil
}

// sortOffsets returns the offsets in order of decreasing |J| (compared in
// float32 precision, ties in enumeration order). The order only serves the
// alias table's locality (heavy offsets share a few cache lines), so the
// rounding is harmless; packing the key and the index into one uint64 lets a
// plain integer sort order 10⁶ offsets in tens of milliseconds.
func sortOffsets(offs []offset) []offset {
	keys := make([]uint64, len(offs))
	for k, o := range offs {
		mag := math.Float32bits(float32(math.Abs(o.j))) // monotone in |J| for non-negative values
		keys[k] = uint64(^mag)<<32 | uint64(k)
	}
	slices.Sort(keys)
	out := make([]offset, len(offs))
	for k, key := range keys {
		out[k] = offs[uint32(key)]
	}
	return out
}

// fmtOffset formats the first dim components of c, e.g. "(1,-2)".
func fmtOffset(c [3]int32, dim int) string {
	s := "("
	for a := range dim {
		if a > 0 {
			s += ","
		}
		s += fmt.Sprint(c[a])
	}
	return s + ")"
}

// fastDiv divides non-negative integers below 2³² by a fixed divisor
// 2 ≤ d < 2³² with one multiplication: ⌊a/d⌋ = ⌊c·a/2⁶⁴⌋ for c = ⌈2⁶⁴/d⌉
// (Lemire, Kaser & Kurz, "Faster remainder by direct computation", 2019).
type fastDiv struct{ c uint64 }

func newFastDiv(d int) fastDiv { return fastDiv{c: ^uint64(0)/uint64(d) + 1} }

func (f fastDiv) quo(a int) int {
	hi, _ := bits.Mul64(f.c, uint64(a))
	return int(hi)
}

// Params returns the parameters of the lattice.
func (l *Lattice) Params() Params { return l.p }

// Sites returns the number of sites N^Dim.
func (l *Lattice) Sites() int { return l.n }

// NumOffsets returns K, the number of coupled offsets: every site's degree.
func (l *Lattice) NumOffsets() int { return len(l.w) }

// PairFactors returns the number of implicit pair factors, n·K/2.
func (l *Lattice) PairFactors() float64 { return float64(l.n) * float64(len(l.w)) / 2 }

// Offset appends to dst the components of the k-th offset (axis 0, the
// slowest in site numbering, first) and returns it.
func (l *Lattice) Offset(dst []int, k int) []int {
	c := l.geo.Components(&l.ents[k])
	for a := range l.dim {
		dst = append(dst, int(c[a]))
	}
	return dst
}

// Coupling returns J of the k-th offset.
func (l *Lattice) Coupling(k int) float64 {
	return l.w[k] * l.jPerM * l.signBeta
}

// CouplingSum returns Σ_j |J_ij| over the other sites j of any site i.
func (l *Lattice) CouplingSum() float64 { return l.jsum }

// Site returns the index of the site with coordinates c (axis 0 slowest:
// i = Σ_a c_a·N^(Dim−1−a)); coordinates are taken modulo N.
func (l *Lattice) Site(c ...int) int {
	i := 0
	for a := range l.dim {
		v := 0
		if a < len(c) {
			v = ((c[a] % l.size) + l.size) % l.size
		}
		i = i*l.size + v
	}
	return i
}

// Coords appends the coordinates of site i to dst and returns it.
func (l *Lattice) Coords(dst []int, i int) []int {
	start := len(dst)
	for range l.dim {
		q := l.div.quo(i)
		dst = append(dst, i-q*l.size)
		i = q
	}
	slices.Reverse(dst[start:])
	return dst
}

// Neighbour returns the site j = i + offset k (modulo N along each axis), the
// other site of the k-th factor of A[i]. It does not allocate.
func (l *Lattice) Neighbour(i, k int) int {
	b0, b1, b2 := l.geo.Bases(i)
	return l.geo.Neighbour(b0, b1, b2, &l.ents[k])
}

// m returns M_k.
func (l *Lattice) m(k int) float64 { return math.Abs(l.w[k]) }

// isAnti reports whether β·J_k < 0.
func (l *Lattice) isAnti(k int) bool { return l.w[k] < 0 }

// NumVars returns the number of sites.
func (l *Lattice) NumVars() int { return l.n }

// Domain returns the domain of every site: {0, …, q−1}, or [Lo, Hi].
func (l *Lattice) Domain(int) factorgraph.Domain { return l.dom }

// Free returns all sites, 0, …, n−1; the caller must not modify the slice.
func (l *Lattice) Free() []int { return l.free }

// Observed returns false: a lattice has no evidence.
func (l *Lattice) Observed(int) (float64, bool) { return 0, false }

// L returns L = Σ_k M_k, the same for every site.
func (l *Lattice) L() float64 { return l.l }

// Li returns L.
func (l *Lattice) Li(int) float64 { return l.l }

// MaxDegree returns K.
func (l *Lattice) MaxDegree() int { return len(l.w) }

// Degree returns K soft factors and no hard factor.
func (l *Lattice) Degree(int) (soft, hard int) { return len(l.w), 0 }

// Bound returns M of the k-th offset.
func (l *Lattice) Bound(_, k int) float64 { return l.m(k) }

// Pick returns an offset drawn with probability M_k/L from the one alias
// table shared by all sites (a flat table over the heaviest offsets, a
// tiered one over the rest: compiled.TorusTable).
func (l *Lattice) Pick(_ int, r *rand.Rand) int { return l.table.Pick(r) }

// Eval returns φ̃ = φ − lo of the pair {i, Neighbour(i, k)}: for discrete
// spins M_k·δ(x_i, x_j) (M_k·(1 − δ) when βJ_k < 0); for continuous spins
// |βJ_k|·(x_i x_j − fmin) (|βJ_k|·(fmax − x_i x_j) when βJ_k < 0).
func (l *Lattice) Eval(i, k int, x []float64) float64 {
	j := l.Neighbour(i, k)
	if l.kind != ContinuousSpins {
		if w := l.w[k]; (x[i] == x[j]) != (w < 0) {
			return math.Abs(w)
		}
		return 0
	}
	return l.contEval(k, x[i]*x[j])
}

// contEval returns φ̃ of the k-th offset for continuous spins with product p.
func (l *Lattice) contEval(k int, p float64) float64 {
	if w := l.w[k]; w < 0 {
		return -w * (l.fmax - p) * l.invSpan
	}
	return l.w[k] * (p - l.fmin) * l.invSpan
}

// EvalAll sets dst[v] = φ̃ of the k-th factor of A[i] with x_i = v. For
// discrete spins it writes one non-zero value (all but one when βJ_k < 0).
// It does not modify x.
func (l *Lattice) EvalAll(i, k int, x, dst []float64) {
	j := l.Neighbour(i, k)
	if l.kind == ContinuousSpins {
		for v := range dst {
			dst[v] = l.contEval(k, float64(v)*x[j])
		}
		return
	}
	v := int(x[j])
	mk := l.m(k)
	if l.isAnti(k) {
		for t := range dst {
			dst[t] = mk
		}
		if v >= 0 && v < len(dst) {
			dst[v] = 0
		}
		return
	}
	clear(dst)
	if v >= 0 && v < len(dst) {
		dst[v] = mk
	}
}

// Describe names the k-th factor of A[i], e.g. "pair (5, 6) at offset (0,1)
// (J = 1)", and returns its declared range [lo, lo + M].
func (l *Lattice) Describe(i, k int) (name string, lo, hi float64) {
	c := l.geo.Components(&l.ents[k])
	name = fmt.Sprintf("pair (%d, %d) at offset %s (J = %g)", i, l.Neighbour(i, k), fmtOffset(c, l.dim), l.Coupling(k))
	w := l.p.Beta * l.Coupling(k)
	if w >= 0 {
		lo = w * l.fmin
	} else {
		lo = w * l.fmax
	}
	return name, lo, lo + l.m(k)
}

// Neighbours implements factorgraph.Adjacency: it appends the K sites
// coupled to i (each once, in offset order) to dst.
func (l *Lattice) Neighbours(dst []int, i int) []int {
	b0, b1, b2 := l.geo.Bases(i)
	for k := range l.ents {
		dst = append(dst, l.geo.Neighbour(b0, b1, b2, &l.ents[k]))
	}
	return dst
}

// String summarises the lattice.
func (l *Lattice) String() string {
	return fmt.Sprintf("lattice: %d-D torus of %d^%d = %d sites, %v spins, kernel %v, β = %g, K = %d offsets, L = %.6g",
		l.dim, l.size, l.dim, l.n, l.p.Spin, l.p.Coupling, l.p.Beta, len(l.w), l.l)
}

// form is compiled.Form under an unexported name.
type form = compiled.Form
