package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/meter"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// clusters is what the two cluster samplers share: the chain, the bond
// process of the model's pairs, the tabulated unary terms, and the scratch
// space of the union–find (Swendsen–Wang) and of cluster growth (Wolff),
// allocated on first use and reused.
type clusters struct {
	base
	b bonds
	f fields

	// Union–find over the variables (only free ones are used): parent,
	// component size and the smallest domain size of the component (the
	// values every member has), reset at each sweep. valStamp[r] = epoch
	// says root r has its new value val[r] for this sweep; accStamp[r] =
	// epoch that acc holds its summed unary terms.
	parent, compSize, lim []int32
	val                   []int32
	valStamp, accStamp    []uint32
	acc                   []float64 // laid out as f.h
	epoch                 uint32

	// Wolff growth: the members of the cluster being grown, mark[j] =
	// markEpoch for a member, and the journal of the values a step has
	// changed (only while an interrupt channel is set): each variable's
	// value before the step, once (jStamp[j] = jEpoch), so that it holds
	// at most n entries however many clusters a step makes.
	members   []int32
	mark      []uint32
	markEpoch uint32
	journal   []int32
	journalV  []float64
	jStamp    []uint32
	jEpoch    uint32
	// work counts the events and members of the step under way since the
	// interrupt channel was last looked at (Wolff growth).
	work int
}

// bonds is the Poisson process of bond events over the ferromagnetic
// pairs of free variables.
type bonds struct {
	// tor is the lattice's compiled form, or nil for a graph.
	tor *compiled.Torus
	// Graph: the free neighbours j of free variable i through a Potts pair
	// of weight K_ij > 0 are nbr[start[i]:start[i+1]] (a pair once in each
	// direction, as often as it has factors), with the alias columns
	// prob/alias of a table over them ∝ K_ij; k[i] = K_i = Σ_j K_ij, and
	// top picks a variable ∝ K_i (empty when no pair exists).
	start []int
	nbr   []int32
	prob  []float64
	alias []int32
	k     []float64
	top   minibatch.Alias
	// total is the mean number of events of a sweep, Σ_{i<j} K_ij
	// (Σ_i K_i/2; N·L/2 on a lattice), events their generator (a graph's);
	// on a lattice, half draws a site's Poisson(L/2) events of a sweep and
	// site its Poisson(L) events of Wolff growth.
	total  float64
	events minibatch.PoissonGen
	half   minibatch.PoissonGen
	site   minibatch.PoissonGen
	// A short-range lattice (see directBonds) tests its pairs directly:
	// fwd holds one offset of each ± pair, bondThr[k] = ⌊(1 − e^{−K})·2⁶⁴⌋
	// its bond probability as a threshold for a uniform 64-bit word. nil:
	// the Poisson process.
	fwd     []compiled.TorusEnt
	bondThr []uint64
}

// fields holds the unary terms h_i(v) of the free variables, tabulated at
// construction (every factor with one free variable, the others observed):
// h[start[i]+v] for v < D_i, count[i] the number of those factors. Without
// any, h is nil.
type fields struct {
	start []int
	h     []float64
	count []int32
	total int64 // Σ count over the free variables
}

