package blocked

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/meter"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Blocked is exact blocked Gibbs sampling: each update draws a block B of
// variables jointly from its full conditional
//
//	π(x_B | x_−B) ∝ exp(Σ_{φ touching B} φ̃(x_B, x_−B)),
//
// the factors crossing the block's boundary entering with the variables
// outside it fixed. Updating strongly coupled or deterministically linked
// variables together is what lets a chain move where single-site updates
// freeze: blocking Gibbs was introduced for pedigrees by C. S. Jensen, A.
// Kong and U. Kjærulff ("Blocking Gibbs sampling in very large
// probabilistic expert systems", Int. J. Human-Computer Studies 42:647–666,
// 1995), and tree-shaped blocks on grids by F. Hamze and N. de Freitas
// ("From fields to trees", UAI 2004).
//
// The joint draw is sampling by variable elimination ("forward filtering,
// backward sampling"; A. P. Dawid, "Applications of a general propagation
// algorithm for probabilistic expert systems", Statistics and Computing
// 2:25–36, 1992). At each update every factor touching B is tabulated at
// every assignment of the block variables it reads, the others at their
// current values; tables reading the same block variables are summed.
// The variables of B are then eliminated in an order fixed at
// construction (of the min-fill order, the min-weight order and the order
// the block lists its variables in, the one with the smallest tables):
// the bucket of v sums the tables whose first eliminated variable is v
// into T_v(x_v, x_S) (S: the variables of those tables eliminated later)
// and passes the message m_v(x_S) = log Σ_{x_v} exp T_v(x_v, x_S) on, all
// in log space (−Inf for a zero of a hard factor, exact). Since π(x_B | x_−B) ∝ exp(Σ tables) and the later buckets hold
// exactly the messages of the earlier ones, π(x_v | x_later) ∝ exp
// T_v(x_v, x_S): the last eliminated variable is drawn from its table,
// then each earlier one from the row of its table at the values already
// drawn. The draw is exact, hard zeros included: no assignment of zero
// probability can be drawn, and the current one keeps the block's
// conditional from being empty (when it is, the update records an error
// naming the block).
//
// A block update costs the tabulation of the factors touching it (each
// evaluated at the assignments of the block variables it reads) plus
// O(Σ_v |T_v|) table operations, |T_v| ≤ Config.MaxTable; nothing is
// allocated per update. The tables of the factors that read no free
// variable outside the block never change: the first update keeps their
// sum and later ones copy it, evaluating only the factors that cross the
// boundary (the blocks in order while their tables fit in max(2²⁰, the
// scratch tables) entries in all, chosen at construction: a block's
// tables are summed in the same order in every run, resumed ones
// included) — 21–29% off an update of a chain of 1000 variables drawn as
// one block, 28–30% on Pedigree_11 and 14–18% on linkage_20 with blocks
// of width 4, none at width 12, where the elimination dominates (`go test
// -bench 'BlockedChain' ./bench`, `-bench BlockedUAI ./gibbs/blocked`).
// The soft factors crossing the boundary can instead enter through the
// Poisson auxiliaries of Algorithm 2 (Zhang & De Sa 2019), so that an
// update evaluates O(λ_B + L_B) of them, not all: on a model where every variable touches many weak factors the boundary is
// most of the work (see Boundary, Config.Boundary; exact by the same
// augmentation). Step updates the next block in a fixed cyclic order and
// returns −1 (chain.Any); Sweep updates every block once; Update(i)
// updates the first block holding i. Stats.Steps counts the variables
// resampled (a block of k variables adds k), Stats.Factors the factors
// tabulated (each factor touching the block once an update, as plain Gibbs
// counts a factor once for its D values; of a minibatched boundary, those
// with s_φ > 0), Stats.Picks the boundary minibatches' alias picks.
//
// With RecordConditionals on, each update also reports the marginal of
// every block variable given the variables outside the block, from a
// second (downward) pass over the elimination's tables (Conditionals):
// what chain.Marginals.RaoBlackwellise averages.
//
// Blocked samples discrete variables of a model that lists its factors (a
// *factorgraph.Graph). It implements chain.Interrupter: an update is
// interrupted between factor tabulations and buckets, before it writes the
// block, and an interrupted step or sweep leaves the sampler as it was.
type Blocked struct {
	base
	bm      blockModel
	blocks  [][]int // the blocks as given (or built)
	plans   []*blockPlan
	blockOf []int32 // the first block holding each free variable (−1: evidence)
	next    int     // the block the next Step updates

	// Scratch shared by the blocks: the tables, the block's values at the
	// update's start and as drawn, the odometer counters, a factor's values
	// at the D values of one variable.
	arena []float64
	// cache[b] (nil: block b is not cached) holds block b's potentials
	// of the factors that read no free variable outside it
	// (blockPlan.inside), tabulated at its first update (filled[b]):
	// they never change, and an update copies them instead of evaluating
	// those factors again. Which blocks are cached is fixed at
	// construction (setup), so that a block's tables are summed in the
	// same order in every run, resumed ones included.
	cache  [][]float64
	filled []bool
	saveB  []float64
	newB   []int32
	cnt    []int
	vals   []float64

	// The marginals of the last update's block (marginals.go): its
	// index (−1: none), each variable's marginal, views of them, and the
	// exponentiated belief of a bucket.
	condB   int
	condP   [][]float64
	condOut [][]float64
	lin     []float64

	// The Poisson-minibatched boundaries (boundary.go): the counts
	// s_φ of the current update and the draw's source.
	counts *minibatch.Counts
	src    boundarySource

	// lr learns the regions' blocks (Config.Regions; nil: none).
	lr *learner
}

