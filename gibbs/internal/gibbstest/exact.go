package gibbstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// randomGraph returns a random factor graph with 3–5 variables of domain
// sizes 2–4: unary, pairwise and triple tables, Potts pairs, optionally hard
// zeros and evidence. The feasible states are connected by single-site
// moves (checked), so the chains are irreducible.
type Graph struct {
	G    *factorgraph.Graph
	Init []float64 // a state of positive probability
	Seed uint64
}

// RandomGraph returns a random connected discrete graph of 3–5 variables
// (with hard zeros if hard, and an observed variable if evidence) whose
// feasible states single-site moves connect.
func RandomGraph(t *testing.T, seed uint64, hard, evidence bool) Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0xfeed))
	for attempt := 0; ; attempt++ {
		if attempt > 100 {
			t.Fatalf("seed %d: no connected random graph", seed)
		}
		b, sizes := randomVars(r)
		n := len(sizes)
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
		joint := Enumerate(g)
		init, ok := Connected(g, joint)
		if !ok {
			continue
		}
		return Graph{G: g, Init: init, Seed: seed}
	}
}

// StateIndex maps a discrete state to 0 … Π D_i − 1 (x_0 fastest).
func StateIndex(g *factorgraph.Graph, x []float64) int {
	idx, stride := 0, 1
	for i := range g.NumVars() {
		idx += int(x[i]) * stride
		stride *= g.Domain(i).Size
	}
	return idx
}

// Decode sets x to the state of index idx (StateIndex's inverse).
func Decode(g *factorgraph.Graph, idx int, x []float64) {
	for i := range g.NumVars() {
		d := g.Domain(i).Size
		x[i] = float64(idx % d)
		idx /= d
	}
}

// Enumerate returns π over all states (zero for states contradicting the
// evidence or a hard factor).
func Enumerate(g *factorgraph.Graph) []float64 {
	size := 1
	for i := range g.NumVars() {
		size *= g.Domain(i).Size
	}
	logp := make([]float64, size)
	x := make([]float64, g.NumVars())
	mx := math.Inf(-1)
	for s := range size {
		Decode(g, s, x)
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
	return normalise(logp, mx)
}

// MarginalsOf returns each variable's marginal under the joint
// distribution joint (indexed by StateIndex).
func MarginalsOf(g *factorgraph.Graph, joint []float64) [][]float64 {
	out := make([][]float64, g.NumVars())
	for i := range out {
		out[i] = make([]float64, g.Domain(i).Size)
	}
	x := make([]float64, g.NumVars())
	for s, p := range joint {
		Decode(g, s, x)
		for i := range out {
			out[i][int(x[i])] += p
		}
	}
	return out
}

// Connected reports whether the positive-probability states are connected
// by changes of one free variable, and returns one of them.
func Connected(g *factorgraph.Graph, joint []float64) ([]float64, bool) {
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
			Decode(g, s, x)
			for v := range g.Domain(i).Size {
				x[i] = float64(v)
				t := StateIndex(g, x)
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
	Decode(g, start, init)
	return init, true
}

// Exactness runs s for steps updates and returns the largest z-score of
// any joint-state or marginal frequency against the exact π, with standard
// errors from batch means. A visit to a state of probability zero returns
// +Inf.
func Exactness(g *factorgraph.Graph, s gibbs.Sampler, steps int) (float64, string) {
	joint := Enumerate(g)
	marg := MarginalsOf(g, joint)
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
		dst = append(dst[:0], StateIndex(g, x))
		for i := range marg {
			dst = append(dst, offset[i]+int(x[i]))
		}
		return dst
	}
	return BatchZ(s, steps, probs, names, cells)
}

// BatchZ runs s for steps updates and returns the largest batch-means
// z-score over a set of cells: cells maps a state to the cells it falls in
// (for example its joint bin and one bin per variable), probs holds the
// exact probability of each cell. Entering a cell of probability 0 returns
// +Inf, as does a sampler error.
func BatchZ(s gibbs.Sampler, steps int, probs []float64, names []string, cells func(x []float64, dst []int) []int) (float64, string) {
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
		if p*float64(per) < MinVisits || se == 0 {
			continue // too rare for batch means to estimate its error
		}
		if z := math.Abs(mean-p) / se; z > worst {
			worst, where = z, fmt.Sprintf("%s: frequency %.4f, exact %.4f (se %.4f)", names[c], mean, p, se)
		}
	}
	return worst, where
}

// MinVisits is the fewest expected visits a batch must give a state or
// value for its frequency to be tested (rarer ones have skewed batch means).
const MinVisits = 10

