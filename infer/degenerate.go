package infer

import (
	"context"
	"sync"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// degenerate returns what the verdict cannot see in the chains
// (chain.Monitor.UseDegenerate): whether free variable i of g need not
// move — its component is solved exactly (ex, if not nil), or its marginal
// is degenerate, arc consistency on the hard factors and the evidence
// leaving it one value of positive probability. A variable that never
// moved is frozen, and fails the verdict, unless this or its
// Rao–Blackwellised conditionals say otherwise: a block sampler whose
// blocks all cut a deterministic cluster keeps the cluster in its initial
// configuration, each block's conditional degenerate given the rest,
// whatever the cluster's marginals.
//
// Arc consistency is sound (a value it removes has probability zero) and
// incomplete (a cycle of hard factors can fix a variable that it leaves
// two values): a variable it cannot show degenerate counts as frozen, the
// verdict's side of caution. It runs on the first call, which only a
// verdict with a variable that never moved makes; the closure is safe for
// concurrent use.
func degenerate(g *factorgraph.Graph, ex *ExactPart) func(i int) bool {
	exact := make([]bool, g.NumVars())
	if ex != nil {
		for k, c := range ex.Components {
			if ex.Exact[k] && ex.Results[k] != nil {
				for _, v := range c.Vars {
					exact[v] = true
				}
			}
		}
	}
	var once sync.Once
	var single []bool
	return func(i int) bool {
		if i < 0 || i >= len(exact) {
			return false
		}
		if exact[i] {
			return true
		}
		once.Do(func() { single = singleValued(g) })
		return single[i]
	}
}

// singleValued returns, for each variable of g, whether it is a free
// discrete variable that generalised arc consistency on g's hard factors,
// given the evidence, leaves one value
// (factorgraph.Graph.ArcConsistentDomains). If it leaves some variable no
// value (no state has positive probability: the samplers refuse such a
// model), it says nothing.
func singleValued(g *factorgraph.Graph) []bool {
	single := make([]bool, g.NumVars())
	doms, err := g.ArcConsistentDomains(context.Background())
	if err != nil {
		return single
	}
	for i, d := range doms {
		left := 0
		for _, ok := range d {
			if ok {
				left++
			}
		}
		single[i] = left == 1
	}
	return single
}
