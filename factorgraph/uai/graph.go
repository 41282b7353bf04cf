package uai

import (
	"fmt"
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/xmath"
)

// Graph compiles m with evidence ev (nil for none) into a factor graph:
// variable i has domain {0, …, Cards[i]−1}, factor f is
// factorgraph.NewProbTable over Scopes[f] (log-potentials log Tables[f]; a
// zero becomes −Inf and makes the factor a hard factor), and each observed
// variable is clamped with Builder.Observe, so that no sampler resamples it
// and the conditionals of its neighbours use its value. Factor indices of
// the graph are those of the file. A factor with an empty scope (a
// constant) is attached to variable 0 as a constant table, which leaves π
// unchanged and keeps the indices aligned. A soft table over two binary
// variables that is not of Potts form is split into its Potts part, the
// file's factor, and fields, summed a variable into tables added after
// the file's factors (factorgraph.PairSplitter): the same π and log Z, compiled as
// Potts pairs.
//
// Graph returns an error for an invalid model (see Validate), evidence that
// does not fit it (see CheckEvidence), and the errors of Builder.Build,
// which name the factor, for example a table whose entries are all zero.
func (m *Model) Graph(ev Evidence) (*factorgraph.Graph, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.CheckEvidence(ev); err != nil {
		return nil, err
	}
	b := factorgraph.NewBuilder()
	for _, c := range m.Cards {
		b.AddVariable(factorgraph.Discrete(c))
	}
	sp := factorgraph.NewPairSplitter(len(m.Cards))
	for f, scope := range m.Scopes {
		if len(scope) == 0 {
			c, err := constant(f, m.Tables[f][0])
			if err != nil {
				return nil, err
			}
			b.AddFactor(c)
			continue
		}
		sizes := make([]int, len(scope))
		for k, v := range scope {
			sizes[k] = m.Cards[v]
		}
		if len(scope) == 2 && len(m.Tables[f]) == 4 {
			logs := make([]float64, 4)
			for k, p := range m.Tables[f] {
				logs[k] = xmath.Log(p) // as NewProbTable takes them
			}
			if sp.Split(scope, sizes, logs) {
				b.AddFactor(factorgraph.NewTable(slices.Clone(scope), sizes, logs))
				continue
			}
		}
		b.AddFactor(factorgraph.NewProbTable(slices.Clone(scope), sizes, m.Tables[f]))
	}
	addFields(sp, b)
	for _, o := range ev {
		b.Observe(o.Var, float64(o.Value))
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("uai: %w", err)
	}
	return g, nil
}

// constant returns the factor of the graph for factor f of empty scope and
// potential c: a factor of range [log c, log c] on variable 0, or an error
// for c = 0 (Model.Graph and ReadGraph).
func constant(f int, c float64) (factorgraph.Factor, error) {
	if c == 0 {
		return nil, fmt.Errorf("uai: factor %d: constant factor 0 (zero potential everywhere)", f)
	}
	logc := xmath.Log(c)
	return factorgraph.NewFunc([]int{0}, logc, logc, func([]float64) float64 { return logc }), nil
}

// HardFactors returns the number of factors whose table has a zero entry:
// the hard factors of the graph (constraints no sampler may violate).
func (m *Model) HardFactors() int {
	n := 0
	for _, t := range m.Tables {
		if slices.Contains(t, 0) {
			n++
		}
	}
	return n
}