// ZLimit is the largest z-score the exact samplers may show over all
// checked frequencies of all graphs. A batch-means z has about a t
// distribution with 49 degrees of freedom, for which P(|z| > 6) ≈ 2·10⁻⁷;
// over the ~2000 frequencies a configuration checks, a false alarm has
// probability ~4·10⁻⁴ (at 5 it would be ~1%, too fragile against harmless
// changes in how a sampler consumes random numbers). The broken variants
// score 12 to 100.
const ZLimit = 6

// SamplerCase is a sampler under test: its name, its constructor from a
// model, an RNG and an initial state, and its run length (0: ExactSteps).
type SamplerCase struct {
	Name  string
	New   func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error)
	Steps int // 0 means exactSteps
}

// Graphs are the random graphs of the exactness tests: 12 graphs, the
// last 8 with hard zeros and evidence.
func Graphs(t *testing.T) []Graph {
	var gs []Graph
	withHard, withEvidence := 0, 0
	for seed := uint64(1); seed <= 12; seed++ {
		tg := RandomGraph(t, seed, seed > 4, seed > 4)
		gs = append(gs, tg)
		for i := range tg.G.NumVars() {
			if _, hard := tg.G.Degree(i); hard > 0 {
				withHard++
				break
			}
		}
		if len(tg.G.Free()) < tg.G.NumVars() {
			withEvidence++
		}
	}
	if withHard < 4 || withEvidence < 3 {
		t.Fatalf("test graphs: %d with hard factors, %d with evidence; want at least 4 and 3", withHard, withEvidence)
	}
	return gs
}

// ExactSteps is the default run length of an exactness check.
const ExactSteps = 200000

// MinSteps is the run length for MIN-Gibbs, whose steps cost D·λ = D·Ψ²
// factor evaluations.
const MinSteps = 100000

// CheckExact runs every sampler case on every graph (chains seeded by
// (graph seed, stream)) for its steps divided by div, and fails on a z-score
// above zLimit.
func CheckExact(t *testing.T, graphs []Graph, cases []SamplerCase, stream uint64, div int) {
	for _, sc := range cases {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for _, tg := range graphs {
				s, err := sc.New(tg.G, rand.New(rand.NewPCG(tg.Seed, stream)), tg.Init)
				if err != nil {
					t.Fatalf("graph %d: %v", tg.Seed, err)
				}
				steps := sc.Steps
				if steps == 0 {
					steps = ExactSteps
				}
				z, where := Exactness(tg.G, s, steps/div)
				if z > ZLimit {
					t.Errorf("graph %d (%v): %s: z = %.2f > %v", tg.Seed, tg.G, where, z, ZLimit)
				}
				worst = max(worst, z)
			}
			t.Logf("largest z-score over %d graphs: %.2f", len(graphs), worst)
		})
	}
}

// BrokenCase is a deliberately broken sampler built for a test graph; steps
// 0 means exactSteps.
type BrokenCase struct {
	Name  string
	New   func(tg Graph) (gibbs.Sampler, error)
	Steps int
}

// CheckBroken runs each broken sampler on every graph for a quarter of its
// steps and requires the exactness check to reject it on at least one.
func CheckBroken(t *testing.T, graphs []Graph, broken []BrokenCase) {
	for _, bc := range broken {
		t.Run(bc.Name, func(t *testing.T) {
			t.Parallel()
			worst, caught := 0.0, 0
			for _, tg := range graphs {
				s, err := bc.New(tg)
				if err != nil {
					t.Fatalf("graph %d: %v", tg.Seed, err)
				}
				steps := bc.Steps
				if steps == 0 {
					steps = ExactSteps
				}
				// The broken samplers are caught with z ≥ 30 on full runs; a
				// quarter of the steps keeps z ≥ 15, three times the limit.
				z, _ := Exactness(tg.G, s, steps/4)
				if z > ZLimit {
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

// normalise turns logp, log-weights whose largest is mx, into the
// probabilities they define, in place.
func normalise(logp []float64, mx float64) []float64 {
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

// randomVars returns a builder holding 3–5 discrete variables of 2–4
// values each, drawn from r, and their sizes.
func randomVars(r *rand.Rand) (*factorgraph.Builder, []int) {
	b := factorgraph.NewBuilder()
	n := 3 + r.IntN(3)
	sizes := make([]int, n)
	for i := range n {
		sizes[i] = 2 + r.IntN(3)
		b.AddVariable(factorgraph.Discrete(sizes[i]))
	}
	return b, sizes
}
