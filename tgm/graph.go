package tgm

import (
	"github.com/pgibbs/pgibbs/factorgraph"
)

// scope is the scope of every data factor: both variables.
var scope = []int{0, 1}

var (
	_ factorgraph.Sectioner = (*datum)(nil)
	_ factorgraph.Sectioner = (*prior)(nil)
)

// datum is the factor ℓ_i(x1, x2) of one data point, with its exact range
// over the box. It keeps its own copy of y_i: a minibatch sampler touches a
// random few of 10⁶ data a step, and reading y_i next to the factor saves
// a cache miss per evaluation.
type datum struct {
	m *Model
	y float64 // y_i
	i int
}

func (d *datum) Vars() []int               { return scope }
func (d *datum) Range() (lo, hi float64)   { return d.m.lo[d.i], d.m.hi[d.i] }
func (d *datum) Value(x []float64) float64 { return d.m.cfg.Beta * d.m.logMix(d.y, x[0], x[0]+x[1]) }

// Section implements factorgraph.Sectioner: the values of Value along x1
// or x2, bit for bit, batched (see LogLikSection).
func (d *datum) Section(dst, x []float64, i int, at []float64) {
	d.m.section(dst[:len(at)], d.y, x, i, at)
}

// prior is the log prior factor of one variable.
type prior struct {
	m *Model
	j int
}

func (p *prior) Vars() []int               { return scope[p.j : p.j+1] }
func (p *prior) Range() (lo, hi float64)   { return p.m.PriorRange(p.j) }
func (p *prior) Value(x []float64) float64 { return p.m.PriorTerm(p.j, x[p.j]) }

// Section implements factorgraph.Sectioner.
func (p *prior) Section(dst, x []float64, i int, at []float64) {
	for j, v := range at {
		dst[j] = p.m.PriorTerm(p.j, v)
	}
}

// Graph returns the mixture as the factor graph of the Poisson-Gibbs paper
// (§4.3): variables x1 (0) and x2 (1), continuous on the sides of the box;
// one factor per datum, the tempered log-likelihood ℓ_i(x1, x2) with its
// exact range over the box; and, for the Gaussian prior, one prior factor
// per variable. Its L is Model.L: 1428.86 for the paper's N = 10⁶ and
// β = 10⁻⁴ (the paper printed 1581.14), and Poisson-Gibbs with the paper's
// λ = 500 touches about λ + L ≈ 1900 factors a step where plain Gibbs
// touches N.
func (m *Model) Graph() (*factorgraph.Graph, error) {
	b := factorgraph.NewBuilder()
	box := m.cfg.Box
	b.AddVariable(factorgraph.Interval(box.Lo1, box.Hi1))
	b.AddVariable(factorgraph.Interval(box.Lo2, box.Hi2))
	data := make([]datum, len(m.y))
	for i := range data {
		data[i] = datum{m: m, y: m.y[i], i: i}
		b.AddFactor(&data[i])
	}
	if m.cfg.Prior == Gaussian {
		b.AddFactor(&prior{m: m, j: 0})
		b.AddFactor(&prior{m: m, j: 1})
	}
	return b.Build()
}
