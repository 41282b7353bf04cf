package blocks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/meter"
)

// Frozen links: a cover of the free variables by update sets (single sites,
// or the blocks of a Blocked sampler) that never changes a variable of a
// hard factor. Take the equality constraint x0 = x1 and single-site
// updates: given x1, the only value of x0 with positive probability is x1's,
// and the other way round, so neither update ever changes anything and the
// chain stays in whichever of the two feasible assignments it starts —
// reducible, its averages answering for that assignment alone. Blocks {0}
// and {1} are the same; the block {0, 1} moves the pair. With x2 = x0 xor
// x1 and blocks {0, 1} and {2}, the first block moves x0 and x1 but keeps
// their xor, and x2 never changes.
//
// The test, for a hard factor φ with free scope S: let F be the assignments
// of S that φ and every other hard factor whose free scope lies inside S
// allow, over the values that survive arc consistency on all hard factors
// (a value with no support in some hard factor, given the other variables'
// surviving values, is never drawn). A variable v of S is frozen if it
// takes two values in F and, for every update set B holding v, its value
// in F is a function of the part of the assignment outside B: an update of
// B holds S \ B fixed and the current state is feasible, so it redraws v
// as it was; sets without v do not change it. A candidate is confirmed by
// a search for two states of positive probability with different values
// of v (factorgraph.Graph.FeasibleStateGiven): arc consistency is local,
// and a cycle of hard factors can pin v to one value that F lets vary. The
// test is sufficient, not necessary: a freeze that only several hard
// factors of different scopes make together is not seen, and factors whose
// free scope has more than frozenMaxEntries assignments are skipped.

// frozenMaxEntries bounds the assignments of a hard factor's free scope
// that the frozen-link test enumerates; frozenMaxWork bounds the factor
// evaluations of its arc-consistency pass (the pass stops early beyond it,
// which only prunes less).
const (
	frozenMaxEntries = 1 << 16
	frozenMaxWork    = 1 << 24
)

// ErrFrozen is what errors.Is finds in a sampler's refusal of update
// sets that never change a variable a hard factor fixes (FrozenSite,
// CheckCover): its chain would be reducible. Callers that choose among
// samplers (package infer) read it as a sign of deterministic links that
// blocks must hold together.
var ErrFrozen = errors.New("blocks: updates never change a variable a hard factor fixes")

// frozenLink is a variable of a hard factor that a cover never changes.
type frozenLink struct {
	name   string  // the factor, as Describe names it
	scope  []int   // its free scope
	v      int     // the variable
	values int     // the values v takes in feasible states (2 at least)
	sets   []int32 // the update sets holding v
}

// linkCheck is the state of one frozen-link test on a model.
type linkCheck struct {
	m       Model
	mt      *meter.Meter // looks at the context as the factors are evaluated
	x       []float64    // scratch state: evidence at its values
	clamped []bool
	allowed [][]bool // surviving values of each free discrete variable
	left    []int    // their number
	work    int      // factor evaluations
	ticked  int      // work counted by mt
	// reach caches reachable's searches: whether a state of positive
	// probability gives variable v value a (key v, a); budget bounds the
	// nodes of one search.
	reach  map[[2]int32]bool
	budget int

	// The hard factors with at least one free variable, by factor index:
	// their free scopes (nil when skipped: a continuous variable, too many
	// assignments) and a way to name them (variable i, position k in A[i]).
	facs   map[int]*hardFactor
	byVar  [][]int // the hard factors of each free variable
	queued map[int]bool
}

type hardFactor struct {
	scope []int // free variables of the scope, ascending
	i, k  int   // where Describe finds it
	ok    bool  // enumerable
}

