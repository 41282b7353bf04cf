package factorgraph

import "math/rand/v2"

// GlobalModel is a Model whose factors can also be addressed as a whole,
// the view the global energy estimators of the MIN-Gibbs family need. A
// *Graph is a GlobalModel.
type GlobalModel interface {
	Model
	// NumFactors returns the number of factors; they are 0, …, NumFactors−1.
	NumFactors() int
	// Psi returns Ψ = Σ M_φ over the soft factors that touch a free variable.
	Psi() float64
	// PickGlobal returns one of those factors with probability M_φ/Ψ.
	PickGlobal(r *rand.Rand) int
	// EvalFactor returns φ̃(x) = φ(x) − lo of factor f.
	EvalFactor(f int, x []float64) float64
	// FactorBound returns M_φ of factor f.
	FactorBound(f int) float64
	// FactorRange returns the declared range of factor f.
	FactorRange(f int) (lo, hi float64)
	// FactorName describes factor f for messages.
	FactorName(f int) string
}

var _ GlobalModel = (*Graph)(nil)

// GlobalCheckError returns the RangeError for the shifted value s of factor
// f of m.
func GlobalCheckError(m GlobalModel, f int, s float64) error {
	lo, hi := m.FactorRange(f)
	return &RangeError{Factor: m.FactorName(f), Value: s + lo, Lo: lo, Hi: hi}
}
