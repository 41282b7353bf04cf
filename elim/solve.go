package elim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/xmath"
)

// Result is the exact answer for one component.
type Result struct {
	Vars      []int       // the component's variables, ascending (Component.Vars)
	Marginals [][]float64 // Marginals[k][a] = π(x_{Vars[k]} = a), given the evidence
	// LogZ is the natural logarithm of the component's partition function
	// with the evidence: Σ over the assignments of Vars of exp of the sum of
	// the factors touching the component, observed variables at their
	// values. The factors of the graph with no free variable add
	// ClampedLogPotential(g); the sum of the two over a graph's components
	// is log Z of the graph given the evidence (the UAI PR task, in nats).
	LogZ float64
}

// form is how a table's entries stand for its values: value = entry·e^scale
// (linear), or value = exp(entry + scale) (log). lo2 and hi2 are log2 of the
// smallest nonzero and the largest entry of a linear table (0 and 0 if every
// entry is zero).
type form struct {
	log      bool
	scale    float64
	lo2, hi2 float64
}

// Bounds of linear space (see Solve): every partial product of a linear
// bucket's nonzero inputs lies in [2^linLo, 2^linHi].
const (
	linLo = -1000
	linHi = 900
	// A message is rescaled (by a power of two, exactly) when its largest
	// entry leaves [2^−rescale, 2^rescale].
	rescale = 64
)

// solver is the state of one Solve.
type solver struct {
	c     *Component
	s     *schedule
	ctx   context.Context
	arena []float64
	forms []form
	ix    [][]int32 // index maps of a chunk, one an input
	w     []float64 // the levels of a chunk's product
	base  []int     // offset of each input at the chunk
	cnt   []int     // the outer dimensions of a chunk
	cnt2  []int     // scratch of indexMaps and tabulate
	x     []float64 // the state the factors read
	dst   []float64
	marg  [][]float64
	tick  int
	logZ  float64
	vr    variant
	// SolveBy's deadlines (zero: none), when it started, and the work
	// done and to do, in the units of step.
	soft, hard  time.Time
	start       time.Time
	done, total int
}

// ticks is how many table entries Solve processes between two looks at
// its context (a few milliseconds).
const ticks = 1 << 21

// Solve computes the exact marginals of the component's variables and its
// log partition function, by bucket-tree elimination in the planned order.
//
// Upward (the bucket elimination of R. Dechter, Artificial Intelligence
// 113:41–85, 1999): each factor touching the component is tabulated once
// over its free variables (observed ones at their values; the
// factorgraph.Tabulator fast path where the factor has it), factors with
// the same free variables summed into one potential. In order, bucket v
// multiplies the tables that hold v as their first eliminated variable
// (potentials and earlier messages) into T_v(x_v, x_S), S the other
// variables, normalises each row into the conditional π(x_v | x_S) of the
// distribution restricted to the variables not yet eliminated, and sends
// the message m_v(x_S) = Σ_{x_v} T_v(x_v, x_S) to the bucket of the first
// eliminated variable of S. The last bucket (the root: no other variable,
// schedule's bucket.root) sends no message on: its message is Z.
//
// Downward (the distribute phase of S. L. Lauritzen and D. J.
// Spiegelhalter, JRSS B 50:157–224, 1988, and of A. P. Dawid, Statistics
// and Computing 2:25–36, 1992, on the bucket tree of K. Kask, R. Dechter,
// J. Larrosa and A. Dechter, Artificial Intelligence 166:165–193, 2005),
// division-free: in reverse order,
//
//	P_v(x_v, x_S) = π(x_v | x_S) · P_S(x_S),
//
// P_S the marginal of S: the clique marginal of the bucket v's message went
// to, summed over the variables not in S (1 for the last bucket). P_v is
// π's marginal on the bucket's clique, and x_v's marginal is P_v summed over
// x_S. Zeros of hard factors are exact zeros throughout (a row of zeros
// stays zeros; nothing divides by a zero).
//
// Numerics. A table is held in linear space, its entries times a scale
// e^s kept aside, or in log space. A potential is linear if the ratio of
// its smallest nonzero to its largest value is at least 2⁻¹⁰⁰⁰ (then its
// entries, scaled to a largest of 1, are normal numbers), else log. A
// bucket is computed in linear space when its inputs are linear and the
// bound Σ_i min(0, log2 lo_i) ≥ −1000, Σ_i max(0, log2 hi_i) ≤ 900 holds
// over their smallest nonzero and largest entries: every partial product of
// nonzero entries is then a normal number, so no mass is lost to underflow
// and each product is correct to a relative 2⁻⁵³ a factor; the row sums
// (the message) are normal too, and a message whose largest entry leaves
// [2⁻⁶⁴, 2⁶⁴] is rescaled by a power of two (exactly). A bucket where the
// bound fails is computed in log space (sums of logarithms, each row
// max-subtracted before one exponential an entry), and its message is
// brought back to linear space where its range allows. The conditionals
// and the downward pass are always linear: they are probabilities, and an
// entry lost to underflow there is below 2⁻¹⁰²² in absolute terms.
//
// Solve looks at ctx every few milliseconds of work and returns ctx.Err()
// if it is done. It returns c.Err for a component that cannot be solved,
// an error naming the factor for a value outside its declared range (or
// NaN), and an error if no assignment of the component has positive
// probability. It allocates about Bytes bytes, and is safe to call
// concurrently.
func (c *Component) Solve(ctx context.Context) (*Result, error) {
	return c.solve(ctx, variant{}, time.Time{}, time.Time{})
}

