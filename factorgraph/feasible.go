package factorgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrNoFeasibleState is returned by FeasibleState when the search finishes
// without finding a state of positive probability: the hard factors and the
// evidence contradict each other.
var ErrNoFeasibleState = errors.New("factorgraph: no state has positive probability (hard factors contradict each other or the evidence)")

// Bounds of the search for a feasible state.
const (
	// feasibleNodes is the default node budget.
	feasibleNodes = 1_000_000
	// gacMaxTuples bounds the assignments of a hard factor's search
	// variables that are enumerated once to tabulate its allowed tuples;
	// gacMaxTabulated bounds the values (assignments times variables) of
	// all the tables together, 16 MB. A factor beyond either is revised by
	// enumeration of its current domains.
	gacMaxTuples    = 1 << 16
	gacMaxTabulated = 1 << 22
	// gacMaxEnum bounds the assignments an untabulated factor's revision
	// enumerates; beyond it the factor is only checked forward, once at most
	// one of its variables has more than one value left.
	gacMaxEnum = 1 << 12
	// restartUnit is the failures of the shortest run between restarts;
	// run k may fail luby(k)·restartUnit times.
	restartUnit = 64
)

// FeasibleState returns a state of positive probability: evidence at its
// values, every hard factor finite. Soft factors are always finite, so only
// hard factors (zeros of tables, constraints) can rule a state out.
//
// Discrete variables are assigned by a constraint-satisfaction search over
// the hard factors, each a constraint allowing the assignments of its scope
// at which it is finite:
//
//   - Maintained generalised arc consistency (MAC; Bessiere, "Constraint
//     propagation", Handbook of Constraint Programming, 2006): a value of a
//     variable that no assignment of a hard factor's other variables, among
//     their remaining values, makes finite is removed, and removals
//     propagate from factor to factor until none is left (GAC-3's queue),
//     once with the evidence and after every assignment. A factor whose
//     variables have at most 2¹⁶ joint assignments is tabulated once and
//     kept consistent by simple tabular reduction (STR: Ullmann 2007,
//     Lecoutre 2011), dropping the tuples that are no longer valid; a larger
//     one is enumerated over its current domains while they hold at most
//     2¹² assignments, and until then only checked forward (once at most
//     one of its variables has more than one value left).
//   - Variable order dom/wdeg (Boussemart, Hemery, Lecoutre, Sais, ECAI
//     2004): the variable with the fewest remaining values per unit of
//     weighted degree, each hard factor weighing one plus the number of
//     times it emptied a domain, ties broken at random. Values are tried in
//     an order drawn from r: different seeds give different starting states,
//     the same seed the same state.
//   - Restarts (Luby, Sinclair, Zuckerman 1993): run k of the search stops
//     after luby(k)·64 failed assignments (luby = 1, 1, 2, 1, 1, 2, 4, …)
//     and the next starts afresh, keeping the weights.
//
// Continuous variables are drawn uniformly for each run; the hard factors
// over them are checked forward. The search gives up after maxNodes
// assignments (≤ 0 means 10⁶; a draw of the continuous variables counts
// as one) over all runs, with an error suggesting an explicit initial
// state. It returns ErrNoFeasibleState only when it has proved that no
// state exists: the propagation from the evidence empties a domain, or a
// run explores its whole tree within its failure limit (never when a hard
// factor reads a continuous variable, whose draw the proof would rest on).
func (g *Graph) FeasibleState(ctx context.Context, r *rand.Rand, maxNodes int) ([]float64, error) {
	return g.FeasibleStateGiven(ctx, r, maxNodes, nil)
}

// FeasibleStateGiven is FeasibleState with the free variables in given
// held at the values given, as if observed: it answers whether the model
// has a state of positive probability in which they take those values
// (ErrNoFeasibleState: provably none). A value outside its variable's
// domain, or given for an observed variable, is an error.
func (g *Graph) FeasibleStateGiven(ctx context.Context, r *rand.Rand, maxNodes int, given map[int]float64) ([]float64, error) {
	if maxNodes <= 0 {
		maxNodes = feasibleNodes
	}
	n := g.domains.Len()
	for i, v := range given {
		switch {
		case i < 0 || i >= n:
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: variable %d out of range [0, %d)", i, n)
		case g.observed[i]:
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: variable %d is observed", i)
		case !g.domains.At(i).Contains(v):
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: value %v of variable %d outside its domain %v", v, i, g.domains.At(i))
		}
	}
	s, err := newSearch(ctx, g, r, maxNodes, given)
	if err != nil {
		return nil, err
	}
	return s.run()
}