var (
	_ gibbs.Sampler     = (*Blocked)(nil)
	_ chain.Snapshotter = (*Blocked)(nil)
	_ chain.Interrupter = (*Blocked)(nil)

	_ gibbs.SweepRunner     = (*Blocked)(nil)
	_ gibbs.StepsPerSweeper = (*Blocked)(nil)
)

// New returns a blocked Gibbs sampler on m drawing from r, with the
// blocks blocks.Build makes, of a width chosen from the model (see
// Config.MaxWidth). m must be a *factorgraph.Graph (a model listing
// its factors) of discrete variables. Only opt.Init, opt.MaxDraws (a block
// update's factor values and table entries are bounded by it) and, for
// minibatched boundaries, opt.Lambda and opt.LambdaScale (λ_B = Lambda, or
// LambdaScale·L_B², default L_B²) are used; opt may be nil.
func New(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Blocked, error) {
	return NewWith(m, r, opt, nil, Config{})
}

// NewWith is New with the blocks given: each a list of free
// variables, none twice in a block, every free variable in one block at
// least (blocks may overlap), and no block whose elimination needs a table
// larger than cfg.MaxTable. A block is eliminated in the best (by largest
// table, then entries in all) of its min-fill order, its min-weight order
// and the order it lists its variables in (blocks.Build lists them in an
// order that fits). An empty blocks means blocks.Build(m, cfg). Blocks that
// leave a variable of a hard factor fixed in every block holding it, by
// the factor's variables outside that block, are refused: no update would
// ever change it (the equality x0 = x1 with blocks {0} and {1}). Every
// error names the block, variable or factor at fault.
func NewWith(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options, sets [][]int, cfg Config) (*Blocked, error) {
	const name = "block"
	bm, ok := m.(blockModel)
	if !ok {
		if m == nil {
			return nil, fmt.Errorf("gibbs: %s: nil model", name)
		}
		return nil, fmt.Errorf("gibbs: %s: the model (%T) does not list its factors: blocked Gibbs runs on a *factorgraph.Graph", name, m)
	}
	if opt == nil {
		opt = &gibbs.Options{}
	}
	var plans []*blockPlan
	var err error
	switch {
	case len(sets) > 0:
		if err := blocks.Check(m, sets); err != nil {
			return nil, fmt.Errorf("gibbs: %s: %w", name, err)
		}
		if err := blocks.CheckCover(core.Context(opt), bm, sets); err != nil {
			return nil, fmt.Errorf("gibbs: %s: %w", name, err)
		}
		if cfg, err = cfg.withDefaults(); err != nil {
			return nil, fmt.Errorf("gibbs: %s: %w", name, err)
		}
		plans, err = compilePlans(bm, sets, cfg, opt)
	case cfg.MaxWidth == 0 && !cfg.Forests:
		var hard float64
		if hard, _, err = blocks.Stickiness(core.Context(opt), bm, stickyRange); err != nil {
			return nil, fmt.Errorf("gibbs: %s: %w", name, err)
		}
		sets, plans, _, err = chooseBlocks(bm, cfg, opt, hard)
	default:
		if cfg, err = cfg.withDefaults(); err != nil {
			return nil, fmt.Errorf("gibbs: %s: %w", name, err)
		}
		if sets, err = buildBlocks(core.Context(opt), bm, cfg); err != nil {
			return nil, err
		}
		plans, err = compilePlans(bm, sets, cfg, opt)
	}
	if err != nil {
		return nil, err
	}
	s, err := newBlocked(bm, r, opt, sets, plans)
	if err != nil || cfg.Regions <= 0 {
		return s, err
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		return nil, fmt.Errorf("gibbs: %s: %w", name, err)
	}
	s.lr = newLearner(s, cfg.Regions, cfg, *opt)
	return s, nil
}