// SolveBy is Solve with two deadlines. Until soft it runs as Solve; past
// soft it goes on only while the rate of its work so far would end the
// rest by hard, and returns an error wrapping context.DeadlineExceeded
// (ErrLate) as soon as it would not, or at hard. A caller whose deadline
// is soft for an elimination nearly done (the answer would otherwise be
// sampled in the little time left) lets it finish by hard instead of
// throwing its work away; one that has nothing to gain passes soft = hard.
// A zero soft means no deadline (hard is then ignored).
func (c *Component) SolveBy(ctx context.Context, soft, hard time.Time) (*Result, error) {
	if !soft.IsZero() && hard.Before(soft) {
		hard = soft
	}
	return c.solve(ctx, variant{}, soft, hard)
}

// ErrLate is SolveBy's error when its elimination would not end by its
// deadline.
var ErrLate = fmt.Errorf("elim: the elimination would not end by its deadline: %w", context.DeadlineExceeded)

// variant selects a deliberately broken Solve, for the tests that must
// reject it; the zero value is Solve.
type variant struct {
	forceLinear  bool    // every table and bucket in linear space, whatever its range
	upwardOnly   bool    // the downward pass weighs no bucket by its separator's marginal
	scatterFirst bool    // a bucket projects its conditional, not its marginal, to its children
	oldRoot      bool    // a bucket whose table is one row is taken for a root (issue 32): its message counts in log Z twice
	logBuckets   *int    // if not nil, counts the buckets computed in log space
	lateAtSoft   bool    // SolveBy gives up at its soft deadline, whatever its progress
	steps        *[2]int // if not nil, receives the work done and the work planned (solver.step's units)
}