// search is the state of one search for a feasible state. The search
// variables are the free discrete variables not given; the others are
// fixed (evidence, given values, continuous draws) in x.
type search struct {
	ctx context.Context
	g   *Graph
	r   *rand.Rand
	x   []float64

	maxNodes, nodes int

	// Per graph variable (off −1: not a search variable): the offset of
	// its values in alive and stamp, its domain size, its number of
	// remaining values, its weighted degree and its tie-break key.
	off   []int
	size  []int32
	left  []int32
	wdeg  []int64
	key   []uint32
	alive []bool   // per value: still possible
	stamp []uint32 // per value: the revision that last found it a support
	rev   uint32

	vars  []int32 // the search variables in hard factors, for the order
	loose []int32 // the search variables in no hard factor: any value
	cont  []int   // the free continuous variables not given
	// contHard: some hard factor reads a variable of cont, so that a
	// failure may be the draw's and proves nothing.
	contHard bool

	cons      []constraint
	cvars     []int32 // the constraints' variables, flat
	tuples    []int32 // the tabulated constraints' allowed tuples, flat
	perm      []int32 // the tabulated constraints' tuple orders, flat
	fixed     []int32 // hard factors with no search variable, and none of cont
	fixedCont []int32 // hard factors with no search variable, some of cont
	vcStart   []int32 // the constraints of variable i: vc[vcStart[i]:vcStart[i+1]]
	vc        []int32

	queue         []int32 // ring buffer of constraints to revise
	qhead, qcount int
	inQueue       []bool
	noCont        bool // revise no constraint over a continuous variable

	trail []undo

	failures, cutoff int
	order            []int32 // the value orders of the nodes on the path
	pos              []int32 // enumeration scratch: a value per position
	nsup             []int32 // supported values per position
	err              error
}

// constraint is a hard factor with at least one search variable.
type constraint struct {
	f      int32
	v0, k  int32 // its search variables are cvars[v0 : v0+k], each once
	t0, p0 int32 // tabulated: tuple i is tuples[t0+i·k : t0+(i+1)·k]; its order perm[p0 : p0+size]
	size   int32 // tabulated: the tuples perm[p0 : p0+size] are the valid ones
	tab    bool
	cont   bool // reads a continuous variable of cont
	weight int64
}

// undo is a trail entry: a ≥ 0, value b of variable a was removed; a < 0,
// constraint ^a had b valid tuples.
type undo struct{ a, b int32 }

// outcome is how a run of the depth-first search ends.
type outcome int

const (
	exhausted outcome = iota // no feasible state below: a proof, if no limit cut the tree
	found
	cutoff  // the run's failure limit
	stopped // the node budget or the context: s.err
)

func (s *search) consVars(c *constraint) []int32 { return s.cvars[c.v0 : c.v0+c.k] }

// newSearch fixes the evidence, the given values and the continuous
// variables, and lays out the hard factors as constraints, tabulating those
// small enough.
func newSearch(ctx context.Context, g *Graph, r *rand.Rand, maxNodes int, given map[int]float64) (*search, error) {
	n := g.domains.Len()
	s := &search{ctx: ctx, g: g, r: r, maxNodes: maxNodes, x: make([]float64, n),
		off: make([]int, n), size: make([]int32, n), left: make([]int32, n), wdeg: make([]int64, n), key: make([]uint32, n)}
	isCont := make([]bool, n)
	values := 0
	for i := range n {
		d := g.domains.At(i)
		s.off[i] = -1
		if v, ok := g.Observed(i); ok {
			s.x[i] = v
			continue
		}
		if v, ok := given[i]; ok {
			s.x[i] = v
			continue
		}
		if !d.IsDiscrete() {
			s.cont = append(s.cont, i)
			isCont[i] = true
			continue
		}
		s.off[i], s.size[i], s.left[i] = values, int32(d.Size), int32(d.Size)
		values += d.Size
	}
	s.alive = make([]bool, values)
	for j := range s.alive {
		s.alive[j] = true
	}
	s.stamp = make([]uint32, values)
	s.drawContinuous()
	if err := s.layConstraints(isCont); err != nil {
		return nil, err
	}
	s.indexConstraints()
	return s, nil
}

