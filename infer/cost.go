package infer

import (
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
)

// The cost model prices a sampler's work in nanoseconds from its counters,
// so that a pilot's cost — and so the choice — is the same on every
// machine for a seed. The constants were fitted on this project's 2-core
// machine kind (BenchmarkCostModel sets the model against the clock on
// shared UAI models: `go test -run '^$' -bench CostModel ./infer`):
//
//	single-site (Auto)   costSite per update + costValue per factor value (factors × D) + costPick per minibatch draw;
//	                     on binary Potts pairs and fields (binaryRows) costRow per factor instead of costValue × 2
//	blocked              costBlock per block update + costEntry per table entry of its elimination + costTab per factor value it tabulates
//	cluster (SW, Wolff)  costCluster per site update + costEvent per bond event
//	exchange             its replicas' counters summed, priced as its β = 1 replica's sampler
const (
	costSite    = 50
	costValue   = 5
	costPick    = 20
	costBlock   = 400
	costEntry   = 22
	costTab     = 10
	costCluster = 36
	costEvent   = 16
	// costRow prices a factor of a binary variable's row of Potts pairs
	// and fields, which plain Gibbs sums in locals: on a UAI K₂₅₀,₂₅₀ of
	// such rows an update took 0.38 µs for 251 entries, where costValue ×
	// 2 priced it at 2.5 µs and blocks near their clock — single sites
	// ranked 7 times too dear beside spanning forests.
	costRow = 1.5
)

// stepCost returns the cost model's estimate of one step of smp, a
// sampler of g, before it runs (the pilot's length follows from it).
func stepCost(g *factorgraph.Graph, smp gibbs.Sampler) float64 {
	switch s := unwrap(smp).(type) {
	case *blocked.Blocked:
		total := 0.0
		bs := s.Blocks()
		for _, b := range bs {
			total += blockCost(b)
		}
		return total / float64(len(bs))
	case *cluster.SwendsenWang:
		return costCluster*float64(len(g.Free())) + costEvent*pairSum(g)
	case *cluster.Wolff:
		return wolffSweepCost(g)
	case *exchange.Exchange:
		// A step of every replica, the log-Z tail's as often as it runs
		// (the rounds of swaps, a factor value a factor and replica a
		// sweep, are left out).
		return s.Load() * stepCost(g, s.Replica(0))
	}
	if binaryRows(g) {
		return costSite + costRow*meanValues(g)/2
	}
	return costSite + costValue*meanValues(g)
}

// binaryRows reports whether every free variable of g is binary and every
// soft factor a Potts pair or a field, with no hard factor
// (Graph.PairsAndFields): single-site updates then cost costRow a factor.
func binaryRows(g *factorgraph.Graph) bool {
	if !g.PairsAndFields() {
		return false
	}
	for _, i := range g.Free() {
		if g.Domain(i).Size != 2 {
			return false
		}
	}
	return true
}

// wolffSweepCost is stepCost of a Wolff sampler on g: a tuned step
// updates about a sweep's worth of sites.
func wolffSweepCost(g *factorgraph.Graph) float64 {
	return costCluster*float64(len(g.Free())) + costEvent*2*pairSum(g)
}

// costOf returns the cost model's price of what smp, a sampler of g, did
// between the counters before and after.
func costOf(g *factorgraph.Graph, smp gibbs.Sampler, before, after gibbs.Stats) float64 {
	updates := float64(after.Steps - before.Steps)
	switch s := unwrap(smp).(type) {
	case *blocked.Blocked:
		// Per variable updated: the blocks' cost over their sizes.
		cost, vars := 0.0, 0
		for _, b := range s.Blocks() {
			cost += blockCost(b)
			vars += len(b.Vars)
		}
		return updates * cost / float64(max(vars, 1))
	case *cluster.SwendsenWang, *cluster.Wolff:
		return costCluster*updates + costEvent*float64(after.Picks-before.Picks)
	case *exchange.Exchange:
		// The replicas' counters summed, priced as the β = 1 replica's.
		return costOf(g, s.Replica(0), before, after)
	}
	perFactor := costValue * meanDomain(g)
	if binaryRows(g) {
		perFactor = costRow
	}
	return costSite*updates + perFactor*float64(after.Factors-before.Factors) + costPick*float64(after.Picks-before.Picks)
}

// blockCost returns the cost model's price of one update of block b.
func blockCost(b blocked.Info) float64 {
	return costBlock + costEntry*b.Entries + costTab*max(b.Work-b.Entries, 0)
}

// meanValues returns the mean over free variables of |A[i]|·D_i, the
// factor values of a single-site update.
func meanValues(g *factorgraph.Graph) float64 {
	w := 0.0
	for _, i := range g.Free() {
		soft, hard := g.Degree(i)
		w += float64(soft+hard) * float64(max(g.Domain(i).Size, 1))
	}
	return w / float64(max(len(g.Free()), 1))
}

// meanDomain returns the mean domain size of the free variables.
func meanDomain(g *factorgraph.Graph) float64 {
	d := 0.0
	for _, i := range g.Free() {
		d += float64(max(g.Domain(i).Size, 1))
	}
	return d / float64(max(len(g.Free()), 1))
}

// pairSum returns Σ M_φ over the soft factors of two free variables or
// more (an upper bound on a sweep's bond events, Σ K_ij).
func pairSum(g *factorgraph.Graph) float64 {
	s := 0.0
	var vars []int
	for f := range g.NumFactors() {
		free := 0
		vars = g.FactorVars(vars[:0], f)
		for _, v := range vars {
			if _, ok := g.Observed(v); !ok {
				free++
			}
		}
		if m := g.FactorBound(f); free >= 2 && m < 1e300 {
			s += m
		}
	}
	return s
}
