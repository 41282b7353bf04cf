package factorgraph

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/internal/xmath"
)

// Factor is one log-potential φ of a factor graph, π(x) ∝ exp(Σ_φ φ(x)).
//
// Vars returns the factor's scope: the distinct indices of the variables it
// reads. Value returns φ(x) and reads x only at Vars(); it must not modify x
// and must be safe for concurrent use (samplers of independent chains share
// factors).
//
// Range returns bounds lo ≤ φ(x) ≤ hi valid for every state x. The engine
// works with φ̃ = φ − lo ∈ [0, M_φ], M_φ = hi − lo; tight bounds make
// minibatching cheaper, wrong bounds make it wrong, so samplers check every
// value they evaluate against the declared range. lo must be finite. A factor
// with hi = +Inf is a hard factor: it may also take the value −Inf (a zero
// of a probability table, a constraint), it is always evaluated exactly and
// never minibatched.
type Factor interface {
	Vars() []int
	Range() (lo, hi float64)
	Value(x []float64) float64
}

// Tabulator is an optional fast path for factors that can evaluate
// themselves at every value of one discrete variable at once.
//
// Conditional sets dst[v] = Value(x with x[i] = v) for v = 0, …, len(dst)−1,
// where i is in Vars() and len(dst) is the size of i's domain. It must not
// modify x. Samplers use both paths on the same factor (a block update
// tabulates through Conditional and thins a minibatched boundary with
// Value), so they must agree: Builder.Build compares them, for every
// discrete variable of the scope and each of its values, at three states
// (every variable at its lowest value, at its highest, and at values from
// a fixed hash of the factor's index), and refuses a factor whose two
// differ beyond rounding, naming it and the state.
type Tabulator interface {
	Conditional(dst, x []float64, i int)
}

// Validator is an optional interface for factors that can check themselves
// against the domains of their scope; Builder.Build calls it.
type Validator interface {
	Validate(domains []Domain) error
}

// Table is a factor over discrete variables given by a dense table of
// log-potentials in row-major order: the last variable of the scope varies
// fastest (the UAI convention).
type Table struct {
	scope   []int
	sizes   []int
	strides []int
	values  []float64
	lo, hi  float64
	neg     map[int]float64 // the negative probabilities given to NewProbTable, by entry
}

// NewTable returns a table factor over scope whose domain sizes are sizes
// and whose log-potentials are values, len(values) = Π sizes (checked by
// Build). An entry −Inf is a zero of the potential and makes the factor a
// hard factor (its range is [min finite entry, +Inf)). NewTable keeps the
// slices; the caller must not modify them afterwards.
func NewTable(scope, sizes []int, values []float64) *Table {
	t := &Table{scope: scope, sizes: sizes, values: values}
	t.strides = make([]int, len(sizes))
	s := 1
	for k := len(sizes) - 1; k >= 0; k-- {
		t.strides[k] = s
		s *= max(sizes[k], 1)
	}
	t.lo, t.hi = tableRange(values)
	return t
}

