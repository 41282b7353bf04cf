package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// This file proves the samplers exact (DESIGN §8): on small random factor
// graphs it compares the long-run frequencies of every joint state and every
// marginal with exact enumeration, using batch means so that the standard
// errors account for autocorrelation, and it shows that the same check
// rejects deliberately broken samplers.

// randomGraph returns a random factor graph with 3–5 variables of domain
// sizes 2–4: unary, pairwise and triple tables, Potts pairs, optionally hard
// zeros and evidence. The feasible states are connected by single-site
// moves (checked), so the chains are irreducible.
type testGraph struct {
	g    *factorgraph.Graph
	init []float64 // a state of positive probability
	seed uint64
}

func randomGraph(t *testing.T, seed uint64, hard, evidence bool) testGraph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0xfeed))
	for attempt := 0; ; attempt++ {
		if attempt > 100 {
			t.Fatalf("seed %d: no connected random graph", seed)
		}
		b := factorgraph.NewBuilder()
		n := 3 + r.IntN(3)
		sizes := make([]int, n)
		for i := range n {
			sizes[i] = 2 + r.IntN(3)
			b.AddVariable(factorgraph.Discrete(sizes[i]))
		}
		nf := n + r.IntN(2*n)
		for range nf {
			arity := 1 + r.IntN(3)
			scope := r.Perm(n)[:arity]
			if arity == 2 && r.IntN(3) == 0 {
				b.AddFactor(factorgraph.NewPotts(scope[0], scope[1], r.NormFloat64()))
				continue
			}
			tsizes := make([]int, arity)
			total := 1
			for k, v := range scope {
				tsizes[k] = sizes[v]
				total *= sizes[v]
			}
			vals := make([]float64, total)
			w := 0.5 + r.Float64()
			for k := range vals {
				vals[k] = w*r.Float64() - 1
				if hard && arity <= 2 && r.IntN(6) == 0 {
					vals[k] = math.Inf(-1)
				}
			}
			b.AddFactor(factorgraph.NewTable(scope, tsizes, vals))
		}
		if evidence && r.IntN(2) == 0 {
			i := r.IntN(n)
			b.Observe(i, float64(r.IntN(sizes[i])))
		}
		g, err := b.Build()
		if err != nil {
			continue // e.g. a table of only zeros
		}
		joint := enumerate(g)
		init, ok := connected(g, joint)
		if !ok {
			continue
		}
		return testGraph{g: g, init: init, seed: seed}
	}
}

// stateIndex maps a discrete state to 0 … Π D_i − 1 (x_0 fastest).
func stateIndex(g *factorgraph.Graph, x []float64) int {
	idx, stride := 0, 1
	for i := range g.NumVars() {
		idx += int(x[i]) * stride
		stride *= g.Domain(i).Size
	}
	return idx
}

func decode(g *factorgraph.Graph, idx int, x []float64) {
	for i := range g.NumVars() {
		d := g.Domain(i).Size
		x[i] = float64(idx % d)
		idx /= d
	}
}

// enumerate returns π over all states (zero for states contradicting the
// evidence or a hard factor).
func enumerate(g *factorgraph.Graph) []float64 {
	size := 1
	for i := range g.NumVars() {
		size *= g.Domain(i).Size
	}
	logp := make([]float64, size)
	x := make([]float64, g.NumVars())
	mx := math.Inf(-1)
	for s := range size {
		decode(g, s, x)
		e := 0.0
		for i := range g.NumVars() {
			if v, ok := g.Observed(i); ok && v != x[i] {
				e = math.Inf(-1)
			}
		}
		for f := range g.NumFactors() {
			e += g.Factor(f).Value(x)
		}
		logp[s] = e
		mx = max(mx, e)
	}
	total := 0.0
	for s := range logp {
		logp[s] = math.Exp(logp[s] - mx)
		total += logp[s]
	}
	for s := range logp {
		logp[s] /= total
	}
	return logp
}

func marginalsOf(g *factorgraph.Graph, joint []float64) [][]float64 {
	out := make([][]float64, g.NumVars())
	for i := range out {
		out[i] = make([]float64, g.Domain(i).Size)
	}
	x := make([]float64, g.NumVars())
	for s, p := range joint {
		decode(g, s, x)
		for i := range out {
			out[i][int(x[i])] += p
		}
	}
	return out
}