// newLinkCheck collects m's hard factors and prunes the free variables'
// values by arc consistency, counting its work on mt (it returns mt's
// error). It returns nil when no hard factor links two free variables
// (nothing can freeze).
func newLinkCheck(mt *meter.Meter, m Model) (*linkCheck, error) {
	n := m.NumVars()
	lc := &linkCheck{m: m, mt: mt, clamped: make([]bool, n), facs: map[int]*hardFactor{}, reach: map[[2]int32]bool{}, budget: reachableBudget}
	for i := range n {
		_, lc.clamped[i] = m.Observed(i)
	}
	linked := false
	for _, i := range m.Free() {
		soft, hard := m.Degree(i)
		for k := soft; k < soft+hard; k++ {
			f := m.FactorIndex(i, k)
			if _, seen := lc.facs[f]; seen {
				continue
			}
			hf := &hardFactor{i: i, k: k, ok: true}
			for _, v := range FactorVars(m, nil, f) {
				if lc.clamped[v] {
					continue
				}
				hf.scope = append(hf.scope, v)
				if !m.Domain(v).IsDiscrete() {
					hf.ok = false
				}
			}
			slices.Sort(hf.scope)
			lc.facs[f] = hf
			linked = linked || len(hf.scope) >= 2
		}
	}
	if err := mt.Add(len(lc.facs)); err != nil {
		return nil, err
	}
	if !linked {
		return nil, nil
	}
	lc.x = make([]float64, n)
	lc.allowed = make([][]bool, n)
	lc.left = make([]int, n)
	lc.byVar = make([][]int, n)
	for i := range n {
		if v, ok := m.Observed(i); ok {
			lc.x[i] = v
		} else if d := m.Domain(i); d.IsDiscrete() {
			lc.allowed[i] = make([]bool, d.Size)
			for v := range lc.allowed[i] {
				lc.allowed[i][v] = true
			}
			lc.left[i] = d.Size
		}
	}
	ids := make([]int, 0, len(lc.facs))
	for f, hf := range lc.facs {
		if hf.ok && lc.entries(hf.scope) > frozenMaxEntries {
			hf.ok = false
		}
		if hf.ok {
			ids = append(ids, f)
		}
	}
	slices.Sort(ids) // a deterministic order of pruning and of reports
	for _, f := range ids {
		for _, v := range lc.facs[f].scope {
			lc.byVar[v] = append(lc.byVar[v], f)
		}
	}
	if err := lc.prune(ids); err != nil {
		return nil, err
	}
	return lc, nil
}

// tick counts the factor evaluations since the last tick on the meter and
// returns its error.
func (lc *linkCheck) tick() error {
	d := lc.work - lc.ticked
	lc.ticked = lc.work
	return lc.mt.Add(d + 1)
}

// entries returns the number of assignments of scope over the surviving
// values (as a float64: products may overflow).
func (lc *linkCheck) entries(scope []int) float64 {
	e := 1.0
	for _, v := range scope {
		e *= float64(max(lc.m.Domain(v).Size, 1))
	}
	return e
}

// each calls fn for every assignment of scope over the surviving values,
// with lc.x set to it; fn returns false to stop. It restores x and reports
// whether it ran to the end.
func (lc *linkCheck) each(scope []int, fn func() bool) bool {
	vals := make([]int, len(scope))
	for k, v := range scope {
		vals[k] = -1
		if !lc.advance(v, &vals[k]) {
			return true // a variable with no value left: no assignment
		}
	}
	defer func() {
		for _, v := range scope {
			lc.x[v] = 0
		}
	}()
	for {
		if !fn() {
			return false
		}
		k := len(scope) - 1
		for ; k >= 0; k-- {
			if lc.advance(scope[k], &vals[k]) {
				break
			}
			vals[k] = -1
			lc.advance(scope[k], &vals[k])
		}
		if k < 0 {
			return true
		}
	}
}

// advance moves *val to the next surviving value of v and sets x[v]; it
// reports false when none is left.
func (lc *linkCheck) advance(v int, val *int) bool {
	a := lc.allowed[v]
	for *val++; *val < len(a); *val++ {
		if a[*val] {
			lc.x[v] = float64(*val)
			return true
		}
	}
	return false
}

// allows reports whether the hard factor f is not −Inf at lc.x.
func (lc *linkCheck) allows(f int) bool {
	lc.work++
	return !math.IsInf(lc.m.Factor(f).Value(lc.x), -1)
}