// newBlocked returns a Blocked sampler on m with the blocks and their
// compiled plans.
func newBlocked(m blockModel, r *rand.Rand, opt *gibbs.Options, sets [][]int, plans []*blockPlan) (*Blocked, error) {
	c, err := core.NewCore("block", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	s := &Blocked{base: newBase(c), bm: m}
	s.setup(sets, plans)
	s.core().UpdateFn = s.Update
	return s, nil
}

// compilePlans compiles the updates of blocks and checks their work
// against opt.MaxDraws. It looks at opt.Context as it goes (about every
// millisecond of work) and returns its error, wrapped, once it is done.
func compilePlans(bm blockModel, sets [][]int, cfg Config, opt *gibbs.Options) ([]*blockPlan, error) {
	limit, err := core.MaxDrawsOf(opt)
	if err != nil {
		return nil, fmt.Errorf("gibbs: block: %w", err)
	}
	c := newCompiler(bm, meter.New(core.Context(opt), "gibbs: block: compiling the blocks"))
	if err := c.mt.Check(); err != nil {
		return nil, err
	}
	plans := make([]*blockPlan, len(sets))
	for b, blk := range sets {
		p, err := c.compileBlock(b, toInt32(blk), cfg.MaxTable)
		if err := c.mt.Err(); err != nil {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("gibbs: block: %w", err)
		}
		if err := planBoundary(p, cfg.Boundary, opt); err != nil {
			return nil, fmt.Errorf("gibbs: block: block %d: %w", b, err)
		}
		p.split()
		if p.work > limit {
			instead := "use smaller sets (Config.MaxWidth, MaxTable, MaxVars), or gibbs"
			if p.bnd != nil {
				instead = fmt.Sprintf("its minibatched boundary draws about %.2g factors (λ_B = %.3g, L_B = %.3g): use a smaller λ_B (Options.Lambda, LambdaScale) or BoundaryExact, or smaller sets",
					p.bnd.lambda+p.bnd.l, p.bnd.lambda, p.bnd.l)
			}
			return nil, core.TooMuch("block", fmt.Sprintf("evaluate about %.2g factor values and table entries (block %d: %d variables, elimination width %d, largest table %.4g entries)",
				p.work, b, len(p.vars), p.stats.Width, p.stats.MaxTable), limit, instead)
		}
		plans[b] = p
	}
	return plans, nil
}

// setup installs the blocks and their plans and allocates the scratch
// space.
func (s *Blocked) setup(sets [][]int, plans []*blockPlan) {
	s.blockOf = make([]int32, s.core().M.NumVars())
	for i := range s.blockOf {
		s.blockOf[i] = -1
	}
	arena, width, dims, maxD, maxN, nb := 0, 0, 1, 1, 0, 0
	for b, p := range plans {
		if p.bnd != nil {
			nb = max(nb, len(p.bnd.facs))
		}
		for l, v := range p.vars {
			if s.blockOf[v] < 0 {
				s.blockOf[v] = int32(b)
			}
			maxD = max(maxD, p.size[l])
		}
		s.blocks = append(s.blocks, slices.Clone(sets[b]))
		arena, width, dims = max(arena, p.arena), max(width, len(p.vars)), max(dims, p.maxDims())
		maxN = max(maxN, p.maxN)
	}
	s.plans = plans
	s.condB, s.lin = -1, make([]float64, maxN)
	s.counts = minibatch.NewCounts(max(nb, 1))
	s.condP, s.condOut = make([][]float64, width), make([][]float64, 0, width)
	for l := range s.condP {
		s.condP[l] = make([]float64, maxD)
	}
	s.arena = make([]float64, arena)
	s.cache, s.filled = make([][]float64, len(plans)), make([]bool, len(plans))
	n, left := 0, max(arena, minCache)
	for b, p := range plans {
		if len(p.inside) > 0 && p.potEnd <= left-n {
			n += p.potEnd
			s.cache[b] = make([]float64, 0, p.potEnd) // a mark: given its room below
		}
	}
	room := make([]float64, n)
	for b, p := range plans {
		if s.cache[b] != nil {
			s.cache[b], room = room[:p.potEnd:p.potEnd], room[p.potEnd:]
		}
	}
	s.saveB, s.newB = make([]float64, width), make([]int32, width)
	s.cnt, s.vals = make([]int, dims), make([]float64, maxD)
}

// Info describes a block of a Blocked sampler.
type Info struct {
	Vars     []int   // the block's variables, sorted
	Width    int     // the width of its elimination
	MaxTable float64 // its largest table, in entries
	Entries  float64 // the entries of all its tables
	Factors  int     // the factors touching it
	// Work is the factor values and table entries an update of the block
	// computes (the unit Options.MaxDraws bounds).
	Work float64
	// Boundary is the number of its soft boundary factors that enter
	// through Poisson auxiliaries (0: its boundary is exact), Lambda their
	// λ_B.
	Boundary int
	Lambda   float64
}

// Summary sums up a sampler's blocks (its JSON is `pgibbs uai`'s
// "blocks" object).
type Summary struct {
	Count    int     `json:"count"`
	MeanVars float64 `json:"mean_vars"`
	MaxVars  int     `json:"max_vars"`
	MaxWidth int     `json:"max_width"`
	MaxTable float64 `json:"max_table"`
	// Minibatched counts the blocks whose boundary is Poisson-minibatched.
	Minibatched int `json:"minibatched"`
}

// Summarise sums up the blocks bs (Blocked.Blocks): their number, mean and
// largest size, largest width and table, and how many have a
// Poisson-minibatched boundary.
func Summarise(bs []Info) Summary {
	b := Summary{Count: len(bs)}
	for _, x := range bs {
		b.MeanVars += float64(len(x.Vars)) / float64(len(bs))
		b.MaxVars, b.MaxWidth, b.MaxTable = max(b.MaxVars, len(x.Vars)), max(b.MaxWidth, x.Width), max(b.MaxTable, x.MaxTable)
		if x.Boundary > 0 {
			b.Minibatched++
		}
	}
	return b
}

// Sets returns the blocks as given to NewWith or built, each listing its
// variables in the order it came with (blocks.Build's, one that fits its
// MaxTable): NewWith(m2, r, opt, s.Sets(), cfg) builds the same blocks on
// a model of the same structure (a tempered copy) without searching for
// them or their orders again.
func (s *Blocked) Sets() [][]int {
	out := make([][]int, len(s.blocks))
	for b, set := range s.blocks {
		out[b] = slices.Clone(set)
	}
	return out
}

// Blocks describes the sampler's blocks, in the order Step updates them.
func (s *Blocked) Blocks() []Info {
	out := make([]Info, len(s.plans))
	for b, p := range s.plans {
		out[b] = Info{Vars: slices.Clone(p.ivars), Width: p.stats.Width, MaxTable: p.stats.MaxTable, Entries: p.stats.Entries, Factors: len(p.facs), Work: p.work}
		if p.bnd != nil {
			out[b].Boundary, out[b].Lambda = len(p.bnd.facs), p.bnd.lambda
		}
	}
	return out
}

// Step updates the next block (in cyclic order) and returns −1
// (chain.Any), or chain.Aborted if it was interrupted (the sampler is then
// as it was before it).
func (s *Blocked) Step() int {
	if s.core().Failure != nil {
		return chain.Any
	}
	if s.updateBlock(s.next) {
		s.core().Aborted = false
		return chain.Aborted
	}
	s.updated()
	s.next = (s.next + 1) % len(s.plans)
	return chain.Any
}

// Sweep updates every block once, from the next one in cyclic order. An
// interrupted sweep leaves the sampler as it was before it.
func (s *Blocked) Sweep() { s.RunSweep() }

// RunSweep is Sweep; it reports false if the sweep was interrupted (what a
// Sweeper's step runs).
func (s *Blocked) RunSweep() bool {
	if s.core().Done != nil {
		s.core().Saved = append(s.core().Saved[:0], s.core().X...)
	}
	st, next, n := s.core().Stat, s.next, len(s.plans)
	// A sweep draws every block: there is no single block's marginals to
	// report, so none are computed.
	defer func(on bool) { s.core().Recording, s.condB = on, -1 }(s.core().Recording)
	s.core().Recording = false
	for range s.plans {
		if s.core().Failure != nil {
			return true
		}
		if s.updateBlock(s.next) {
			copy(s.core().X, s.core().Saved)
			s.core().Stat, s.next, s.core().Aborted = st, next, false
			return false
		}
		s.next = (s.next + 1) % len(s.plans)
	}
	// The regions' windows count the sweep once it is whole (an
	// interrupted one leaves them as they were too).
	for range n {
		s.updated()
	}
	return true
}

// Update updates the first block holding variable i (a no-op for
// evidence).
func (s *Blocked) Update(i int) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	if s.updateBlock(int(s.blockOf[i])) {
		s.core().Aborted = false // the block was left as it was
	}
}

