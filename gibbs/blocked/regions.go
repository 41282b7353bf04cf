package blocked

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/blocks"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// Regions: blocks over what the chain moves together (Config.Regions).
//
// A fixed cover of width-bounded blocks can split a metastable region — a
// set of strongly coupled variables whose joint flip is likely but whose
// piecewise flips are not (a superpixel region of a segmentation model
// whose label is uncertain) — so that every block holds part of it, the
// part outside pins the rest, and the chain crosses between the region's
// states rarely. The blocks' structure cannot see such a region (it is a
// matter of the fields and the entropy, not of the links); the chain can:
// its variables move together. Following Turek et al. ("Automated
// parameter blocking for efficient Markov chain Monte Carlo sampling",
// Bayesian Analysis 12:465–490, 2017), who block by the empirical
// correlations of a pilot, the sampler watches windows of its own sweeps
// — [K/2, K), [K, 2K), [2K, 4K), … for K = Config.Regions, at most
// regionChecks of them — and at each window's end links two neighbouring
// variables whose moves away from the window's first state correlate at
// regionCorr or more, and adds a block for each linked set of two or
// more variables that no block holds whole (in place of the added blocks
// it holds: a region seen whole after a part of it), whose elimination fits the
// cover's MaxTable and whose updates, with the other added blocks', cost
// at most regionWork times a sweep of the cover.
//
// Each change happens at a fixed sweep, from one cycle of exact block
// updates to another, both leaving the target invariant; after the last
// window (sweep 2⁷K at the latest) the chain is a fixed exact blocked
// Gibbs chain. The draws before it come from at most eight such cycles in
// turn, whose choice depended on the chain's past: like a burn-in's they
// weigh less and less in a run's averages, Rao–Blackwellised ones
// included. Snapshots carry the added blocks and the open window's
// counts: a resumed chain continues bit for bit.
const (
	regionCorr   = 0.5
	regionWork   = 2.0
	regionChecks = 8
	// regionScope bounds the factors whose variables are paired: larger
	// scopes would cost their size squared.
	regionScope = 8
)

// learner holds the windows' counts (what a snapshot records) and what
// they are counted over.
type learner struct {
	learnState
	free   []int32 // the free variables
	pos    []int32 // variable → index in free (−1: evidence)
	pu, pv []int32 // the pairs, as indices into free
	away   []bool
	first  int     // the blocks of the cover; the added ones follow
	cover  float64 // the work of a sweep of the cover
	cfg    Config
	opt    gibbs.Options
}

// newLearner returns the learner of s's chain, watching windows from
// sweep k/2.
func newLearner(s *Blocked, k int, cfg Config, opt gibbs.Options) *learner {
	m := s.bm
	lr := &learner{learnState: learnState{K: int64(k), Start: int64(k / 2), End: int64(k)}, cfg: cfg, opt: opt}
	lr.opt.Context, lr.opt.Init = nil, nil
	lr.pos = make([]int32, m.NumVars())
	for i := range lr.pos {
		lr.pos[i] = -1
	}
	for _, i := range m.Free() {
		lr.pos[i] = int32(len(lr.free))
		lr.free = append(lr.free, int32(i))
	}
	mark := make([]int32, len(lr.free)) // mark[v] = u+1: the pair (u, v) is listed
	var vars []int
	var nb []int32
	for u, i := range lr.free {
		soft, hard := m.Degree(int(i))
		nb = nb[:0]
		for k := range soft + hard {
			vars = blocks.FactorVars(m, vars[:0], m.FactorIndex(int(i), k))
			if len(vars) > regionScope {
				continue
			}
			for _, w := range vars {
				if v := lr.pos[w]; v > int32(u) && mark[v] != int32(u)+1 {
					mark[v] = int32(u) + 1
					nb = append(nb, v)
				}
			}
		}
		slices.Sort(nb)
		for _, v := range nb {
			lr.pu, lr.pv = append(lr.pu, int32(u)), append(lr.pv, v)
		}
	}
	lr.Moved, lr.Co, lr.away = make([]int32, len(lr.free)), make([]int32, len(lr.pu)), make([]bool, len(lr.free))
	for _, p := range s.plans {
		lr.cover += p.work
	}
	lr.first = len(s.plans)
	if lr.Start == 0 {
		lr.Ref = slices.Clone(s.core().X)
	}
	return lr
}