// prune removes, until nothing changes or the work runs out, every value
// of a variable that some hard factor supports with no assignment of the
// other variables' surviving values (generalised arc consistency).
func (lc *linkCheck) prune(ids []int) error {
	queue := slices.Clone(ids)
	lc.queued = map[int]bool{}
	for _, f := range ids {
		lc.queued[f] = true
	}
	for len(queue) > 0 && lc.work < frozenMaxWork {
		f := queue[0]
		queue = queue[1:]
		lc.queued[f] = false
		if err := lc.tick(); err != nil {
			return err
		}
		scope := lc.facs[f].scope
		support := make([][]bool, len(scope))
		for k, v := range scope {
			support[k] = make([]bool, len(lc.allowed[v]))
		}
		lc.each(scope, func() bool {
			if lc.allows(f) {
				for k, v := range scope {
					support[k][int(lc.x[v])] = true
				}
			}
			return true
		})
		for k, v := range scope {
			changed := false
			for val, ok := range lc.allowed[v] {
				if ok && !support[k][val] {
					lc.allowed[v][val] = false
					lc.left[v]--
					changed = true
				}
			}
			if lc.left[v] == 0 {
				return nil // no feasible state: the constructor says so elsewhere
			}
			if changed {
				for _, g := range lc.byVar[v] {
					if g != f && !lc.queued[g] {
						lc.queued[g] = true
						queue = append(queue, g)
					}
				}
			}
		}
	}
	return nil
}

// frozen returns the first variable (by factor index, then variable) of a
// hard factor that the cover never changes, or nil. setsOf(v) lists the
// update sets holding free variable v.
func (lc *linkCheck) frozen(setsOf func(v int) []int32) (*frozenLink, error) {
	for _, f := range lc.links() {
		if fl, err := lc.frozenAt(f, setsOf); fl != nil || err != nil {
			return fl, err
		}
	}
	return nil, nil
}

// links returns the enumerable hard factors of two free variables or
// more, in factor order.
func (lc *linkCheck) links() []int {
	var ids []int
	for f, hf := range lc.facs {
		if hf.ok && len(hf.scope) >= 2 {
			ids = append(ids, f)
		}
	}
	slices.Sort(ids)
	return ids
}

// frozenAt returns the first variable of hard factor f that the cover never
// changes, or nil (see the comment at the top of the file); or the meter's
// error.
func (lc *linkCheck) frozenAt(f int, setsOf func(v int) []int32) (*frozenLink, error) {
	if err := lc.tick(); err != nil {
		return nil, err
	}
	hf := lc.facs[f]
	scope := hf.scope
	// A set holding the whole scope can move each of its variables that
	// takes two values in F: the fast path.
	for _, b := range setsOf(scope[0]) {
		all := true
		for _, v := range scope[1:] {
			all = all && slices.Contains(setsOf(v), b)
		}
		if all {
			return nil, nil
		}
	}
	feasible := lc.feasible(scope)
	if err := lc.tick(); err != nil || len(feasible) < 2 {
		return nil, err
	}
	in := make([]bool, len(scope))
	for k, v := range scope {
		if distinct(feasible, k) < 2 {
			continue
		}
		fixed := true
		for _, b := range setsOf(v) {
			for l, u := range scope {
				in[l] = slices.Contains(setsOf(u), b)
			}
			if !determined(feasible, in, k, lc.m, scope) {
				fixed = false
				break
			}
		}
		if !fixed {
			continue
		}
		n, err := lc.reachable(v, feasible, k)
		if err != nil {
			return nil, err
		}
		if n >= 2 {
			name, _, _ := lc.m.Describe(hf.i, hf.k)
			return &frozenLink{name: name, scope: scope, v: v, values: n, sets: setsOf(v)}, nil
		}
	}
	return nil, nil
}

// feasible returns F for scope: the assignments (over the surviving values)
// that every hard factor whose free scope lies inside scope allows.
func (lc *linkCheck) feasible(scope []int) [][]int32 {
	var inside []int
	for _, v := range scope {
		for _, g := range lc.byVar[v] {
			if !slices.Contains(inside, g) && subset(lc.facs[g].scope, scope) {
				inside = append(inside, g)
			}
		}
	}
	var out [][]int32
	lc.each(scope, func() bool {
		for _, g := range inside {
			if !lc.allows(g) {
				return true
			}
		}
		a := make([]int32, len(scope))
		for k, v := range scope {
			a[k] = int32(lc.x[v])
		}
		out = append(out, a)
		return true
	})
	return out
}