// layConstraints lays out the hard factors as constraints, each once (a
// factor is in the hard row of every variable of its scope, and is taken
// from the row of the first), tabulating those small enough; isCont marks
// the continuous variables.
func (s *search) layConstraints(isCont []bool) error {
	ctx, g, n := s.ctx, s.g, len(s.x)
	k := g.kern
	mark := make([]int32, n) // f+1 while the scope of f is read
	var scope []int
	tabulated := 0
	maxK := 0
	for i := range n {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("factorgraph: search for a state of positive probability: %w", err)
			}
		}
		for h := k.HardStart[i]; h < k.HardStart[i+1]; h++ {
			f := k.Hard[h].Fac
			scope = g.fs.vars(scope[:0], int(f))
			if scope[0] != i || mark[i] == f+1 { // another row's, or taken
				continue
			}
			c := constraint{f: f, v0: int32(len(s.cvars)), weight: 1}
			prod := 1
			for _, v := range scope {
				if isCont[v] {
					c.cont = true
				}
				if mark[v] == f+1 {
					continue
				}
				mark[v] = f + 1
				if s.off[v] < 0 {
					continue
				}
				s.cvars = append(s.cvars, int32(v))
				if prod <= gacMaxTuples {
					prod *= int(s.size[v])
				}
			}
			c.k = int32(len(s.cvars)) - c.v0
			s.contHard = s.contHard || c.cont
			switch {
			case c.k == 0 && c.cont:
				s.fixedCont = append(s.fixedCont, f)
				continue
			case c.k == 0:
				s.fixed = append(s.fixed, f)
				continue
			}
			maxK = max(maxK, int(c.k))
			if work := prod * int(c.k); !c.cont && prod <= gacMaxTuples && tabulated+work <= gacMaxTabulated {
				tabulated += work
				c.tab = true
				c.t0 = int32(len(s.tuples))
				s.pos = growInt32(s.pos, int(c.k))
				s.tabulate(&c)
				c.size = (int32(len(s.tuples)) - c.t0) / c.k
				c.p0 = int32(len(s.perm))
				for t := range c.size {
					s.perm = append(s.perm, t)
				}
			}
			s.cons = append(s.cons, c)
		}
	}
	s.pos = growInt32(s.pos, maxK)
	s.nsup = make([]int32, maxK)
	return nil
}

// indexConstraints lists the constraints of each variable, sums the
// weighted degrees, and splits the discrete variables into those a
// constraint holds and the loose ones.
func (s *search) indexConstraints() {
	n := len(s.x)
	s.vcStart = make([]int32, n+1)
	for ci := range s.cons {
		for _, v := range s.consVars(&s.cons[ci]) {
			s.vcStart[v+1]++
		}
	}
	for i := range n {
		s.vcStart[i+1] += s.vcStart[i]
	}
	s.vc = make([]int32, s.vcStart[n])
	fill := append([]int32(nil), s.vcStart[:n]...)
	for ci := range s.cons {
		c := &s.cons[ci]
		for _, v := range s.consVars(c) {
			s.vc[fill[v]] = int32(ci)
			fill[v]++
			s.wdeg[v] += c.weight
		}
	}
	for i := range n {
		switch {
		case s.off[i] < 0:
		case s.vcStart[i+1] > s.vcStart[i]:
			s.vars = append(s.vars, int32(i))
		default:
			s.loose = append(s.loose, int32(i))
		}
	}
	s.queue = make([]int32, len(s.cons))
	s.inQueue = make([]bool, len(s.cons))
}

// growInt32 returns a with length at least n.
func growInt32(a []int32, n int) []int32 {
	if len(a) < n {
		a = append(a, make([]int32, n-len(a))...)
	}
	return a
}

// drawContinuous draws the continuous variables uniformly.
func (s *search) drawContinuous() {
	for _, i := range s.cont {
		d := s.g.domains.At(i)
		s.x[i] = d.Lo + (d.Hi-d.Lo)*s.r.Float64()
	}
}

// run searches: propagation from the evidence, then runs of depth-first
// search with restarts.
func (s *search) run() ([]float64, error) {
	if !s.root() {
		return nil, ErrNoFeasibleState
	}
	root := len(s.trail)
	for k := 1; ; k++ {
		if err := s.ctx.Err(); err != nil {
			return nil, fmt.Errorf("factorgraph: search for a state of positive probability: %w", err)
		}
		s.undo(root)
		if s.contHard && !s.placeContinuous(k > 1) {
			if s.nodes++; s.nodes >= s.maxNodes {
				return nil, s.giveUp()
			}
			continue
		}
		for _, v := range s.vars {
			s.key[v] = s.r.Uint32()
		}
		s.failures, s.cutoff = 0, luby(k)*restartUnit
		switch s.dfs() {
		case found:
			return s.x, nil
		case exhausted:
			if !s.contHard {
				return nil, ErrNoFeasibleState
			}
		case stopped:
			return nil, s.err
		}
	}
}