// connected reports whether the positive-probability states are connected
// by changes of one free variable, and returns one of them.
func connected(g *factorgraph.Graph, joint []float64) ([]float64, bool) {
	start := -1
	for s, p := range joint {
		if p > 0 {
			start = s
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	seen := map[int]bool{start: true}
	queue := []int{start}
	x := make([]float64, g.NumVars())
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, i := range g.Free() {
			decode(g, s, x)
			for v := range g.Domain(i).Size {
				x[i] = float64(v)
				t := stateIndex(g, x)
				if joint[t] > 0 && !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
	}
	for s, p := range joint {
		if p > 0 && !seen[s] {
			return nil, false
		}
	}
	init := make([]float64, g.NumVars())
	decode(g, start, init)
	return init, true
}

// exactness runs s for steps updates and returns the largest z-score of
// any joint-state or marginal frequency against the exact π, with standard
// errors from batch means. A visit to a state of probability zero returns
// +Inf.
func exactness(g *factorgraph.Graph, s Sampler, steps int) (float64, string) {
	joint := enumerate(g)
	marg := marginalsOf(g, joint)
	// Cells: the joint state, then (variable, value) pairs.
	probs := append([]float64(nil), joint...)
	var names []string
	for st := range joint {
		names = append(names, fmt.Sprintf("state %d", st))
	}
	offset := make([]int, len(marg))
	for i := range marg {
		offset[i] = len(probs)
		for v, p := range marg[i] {
			probs = append(probs, p)
			names = append(names, fmt.Sprintf("P(x%d=%d)", i, v))
		}
	}
	cells := func(x []float64, dst []int) []int {
		dst = append(dst[:0], stateIndex(g, x))
		for i := range marg {
			dst = append(dst, offset[i]+int(x[i]))
		}
		return dst
	}
	return batchZ(s, steps, probs, names, cells)
}

// batchZ runs s for steps updates and returns the largest batch-means
// z-score over a set of cells: cells maps a state to the cells it falls in
// (for example its joint bin and one bin per variable), probs holds the
// exact probability of each cell. Entering a cell of probability 0 returns
// +Inf, as does a sampler error.
func batchZ(s Sampler, steps int, probs []float64, names []string, cells func(x []float64, dst []int) []int) (float64, string) {
	const batches = 50
	per := steps / batches
	count := make([][]float64, batches)
	x := s.State()
	var in []int
	for b := range batches {
		count[b] = make([]float64, len(probs))
		for range per {
			s.Step()
			in = cells(x, in)
			for _, c := range in {
				if probs[c] == 0 {
					return math.Inf(1), fmt.Sprintf("entered %s of probability 0 at %v", names[c], x)
				}
				count[b][c]++
			}
		}
	}
	if err := s.Err(); err != nil {
		return math.Inf(1), err.Error()
	}
	worst, where := 0.0, ""
	for c, p := range probs {
		mean, sq := 0.0, 0.0
		for b := range batches {
			f := count[b][c] / float64(per)
			mean += f
			sq += f * f
		}
		mean /= batches
		sd := math.Sqrt(max(0, sq/batches-mean*mean) * batches / (batches - 1))
		se := max(sd/math.Sqrt(batches), math.Sqrt(p*(1-p)/float64(per*batches)))
		if p*float64(per) < minVisits || se == 0 {
			continue // too rare for batch means to estimate its error
		}
		if z := math.Abs(mean-p) / se; z > worst {
			worst, where = z, fmt.Sprintf("%s: frequency %.4f, exact %.4f (se %.4f)", names[c], mean, p, se)
		}
	}
	return worst, where
}

// minVisits is the fewest expected visits a batch must give a state or
// value for its frequency to be tested (rarer ones have skewed batch means).
const minVisits = 10

// zLimit is the largest z-score the exact samplers may show over all
// checked frequencies of all graphs. A batch-means z has about a t
// distribution with 49 degrees of freedom, for which P(|z| > 6) ≈ 2·10⁻⁷;
// over the ~2000 frequencies a configuration checks, a false alarm has
// probability ~4·10⁻⁴ (at 5 it would be ~1%, too fragile against harmless
// changes in how a sampler consumes random numbers). The broken variants
// score 12 to 100.
const zLimit = 6

type samplerCase struct {
	name  string
	new   func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error)
	steps int // 0 means exactSteps
}

func exactSamplers() []samplerCase {
	return []samplerCase{
		{"Gibbs", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewGibbs(m, r, &Options{Init: init})
		}, 0},
		{"PoissonGibbs", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewPoissonGibbs(m, r, &Options{Init: init})
		}, 0},
		{"PoissonGibbs/λ=0.1L²", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewPoissonGibbs(m, r, &Options{Init: init, LambdaScale: 0.1})
		}, 0},
		{"PoissonGibbs/per-variable", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewPoissonGibbs(m, r, &Options{Init: init, PerVariable: true, LambdaScale: 0.5})
		}, 0},
		{"Auto", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewMixed(m, r, &Options{Init: init, LambdaScale: autoScale})
		}, 0},
		{"MINGibbs", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewMINGibbs(m, r, &Options{Init: init})
		}, minSteps},
		{"MGPMH", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewMGPMH(m, r, &Options{Init: init})
		}, 0},
		{"MGPMH/λ=0.1L²", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewMGPMH(m, r, &Options{Init: init, LambdaScale: 0.1})
		}, 0},
		{"DoubleMINGibbs", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewDoubleMINGibbs(m, r, &Options{Init: init, Lambda2Scale: 4})
		}, 0}, // sticky (pseudo-marginal): batch means need the full run
	}
}