// distinct returns the number of values entry k takes over a.
func distinct(a [][]int32, k int) int {
	var seen []int32
	for _, t := range a {
		if !slices.Contains(seen, t[k]) {
			seen = append(seen, t[k])
		}
	}
	return len(seen)
}

// determined reports whether, over the assignments a of scope, entry k is
// a function of the entries where in is not set (k's own is).
func determined(a [][]int32, in []bool, k int, m Model, scope []int) bool {
	size := 1
	for l, v := range scope {
		if !in[l] {
			size *= m.Domain(v).Size
		}
	}
	val := make([]int32, size)
	for i := range val {
		val[i] = -1
	}
	for _, t := range a {
		key := 0
		for l, v := range scope {
			if !in[l] {
				key = key*m.Domain(v).Size + int(t[l])
			}
		}
		switch val[key] {
		case -1:
			val[key] = t[k]
		case t[k]:
		default:
			return false
		}
	}
	return true
}

// reachableBudget bounds the search nodes of one check that a value of a
// frozen variable has a feasible state, where a search that gives up can
// refuse a cover (FrozenSite, CheckCover: the value counts as reachable);
// coverBudget where it can only add a block that was not needed
// (coverLinks). On the pedigree and linkage models the searches gave up
// (100 000 nodes took about 0.1 s a search) until they kept arc
// consistency (issue 34): now every value of every variable of linkage_13
// and linkage_16 is decided within reachableBudget, the slowest in 60 ms.
const (
	reachableBudget = 100_000
	coverBudget     = 10_000
)

// givenSearcher is a model that can search for a state of positive
// probability with some variables given (factorgraph.Graph).
type givenSearcher interface {
	FeasibleStateGiven(ctx context.Context, r *rand.Rand, maxNodes int, given map[int]float64) ([]float64, error)
}

// reachable returns how many of the values entry k of F takes (at most 2
// are looked for) some state of positive probability gives variable v: the
// arc consistency of newLinkCheck is local, and a cycle of hard factors
// can pin a variable to one value that F still lets vary. Without a model
// that searches (factorgraph.Graph.FeasibleStateGiven), or when a search
// gives up, a value counts as reachable. Each search's answer is kept for
// the other factors holding v, and a state it finds answers for the value
// of every free variable in it (most later questions need no search). It
// returns the meter's context's error, wrapped, if a search stops on it.
func (lc *linkCheck) reachable(v int, feasible [][]int32, k int) (int, error) {
	fs, ok := lc.m.(givenSearcher)
	ctx := lc.mt.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	n := 0
	var tried []int32
	for _, t := range feasible {
		if slices.Contains(tried, t[k]) {
			continue
		}
		tried = append(tried, t[k])
		key := [2]int32{int32(v), t[k]}
		reach, known := lc.reach[key]
		if !known {
			reach = true
			if ok {
				r := rand.New(rand.NewPCG(uint64(v), uint64(t[k])<<32|0xf502e))
				x, err := fs.FeasibleStateGiven(ctx, r, lc.budget, map[int]float64{v: float64(t[k])})
				if ctx.Err() != nil {
					return 0, fmt.Errorf("blocks: frozen links: search for a state with variable %d = %d: %w", v, t[k], ctx.Err())
				}
				reach = !errors.Is(err, factorgraph.ErrNoFeasibleState)
				if err == nil {
					// The state found gives every free variable its value
					// in a state of positive probability.
					for _, u := range lc.m.Free() {
						lc.reach[[2]int32{int32(u), int32(x[u])}] = true
					}
				}
			}
			lc.reach[key] = reach
		}
		if !reach {
			continue
		}
		if n++; n == 2 {
			break
		}
	}
	return n, nil
}

// subset reports whether every element of a (ascending) is in b
// (ascending).
func subset(a, b []int) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			return false
		}
	}
	return true
}