// root checks the evidence — the hard factors over fixed variables only —
// and makes the domains arc consistent without the continuous draws, whose
// failures prove nothing; it reports false if that proves no state
// feasible.
func (s *search) root() bool {
	for _, f := range s.fixed {
		if math.IsInf(s.g.EvalFactor(int(f), s.x), -1) {
			return false
		}
	}
	s.noCont = true
	defer func() { s.noCont = false }()
	for ci := range s.cons {
		if !s.cons[ci].cont {
			s.enqueue(int32(ci))
		}
	}
	return s.propagate()
}

// ArcConsistentDomains returns the values that generalised arc
// consistency on the hard factors, given the evidence, leaves each free
// discrete variable (the propagation FeasibleState starts from; nil for
// observed and continuous variables): a value without support in some
// hard factor, given the values left to the factor's other variables, is
// in no state of positive probability. It returns ErrNoFeasibleState when
// the propagation empties a domain, and ctx's error, wrapped, if ctx ends
// while the factors are laid out.
func (g *Graph) ArcConsistentDomains(ctx context.Context) ([][]bool, error) {
	s, err := newSearch(ctx, g, rand.New(rand.NewPCG(0, 0)), feasibleNodes, nil)
	if err != nil {
		return nil, err
	}
	if !s.root() {
		return nil, ErrNoFeasibleState
	}
	out := make([][]bool, g.domains.Len())
	for i, off := range s.off {
		if off >= 0 {
			out[i] = append([]bool(nil), s.alive[off:off+int(s.size[i])]...)
		}
	}
	return out, nil
}

// giveUp is the error of a search that ran out of nodes.
func (s *search) giveUp() error {
	if s.contHard {
		return fmt.Errorf("factorgraph: found no state of positive probability in %d nodes, drawing the continuous variables again on each restart; pass an initial state", s.nodes)
	}
	return fmt.Errorf("factorgraph: gave up searching for a state of positive probability after %d nodes; pass an initial state", s.nodes)
}

// placeContinuous draws the continuous variables (again, if redraw) and
// propagates the hard factors over them; it reports false on a dead end.
func (s *search) placeContinuous(redraw bool) bool {
	if redraw {
		s.drawContinuous()
	}
	for _, f := range s.fixedCont {
		if math.IsInf(s.g.EvalFactor(int(f), s.x), -1) {
			return false
		}
	}
	for ci := range s.cons {
		if s.cons[ci].cont {
			s.enqueue(int32(ci))
		}
	}
	return s.propagate()
}

// luby returns the k-th term (k ≥ 1) of the Luby sequence 1, 1, 2, 1, 1,
// 2, 4, 1, …: 2^(j−1) if k = 2^j − 1, else luby(k − 2^(j−1) + 1) for
// 2^(j−1) ≤ k < 2^j − 1.
func luby(k int) int {
	for {
		j := 1
		for 1<<j-1 < k {
			j++
		}
		if k == 1<<j-1 {
			return 1 << (j - 1)
		}
		k -= 1<<(j-1) - 1
	}
}

// dfs assigns the search variables in dom/wdeg order under propagation.
func (s *search) dfs() outcome {
	v := s.pick()
	if v < 0 {
		if s.complete() {
			return found
		}
		s.failures++
		return exhausted
	}
	base := len(s.order)
	o := s.off[v]
	for a := range s.size[v] {
		if s.alive[o+int(a)] {
			s.order = append(s.order, a)
		}
	}
	vals := s.order[base:]
	for i := len(vals) - 1; i > 0; i-- {
		j := s.r.IntN(i + 1)
		vals[i], vals[j] = vals[j], vals[i]
	}
	out := exhausted
	for _, a := range vals {
		if s.nodes >= s.maxNodes {
			s.err, out = s.giveUp(), stopped
			break
		}
		if s.nodes++; s.nodes%256 == 0 {
			if err := s.ctx.Err(); err != nil {
				s.err, out = fmt.Errorf("factorgraph: search for a state of positive probability: %w", err), stopped
				break
			}
		}
		mark := len(s.trail)
		if s.assign(v, a) {
			if out = s.dfs(); out != exhausted {
				break
			}
		} else {
			s.failures++
		}
		s.undo(mark)
		if s.failures >= s.cutoff {
			out = cutoff
			break
		}
	}
	s.order = s.order[:base]
	return out
}