// updateBlock draws block b from its full conditional. It reports whether
// it was interrupted, in which case x and the counters are unchanged; an
// error is recorded (Err) and leaves x unchanged too.
func (s *Blocked) updateBlock(b int) (aborted bool) {
	p := s.plans[b]
	picks := s.core().Stat.Picks
	if (p.bnd != nil && !s.drawBoundary(p)) || !s.tabulate(b, p) || !s.forward(p) {
		s.core().Stat.Picks = picks
		return s.core().Aborted
	}
	// The marginals read the forward tables, before backward turns the rows
	// it draws from into weights.
	rb := s.core().Recording && s.blockMarginals(p)
	if !s.backward(b, p) {
		return false
	}
	for l, v := range p.vars {
		s.core().X[v] = float64(s.newB[l])
	}
	s.core().Stat.Steps += int64(len(p.vars))
	s.core().Stat.Factors += int64(p.nExact)
	if p.bnd != nil {
		s.core().Stat.Factors += int64(s.counts.Len())
	}
	s.reportMarginals(b, p, rb)
	return false
}

// tabulate fills the potentials of block b (plan p): every factor
// touching the block at every assignment of the block variables it reads.
// In a cached block (Blocked.cache) the factors that read no free
// variable outside it come first, their sum kept from the first update
// and copied by the later ones; in the others every factor is tabulated
// in the plan's order. It reports false after an error or an interrupt.
// It sets the block's variables of x while it works and puts them back
// before it returns, even if a factor panics.
func (s *Blocked) tabulate(b int, p *blockPlan) bool {
	save := s.saveB[:len(p.vars)]
	for l, v := range p.vars {
		save[l] = s.core().X[v]
	}
	defer func() {
		for l, v := range p.vars {
			s.core().X[v] = save[l]
		}
	}()
	pots := s.arena[:p.potEnd]
	switch c := s.cache[b]; {
	case c != nil && s.filled[b]:
		copy(pots, c)
		if s.core().Spend(p.potEnd) || !s.tabulateFactors(p, p.crossing) {
			return false
		}
	case c != nil:
		clear(pots)
		if !s.tabulateFactors(p, p.inside) {
			return false
		}
		copy(c, pots)
		s.filled[b] = true
		if !s.tabulateFactors(p, p.crossing) {
			return false
		}
	default:
		clear(pots)
		for k := range p.facs {
			fc := &p.facs[k]
			if fc.bnd >= 0 {
				continue // minibatched: below, if its count is positive
			}
			pt := &p.pots[fc.pot]
			if !s.tabulateFactor(p, fc, s.arena[pt.off:pt.off+pt.n], pt.scope, 0, 0) || s.core().Spend(pt.n) {
				return false
			}
		}
	}
	if bd := p.bnd; bd != nil {
		for _, k := range s.counts.Keys() {
			fc := &p.facs[bd.facs[k]]
			pt := &p.pots[fc.pot]
			if !s.tabulateFactor(p, fc, s.arena[pt.off:pt.off+pt.n], pt.scope, float64(s.counts.Count(int(k))), bd.inv[k]) || s.core().Spend(pt.n) {
				return false
			}
		}
	}
	return true
}