// autoScale is the λ/L² at which Auto uses both kinds of update on the test
// graphs (TestAutoKinds checks it).
const autoScale = 0.05

// testGraphs are the random graphs of the exactness tests: 12 graphs, the
// last 8 with hard zeros and evidence.
func testGraphs(t *testing.T) []testGraph {
	var gs []testGraph
	withHard, withEvidence := 0, 0
	for seed := uint64(1); seed <= 12; seed++ {
		tg := randomGraph(t, seed, seed > 4, seed > 4)
		gs = append(gs, tg)
		for i := range tg.g.NumVars() {
			if _, hard := tg.g.Degree(i); hard > 0 {
				withHard++
				break
			}
		}
		if len(tg.g.Free()) < tg.g.NumVars() {
			withEvidence++
		}
	}
	if withHard < 4 || withEvidence < 3 {
		t.Fatalf("test graphs: %d with hard factors, %d with evidence; want at least 4 and 3", withHard, withEvidence)
	}
	return gs
}

const exactSteps = 200000

// minSteps is the run length for MIN-Gibbs, whose steps cost D·λ = D·Ψ²
// factor evaluations.
const minSteps = 100000

func TestExactness(t *testing.T) {
	skipShort(t)
	checkExact(t, testGraphs(t), exactSamplers(), 99, 1)
}

// checkExact runs every sampler case on every graph (chains seeded by
// (graph seed, stream)) for its steps divided by div, and fails on a z-score
// above zLimit.
func checkExact(t *testing.T, graphs []testGraph, cases []samplerCase, stream uint64, div int) {
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for _, tg := range graphs {
				s, err := sc.new(tg.g, rand.New(rand.NewPCG(tg.seed, stream)), tg.init)
				if err != nil {
					t.Fatalf("graph %d: %v", tg.seed, err)
				}
				steps := sc.steps
				if steps == 0 {
					steps = exactSteps
				}
				z, where := exactness(tg.g, s, steps/div)
				if z > zLimit {
					t.Errorf("graph %d (%v): %s: z = %.2f > %v", tg.seed, tg.g, where, z, zLimit)
				}
				worst = max(worst, z)
			}
			t.Logf("largest z-score over %d graphs: %.2f", len(graphs), worst)
		})
	}
}

// brokenCase is a deliberately broken sampler built for a test graph; steps
// 0 means exactSteps.
type brokenCase struct {
	name  string
	new   func(tg testGraph) (Sampler, error)
	steps int
}

// checkBroken runs each broken sampler on every graph for a quarter of its
// steps and requires the exactness check to reject it on at least one.
func checkBroken(t *testing.T, graphs []testGraph, broken []brokenCase) {
	for _, bc := range broken {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			worst, caught := 0.0, 0
			for _, tg := range graphs {
				s, err := bc.new(tg)
				if err != nil {
					t.Fatalf("graph %d: %v", tg.seed, err)
				}
				steps := bc.steps
				if steps == 0 {
					steps = exactSteps
				}
				// The broken samplers are caught with z ≥ 30 on full runs; a
				// quarter of the steps keeps z ≥ 15, three times the limit.
				z, _ := exactness(tg.g, s, steps/4)
				if z > zLimit {
					caught++
				}
				worst = max(worst, z)
			}
			if caught == 0 {
				t.Errorf("no graph rejected the broken sampler (largest z = %.2f)", worst)
			}
			t.Logf("rejected on %d of %d graphs (largest z %.1f)", caught, len(graphs), worst)
		})
	}
}

// brokenEval returns 0 from Eval for soft factors while EvalAll stays
// right. Poisson-Gibbs uses Eval only for keep probabilities, so its
// s_φ ~ Poisson(λM_φ/L) lose their state-dependent part (the "wrong thinning
// rate" bug); MGPMH uses Eval for the exact energies of its correction, which
// then drops the target's term (the "dropped MH term" bug).
type brokenEval struct{ factorgraph.Model }