// tableRange returns the range of a table of log-potentials: its smallest
// finite entry and its largest (+Inf when some entry is −Inf; lo = 0 when
// none is finite, which validation rejects).
func tableRange(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	hard := false
	for _, v := range values {
		switch {
		case math.IsInf(v, -1):
			hard = true
		case v < lo:
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if hard {
		hi = math.Inf(1)
	}
	if math.IsInf(lo, 1) { // all entries −Inf (or no entries)
		lo = 0
	}
	return lo, hi
}

// NewProbTable is NewTable for a table of non-negative potentials (such as
// the probabilities of a UAI file): it stores their logarithms.
func NewProbTable(scope, sizes []int, probs []float64) *Table {
	logs := make([]float64, len(probs))
	var neg map[int]float64
	for k, p := range probs {
		if p < 0 {
			if neg == nil {
				neg = make(map[int]float64)
			}
			neg[k] = p
			logs[k] = math.NaN() // rejected by Validate, naming the entry
			continue
		}
		logs[k] = xmath.Log(p) // correct on subnormal p too, which math.Log is not on amd64
	}
	t := NewTable(scope, sizes, logs)
	t.neg = neg
	return t
}

// Vars returns the table's scope.
func (t *Table) Vars() []int { return t.scope }

// Range returns the smallest finite entry and the largest entry (+Inf when
// some entry is −Inf).
func (t *Table) Range() (lo, hi float64) { return t.lo, t.hi }

// Value returns the entry of the table at x.
func (t *Table) Value(x []float64) float64 {
	idx := 0
	for k, v := range t.scope {
		idx += t.strides[k] * int(x[v])
	}
	return t.values[idx]
}

// Conditional implements Tabulator.
func (t *Table) Conditional(dst, x []float64, i int) {
	base, stride := 0, 0
	for k, v := range t.scope {
		if v == i {
			stride = t.strides[k]
			continue
		}
		base += t.strides[k] * int(x[v])
	}
	for v := range dst {
		dst[v] = t.values[base+v*stride]
	}
}

// Values returns the table's entries (not a copy).
func (t *Table) Values() []float64 { return t.values }

// Sizes returns the domain sizes the table was built for.
func (t *Table) Sizes() []int { return t.sizes }

// PottsForm reports whether t is a pair table of Potts form, c + W·δ(x_a,
// x_b) over two variables of the same q ≥ 2 values (the Ising coupling
// J·s_a·s_b, s = ±1, is the q = 2 case with W = 2J), and returns W: its
// diagonal entries all equal, its off-diagonal entries all equal, up to
// rounding (10⁻¹² relative), and none −Inf. The sign of W is kept (W < 0:
// antiferromagnetic). Build compiles such a table as a Potts pair — the
// samplers' cheaper path, and the pairs the cluster moves need — and Value
// still reads the table.
func (t *Table) PottsForm() (w float64, ok bool) {
	if len(t.scope) != 2 {
		return 0, false
	}
	return pottsForm(t.sizes, t.values)
}

// TablePottsForm is Table.PottsForm for the log-potentials values of a
// table of sizes, without a Table (the UAI readers ask it of every pair
// table they read).
func TablePottsForm(sizes []int, values []float64) (w float64, ok bool) {
	return pottsForm(sizes, values)
}

// pottsForm is Table.PottsForm for a pair table of sizes and values.
func pottsForm(sizes []int, values []float64) (w float64, ok bool) {
	if len(sizes) != 2 || sizes[0] != sizes[1] || sizes[0] < 2 || len(values) != sizes[0]*sizes[1] {
		return 0, false
	}
	q := sizes[0]
	a, b := values[0], values[1]
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return 0, false
	}
	tol := 1e-12 * max(1, math.Abs(a), math.Abs(b))
	for r := range q {
		for c := range q {
			v, want := values[r*q+c], b
			if r == c {
				want = a
			}
			if !(math.Abs(v-want) <= tol) {
				return 0, false
			}
		}
	}
	return a - b, true
}

// Validate implements Validator.
func (t *Table) Validate(domains []Domain) error {
	if len(t.sizes) != len(t.scope) {
		return fmt.Errorf("table has %d sizes for %d scope variables", len(t.sizes), len(t.scope))
	}
	want := 1
	for k, v := range t.scope {
		if t.sizes[k] < 1 {
			return fmt.Errorf("table size %d for variable %d", t.sizes[k], v)
		}
		if v >= 0 && v < len(domains) && domains[v].Size != t.sizes[k] {
			if !domains[v].IsDiscrete() {
				return fmt.Errorf("table over continuous variable %d", v)
			}
			return fmt.Errorf("table size %d for variable %d whose domain has %d values", t.sizes[k], v, domains[v].Size)
		}
		want *= t.sizes[k]
	}
	if len(t.values) != want {
		return fmt.Errorf("table has %d entries, want %d (product of domain sizes %v)", len(t.values), want, t.sizes)
	}
	return validValues(t.values, t.neg)
}

// validValues checks a table's log-potentials: no NaN, no +Inf, not all
// −Inf; neg holds the negative probabilities NewProbTable was given.
func validValues(values []float64, neg map[int]float64) error {
	finite := false
	for k, v := range values {
		if p, ok := neg[k]; ok {
			return fmt.Errorf("table entry %d is a negative probability %v", k, p)
		}
		if math.IsNaN(v) {
			return fmt.Errorf("table entry %d is NaN", k)
		}
		if math.IsInf(v, 1) {
			return fmt.Errorf("table entry %d is +Inf", k)
		}
		if !math.IsInf(v, -1) {
			finite = true
		}
	}
	if !finite {
		return fmt.Errorf("every table entry is −Inf (zero potential everywhere)")
	}
	return nil
}

// Potts is the pairwise factor φ(x) = W·δ(x_A, x_B) of the Potts model: W
// when the two discrete variables agree, 0 otherwise. Builder.Build
// compiles Potts factors (and Tables) into flat arrays that the samplers
// read instead of calling Value, so W must not change after Build.
type Potts struct {
	scope [2]int
	W     float64
}

// NewPotts returns the factor W·δ(x_a, x_b).
func NewPotts(a, b int, w float64) *Potts { return &Potts{scope: [2]int{a, b}, W: w} }

// Vars returns {a, b}.
func (p *Potts) Vars() []int { return p.scope[:] }

// Range returns [min(0,W), max(0,W)].
func (p *Potts) Range() (lo, hi float64) { return min(0, p.W), max(0, p.W) }

// Value returns W if x_a = x_b, else 0.
func (p *Potts) Value(x []float64) float64 {
	if x[p.scope[0]] == x[p.scope[1]] {
		return p.W
	}
	return 0
}

// Conditional implements Tabulator.
func (p *Potts) Conditional(dst, x []float64, i int) {
	other := p.scope[0]
	if i == other {
		other = p.scope[1]
	}
	clear(dst)
	if v := int(x[other]); v >= 0 && v < len(dst) {
		dst[v] = p.W
	}
}

// Validate implements Validator: both variables must be discrete.
func (p *Potts) Validate(domains []Domain) error {
	for _, v := range p.scope {
		if v >= 0 && v < len(domains) && !domains[v].IsDiscrete() {
			return fmt.Errorf("Potts factor over continuous variable %d", v)
		}
	}
	if math.IsNaN(p.W) {
		return fmt.Errorf("Potts weight is NaN")
	}
	if math.IsInf(p.W, 0) {
		return fmt.Errorf("Potts weight %v is not finite", p.W)
	}
	return nil
}

// Func adapts a Go function to a Factor.
type Func struct {
	scope  []int
	lo, hi float64
	f      func(x []float64) float64
}

// NewFunc returns the factor with scope vars, declared range [lo, hi] and
// value f(x). f must read x only at vars, must not modify it, and must be
// safe for concurrent use.
func NewFunc(vars []int, lo, hi float64, f func(x []float64) float64) *Func {
	return &Func{scope: vars, lo: lo, hi: hi, f: f}
}

// Vars returns the scope.
func (f *Func) Vars() []int { return f.scope }

// Range returns the declared range.
func (f *Func) Range() (lo, hi float64) { return f.lo, f.hi }

// Value returns f(x).
func (f *Func) Value(x []float64) float64 { return f.f(x) }

// Validate implements Validator.
func (f *Func) Validate([]Domain) error {
	if f.f == nil {
		return fmt.Errorf("nil function")
	}
	return nil
}