// solve is Solve, or a broken variant of it.
func (c *Component) solve(ctx context.Context, vr variant, soft, hard time.Time) (*Result, error) {
	if c.Err != nil {
		return nil, c.Err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := c.s
	sv := &solver{c: c, s: s, ctx: ctx, vr: vr, soft: soft, hard: hard, start: time.Now(), total: s.steps(),
		forms: make([]form, len(s.tabs)),
		ix:    make([][]int32, s.maxIns),
		base:  make([]int, s.maxIns),
		cnt:   make([]int, s.maxDims),
		cnt2:  make([]int, s.maxDims),
		x:     make([]float64, s.nvars),
		dst:   make([]float64, s.maxSize),
		w:     make([]float64, s.chunk),
		marg:  make([][]float64, len(s.size)),
	}
	arena, release, err := newArena(ctx, s.arena)
	if err != nil {
		return nil, err
	}
	sv.arena = arena
	defer release()
	ixs := make([]int32, s.chunk*s.maxIns)
	for k := range sv.ix {
		sv.ix[k] = ixs[k*s.chunk : (k+1)*s.chunk]
	}
	margs := make([]float64, 0, s.margs)
	for l, d := range s.size {
		sv.marg[l] = margs[len(margs) : len(margs)+d : len(margs)+d]
		margs = margs[:len(margs)+d]
	}
	for _, i := range s.clamped {
		sv.x[i], _ = c.g.Observed(i)
	}
	for k := range s.pots {
		if err := sv.tabulate(&s.pots[k]); err != nil {
			return nil, err
		}
	}
	for k := range s.buckets {
		if err := sv.up(&s.buckets[k]); err != nil {
			return nil, err
		}
	}
	for k := len(s.buckets) - 1; k >= 0; k-- {
		if err := sv.down(&s.buckets[k]); err != nil {
			return nil, err
		}
	}
	for _, p := range sv.marg {
		sum := 0.0
		for _, a := range p {
			sum += a
		}
		for j := range p {
			p[j] /= sum
		}
	}
	if vr.steps != nil {
		*vr.steps = [2]int{sv.done, sv.total}
	}
	return &Result{Vars: slices.Clone(c.Vars), Marginals: sv.marg, LogZ: sv.logZ}, nil
}

// tick counts n entries of work and looks at the context when enough have
// passed since the last look.
func (sv *solver) step(n int) error {
	sv.done += n
	if sv.tick += n; sv.tick < ticks {
		return nil
	}
	sv.tick = 0
	if err := sv.ctx.Err(); err != nil {
		return err
	}
	if sv.soft.IsZero() {
		return nil
	}
	return sv.late(time.Now())
}

// late returns ErrLate if at now the solve is past its soft deadline and
// the rate of its work so far would not end the rest by the hard one (or
// the hard one has passed), nil otherwise.
func (sv *solver) late(now time.Time) error {
	if sv.soft.IsZero() || now.Before(sv.soft) {
		return nil
	}
	if sv.vr.lateAtSoft {
		return ErrLate
	}
	spent := now.Sub(sv.start)
	end := sv.start.Add(time.Duration(float64(spent) * float64(sv.total) / float64(max(sv.done, 1))))
	if now.After(sv.hard) || end.After(sv.hard) {
		return ErrLate
	}
	return nil
}

// steps returns the work of a solve in the units of solver.step: the
// tabulation of every potential, and each bucket's chunks in both passes.
func (s *schedule) steps() int {
	n := 0
	for k := range s.pots {
		n += s.tabs[s.pots[k].tab].n * workFactor
	}
	for k := range s.buckets {
		bk := &s.buckets[k]
		if bk.cn == 0 {
			continue
		}
		chunks := (bk.t.n + bk.cn - 1) / bk.cn
		n += 2 * chunks * bk.cn * (len(bk.ins) + 1)
	}
	return n
}

// tabulate fills potential p's table with the sum of its factors' values
// at each assignment of its variables, checked against their declared
// ranges, and puts it in linear space where its range allows.
func (sv *solver) tabulate(p *pot) error {
	sp := sv.s.tabs[p.tab]
	t := sv.arena[sp.off : sp.off+sp.n]
	d0 := p.sizes[0]
	cnt := sv.cnt2[:len(p.vars)]
	for _, f := range p.facs {
		fac := sv.c.g.Factor(f)
		lo, _ := sv.c.g.FactorRange(f)
		flo, fhi := factorgraph.Limits(sv.c.g.FactorBound(f))
		cond, _ := fac.(factorgraph.Tabulator)
		for k, v := range p.vars {
			sv.x[v], cnt[k] = 0, 0
		}
		dst := sv.dst[:d0]
		for r := 0; r < len(t); r += d0 {
			if cond != nil {
				cond.Conditional(dst, sv.x, p.vars[0])
			} else {
				for j := range dst {
					sv.x[p.vars[0]] = float64(j)
					dst[j] = fac.Value(sv.x)
				}
				sv.x[p.vars[0]] = 0
			}
			for j, a := range dst {
				if s := a - lo; !(flo <= s && s <= fhi) {
					sv.x[p.vars[0]] = float64(j)
					err := &factorgraph.RangeError{Factor: sv.c.g.FactorName(f), Value: a, Lo: lo, Hi: lo + sv.c.g.FactorBound(f)}
					return fmt.Errorf("elim: %s: at %s: %w", name(sv.c.Vars), state(p.vars, sv.x), err)
				}
				t[r+j] += a
			}
			for k := 1; k < len(p.vars); k++ {
				if cnt[k]++; cnt[k] < p.sizes[k] {
					sv.x[p.vars[k]] = float64(cnt[k])
					break
				}
				cnt[k] = 0
				sv.x[p.vars[k]] = 0
			}
		}
		if err := sv.step(len(t) * workFactor); err != nil {
			return err
		}
	}
	sv.forms[p.tab], _ = toLinear(t, sv.vr.forceLinear)
	return nil
}

// state formats the values of vars in x for messages.
func state(vars []int, x []float64) string {
	s := ""
	for k, v := range vars {
		if k > 0 {
			s += " "
		}
		s += fmt.Sprintf("x%d=%v", v, x[v])
	}
	return s
}

// toLinear puts t, a table of log values, in linear space, scaled so that
// its largest entry is 1, if the ratio of its smallest nonzero entry to its
// largest will be at least 2^linLo; otherwise it shifts t so that its
// largest entry is 0 and leaves it in log space. It returns t's form, and
// false if every entry was −Inf (t is then zeros).
func toLinear(t []float64, force bool) (form, bool) {
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, a := range t {
		hi = max(hi, a)
		if !math.IsInf(a, -1) {
			lo = min(lo, a)
		}
	}
	if math.IsInf(hi, -1) { // no mass
		clear(t)
		return form{}, false
	}
	if (lo-hi)/math.Ln2 < linLo && !force {
		for k := range t {
			t[k] -= hi
		}
		return form{log: true, scale: hi}, true
	}
	mn := 1.0
	for k, a := range t {
		e := math.Exp(a - hi)
		t[k] = e
		if e > 0 {
			mn = min(mn, e)
		}
	}
	return form{scale: hi, lo2: math.Log2(mn)}, true
}

// chunks calls f for each chunk of bucket bk's table, with the offset of
// the chunk and sv.base set to each input's offset there, and looks at the
// context between chunks.
func (sv *solver) chunks(bk *bucket, f func(o int)) error {
	nd := len(bk.dims)
	for k := range bk.ins {
		sv.base[k] = 0
	}
	cnt := sv.cnt[:nd]
	clear(cnt)
	for o := 0; o < bk.t.n; o += bk.cn {
		f(o)
		if err := sv.step(bk.cn * (len(bk.ins) + 1)); err != nil {
			return err
		}
		for k := bk.cdims; k < nd; k++ {
			for i := range bk.ins {
				sv.base[i] += bk.ins[i].str[k]
			}
			if cnt[k]++; cnt[k] < bk.dims[k] {
				break
			}
			cnt[k] = 0
			for i := range bk.ins {
				sv.base[i] -= bk.ins[i].str[k] * bk.dims[k]
			}
		}
	}
	return nil
}

// indexMaps fills sv.ix[i] with the offset, in input i of bk, of each entry
// of a chunk relative to the chunk's first.
func (sv *solver) indexMaps(bk *bucket) {
	cd := bk.dims[:bk.cdims]
	cnt := sv.cnt2[:len(cd)]
	for i, in := range bk.ins {
		ix := sv.ix[i][:bk.cn]
		str := in.str[:bk.cdims]
		off := 0
		clear(cnt)
		for e := range ix {
			ix[e] = int32(off)
			for k, d := range cd {
				off += str[k]
				if cnt[k]++; cnt[k] < d {
					break
				}
				cnt[k] = 0
				off -= str[k] * d
			}
		}
	}
}

// up eliminates bk's variable: its table becomes the rows π(x_v | x_S), its
// message table the sums of the rows.
func (sv *solver) up(bk *bucket) error {
	sv.indexMaps(bk)
	fm := form{}
	linear := true
	lo, hi := 0.0, 0.0
	for _, in := range bk.ins {
		f := sv.forms[in.tab]
		linear = linear && !f.log
		lo += min(0, f.lo2)
		hi += max(0, f.hi2)
		fm.scale += f.scale
	}
	linear = linear && lo >= linLo && hi <= linHi || sv.vr.forceLinear
	msp := sv.s.tabs[bk.msg]
	msg := sv.arena[msp.off : msp.off+msp.n]
	d0 := bk.dims[0]
	var err error
	if linear {
		mn, mx := math.Inf(1), 0.0
		err = sv.chunks(bk, func(o int) {
			t := sv.arena[bk.t.off+o : bk.t.off+o+bk.cn]
			sv.product(bk, t)
			a, b := normalise(t, msg[o/d0:(o+bk.cn)/d0], d0)
			mn, mx = min(mn, a), max(mx, b)
		})
		if err != nil {
			return err
		}
		if mx == 0 {
			return sv.infeasible()
		}
		fm.lo2, fm.hi2 = math.Log2(mn), math.Log2(mx)
		if math.Abs(fm.hi2) > rescale {
			_, e := math.Frexp(mx)
			if fm.lo2-float64(e) >= linLo-20 {
				sc := math.Ldexp(1, -e)
				for k := range msg {
					msg[k] *= sc
				}
				fm.lo2, fm.hi2 = fm.lo2-float64(e), fm.hi2-float64(e)
				fm.scale += float64(e) * math.Ln2
			}
		}
	} else {
		if sv.vr.logBuckets != nil {
			*sv.vr.logBuckets++
		}
		err = sv.chunks(bk, func(o int) {
			t := sv.arena[bk.t.off+o : bk.t.off+o+bk.cn]
			sv.logSum(bk, t)
			NormaliseRows(msg[o/d0:(o+bk.cn)/d0], t, d0)
		})
		if err != nil {
			return err
		}
		var ok bool
		if fm, ok = toLinear(msg, sv.vr.forceLinear); !ok {
			return sv.infeasible()
		}
	}
	sv.forms[bk.msg] = fm
	if sv.root(bk) { // its message, one entry (linear), is Z
		sv.logZ += math.Log(msg[0]) + fm.scale
	}
	return nil
}

// root reports whether bk is the root of its component's bucket tree (a
// bucket with no other variable), or, in the broken variant oldRoot,
// whether its table is one row (also true of a bucket whose other
// variables all have one value).
func (sv *solver) root(bk *bucket) bool {
	if sv.vr.oldRoot {
		return bk.dims[0] == bk.t.n
	}
	return bk.root
}

// infeasible is the error of a component with no state of positive
// probability.
func (sv *solver) infeasible() error {
	return fmt.Errorf("elim: %s: %w", name(sv.c.Vars), ErrNoMass)
}

// ErrNoMass is the error of Solve (wrapped) when no assignment of a
// component's variables has positive probability: every one meets a zero
// of a hard factor, given the evidence.
var ErrNoMass = errors.New("no assignment has positive probability (every one meets a zero of a hard factor, given the evidence)")

// product sets the chunk t of bk's table to the product of bk's inputs
// (times t itself where t is the shared input), entry by entry, through the
// index maps and sv.base. Within a chunk an input reads the chunk's
// dimensions up to its level only, so the product is built level by level
// in sv.w: the inputs of level 0 over dims[:1], that broadcast over
// dims[1] times the inputs of level 1, and so on, the last level in t. An
// input of level j costs Π dims[:j+1] gathers a chunk instead of the
// chunk's size: the many pair potentials of a wide bucket (a pair's other
// variable slow, out of the chunk) are gathered over x_v alone.
func (sv *solver) product(bk *bucket, t []float64) {
	c := bk.cdims
	fresh := bk.shared < 0
	if c > 1 {
		w := sv.w[:bk.blk[c-2]]
		sv.gatherLevel(bk, w[:bk.blk[0]], bk.levels[0], true)
		for j := 1; j <= c-2; j++ {
			b := bk.blk[j-1]
			for k := b; k < bk.blk[j]; k += b {
				copy(w[k:k+b], w[:b])
			}
			sv.gatherLevel(bk, w[:bk.blk[j]], bk.levels[j], false)
		}
		b := len(w)
		for k := 0; k < len(t); k += b {
			if fresh {
				copy(t[k:k+b], w)
			} else {
				mulVec(t[k:k+b], w)
			}
		}
		fresh = false
	}
	sv.gatherLevel(bk, t, bk.levels[c-1], fresh)
}

// gatherLevel multiplies dst (or sets it, if fresh) by the inputs ins of bk
// (indices), entry by entry, through the index maps and sv.base.
func (sv *solver) gatherLevel(bk *bucket, dst []float64, ins []int, fresh bool) {
	var a [3][]float64
	var ix [3][]int32
	k := 0
	for n, i := range ins {
		sp := sv.s.tabs[bk.ins[i].tab]
		a[k], ix[k] = sv.arena[sp.off+sv.base[i]:sp.off+sp.n], sv.ix[i][:len(dst)]
		if k++; k < 3 && n < len(ins)-1 {
			continue
		}
		switch {
		case k == 1 && fresh:
			gather1(dst, a[0], ix[0])
		case k == 1:
			mul1(dst, a[0], ix[0])
		case k == 2 && fresh:
			gather2(dst, a[0], a[1], ix[0], ix[1])
		case k == 2:
			mul2(dst, a[0], a[1], ix[0], ix[1])
		case fresh:
			gather3(dst, a[0], a[1], a[2], ix[0], ix[1], ix[2])
		default:
			mul3(dst, a[0], a[1], a[2], ix[0], ix[1], ix[2])
		}
		fresh, k = false, 0
	}
	if fresh { // no input
		for e := range dst {
			dst[e] = 1
		}
	}
}

// mulVec multiplies t by w, entry by entry.
func mulVec(t, w []float64) {
	w = w[:len(t)]
	for e, a := range w {
		t[e] *= a
	}
}

func gather1(t, a []float64, ia []int32) {
	for e, j := range ia {
		t[e] = a[j]
	}
}

func mul1(t, a []float64, ia []int32) {
	for e, j := range ia {
		t[e] *= a[j]
	}
}

func gather2(t, a, b []float64, ia, ib []int32) {
	ib = ib[:len(ia)]
	for e, j := range ia {
		t[e] = a[j] * b[ib[e]]
	}
}

func mul2(t, a, b []float64, ia, ib []int32) {
	ib = ib[:len(ia)]
	for e, j := range ia {
		t[e] *= a[j] * b[ib[e]]
	}
}

func gather3(t, a, b, c []float64, ia, ib, ic []int32) {
	ib, ic = ib[:len(ia)], ic[:len(ia)]
	for e, j := range ia {
		t[e] = a[j] * b[ib[e]] * c[ic[e]]
	}
}

func mul3(t, a, b, c []float64, ia, ib, ic []int32) {
	ib, ic = ib[:len(ia)], ic[:len(ia)]
	for e, j := range ia {
		t[e] *= a[j] * b[ib[e]] * c[ic[e]]
	}
}

// normalise turns each row of d entries of t into the distribution
// proportional to it (a row of zeros stays zeros), sets msg[r] to the sum
// of row r, and returns the smallest nonzero and the largest sum (+Inf and
// 0 if every sum is zero).
func normalise(t, msg []float64, d int) (mn, mx float64) {
	mn = math.Inf(1)
	if d == 2 {
		for r := range msg {
			a, b := t[2*r], t[2*r+1]
			s := a + b
			msg[r] = s
			if s > 0 {
				inv := 1 / s
				t[2*r], t[2*r+1] = a*inv, b*inv
				if s < mn {
					mn = s
				}
				if s > mx {
					mx = s
				}
			}
		}
		return mn, mx
	}
	for r := range msg {
		row := t[r*d : (r+1)*d]
		s := 0.0
		for _, a := range row {
			s += a
		}
		msg[r] = s
		if s > 0 {
			inv := 1 / s
			for j := range row {
				row[j] *= inv
			}
			if s < mn {
				mn = s
			}
			if s > mx {
				mx = s
			}
		}
	}
	return mn, mx
}

// logSum sets the chunk t of bk's table to the sum of the logarithms of
// bk's inputs' values. math.Log, wrong on subnormals on amd64
// (golang/go#56600), is right here: every nonzero entry of a linear table
// is a normal number (see Solve: a potential's at least 2^linLo of its
// largest, which is 1; a message's at least 2^linLo before a rescale, which
// keeps it above 2^(linLo−20)); the same holds for a component's Z in up.
func (sv *solver) logSum(bk *bucket, t []float64) {
	if bk.shared >= 0 {
		f := sv.forms[bk.ins[bk.shared].tab]
		for e, a := range t {
			if !f.log {
				a = math.Log(a)
			}
			t[e] = a + f.scale
		}
	} else {
		clear(t)
	}
	for i, in := range bk.ins {
		if i == bk.shared {
			continue
		}
		sp := sv.s.tabs[in.tab]
		a, ia := sv.arena[sp.off+sv.base[i]:sp.off+sp.n], sv.ix[i][:len(t)]
		f := sv.forms[in.tab]
		if f.log {
			for e, j := range ia {
				t[e] += a[j] + f.scale
			}
		} else {
			for e, j := range ia {
				t[e] += math.Log(a[j]) + f.scale
			}
		}
	}
}

// NormaliseRows turns each row of d log values of t, in place, into the
// distribution they define (exponentiated, shifted by the row's largest
// entry so that no finite row overflows, and normalised; a row of −Inf
// into zeros) and, if msg is not nil, sets msg[r] to the logarithm of the
// sum of row r's values (−Inf for a row of −Inf): a bucket's conditional
// table and its message, as exact elimination and blocked Gibbs's backward
// sampling both use them.
func NormaliseRows(msg, t []float64, d int) {
	for r := range len(t) / d {
		row := t[r*d : (r+1)*d]
		mx := math.Inf(-1)
		for _, a := range row {
			mx = max(mx, a)
		}
		if math.IsInf(mx, -1) {
			clear(row)
			if msg != nil {
				msg[r] = mx
			}
			continue
		}
		s := 0.0
		for j, a := range row {
			a = xmath.ExpNeg(a - mx)
			row[j] = a
			s += a
		}
		inv := 1 / s
		for j := range row {
			row[j] *= inv
		}
		if msg != nil {
			msg[r] = mx + xmath.LogAtLeast1(s) // s ≥ 1: the largest term is 1
		}
	}
}

// down turns bk's table into π's marginal on the bucket's clique (its rows
// times the marginal of S, which the parent left in bk's message table),
// adds it into x_v's marginal, and projects it on the scope of each child's
// message, in the child's message table.
func (sv *solver) down(bk *bucket) error {
	sv.indexMaps(bk)
	msp := sv.s.tabs[bk.msg]
	ps := sv.arena[msp.off : msp.off+msp.n]
	if sv.root(bk) || sv.vr.upwardOnly {
		for k := range ps {
			ps[k] = 1
		}
	}
	for i, in := range bk.ins {
		if in.msg && i != bk.shared {
			sp := sv.s.tabs[in.tab]
			clear(sv.arena[sp.off : sp.off+sp.n])
		}
	}
	d0 := bk.dims[0]
	marg := sv.marg[bk.v]
	return sv.chunks(bk, func(o int) {
		t := sv.arena[bk.t.off+o : bk.t.off+o+bk.cn]
		// The clique's marginal goes back into the table only where a
		// child reads it there (the shared input); otherwise into scratch
		// that stays in cache while the children are sent their part.
		q := t
		if bk.shared < 0 {
			q = sv.w[:len(t)]
		}
		if sv.vr.scatterFirst {
			copy(q, t)
		} else {
			weigh(q, t, ps[o/d0:(o+bk.cn)/d0], marg)
		}
		for i, in := range bk.ins {
			if in.msg && i != bk.shared {
				sp := sv.s.tabs[in.tab]
				scatter(sv.arena[sp.off+sv.base[i]:sp.off+sp.n], q, sv.ix[i][:len(q)])
			}
		}
		if sv.vr.scatterFirst {
			weigh(t, t, ps[o/d0:(o+bk.cn)/d0], marg)
		}
	})
}

// weigh sets row r of q to row r of t (len(marg) entries a row) times
// w[r], and adds the rows into marg. q may be t.
func weigh(q, t, w, marg []float64) {
	d := len(marg)
	q = q[:len(t)]
	if d == 2 {
		m0, m1 := marg[0], marg[1]
		for r, p := range w {
			a, b := t[2*r]*p, t[2*r+1]*p
			q[2*r], q[2*r+1] = a, b
			m0 += a
			m1 += b
		}
		marg[0], marg[1] = m0, m1
		return
	}
	for r, p := range w {
		row, out := t[r*d:(r+1)*d], q[r*d:(r+1)*d]
		for j, a := range row {
			a *= p
			out[j] = a
			marg[j] += a
		}
	}
}

// scatter adds each entry of t into dst at its index.
func scatter(dst, t []float64, ix []int32) {
	t = t[:len(ix)]
	for e, j := range ix {
		dst[j] += t[e]
	}
}

// ClampedLogPotential returns Σ φ(x) over the factors of g whose variables
// are all observed, at the evidence: the part of log Z that belongs to no
// component (−Inf if such a factor is a zero of the potential at the
// evidence: CheckEvidence then says which). log Z of g given its evidence
// is ClampedLogPotential(g) plus the LogZ of each component's Result.
func ClampedLogPotential(g *factorgraph.Graph) float64 {
	sum := 0.0
	clamped(g, func(_ int, v float64, _ []float64) bool {
		sum += v
		return true
	})
	return sum
}

// CheckEvidence returns an error wrapping ErrNoMass, naming the factor and
// the evidence, if a factor of g whose variables are all observed is zero
// (−Inf) at the evidence: then no assignment has positive probability,
// whatever the components' answers, and log Z is −Inf. It returns nil
// otherwise. A contradiction reached through free variables is found by
// the Solve of their component (ErrNoMass too).
func CheckEvidence(g *factorgraph.Graph) error {
	var err error
	clamped(g, func(f int, v float64, x []float64) bool {
		if math.IsInf(v, -1) {
			err = fmt.Errorf("elim: %s is zero at the evidence %s: %w", g.FactorName(f), state(g.Factor(f).Vars(), x), ErrNoMass)
			return false
		}
		return true
	})
	return err
}

// clamped calls fn with each factor f of g whose variables are all
// observed, in order, its value v at the evidence and x, the state of the
// evidence (other variables 0), until fn returns false.
func clamped(g *factorgraph.Graph, fn func(f int, v float64, x []float64) bool) {
	if len(g.Free()) == g.NumVars() {
		return // no evidence
	}
	var x []float64
	var vars []int
	for f := range g.NumFactors() {
		vars = g.FactorVars(vars[:0], f)
		if slices.ContainsFunc(vars, func(v int) bool { _, obs := g.Observed(v); return !obs }) {
			continue
		}
		if x == nil {
			x = make([]float64, g.NumVars())
			for i := range x {
				x[i], _ = g.Observed(i)
			}
		}
		if !fn(f, g.Factor(f).Value(x), x) {
			return
		}
	}
}