func (b brokenEval) Eval(i, k int, x []float64) float64 {
	if soft, _ := b.Model.Degree(i); k < soft {
		return 0
	}
	return b.Model.Eval(i, k, x)
}

// doublePsi reports 2Ψ to the global estimators, so that
// log(1 + Ψφ̃/(λM)) uses the wrong constant and E[exp ε] = exp(2U): the
// "wrong estimator scale" bug of the MIN family.
type doublePsi struct{ *factorgraph.Graph }

func (d doublePsi) Psi() float64 { return 2 * d.Graph.Psi() }

// dropFactor hides the last soft factor of every A[i] from a sampler: the
// "dropped term" bug.
type dropFactor struct{ factorgraph.Model }

func (d dropFactor) Degree(i int) (int, int) {
	soft, hard := d.Model.Degree(i)
	if soft > 0 {
		return soft - 1, hard
	}
	return soft, hard
}

// EvalAll and Eval shift hard indices past the hidden factor.
func (d dropFactor) idx(i, k int) int {
	if soft, _ := d.Model.Degree(i); soft > 0 && k >= soft-1 {
		return k + 1
	}
	return k
}
func (d dropFactor) Eval(i, k int, x []float64) float64 { return d.Model.Eval(i, d.idx(i, k), x) }
func (d dropFactor) EvalAll(i, k int, x, dst []float64) { d.Model.EvalAll(i, d.idx(i, k), x, dst) }
func (d dropFactor) Bound(i, k int) float64             { return d.Model.Bound(i, d.idx(i, k)) }
func (d dropFactor) Pick(i int, r *rand.Rand) int {
	soft, _ := d.Model.Degree(i)
	for {
		if k := d.Model.Pick(i, r); k < soft-1 {
			return k
		}
	}
}

// TestExactnessCatchesBrokenSamplers runs the same check on broken variants
// and requires it to fail.
func TestExactnessCatchesBrokenSamplers(t *testing.T) {
	skipShort(t)
	graphs := testGraphs(t)
	checkBroken(t, graphs, []brokenCase{
		{"PoissonGibbs/thinning-without-φ", func(tg testGraph) (Sampler, error) {
			return NewPoissonGibbs(brokenEval{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init})
		}, 0},
		{"Gibbs/dropped-factor", func(tg testGraph) (Sampler, error) {
			return NewGibbs(dropFactor{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init})
		}, 0},
		{"PoissonGibbs/dropped-factor", func(tg testGraph) (Sampler, error) {
			return NewPoissonGibbs(dropFactor{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init})
		}, 0},
		{"Auto/dropped-factor", func(tg testGraph) (Sampler, error) {
			return NewMixed(dropFactor{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init, LambdaScale: autoScale})
		}, 0},
		{"MINGibbs/estimator-scaled-by-2", func(tg testGraph) (Sampler, error) {
			psi := tg.g.Psi()
			return NewMINGibbs(doublePsi{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init, Lambda: psi * psi})
		}, minSteps},
		{"MGPMH/correction-without-exact-energies", func(tg testGraph) (Sampler, error) {
			return NewMGPMH(brokenEval{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init})
		}, 0},
		{"DoubleMINGibbs/estimator-scaled-by-2", func(tg testGraph) (Sampler, error) {
			return NewDoubleMINGibbs(doublePsi{tg.g}, rand.New(rand.NewPCG(tg.seed, 99)), &Options{Init: tg.init, Lambda2Scale: 4})
		}, minSteps},
	})
}

func TestAutoKinds(t *testing.T) {
	gibbsVars, pgVars := 0, 0
	for _, tg := range testGraphs(t) {
		a, err := NewMixed(tg.g, rand.New(rand.NewPCG(1, 1)), &Options{Init: tg.init, LambdaScale: autoScale})
		if err != nil {
			t.Fatal(err)
		}
		g, p := a.Kinds()
		if g+p != len(tg.g.Free()) {
			t.Errorf("graph %d: %d + %d kinds for %d free variables", tg.seed, g, p, len(tg.g.Free()))
		}
		gibbsVars += g
		pgVars += p
	}
	if gibbsVars == 0 || pgVars == 0 {
		t.Errorf("Auto used %d Gibbs and %d Poisson-Gibbs updates over the test graphs; the exactness test needs both", gibbsVars, pgVars)
	}
	t.Logf("Auto on the test graphs: %d variables by Gibbs, %d by Poisson-Gibbs", gibbsVars, pgVars)
}
