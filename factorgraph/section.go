package factorgraph

// Sectioner is an optional fast path for factors that can evaluate
// themselves along one variable at many values at once, the way the
// continuous samplers need them: at the m+1 Chebyshev nodes of a variable's
// interval, then at the two points of the Metropolis–Hastings correction.
//
// Section sets dst[j] = Value(x with x[i] = at[j]) for j = 0, …, len(at)−1,
// where i is in Vars() and len(dst) ≥ len(at). It must not modify x, and
// must be safe for concurrent use, like Value. Implementations should
// compute exactly what Value computes (the same operations in the same
// order), so that a chain does not depend on which path evaluated a factor.
type Sectioner interface {
	Section(dst, x []float64, i int, at []float64)
}

// SectionEvaluator is an optional interface of models that evaluate one
// factor of A[i] along variable i at many points in one call; a *Graph is
// one. Samplers of continuous variables detect it.
type SectionEvaluator interface {
	// EvalSection sets dst[j] = φ̃(x with x[i] = at[j]) = φ(x_{i←at[j]}) − lo
	// for the k-th factor of A[i], j = 0, …, len(at)−1 (len(dst) ≥ len(at)).
	// It may write x[i] while it works and restores it before returning.
	// It does not check the values against the factor's range.
	EvalSection(i, k int, x, at, dst []float64)
}

var _ SectionEvaluator = (*Graph)(nil)

// EvalSection implements SectionEvaluator. A factor that implements
// Sectioner evaluates the whole section in one call; any other factor is
// evaluated node by node through Value. Either way the values are those of
// Eval: φ(x) − lo, bit for bit, for a Sectioner that computes what its
// Value computes.
func (g *Graph) EvalSection(i, k int, x, at, dst []float64) {
	dst = dst[:len(at)]
	f := g.FactorIndex(i, k)
	fac := g.factor(f)
	if s, ok := fac.(Sectioner); ok {
		s.Section(dst, x, i, at)
	} else {
		save := x[i]
		for j, v := range at {
			x[i] = v
			dst[j] = fac.Value(x)
		}
		x[i] = save
	}
	lo, _ := g.FactorRange(f)
	for j := range dst {
		dst[j] -= lo
	}
}

// EvalSection evaluates the k-th factor of A[i] of m along variable i, as
// SectionEvaluator.EvalSection does: through m's own EvalSection when m
// implements it, otherwise point by point through Eval (writing x[i] and
// restoring it).
func EvalSection(m Model, i, k int, x, at, dst []float64) {
	if s, ok := m.(SectionEvaluator); ok {
		s.EvalSection(i, k, x, at, dst)
		return
	}
	save := x[i]
	for j, v := range at {
		x[i] = v
		dst[j] = m.Eval(i, k, x)
	}
	x[i] = save
}