// pick returns the search variable with more than one value left of least
// dom/wdeg, ties broken by key, or −1 if none is left.
func (s *search) pick() int32 {
	best := int32(-1)
	for _, v := range s.vars {
		if s.left[v] <= 1 {
			continue
		}
		if best < 0 {
			best = v
			continue
		}
		l, r := int64(s.left[v])*s.wdeg[best], int64(s.left[best])*s.wdeg[v]
		if l < r || l == r && s.key[v] < s.key[best] {
			best = v
		}
	}
	return best
}

// complete writes the state every search variable is now fixed to, draws
// the loose ones, and checks every hard factor at it.
func (s *search) complete() bool {
	for _, v := range s.vars {
		s.x[v] = float64(s.value(v))
	}
	for _, v := range s.loose {
		s.x[v] = float64(s.r.IntN(int(s.size[v])))
	}
	for ci := range s.cons {
		if math.IsInf(s.g.EvalFactor(int(s.cons[ci].f), s.x), -1) {
			return false
		}
	}
	for _, f := range s.fixed {
		if math.IsInf(s.g.EvalFactor(int(f), s.x), -1) {
			return false
		}
	}
	for _, f := range s.fixedCont {
		if math.IsInf(s.g.EvalFactor(int(f), s.x), -1) {
			return false
		}
	}
	return true
}

// value returns the first remaining value of search variable v.
func (s *search) value(v int32) int32 {
	o := s.off[v]
	for a := range s.size[v] {
		if s.alive[o+int(a)] {
			return a
		}
	}
	return -1
}

// assign fixes search variable v to value a and propagates; it reports
// false on a dead end.
func (s *search) assign(v, a int32) bool {
	o := s.off[v]
	for b := range s.size[v] {
		if b != a && s.alive[o+int(b)] {
			s.remove(v, b)
		}
	}
	s.changed(v, -1)
	return s.propagate()
}

// remove removes value a of variable v, on the trail.
func (s *search) remove(v, a int32) {
	s.alive[s.off[v]+int(a)] = false
	s.left[v]--
	s.trail = append(s.trail, undo{v, a})
}

// undo restores the domains and tuple counts to the trail's length mark.
func (s *search) undo(mark int) {
	for p := len(s.trail) - 1; p >= mark; p-- {
		u := s.trail[p]
		if u.a >= 0 {
			s.alive[s.off[u.a]+int(u.b)] = true
			s.left[u.a]++
		} else {
			s.cons[^u.a].size = u.b
		}
	}
	s.trail = s.trail[:mark]
}

// changed queues the constraints of variable v but except.
func (s *search) changed(v, except int32) {
	for _, ci := range s.vc[s.vcStart[v]:s.vcStart[v+1]] {
		if ci != except {
			s.enqueue(ci)
		}
	}
}

// enqueue queues constraint ci for revision if it is not queued.
func (s *search) enqueue(ci int32) {
	if s.inQueue[ci] || s.noCont && s.cons[ci].cont {
		return
	}
	s.inQueue[ci] = true
	s.queue[(s.qhead+s.qcount)%len(s.queue)] = ci
	s.qcount++
}

// propagate revises the queued constraints until none is left (GAC-3's
// fixpoint); it reports false if a domain is wiped out, emptying the queue.
func (s *search) propagate() bool {
	for s.qcount > 0 {
		ci := s.queue[s.qhead]
		s.qhead = (s.qhead + 1) % len(s.queue)
		s.qcount--
		s.inQueue[ci] = false
		if !s.revise(ci) {
			for ; s.qcount > 0; s.qcount-- {
				s.inQueue[s.queue[s.qhead]] = false
				s.qhead = (s.qhead + 1) % len(s.queue)
			}
			return false
		}
	}
	return true
}

// nextRev starts a revision: stamps equal to s.rev mark its supports.
func (s *search) nextRev() {
	if s.rev++; s.rev == 0 {
		clear(s.stamp)
		s.rev = 1
	}
}

// support marks value a of variable v, at position p of the constraint
// under revision, as supported; nsup[p] counts them, up to v's remaining
// values (then all are, and v needs no further look).
func (s *search) support(p int, v, a int32) {
	if s.nsup[p] < s.left[v] {
		if j := s.off[v] + int(a); s.stamp[j] != s.rev {
			s.stamp[j] = s.rev
			s.nsup[p]++
		}
	}
}