// newClusters builds the state both cluster samplers share on m, refusing
// models they cannot sample. name is the registry name.
func newClusters(name string, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (clusters, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	mt := meter.New(core.Context(opt), "gibbs: "+name+": construction")
	if err := mt.Check(); err != nil {
		return clusters{}, err
	}
	ch, err := core.NewCore(name, m, r, opt, true)
	if err != nil {
		return clusters{}, err
	}
	c := clusters{base: newBase(ch)}
	switch {
	case c.core().KG != nil:
		err = c.compileGraph(name, mt)
	case c.core().Tor != nil:
		err = c.compileTorus(name)
	default:
		err = fmt.Errorf("gibbs: %s: the model (%T) has no compiled pairs: cluster moves run on a *factorgraph.Graph or a lattice of discrete spins", name, m)
	}
	if err != nil {
		return clusters{}, err
	}
	if err := c.checkWork(name, opt); err != nil {
		return clusters{}, err
	}
	return c, nil
}

// factorLister is a model that can hand out its factors (a
// *factorgraph.Graph): the scope of a factor the kernel leaves generic.
type factorLister interface {
	FactorIndex(i, k int) int
	Factor(f int) factorgraph.Factor
}

// compileGraph builds the bond tables and the unary terms of a compiled
// graph, refusing a factor between free variables that is not a soft
// ferromagnetic Potts pair or a binary pair table of ferromagnetic Ising
// coupling (splitPair). The bond tables are flat, 16 bytes an entry
// (the neighbour, the alias column), laid out in two passes over the rows,
// in O(Σ_i |A[i]|); it returns mt's error once its context is done.
func (c *clusters) compileGraph(name string, mt *meter.Meter) error {
	n := c.core().M.NumVars()
	kg := c.core().KG
	b := &c.b
	b.start = make([]int, n+1)
	b.k = make([]float64, n)
	// Pass 1: the pairs of each variable and their weights' sum; the unary
	// terms tabulated, binary pair tables split into a pair and unary
	// terms (tablePairs, kept in order for pass 2), anything else refused.
	var tps []tablePair
	for _, i := range c.core().Free {
		soft, hard := c.core().M.Degree(i)
		s0 := kg.SoftStart[i]
		for k := range soft + hard {
			if k < soft {
				if j := kg.Nbr[s0+k]; j >= 0 && !c.core().Clamped[j] && kg.Weight(s0+k) > 0 {
					b.start[i+1]++
					b.k[i] += kg.Weight(s0 + k)
					continue
				}
			}
			j, op, err := c.pairOf(name, i, k, soft)
			switch {
			case err != nil:
				return err
			case j >= 0 && op.Kind == compiled.Table:
				w, err := c.splitPair(name, i, k, j)
				if err != nil {
					return err
				}
				if w > 0 {
					tps = append(tps, tablePair{i: int32(i), j: int32(j), w: w})
					b.start[i+1]++
					b.k[i] += w
				}
				continue
			case j >= 0:
				panic("gibbs: internal error: a pair the first pass missed") // only soft Potts pairs are pairs
			}
			if err := c.addUnary(name, i, k); err != nil {
				return err
			}
		}
		if err := mt.Add(1 + soft + hard); err != nil {
			return err
		}
	}
	for i := range n {
		b.start[i+1] += b.start[i]
	}
	// Pass 2: the neighbours, and each variable's alias table over them.
	total := b.start[n]
	b.nbr = make([]int32, total)
	b.prob = make([]float64, total)
	b.alias = make([]int32, total)
	work := make([]int32, max(n, c.core().M.MaxDegree()))
	w := make([]float64, 0, c.core().M.MaxDegree())
	for _, i := range c.core().Free {
		s, e := b.start[i], b.start[i+1]
		if s == e {
			continue
		}
		nb, ws := kg.Row(i)
		w = w[:0]
		p := s
		for k, j := range nb {
			if j >= 0 && !c.core().Clamped[j] && ws[k] > 0 {
				b.nbr[p] = j
				w = append(w, ws[k])
				p++
			}
		}
		for ; len(tps) > 0 && int(tps[0].i) == i; tps = tps[1:] {
			b.nbr[p] = tps[0].j
			w = append(w, tps[0].w)
			p++
		}
		a := minibatch.Alias{Prob: b.prob[s:e], Index: b.alias[s:e]}
		if err := a.Build(w, work); err != nil {
			return fmt.Errorf("gibbs: %s: variable %d: %w", name, i, err)
		}
		b.total += b.k[i] / 2
		if err := mt.Add(1 + e - s); err != nil {
			return err
		}
	}
	if err := checkMean(name, b.total, b.k); err != nil {
		return err
	}
	if b.total > 0 {
		b.top = minibatch.Alias{Prob: make([]float64, n), Index: make([]int32, n)}
		if err := b.top.Build(b.k, work); err != nil {
			return fmt.Errorf("gibbs: %s: %w", name, err)
		}
	}
	b.events = minibatch.NewPoissonTable(b.total)
	return nil
}

// checkMean refuses bond events whose number cannot be drawn: a sweep's
// total or a variable's K_i beyond minibatch.MaxMean.
func checkMean(name string, total float64, k []float64) error {
	if err := minibatch.CheckMean(total); err != nil {
		return fmt.Errorf("gibbs: %s: bond events of a sweep: %w", name, err)
	}
	for i, ki := range k {
		if err := minibatch.CheckMean(ki); err != nil {
			return fmt.Errorf("gibbs: %s: bond events of variable %d: %w", name, i, err)
		}
	}
	return nil
}

// pairOf classifies the k-th factor of A[i] (soft: the first soft of
// them), i free: it returns the other free variable j of a ferromagnetic
// Potts pair with its compiled op, −1 for a factor with no other free
// variable (a unary term of i), or an error naming a factor that couples
// free variables in any other way.
func (c *clusters) pairOf(name string, i, k, soft int) (int, *compiled.Op, error) {
	kg := c.core().KG
	var op *compiled.Op
	if k < soft {
		o := kg.SoftOp(kg.SoftStart[i] + k)
		op = &o
	} else {
		op = &kg.Hard[kg.HardStart[i]+k-soft]
	}
	others, err := c.freeOthers(name, i, k, op)
	if err != nil || len(others) == 0 {
		return -1, op, err
	}
	j := others[0]
	if len(others) == 1 && k < soft && op.Kind == compiled.Potts && !op.Neg {
		return j, op, nil // the common case, without naming the factor
	}
	if len(others) == 1 && k < soft && op.Kind == compiled.Table && c.core().Size[i] == 2 && c.core().Size[j] == 2 {
		return j, op, nil // a binary pair table: splitPair
	}
	fname, _, _ := c.core().M.Describe(i, k)
	switch {
	case len(others) > 1:
		return -1, op, fmt.Errorf("gibbs: %s: %s couples %d free variables (%d, %d, …): cluster moves need pair factors between free variables (use gibbs, pgibbs or auto)",
			name, fname, len(others)+1, i, j)
	case k >= soft:
		return -1, op, fmt.Errorf("gibbs: %s: %s is a hard factor between free variables %d and %d: cluster moves need soft ferromagnetic Potts pairs between free variables (use gibbs, pgibbs or auto)",
			name, fname, i, j)
	case op.Kind != compiled.Potts:
		what := "a table"
		if op.Kind == compiled.Generic {
			what = "a factor the graph does not compile"
		}
		return -1, op, fmt.Errorf("gibbs: %s: %s between free variables %d and %d is %s, not a Potts pair W·δ(x_i, x_j) or a table of two binary variables: cluster moves need ferromagnetic Potts pairs (use gibbs, pgibbs or auto)",
			name, fname, i, j, what)
	case op.Neg:
		return -1, op, fmt.Errorf("gibbs: %s: %s is an antiferromagnetic Potts pair (W = %g < 0) between free variables %d and %d: cluster moves need K_ij = W ≥ 0 (use gibbs, pgibbs or auto)",
			name, fname, -op.M, i, j)
	}
	return j, op, nil
}

// tablePair is a pair table of two binary free variables split by
// splitPair: its Ising coupling w > 0 between i and j, listed from i.
type tablePair struct {
	i, j int32
	w    float64
}

// splitPair splits the k-th factor of A[i], a table whose free variables
// are i and j, both binary (the others observed), into an Ising coupling
// and unary terms: its log-values ℓ(a, b) at x_i = a, x_j = b are exactly
//
//	J·δ(a, b) + u(a) + w(b) + c,  J = (ℓ(0,0) + ℓ(1,1) − ℓ(0,1) − ℓ(1,0)) / 2,
//
// as every 2×2 table is (four values, four parameters). J is the pair's
// bond weight K_ij (returned; 0: no bond), and i's row adds to h_i(a)
// the mean over b of ℓ(a, b) − J·δ(a, b), u(a) and a constant (j's row
// adds w(b), the factor being in both rows). J < 0 is refused: an
// antiferromagnetic pair.
func (c *clusters) splitPair(name string, i, k, j int) (J float64, err error) {
	f := &c.f
	if f.h == nil {
		c.allocFields()
	}
	m := c.core().M
	defer func() {
		if p := recover(); p != nil {
			fname, _, _ := m.Describe(i, k)
			J, err = 0, fmt.Errorf("gibbs: %s: %s panics: %v", name, fname, p)
		}
	}()
	x := c.core().X
	xj := x[j]
	defer func() { x[j] = xj }()
	lo, hi := factorgraph.Limits(m.Bound(i, k))
	var l [2][2]float64 // l[a][b]
	buf := c.core().Buf[:2]
	for b := range 2 {
		x[j] = float64(b)
		m.EvalAll(i, k, x, buf)
		for a, s := range buf {
			if !(s >= lo && s <= hi) {
				return 0, fmt.Errorf("gibbs: %s: %w", name, factorgraph.CheckError(m, i, k, s))
			}
			l[a][b] = s
		}
	}
	J = (l[0][0] + l[1][1] - l[0][1] - l[1][0]) / 2
	scale := math.Abs(l[0][0]) + math.Abs(l[1][1]) + math.Abs(l[0][1]) + math.Abs(l[1][0])
	switch {
	case J < -1e-12*scale:
		fname, _, _ := m.Describe(i, k)
		return 0, fmt.Errorf("gibbs: %s: %s is an antiferromagnetic pair table (its Ising coupling J = %g < 0) between free variables %d and %d: cluster moves need J ≥ 0 (use gibbs, pgibbs or auto)",
			name, fname, J, i, j)
	case J <= 1e-12*scale:
		J = 0 // additive: unary terms alone
	}
	h := f.h[f.start[i] : f.start[i]+2]
	for a := range 2 {
		h[a] += (l[a][0] + l[a][1] - J) / 2 // the mean over b of ℓ(a, b) − J·δ(a, b)
	}
	f.count[i]++
	f.total++
	return J, nil
}

// freeOthers returns the free variables other than i (each once) of the
// factor op of A[i], the k-th.
func (c *clusters) freeOthers(name string, i, k int, op *compiled.Op) ([]int, error) {
	var vars []int
	switch op.Kind {
	case compiled.Potts:
		vars = []int{int(op.Ref)}
	case compiled.Table:
		t := &c.core().KG.Tabs
		for _, v := range t.Vars[t.Off[op.Ref]:t.Off[op.Ref+1]] {
			vars = append(vars, int(v))
		}
	default:
		fl, ok := c.core().M.(factorLister)
		if !ok {
			fname, _, _ := c.core().M.Describe(i, k)
			return nil, fmt.Errorf("gibbs: %s: %s: cannot tell its variables (the model %T does not list its factors)", name, fname, c.core().M)
		}
		vars = fl.Factor(fl.FactorIndex(i, k)).Vars()
	}
	var others []int
	for _, v := range vars {
		if v == i || c.core().Clamped[v] {
			continue
		}
		dup := false
		for _, o := range others {
			dup = dup || o == v
		}
		if !dup {
			others = append(others, v)
		}
	}
	return others, nil
}

// addUnary adds the values of the k-th factor of A[i], which has no other
// free variable, at every value of i to h_i, checking them against the
// factor's range. A factor that panics is reported as an error.
func (c *clusters) addUnary(name string, i, k int) (err error) {
	f := &c.f
	if f.h == nil {
		c.allocFields()
	}
	d := int(c.core().Size[i])
	buf := c.core().Buf[:d]
	defer func() {
		if p := recover(); p != nil {
			fname, _, _ := c.core().M.Describe(i, k)
			err = fmt.Errorf("gibbs: %s: %s panics: %v", name, fname, p)
		}
	}()
	c.core().M.EvalAll(i, k, c.core().X, buf)
	lo, hi := factorgraph.Limits(c.core().M.Bound(i, k))
	h := f.h[f.start[i] : f.start[i]+d]
	for v, s := range buf {
		if !(s >= lo && s <= hi) {
			return fmt.Errorf("gibbs: %s: %w", name, factorgraph.CheckError(c.core().M, i, k, s))
		}
		h[v] += s
	}
	f.count[i]++
	f.total++
	return nil
}

// allocFields lays out h_i for every free variable (D_i values each).
func (c *clusters) allocFields() {
	f := &c.f
	n := c.core().M.NumVars()
	f.start = make([]int, n+1)
	for i := range n {
		f.start[i+1] = f.start[i]
		if !c.core().Clamped[i] {
			f.start[i+1] += int(c.core().Size[i])
		}
	}
	f.h = make([]float64, f.start[n])
	f.count = make([]int32, n)
}

// compileTorus sets up the bond events of a lattice: every offset must be
// ferromagnetic.
func (c *clusters) compileTorus(name string) error {
	t := c.core().Tor
	if !c.core().AllFree {
		return fmt.Errorf("gibbs: %s: a lattice with evidence", name)
	}
	for k, w := range t.W {
		if w < 0 {
			fname, _, _ := c.core().M.Describe(0, k)
			return fmt.Errorf("gibbs: %s: %s is antiferromagnetic (K = %g < 0): cluster moves need ferromagnetic couplings, β·J ≥ 0 (use gibbs, pgibbs or auto)",
				name, fname, w)
		}
	}
	c.b.tor = t
	c.b.total = float64(t.Sites) * t.L / 2
	if err := checkMean(name, c.b.total, []float64{t.L}); err != nil {
		return err
	}
	c.b.half = minibatch.NewPoissonTable(t.L / 2)
	c.b.site = minibatch.NewPoissonTable(t.L)
	c.b.directBonds(t)
	return nil
}

// directBonds sets up direct bond tests on a short-range lattice, where
// testing each pair costs less than drawing its Poisson events: K/2 pairs
// a site (one offset of each ± pair, forward) against L/2 events, each an
// alias pick, and a Poisson count; chosen when K ≤ 2L + 4 (the
// nearest-neighbour lattice near β_c: K = 4, L ≈ 3.5). A pair {i, i+k}
// is then bonded, if it agrees, with probability 1 − e^{−K_k}: the
// probability that the Poisson process gives it at least one event (rate
// K_k/2 from each end). It needs every offset's inverse to be another
// offset of the same weight (not so for offsets of half the side on an
// even torus, which are their own inverse); otherwise the lattice keeps
// the Poisson process.
func (b *bonds) directBonds(t *compiled.Torus) {
	if float64(len(t.Off)) > 2*t.L+4 || len(t.Off)%2 != 0 {
		return
	}
	comp := make(map[[3]int32]int, len(t.Off))
	for k := range t.Off {
		comp[t.Components(&t.Off[k])] = k
	}
	var fwd []compiled.TorusEnt
	var thr []uint64
	for k := range t.Off {
		c := t.Components(&t.Off[k])
		neg := [3]int32{-c[0], -c[1], -c[2]}
		inv, ok := comp[neg]
		if !ok || inv == k || t.W[inv] != t.W[k] {
			return
		}
		if c[0] > 0 || (c[0] == 0 && (c[1] > 0 || (c[1] == 0 && c[2] > 0))) {
			fwd = append(fwd, t.Off[k])
			thr = append(thr, minibatch.Threshold(-math.Expm1(-math.Abs(t.W[k]))))
		}
	}
	b.fwd, b.bondThr = fwd, thr
}

// checkWork refuses a model whose site updates would exceed the limit of
// opt: a site update draws K_i bond events (its pairs' events, counted
// from both ends in Wolff growth) and reads D_i tabulated unary values.
func (c *clusters) checkWork(name string, opt *gibbs.Options) error {
	limit, err := core.MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	w := c.core().WorstUpdate(func(i int) float64 {
		ki := c.b.torusL()
		if c.b.tor == nil {
			ki = c.b.k[i]
		}
		return ki + c.core().Values(i)
	})
	if !(w.Work > limit) {
		return nil
	}
	return core.TooMuch(name, fmt.Sprintf("draw about %.2g bond events to update variable %d (K_i = Σ_j K_ij)", w.Work-c.core().Values(w.I), w.I), limit,
		"the couplings are too strong for cluster moves to be worth it; use gibbs or auto")
}

// torusL returns the lattice's L = Σ_k K_k (0 for a graph).
func (b *bonds) torusL() float64 {
	if b.tor == nil {
		return 0
	}
	return b.tor.L
}
