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

// FeasibleState returns a state of positive probability: evidence at its
// values, every hard factor finite. Soft factors are always finite, so only
// hard factors (zeros of tables, constraints) can rule a state out.
//
// Discrete variables are assigned by depth-first search with forward
// checking: after each assignment, the values of a variable that would make
// a hard factor −Inf once it is the factor's last unassigned variable are
// removed, and the variable with the fewest remaining values is assigned
// next; values are tried in an order drawn from r, so different seeds give
// different starting states. Continuous variables are drawn uniformly and
// must then satisfy the hard factors, with up to maxNodes redraws overall.
// The search gives up after maxNodes assignments (≤ 0 means 10⁶) with an
// error suggesting an explicit initial state; it returns ErrNoFeasibleState
// when it has proved that none exists.
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
		maxNodes = 1_000_000
	}
	n := len(g.domains)
	for i, v := range given {
		switch {
		case i < 0 || i >= n:
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: variable %d out of range [0, %d)", i, n)
		case g.observed[i]:
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: variable %d is observed", i)
		case !g.domains[i].Contains(v):
			return nil, fmt.Errorf("factorgraph: FeasibleStateGiven: value %v of variable %d outside its domain %v", v, i, g.domains[i])
		}
	}
	s := &search{ctx: ctx, g: g, r: r, x: make([]float64, n), assigned: make([]bool, n), budget: maxNodes}
	s.allowed = make([][]bool, n)
	s.left = make([]int, n)
	for i, d := range g.domains {
		if v, ok := g.Observed(i); ok {
			s.x[i], s.assigned[i] = v, true
			continue
		}
		if v, ok := given[i]; ok {
			s.x[i], s.assigned[i] = v, true
			continue
		}
		if !d.IsDiscrete() {
			s.continuous = append(s.continuous, i)
			continue
		}
		s.allowed[i] = make([]bool, d.Size)
		for v := range s.allowed[i] {
			s.allowed[i][v] = true
		}
		s.left[i] = d.Size
	}
	// Continuous variables: redraw until their hard factors allow them.
	for _, i := range s.continuous {
		d := g.domains[i]
		s.x[i] = d.Lo + (d.Hi-d.Lo)*r.Float64()
		s.assigned[i] = true
	}
	// Evidence and continuous values may already prune discrete domains.
	for i := range n {
		if s.assigned[i] && !s.propagate(i) {
			if len(s.continuous) == 0 {
				return nil, ErrNoFeasibleState
			}
		}
	}
	found, err := s.solve()
	if err != nil {
		return nil, err
	}
	if !found {
		if len(s.continuous) > 0 {
			return nil, fmt.Errorf("factorgraph: found no state of positive probability for the drawn values of the continuous variables; pass an initial state")
		}
		return nil, ErrNoFeasibleState
	}
	return s.x, nil
}

type search struct {
	ctx        context.Context
	g          *Graph
	r          *rand.Rand
	x          []float64
	assigned   []bool
	allowed    [][]bool // remaining values of unassigned discrete variables
	left       []int    // number of remaining values
	trail      []prune  // removals to undo on backtracking
	continuous []int
	budget     int
	vars       []int // a factor's scope
}

type prune struct{ i, v int }

// scopeState reports whether factor f has all of its variables assigned,
// or exactly one unassigned (returned), or more.
func (s *search) unassigned(vars []int) (last int, count int) {
	last = -1
	for _, v := range vars {
		if !s.assigned[v] {
			last = v
			count++
		}
	}
	return last, count
}

// propagate checks the hard factors of A[i] after i was assigned: a fully
// assigned one must be finite, and one with a single unassigned variable j
// prunes the values of j that make it −Inf. It reports false on a dead end.
func (s *search) propagate(i int) bool {
	k := s.g.kern
	for p := k.HardStart[i]; p < k.HardStart[i+1]; p++ {
		f := int(k.Hard[p].Fac)
		s.vars = s.g.fs.vars(s.vars[:0], f)
		j, count := s.unassigned(s.vars)
		switch count {
		case 0:
			if math.IsInf(s.g.EvalFactor(f, s.x), -1) {
				return false
			}
		case 1:
			if s.allowed[j] == nil { // continuous: checked when drawn
				continue
			}
			for v, ok := range s.allowed[j] {
				if !ok {
					continue
				}
				s.x[j] = float64(v)
				if math.IsInf(s.g.EvalFactor(f, s.x), -1) {
					s.allowed[j][v] = false
					s.left[j]--
					s.trail = append(s.trail, prune{j, v})
				}
			}
			s.x[j] = 0
			if s.left[j] == 0 {
				return false
			}
		}
	}
	return true
}

// solve assigns the remaining discrete variables; it reports whether it
// found a feasible completion.
func (s *search) solve() (bool, error) {
	// Most constrained unassigned variable.
	best := -1
	for i, a := range s.allowed {
		if a != nil && !s.assigned[i] && (best < 0 || s.left[i] < s.left[best]) {
			best = i
		}
	}
	if best < 0 {
		return true, nil
	}
	i := best
	mark := len(s.trail)
	order := s.r.Perm(len(s.allowed[i]))
	for _, v := range order {
		if !s.allowed[i][v] {
			continue
		}
		if s.budget--; s.budget < 0 {
			return false, fmt.Errorf("factorgraph: gave up searching for a state of positive probability after the node budget; pass an initial state")
		}
		if s.budget%1024 == 0 {
			if err := s.ctx.Err(); err != nil {
				return false, fmt.Errorf("factorgraph: search for a state of positive probability: %w", err)
			}
		}
		s.x[i], s.assigned[i] = float64(v), true
		if s.propagate(i) {
			ok, err := s.solve()
			if ok || err != nil {
				return ok, err
			}
		}
		s.assigned[i] = false
		for _, p := range s.trail[mark:] {
			s.allowed[p.i][p.v] = true
			s.left[p.i]++
		}
		s.trail = s.trail[:mark]
	}
	s.x[i] = 0
	return false, nil
}