// revise makes constraint ci arc consistent: it removes the values
// without support, queueing the other constraints of their variables, and
// reports false, weighting ci, if it allows nothing.
func (s *search) revise(ci int32) bool {
	c := &s.cons[ci]
	vars := s.consVars(c)
	nsup := s.nsup[:len(vars)]
	clear(nsup)
	s.nextRev()
	if c.tab {
		// Simple tabular reduction: drop the tuples no longer valid
		// (swapping them past the valid prefix, whose length the trail
		// restores), and mark the values of the valid ones.
		k := int(c.k)
		perm := s.perm[c.p0 : c.p0+c.size]
		size := len(perm)
		for i := 0; i < size; {
			t := s.tuples[int(c.t0)+int(perm[i])*k:][:k]
			valid := true
			for p, v := range vars {
				if !s.alive[s.off[v]+int(t[p])] {
					valid = false
					break
				}
			}
			if !valid {
				size--
				perm[i], perm[size] = perm[size], perm[i]
				continue
			}
			for p, v := range vars {
				s.support(p, v, t[p])
			}
			i++
		}
		if int32(size) != c.size {
			s.trail = append(s.trail, undo{^ci, c.size})
			c.size = int32(size)
		}
		if size == 0 {
			return s.wipe(ci)
		}
	} else if !s.enumerate(c, vars) {
		return s.wipe(ci)
	}
	for p, v := range vars {
		if nsup[p] == s.left[v] {
			continue
		}
		o := s.off[v]
		for a := range s.size[v] {
			if s.alive[o+int(a)] && s.stamp[o+int(a)] != s.rev {
				s.remove(v, a)
			}
		}
		s.changed(v, ci)
	}
	return true
}

// wipe weights constraint ci, which wiped out a domain, and returns false.
func (s *search) wipe(ci int32) bool {
	c := &s.cons[ci]
	c.weight++
	for _, v := range s.consVars(c) {
		s.wdeg[v]++
	}
	return false
}

// enumerate marks the supports of an untabulated constraint by evaluating
// it at every assignment of the remaining values of its variables; it
// reports whether some assignment is allowed. Beyond gacMaxEnum
// assignments it only checks forward: with more than one variable of more
// than one value, it marks every value supported.
func (s *search) enumerate(c *constraint, vars []int32) bool {
	prod, multi := 1, 0
	for _, v := range vars {
		if s.left[v] > 1 {
			multi++
			if prod <= gacMaxEnum {
				prod *= int(s.left[v])
			}
		}
	}
	if multi > 1 && prod > gacMaxEnum {
		for p, v := range vars {
			s.nsup[p] = s.left[v]
		}
		return true
	}
	pos := s.pos[:len(vars)]
	for p, v := range vars {
		pos[p] = s.next(v, 0)
		s.x[v] = float64(pos[p])
	}
	any := false
	for {
		if !math.IsInf(s.g.EvalFactor(int(c.f), s.x), -1) {
			any = true
			done := true
			for p, v := range vars {
				s.support(p, v, pos[p])
				done = done && s.nsup[p] == s.left[v]
			}
			if done {
				return true
			}
		}
		p := len(vars) - 1
		for ; p >= 0; p-- {
			v := vars[p]
			if a := s.next(v, pos[p]+1); a >= 0 {
				pos[p] = a
				s.x[v] = float64(a)
				break
			}
			pos[p] = s.next(v, 0)
			s.x[v] = float64(pos[p])
		}
		if p < 0 {
			return any
		}
	}
}

// next returns the first remaining value of variable v from a on, or −1.
func (s *search) next(v, a int32) int32 {
	o := s.off[v]
	for ; a < s.size[v]; a++ {
		if s.alive[o+int(a)] {
			return a
		}
	}
	return -1
}

// tabulate appends to s.tuples the assignments of c's variables (all their
// values) at which its factor is finite, the fixed variables at their
// values.
func (s *search) tabulate(c *constraint) {
	vars := s.consVars(c)
	pos := s.pos[:len(vars)]
	for p, v := range vars {
		pos[p] = 0
		s.x[v] = 0
	}
	for {
		if !math.IsInf(s.g.EvalFactor(int(c.f), s.x), -1) {
			s.tuples = append(s.tuples, pos...)
		}
		p := len(vars) - 1
		for ; p >= 0; p-- {
			v := vars[p]
			if pos[p]++; pos[p] < s.size[v] {
				s.x[v] = float64(pos[p])
				break
			}
			pos[p] = 0
			s.x[v] = 0
		}
		if p < 0 {
			return
		}
	}
}