// Frozen is a variable of a hard factor that single-site updates never
// change (see FrozenSite).
type Frozen struct {
	Var    int    // the variable
	Factor string // the factor, as factorgraph.Describe names it
	Scope  []int  // the factor's free variables
}

// FrozenSite returns a variable that updates of one variable at a time
// would never change, fixed by a hard factor given the factor's other
// variables although it takes more than one value in states of positive
// probability, or nil if the test (above) finds none. A model that does
// not list its factors has none found. The test's searches look at ctx:
// FrozenSite returns its error, wrapped, once it is done.
func FrozenSite(ctx context.Context, m factorgraph.Model) (*Frozen, error) {
	bm, ok := m.(Model)
	if !ok {
		return nil, nil
	}
	mt := meter.New(ctx, "blocks: FrozenSite")
	lc, err := newLinkCheck(mt, bm)
	if lc == nil || err != nil {
		return nil, err
	}
	fl, err := lc.frozen(func(v int) []int32 { return []int32{int32(v)} })
	if fl == nil || err != nil {
		return nil, err
	}
	return &Frozen{Var: fl.v, Factor: fl.name, Scope: fl.scope}, nil
}

// VarList names the variables vars in a message, the first few only.
func VarList(vars []int) string {
	if len(vars) <= 8 {
		return fmt.Sprintf("variables %v", vars)
	}
	return fmt.Sprintf("%d variables %v …", len(vars), vars[:8])
}

// blocksOf returns, for each variable, the blocks holding it.
func blocksOf(n int, blocks [][]int) [][]int32 {
	of := make([][]int32, n)
	for b, blk := range blocks {
		for _, v := range blk {
			of[v] = append(of[v], int32(b))
		}
	}
	return of
}

// CheckCover refuses user blocks that leave a variable of a hard factor
// fixed in every block holding it, naming the factor, the variable and
// the blocks. Its searches look at ctx: it returns ctx's error, wrapped,
// once it is done.
func CheckCover(ctx context.Context, m Model, blocks [][]int) error {
	lc, err := newLinkCheck(meter.New(ctx, "blocks: CheckCover"), m)
	if lc == nil || err != nil {
		return err
	}
	of := blocksOf(m.NumVars(), blocks)
	fl, err := lc.frozen(func(v int) []int32 { return of[v] })
	if fl == nil || err != nil {
		return err
	}
	var sets []string
	for _, b := range fl.sets {
		sets = append(sets, fmt.Sprintf("%d {%s}", b, VarList(blocks[b])))
	}
	return fmt.Errorf("hard %s fixes variable %d in every block holding it (%s) given the factor's variables outside the block, yet it takes more than one value in states of positive probability: no update ever changes it, so the chain would stay in the value it starts in; put the factor's %s in one block",
		fl.name, fl.v, strings.Join(sets, ", "), VarList(fl.scope))
}

// coverLinks returns blocks extended, for every hard factor with a
// variable that they would never change, by a block of the factor's free
// variables (a new block never freezes another variable: it only adds a
// way to move one). A factor whose variables' joint table exceeds maxTable
// entries is an error naming it; so is mt's.
func coverLinks(mt *meter.Meter, m Model, blocks [][]int, maxTable int) ([][]int, error) {
	lc, err := newLinkCheck(mt, m)
	if lc == nil || err != nil {
		return blocks, err
	}
	lc.budget = coverBudget
	of := blocksOf(m.NumVars(), blocks)
	setsOf := func(v int) []int32 { return of[v] }
	for _, f := range lc.links() {
		fl, err := lc.frozenAt(f, setsOf)
		if err != nil {
			return nil, err
		}
		if fl == nil {
			continue
		}
		if e := lc.entries(fl.scope); e > float64(maxTable) {
			return nil, fmt.Errorf("blocks: hard %s fixes variable %d block by block, and a block holding the factor's %s needs a table of %.0f entries, more than MaxTable = %d: raise MaxTable",
				fl.name, fl.v, VarList(fl.scope), e, maxTable)
		}
		b := int32(len(blocks))
		blocks = append(blocks, slices.Clone(fl.scope))
		for _, v := range fl.scope {
			of[v] = append(of[v], b)
		}
	}
	return blocks, nil
}
