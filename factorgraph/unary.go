package factorgraph

// NewUnary returns the unary factor φ(x_i) = logp[x_i] on a discrete
// variable with len(logp) values: a field, a prior, or soft evidence (a
// noisy observation of x_i whose log-likelihood is logp). It is the Table
// NewTable([]int{i}, []int{len(logp)}, logp) and keeps logp, which the
// caller must not modify afterwards; Build checks that len(logp) is i's
// domain size. An entry −Inf forbids that value (a hard factor). An
// external field h on a binary variable is NewUnary(i, []float64{0, h})
// (π ∝ e^{h·x_i}); on an Ising spin s = 2x − 1, h·s is the same factor up
// to a constant, NewUnary(i, []float64{0, 2h}) (see "Coupling conventions").
//
// Hard evidence — x_i known exactly — is not a factor: Builder.Observe(i, v)
// clamps i to v, so that samplers never resample it and every conditional
// reads v, which is cheaper and exact where a unary with −Inf entries would
// only forbid the other values.
func NewUnary(i int, logp []float64) *Table {
	return NewTable([]int{i}, []int{len(logp)}, logp)
}