// minCache is the fewest entries the caches of tabulate may take in all
// (2²⁰: 8 MB); else as many as the sampler's scratch tables, the arena.
const minCache = 1 << 20

// tabulateFactors adds into p's potentials the factors facs[k] of list
// (blockPlan.inside or crossing).
func (s *Blocked) tabulateFactors(p *blockPlan, list []int32) bool {
	for _, k := range list {
		fc := &p.facs[k]
		pt := &p.pots[fc.pot]
		if !s.tabulateFactor(p, fc, s.arena[pt.off:pt.off+pt.n], pt.scope, 0, 0) || s.core().Spend(pt.n) {
			return false
		}
	}
	return true
}

// tabulateFactor adds the shifted values φ̃ of fc at every assignment of
// the block variables scope (local, scope[0] fastest) into t, checking
// each against the factor's range; or, for a minibatched boundary factor
// of count sc > 0, its term of the augmented conditional, sc·log(1 +
// φ̃·inv) with inv = 1/(aM_φ) (Boundary).
func (s *Blocked) tabulateFactor(p *blockPlan, fc *blockFactor, t []float64, scope []int32, sc, inv float64) bool {
	x := s.core().X
	v0, d0 := int(p.vars[scope[0]]), p.size[scope[0]]
	cnt := s.cnt[:len(scope)]
	for k := 1; k < len(scope); k++ {
		cnt[k] = 0
		x[p.vars[scope[k]]] = 0
	}
	vals := s.vals[:d0]
	for e := 0; e < len(t); e += d0 {
		if fc.cond != nil {
			fc.cond.Conditional(vals, x, v0)
		} else {
			for v := range vals {
				x[v0] = float64(v)
				vals[v] = fc.f.Value(x)
			}
		}
		row := t[e : e+d0]
		for v, val := range vals {
			sv := val - fc.shift
			if !(sv >= fc.lo && sv <= fc.hi) {
				s.core().Fail(factorgraph.CheckError(s.core().M, fc.i, fc.k, sv))
				return false
			}
			if sc > 0 {
				sv = sc * math.Log1p(sv*inv)
			}
			row[v] += sv
		}
		for k := 1; k < len(scope); k++ {
			u := p.vars[scope[k]]
			if cnt[k]++; cnt[k] < p.size[scope[k]] {
				x[u] = float64(cnt[k])
				break
			}
			cnt[k] = 0
			x[u] = 0
		}
	}
	return true
}

