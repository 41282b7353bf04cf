package infer

import (
	"math"
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

// Bounds of singleValued's work: a hard factor whose free scope has more
// than acMaxEntries assignments is left out, and the pass stops after
// acMaxWork factor evaluations (both only prune less: fewer variables
// shown degenerate).
const (
	acMaxEntries = 1 << 16
	acMaxWork    = 1 << 22
)

// singleValued returns, for each variable of g, whether it is a free
// discrete variable that generalised arc consistency on g's hard factors,
// given the evidence, leaves one value: every other value has no support
// in some hard factor given the values left to the factor's other
// variables. If it leaves some variable no value (no state has positive
// probability: the samplers refuse such a model), it says nothing.
func singleValued(g *factorgraph.Graph) []bool {
	n := g.NumVars()
	single := make([]bool, n)
	x := make([]float64, n)
	allowed := make([][]bool, n) // the values left to each free discrete variable
	left := make([]int, n)
	for i := range n {
		if v, ok := g.Observed(i); ok {
			x[i] = v
		} else if d := g.Domain(i); d.IsDiscrete() {
			allowed[i] = make([]bool, d.Size)
			for v := range allowed[i] {
				allowed[i][v] = true
			}
			left[i] = d.Size
		}
	}
	// The hard factors with free variables, all discrete: their factor
	// index and free scope; byVar[i], those holding i.
	type hard struct {
		f     int
		scope []int
	}
	var facs []hard
	byVar := make([][]int, n)
	seen := map[int]bool{}
	var vars []int
	for _, i := range g.Free() {
		soft, nh := g.Degree(i)
		for k := soft; k < soft+nh; k++ {
			f := g.FactorIndex(i, k)
			if seen[f] {
				continue
			}
			seen[f] = true
			var scope []int
			entries, ok := 1.0, true
			vars = g.FactorVars(vars[:0], f)
			for _, v := range vars {
				if _, obs := g.Observed(v); obs {
					continue
				}
				if allowed[v] == nil { // continuous
					ok = false
					break
				}
				scope = append(scope, v)
				entries *= float64(len(allowed[v]))
			}
			if !ok || entries > acMaxEntries {
				continue
			}
			for _, v := range scope {
				byVar[v] = append(byVar[v], len(facs))
			}
			facs = append(facs, hard{f, scope})
		}
	}
	queue := make([]int, len(facs))
	queued := make([]bool, len(facs))
	for h := range facs {
		queue[h], queued[h] = h, true
	}
	work := 0
	for len(queue) > 0 && work < acMaxWork {
		h := queue[0]
		queue = queue[1:]
		queued[h] = false
		scope, fac := facs[h].scope, g.Factor(facs[h].f)
		support := make([][]bool, len(scope))
		for k, v := range scope {
			support[k] = make([]bool, len(allowed[v]))
		}
		// Every assignment of the scope over the values left (an
		// odometer), crediting those the factor allows.
		val := make([]int, len(scope))
		for k, v := range scope {
			val[k] = nextAllowed(allowed[v], -1)
			x[v] = float64(val[k])
		}
		for {
			work++
			if !math.IsInf(fac.Value(x), -1) {
				for k := range scope {
					support[k][val[k]] = true
				}
			}
			k := len(scope) - 1
			for ; k >= 0; k-- {
				v := scope[k]
				if val[k] = nextAllowed(allowed[v], val[k]); val[k] >= 0 {
					x[v] = float64(val[k])
					break
				}
				val[k] = nextAllowed(allowed[v], -1)
				x[v] = float64(val[k])
			}
			if k < 0 {
				break
			}
		}
		for k, v := range scope {
			changed := false
			for a, ok := range allowed[v] {
				if ok && !support[k][a] {
					allowed[v][a] = false
					left[v]--
					changed = true
				}
			}
			if left[v] == 0 {
				return single // no state of positive probability
			}
			if changed {
				for _, o := range byVar[v] {
					if o != h && !queued[o] {
						queued[o] = true
						queue = append(queue, o)
					}
				}
			}
		}
	}
	for i := range n {
		single[i] = allowed[i] != nil && left[i] == 1
	}
	return single
}

// nextAllowed returns the first value after v that allowed keeps, or −1.
func nextAllowed(allowed []bool, v int) int {
	for v++; v < len(allowed); v++ {
		if allowed[v] {
			return v
		}
	}
	return -1
}
