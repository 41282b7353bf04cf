package site

// Conditional implements chain.Conditioner: the full conditional
// π(x_i | x_−i) the last Step drew variable i from. The updates of a
// compiled graph and of the generic path record it; most specialised loops
// of an implicit lattice (package lattice) do not (i < 0: the marginals
// then count values).
func (s *Gibbs) Conditional() (int, []float64, float64) { return s.core().LastConditional() }

// Conditional implements chain.Conditioner: the conditional the last Step
// drew from, exact (Algorithm 1) or Poisson-minibatched (see
// PoissonGibbs.Conditional), both unbiased for π's marginals.
func (a *Mixed) Conditional() (int, []float64, float64) { return a.core().LastConditional() }

// Conditional implements chain.Conditioner: the minibatched conditional
// the last Step drew x_i from,
//
//	ρ(v) ∝ exp(Σ_{φ∈A[i]: hard} φ̃(x_{i←v}) + Σ_{φ: s_φ>0} s_φ log(1 + L φ̃(x_{i←v})/(λM_φ))),
//
// given the Poisson counts s drawn at the current x (Algorithm 2). Its
// average over the chain estimates π's marginal without bias: the update is
// a Gibbs step of the augmented target π(x)·P(s | x), P(s | x) = Π_φ
// Poisson(s_φ; λM_φ/L + φ̃(x)), whose x-marginal is π. Before the draw of
// x_i, x ~ π and s | x ~ P(s | x) (at stationarity), so (x_−i, s) has its
// law under the joint, and ρ(v) = P_joint(x_i = v | x_−i, s); its mean over
// (x_−i, s) is P_joint(x_i = v) = π_i(v). As for exact Gibbs, the
// conditional has the indicator's mean and no more variance (Rao–
// Blackwell). On an implicit lattice the update does not record it (i < 0).
func (s *PoissonGibbs) Conditional() (int, []float64, float64) { return s.core().LastConditional() }