// forward eliminates the block's variables in order: each bucket sums its
// inputs, passes its message on and turns its table into the distributions
// of v given each row (conditionRows). It reports false if interrupted.
func (s *Blocked) forward(p *blockPlan) bool {
	for k := range p.buckets {
		bk := &p.buckets[k]
		t := s.arena[bk.off : bk.off+bk.n]
		clear(t)
		for _, in := range bk.ins {
			addInto(t, s.arena[in.src:], in.fdims, in.fstr, s.cnt)
		}
		var msg []float64
		if bk.msg >= 0 {
			msg = s.arena[bk.msg : bk.msg+bk.n/bk.dims[0]]
		}
		conditionRows(msg, t, bk.dims[0])
		if s.core().Spend(bk.n * (len(bk.ins) + 1)) {
			return false
		}
	}
	return true
}

// backward draws the block's variables in reverse elimination order into
// newB, each from the row of its table at the values already drawn. It
// reports false after recording an error.
func (s *Blocked) backward(b int, p *blockPlan) bool {
	for k := len(p.buckets) - 1; k >= 0; k-- {
		bk := &p.buckets[k]
		r := 0
		for j, o := range bk.others {
			r += int(s.newB[o]) * bk.ostr[j]
		}
		d := bk.dims[0]
		row := s.arena[bk.off+r*d : bk.off+(r+1)*d]
		v := core.DrawWeights(s.core().R.Float64(), row)
		if !(row[v] > 0) {
			s.core().Fail(fmt.Errorf("gibbs: block: block %d (%s): every assignment has zero probability given the variables outside it",
				b, blocks.VarList(s.blocks[b])))
			return false
		}
		s.newB[bk.v] = int32(v)
	}
	return true
}