// updated counts a block update of s and, at the end of a sweep, watches
// it (at a window's end, adds the blocks it found).
func (s *Blocked) updated() {
	lr := s.lr
	if lr == nil || lr.End == 0 {
		return
	}
	if lr.Ups++; lr.Ups < len(s.plans) {
		return
	}
	lr.Ups = 0
	lr.Sweeps++
	x := s.core().X
	switch {
	case lr.Sweeps < lr.Start:
		return
	case lr.Ref == nil:
		lr.Ref = slices.Clone(x)
		return
	}
	for k, i := range lr.free {
		a := x[i] != lr.Ref[i]
		lr.away[k] = a
		if a {
			lr.Moved[k]++
		}
	}
	for p, u := range lr.pu {
		if lr.away[u] && lr.away[lr.pv[p]] {
			lr.Co[p]++
		}
	}
	if lr.Sweeps < lr.End {
		return
	}
	s.addRegions(lr.Sweeps - lr.Start)
	lr.Checks++
	lr.Start, lr.End = lr.Sweeps, 2*lr.Sweeps
	if lr.Checks >= regionChecks {
		lr.End = 0
	}
	lr.Ref = append(lr.Ref[:0], x...)
	clear(lr.Moved)
	clear(lr.Co)
}

// regions returns the sets of free variables whose moves over a window of
// t sweeps correlate (see the package's Regions), each sorted, of two
// variables or more, the largest first.
func (lr *learner) regions(t int64) [][]int {
	parent := make([]int32, len(lr.free))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	T := float64(t)
	for p, u := range lr.pu {
		v := lr.pv[p]
		a, b, c := float64(lr.Moved[u]), float64(lr.Moved[v]), float64(lr.Co[p])
		if a < 2 || b < 2 || a > T-2 || b > T-2 {
			continue
		}
		if (c*T-a*b)/math.Sqrt(a*(T-a)*b*(T-b)) >= regionCorr {
			parent[find(u)] = find(v)
		}
	}
	sets := map[int32][]int{}
	for k := range lr.free {
		r := find(int32(k))
		sets[r] = append(sets[r], int(lr.free[k]))
	}
	var out [][]int
	for _, set := range sets {
		if len(set) > 1 {
			slices.Sort(set)
			out = append(out, set)
		}
	}
	slices.SortFunc(out, func(a, b []int) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return slices.Compare(a, b)
	})
	return out
}

// addRegions adds the blocks the window of t sweeps found: each linked
// set that no block holds whole, in place of the added blocks it holds
// (a region seen whole after a part of it), within the work bound.
func (s *Blocked) addRegions(t int64) {
	lr := s.lr
	sets, plans := s.Sets()[lr.first:], slices.Clone(s.plans[lr.first:])
	changed := false
	for _, set := range lr.regions(t) {
		if len(set) > lr.cfg.MaxVars || s.coverHolds(set) || slices.ContainsFunc(sets, func(b []int) bool { return within(set, b) }) {
			continue
		}
		ps, err := compilePlans(s.bm, [][]int{set}, lr.cfg, &lr.opt)
		if err != nil {
			continue
		}
		work := ps[0].work
		var keep [][]int
		var keepP []*blockPlan
		for k, b := range sets {
			if !within(b, set) {
				keep, keepP = append(keep, b), append(keepP, plans[k])
				work += plans[k].work
			}
		}
		if work > regionWork*lr.cover {
			continue
		}
		sets, plans, changed = append(keep, set), append(keepP, ps[0]), true
		lr.Added = work
	}
	if changed {
		s.setAdded(sets, plans)
	}
}

// within reports whether every variable of a (sorted) is in b (sorted).
func within(a, b []int) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			return false
		}
	}
	return true
}

// coverHolds reports whether a block of the cover (the blocks before any
// was added) holds every variable of set.
func (s *Blocked) coverHolds(set []int) bool {
	for _, p := range s.plans[:s.lr.first] {
		if !slices.ContainsFunc(set, func(v int) bool { _, ok := slices.BinarySearch(p.ivars, v); return !ok }) {
			return true
		}
	}
	return false
}

