// Package densegen generates the dense and large factor graphs that the
// tests and benchmarks of construction and of budgets run on (packages
// blocks, gibbs/blocked, gibbs/cluster, infer, and the command's budget
// tests through their UAI files): K_{n,n} (the pair structure of a
// restricted Boltzmann machine), complete graphs, hubs of high degree
// among many leaves — the shapes on which construction was once quadratic
// in the number of factors (issue 32) — and grids. Every variable is binary
// with a unary table; the pairs are random tables (log-potentials
// 0.1·N(0, 1), fields 0.5·N(0, 1), as the generator wrote them) or,
// for the cluster samplers, ferromagnetic Potts pairs.
package densegen

import (
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// Pairs is a generated pair structure: n binary variables and the pairs
// (a[k], b[k]) linked by a factor.
type Pairs struct {
	N    int
	A, B []int32
}

// KBip returns K_{n,n}: variables 0, …, n−1 each paired with n, …, 2n−1.
func KBip(n int) Pairs {
	p := Pairs{N: 2 * n}
	for i := range n {
		for j := range n {
			p.A, p.B = append(p.A, int32(i)), append(p.B, int32(n+j))
		}
	}
	return p
}

// Complete returns the complete graph on n variables.
func Complete(n int) Pairs {
	p := Pairs{N: n}
	for i := range n {
		for j := i + 1; j < n; j++ {
			p.A, p.B = append(p.A, int32(i)), append(p.B, int32(j))
		}
	}
	return p
}

// Hubs returns hubs variables in a chain and leaves more, each paired with
// two distinct hubs drawn from seed: hubs of degree about 2·leaves/hubs.
func Hubs(hubs, leaves int, seed uint64) Pairs {
	r := rand.New(rand.NewPCG(seed, 3))
	p := Pairs{N: hubs + leaves}
	for k := range leaves {
		a := r.IntN(hubs)
		b := (a + 1 + r.IntN(hubs-1)) % hubs
		p.A, p.B = append(p.A, int32(a), int32(b)), append(p.B, int32(hubs+k), int32(hubs+k))
	}
	for i := 1; i < hubs; i++ {
		p.A, p.B = append(p.A, int32(i-1)), append(p.B, int32(i))
	}
	return p
}

// Grid returns the n×n grid: variable r·n + c paired with its right and
// lower neighbours.
func Grid(n int) Pairs {
	p := Pairs{N: n * n}
	for i := range int32(n * n) {
		if int(i)%n+1 < n {
			p.A, p.B = append(p.A, i), append(p.B, i+1)
		}
		if int(i)+n < n*n {
			p.A, p.B = append(p.A, i), append(p.B, i+int32(n))
		}
	}
	return p
}

// Model returns Tables(seed) as a UAI model: the same tables, as the
// potentials exp(φ) a .uai file holds (Model.Write writes it), unary ones
// first.
func (p Pairs) Model(seed uint64) *uai.Model {
	r := rand.New(rand.NewPCG(seed, 1))
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, p.N)}
	table := func(scope []int, sd float64) {
		t := make([]float64, 1<<len(scope))
		for k := range t {
			t[k] = math.Exp(sd * r.NormFloat64())
		}
		m.Scopes, m.Tables = append(m.Scopes, scope), append(m.Tables, t)
	}
	for i := range p.N {
		m.Cards[i] = 2
		table([]int{i}, 0.5)
	}
	for k := range p.A {
		table([]int{int(p.A[k]), int(p.B[k])}, 0.1)
	}
	return m
}

// Tables returns the graph of p with a random unary table on every
// variable and a random pair table on every pair, drawn from seed.
func (p Pairs) Tables(seed uint64) (*factorgraph.Graph, error) {
	b, r := p.builder(seed)
	scopes := make([]int32, 0, 2*len(p.A))
	values := make([]float64, 4*len(p.A))
	for k := range p.A {
		scopes = append(scopes, p.A[k], p.B[k])
	}
	for k := range values {
		values[k] = 0.1 * r.NormFloat64()
	}
	b.AddTables(scopes, []int{2, 2}, values)
	return b.Build()
}

// Potts returns the graph of p with a random unary table on every
// variable and a ferromagnetic Potts pair of weight w on every pair: a
// model the cluster samplers accept.
func (p Pairs) Potts(w float64, seed uint64) (*factorgraph.Graph, error) {
	b, _ := p.builder(seed)
	ws := make([]float64, len(p.A))
	for k := range ws {
		ws[k] = w
	}
	b.AddPottsPairs(p.A, p.B, ws)
	return b.Build()
}

// builder returns a builder of p's variables, each with a random unary
// table, and the stream that drew them, from seed.
func (p Pairs) builder(seed uint64) (*factorgraph.Builder, *rand.Rand) {
	r := rand.New(rand.NewPCG(seed, 1))
	b := factorgraph.NewBuilder()
	b.AddVariables(p.N, factorgraph.Discrete(2))
	unary := make([]int32, p.N)
	fields := make([]float64, 2*p.N)
	for i := range unary {
		unary[i] = int32(i)
	}
	for k := range fields {
		fields[k] = 0.5 * r.NormFloat64()
	}
	b.AddTables(unary, []int{2}, fields)
	return b, r
}

// RBM returns a restricted Boltzmann machine over n visible and n hidden
// binary units as a UAI model, the tables its energy gives: a unary table
// [1, e^b] on every unit (b ~ N(0, sdB²)) and, for every visible v and
// hidden h, the pair table [1, 1, 1, e^W] of exp(W·v·h) (W ~ N(0, sdW²)),
// drawn from seed. Its pair tables are not of Potts form: the UAI readers
// split them into Potts pairs and fields.
func RBM(n int, sdW, sdB float64, seed uint64) *uai.Model {
	r := rand.New(rand.NewPCG(seed, 2))
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, 2*n)}
	for i := range m.Cards {
		m.Cards[i] = 2
		m.Scopes = append(m.Scopes, []int{i})
		m.Tables = append(m.Tables, []float64{1, math.Exp(sdB * r.NormFloat64())})
	}
	for v := range n {
		for h := range n {
			m.Scopes = append(m.Scopes, []int{v, n + h})
			m.Tables = append(m.Tables, []float64{1, 1, 1, math.Exp(sdW * r.NormFloat64())})
		}
	}
	return m
}