// StepsPerSweep returns the free variables over the mean block size, at
// least 1: a Step updates the next block.
func (s *Blocked) StepsPerSweep() float64 {
	vars := 0
	for _, p := range s.plans {
		vars += len(p.vars)
	}
	return max(1, float64(len(s.core().Free))*float64(len(s.plans))/float64(max(vars, 1)))
}

// LocalUpdates reports false (see gibbs.Worker): a block update reads and
// writes far from one variable, so chromatic.New refuses it as a worker.
func (*Blocked) LocalUpdates() bool { return false }

// SnapshotKind returns "block", the kind of a Blocked's snapshots.
func (*Blocked) SnapshotKind() string { return "block" }

// blockedState is a Blocked snapshot: the chain's state, the block the
// next Step updates, and the blocks (checked on Restore).
type blockedState struct {
	core.ChainState
	Next   int     `json:"next"`
	Blocks [][]int `json:"blocks"`
	// Lambdas holds each block's λ_B (0: an exact boundary); absent when
	// every boundary is exact.
	Lambdas []float64 `json:"lambdas,omitempty"`
	// Learn holds the regions' windows (Config.Regions); absent without
	// them. Blocks then lists the blocks added so far after the others.
	Learn *learnState `json:"learn,omitempty"`
}

// lambdas returns each block's λ_B (0: an exact boundary), or nil if every
// boundary is exact.
func (s *Blocked) lambdas() []float64 {
	var out []float64
	for b, p := range s.plans {
		if p.bnd != nil {
			if out == nil {
				out = make([]float64, len(s.plans))
			}
			out[b] = p.bnd.lambda
		}
	}
	return out
}

// Snapshot implements Snapshotter; the state includes the next block.
func (s *Blocked) Snapshot() ([]byte, error) {
	if s.core().Failure != nil {
		return nil, fmt.Errorf("gibbs: snapshot of a chain that stopped on an error: %w", s.core().Failure)
	}
	return json.Marshal(blockedState{
		ChainState: core.ChainState{SnapshotHeader: core.Header(s.SnapshotKind()), X: s.core().X, Stats: s.core().Stat},
		Next:       s.next,
		Blocks:     s.blocks,
		Lambdas:    s.lambdas(),
		Learn:      s.lr.snapshot(),
	})
}

// Restore implements Snapshotter. The snapshot must come from a Blocked
// sampler with the same blocks.
func (s *Blocked) Restore(data []byte) error {
	var st blockedState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("gibbs: restore block: %w", err)
	}
	if st.Kind == s.SnapshotKind() {
		if err := s.restoreBlocks(st); err != nil {
			return err
		}
		if !slices.EqualFunc(st.Blocks, s.blocks, slices.Equal) {
			return fmt.Errorf("gibbs: restore block: the snapshot has other blocks (%d, the sampler %d)", len(st.Blocks), len(s.blocks))
		}
		if !slices.Equal(st.Lambdas, s.lambdas()) {
			return fmt.Errorf("gibbs: restore block: the snapshot's block boundaries (λ_B %v; none: exact) differ from the sampler's (%v)", st.Lambdas, s.lambdas())
		}
		if st.Next < 0 || st.Next >= len(s.plans) {
			return fmt.Errorf("gibbs: restore block: next block %d out of range [0, %d)", st.Next, len(s.plans))
		}
	}
	if _, err := s.core().RestoreState(s.SnapshotKind(), data); err != nil {
		return err
	}
	s.next = st.Next
	return nil
}

// int32sToInts returns v as a new []int.
func int32sToInts(v []int32) []int {
	out := make([]int, len(v))
	for k, u := range v {
		out[k] = int(u)
	}
	return out
}