// setAdded makes sets (compiled as plans) the blocks added to s's cover.
func (s *Blocked) setAdded(sets [][]int, plans []*blockPlan) {
	first := s.lr.first
	all, ps := s.Sets()[:first], slices.Clone(s.plans[:first])
	s.blocks = nil
	s.setup(append(all, sets...), append(ps, plans...))
	if s.next >= len(s.plans) {
		s.next = 0
	}
	if regionHook != nil {
		regionHook(s, first)
	}
}

// regionHook, if set (by tests), is called with the first added block
// after each change of the added blocks.
var regionHook func(s *Blocked, first int)

// check reports an error unless set lists distinct free variables, two
// or more.
func (lr *learner) check(set []int) error {
	if len(set) < 2 {
		return fmt.Errorf("%d variables, want 2 or more", len(set))
	}
	for k, v := range set {
		if v < 0 || v >= len(lr.pos) || lr.pos[v] < 0 {
			return fmt.Errorf("variable %d is not a free variable", v)
		}
		if slices.Contains(set[:k], v) {
			return fmt.Errorf("variable %d twice", v)
		}
	}
	return nil
}

// learnState is the windows' counts, a snapshot's record of them
// (blockedState.Learn).
type learnState struct {
	K      int64   `json:"k"`      // Config.Regions
	Ups    int     `json:"ups"`    // block updates into the current sweep
	Sweeps int64   `json:"sweeps"` // sweeps completed
	Start  int64   `json:"start"`  // the open window's first sweep
	End    int64   `json:"end"`    // its end: the check (0: no more windows)
	Checks int     `json:"checks"` // the windows closed
	Added  float64 `json:"added"`  // the work of the added blocks
	// Ref is the state at the window's start (nil before K/2), Moved the
	// window's sweeps each free variable was away from it, Co those both
	// variables of each pair were.
	Ref   []float64 `json:"ref,omitempty"`
	Moved []int32   `json:"moved"`
	Co    []int32   `json:"co"`
}

// snapshot returns lr's record.
func (lr *learner) snapshot() *learnState {
	if lr == nil {
		return nil
	}
	st := lr.learnState
	return &st
}

// restoreBlocks restores the regions' blocks and windows of a snapshot
// whose first blocks are s's (others are refused by Restore).
func (s *Blocked) restoreBlocks(st blockedState) error {
	if s.lr == nil && st.Learn == nil {
		return nil
	}
	if len(st.Blocks) < len(s.blocks) || !slices.EqualFunc(st.Blocks[:len(s.blocks)], s.blocks, slices.Equal) {
		return nil
	}
	return s.restoreRegions(st.Blocks, st.Learn)
}

// restoreRegions takes a snapshot's added blocks and windows into s,
// whose blocks are the snapshot's first ones.
func (s *Blocked) restoreRegions(blks [][]int, st *learnState) error {
	lr := s.lr
	switch {
	case lr == nil && st == nil:
		return nil
	case lr == nil || st == nil || st.K != lr.K:
		return fmt.Errorf("gibbs: restore block: the snapshot's regions (Config.Regions) differ from the sampler's")
	case len(st.Moved) != len(lr.Moved) || len(st.Co) != len(lr.Co) || st.Ref != nil && len(st.Ref) != len(s.core().X):
		return fmt.Errorf("gibbs: restore block: the snapshot's region counts do not fit the model")
	}
	if extra := blks[len(s.blocks):]; len(extra) > 0 {
		for b, set := range extra {
			if err := lr.check(set); err != nil {
				return fmt.Errorf("gibbs: restore block: added block %d: %w", len(s.blocks)+b, err)
			}
		}
		plans, err := compilePlans(s.bm, extra, lr.cfg, &lr.opt)
		if err != nil {
			return fmt.Errorf("gibbs: restore block: %w", err)
		}
		s.setAdded(extra, plans)
	}
	moved, co := lr.Moved, lr.Co
	lr.learnState = *st
	lr.Ref, lr.Moved, lr.Co = slices.Clone(st.Ref), moved, co
	copy(lr.Moved, st.Moved)
	copy(lr.Co, st.Co)
	return nil
}
