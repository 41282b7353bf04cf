package mingibbs

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// estimator draws the global energy estimates of the MIN-Gibbs family
// (De Sa, Chen & Wong, "Minibatch Gibbs Sampling on Large Graphical Models",
// ICML 2018): with s_φ ~ Poisson(λM_φ/Ψ) for every soft factor,
//
//	ε(y) = Σ_{s_φ>0} s_φ · log(1 + Ψφ̃(y)/(λM_φ)),
//
// is exponentially unbiased, E[exp ε(y)] = exp(Σ_φ φ̃(y)). The counts come
// from B ~ Poisson(λ) picks with probability M_φ/Ψ (internal/minibatch).
type estimator struct {
	m      factorgraph.GlobalModel
	lambda float64
	psi    float64
	counts *minibatch.Counts
	ce     *compiledEstimator // the compiled path (compiled.go), or nil
}

func newEstimator(m factorgraph.GlobalModel, lambda float64) (*estimator, error) {
	if err := minibatch.CheckMean(lambda); err != nil {
		return nil, fmt.Errorf("λ = %g: %w", lambda, err)
	}
	e := &estimator{m: m, lambda: lambda, psi: m.Psi(), counts: minibatch.NewCounts(m.NumFactors())}
	if k := compiled.GraphOf(m); k != nil && k.Discrete {
		e.ce = newCompiledEstimator(k, m, lambda)
	}
	return e, nil
}

// errAborted is what estimate returns when the update must stop (the
// interrupt channel of the chain closed); it is not recorded as the chain's
// error.
var errAborted = errors.New("gibbs: update interrupted")

// estimate returns a fresh ε(x) drawn with c's generator, the number of
// picks and the number of distinct factors evaluated, or an error for a
// factor value outside its range, or errAborted if the update must stop.
func (e *estimator) estimate(c *core.Core, x []float64) (eps float64, picks, factors int, err error) {
	if e.ce != nil {
		return e.estimateCompiled(c, x)
	}
	// B ~ Poisson(λ) picks ∝ M_φ over the graph, every pick kept: the draw
	// of minibatch.Draw with a source that keeps everything, in chunks.
	e.counts.Reset()
	picks = minibatch.Poisson(c.R, e.lambda)
	for left := picks; left > 0; {
		chunk := min(left, core.PollEvery)
		for range chunk {
			e.counts.Add(e.m.PickGlobal(c.R))
		}
		if left -= chunk; left > 0 && c.Stop() {
			return 0, picks, 0, errAborted
		}
	}
	for _, f32 := range e.counts.Keys() {
		if c.Spend(1) {
			return 0, picks, e.counts.Len(), errAborted
		}
		f := int(f32)
		mf := e.m.FactorBound(f)
		t := e.m.EvalFactor(f, x)
		if lo, hi := factorgraph.Limits(mf); !(t >= lo && t <= hi) {
			return 0, picks, e.counts.Len(), factorgraph.GlobalCheckError(e.m, f, t)
		}
		if t != 0 {
			eps += float64(e.counts.Count(f)) * math.Log1p(e.psi*t/(e.lambda*mf))
		}
	}
	return eps, picks, e.counts.Len(), nil
}

// globalModel returns m as a GlobalModel for the samplers that need one.
func globalModel(name string, m factorgraph.Model) (factorgraph.GlobalModel, error) {
	g, ok := m.(factorgraph.GlobalModel)
	if !ok {
		return nil, fmt.Errorf("gibbs: %s needs a model with global factor access (a *factorgraph.Graph), not %T", name, m)
	}
	return g, nil
}

// MINGibbs is MIN-Gibbs (De Sa, Chen & Wong 2018), the minibatch Gibbs
// sampler the Poisson-Gibbs paper compares against. Its state is (x, ε),
// ε a global energy estimate of x. To update x_i it keeps ε for the current
// value, draws a fresh independent estimate ε_u = ε(x_{i←u}) for every other
// value u, and samples v ∝ exp(ε_u) (times the hard factors of A[i], which are
// exact); then x_i = v and ε = ε_v. It leaves π invariant exactly (it is a
// Gibbs-type move on the augmented space), but its estimates cover the
// whole graph: a step costs O(D·λ) factor evaluations and the theory asks
// λ = Θ(Ψ²), so the default λ is Ψ² (Options.LambdaScale multiplies Ψ² here,
// Options.Lambda sets λ itself).
type MINGibbs struct {
	base
	est  *estimator
	eps  float64   // ε of the current state
	epsv []float64 // ε_u of the candidates
}

// NewMINGibbs returns a MIN-Gibbs sampler on m, which must be a
// factorgraph.GlobalModel (such as a *factorgraph.Graph).
func NewMINGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*MINGibbs, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	g, err := globalModel("MINGibbs", m)
	if err != nil {
		return nil, err
	}
	c, err := core.NewSiteCore("MINGibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	lambda, err := core.ResolveLambda("λ", opt.Lambda, opt.LambdaScale, "Ψ", g.Psi())
	if err != nil {
		return nil, fmt.Errorf("gibbs: MINGibbs: %w", err)
	}
	if err := checkMIN(&c, opt, lambda, g.Psi()); err != nil {
		return nil, err
	}
	est, err := newEstimator(g, lambda)
	if err != nil {
		return nil, fmt.Errorf("gibbs: MINGibbs: %w", err)
	}
	s := &MINGibbs{base: newBase(c), est: est, epsv: make([]float64, len(c.U))}
	s.core().UpdateFn = s.Update
	if s.eps, _, _, err = s.est.estimate(s.core(), s.core().X); err != nil {
		return nil, fmt.Errorf("gibbs: MINGibbs: initial estimate: %w", err)
	}
	return s, nil
}

// Lambda returns λ.
func (s *MINGibbs) Lambda() float64 { return s.est.lambda }

// Update resamples variable i.
func (s *MINGibbs) Update(i int) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	s.core().Stat.Steps++
	d := s.core().M.Domain(i).Size
	u, epsv := s.core().U[:d], s.epsv[:d]
	if !s.core().HardEnergies(i, u) {
		return
	}
	cur := s.core().X[i]
	for v := range d {
		switch {
		case float64(v) == cur:
			epsv[v] = s.eps // the cached estimate of the current state
		case math.IsInf(u[v], -1):
			continue // ruled out by a hard factor: no estimate needed
		default:
			s.core().X[i] = float64(v)
			e, picks, factors, err := s.est.estimate(s.core(), s.core().X)
			s.core().Stat.Picks += int64(picks)
			s.core().Stat.Factors += int64(factors)
			if err != nil {
				s.core().X[i] = cur
				if err != errAborted {
					s.core().Fail(err)
				}
				return
			}
			epsv[v] = e
		}
		u[v] += epsv[v]
	}
	s.core().X[i] = cur
	v := core.SampleLog(s.core().R, u)
	if v < 0 {
		s.core().Fail(fmt.Errorf("variable %d: every value has zero probability given the others", i))
		return
	}
	s.core().X[i], s.eps = float64(v), epsv[v]
}

// proposal is the local minibatch proposal of MGPMH and DoubleMIN-Gibbs:
// s_φ ~ Poisson(λM_φ/L) for φ ∈ A[i], independent of x, and
//
//	log ψ(u) = Σ_{s_φ>0} s_φ (L/(λM_φ)) φ̃(x_{i←u}).
type proposal struct {
	lambda float64
	li     []float64 // L_i
	counts *minibatch.Counts
	logPsi []float64 // log ψ of the soft part, per value
	w      []float64 // sampling weights (log ψ + hard energies)
}

func newProposal(c *core.Core, lambda float64) *proposal {
	li := make([]float64, c.M.NumVars())
	for i := range li {
		li[i] = c.M.Li(i)
	}
	return &proposal{
		lambda: lambda,
		li:     li,
		counts: minibatch.NewCounts(max(c.M.MaxDegree(), 1)),
		logPsi: make([]float64, len(c.U)),
		w:      make([]float64, len(c.U)),
	}
}

// propose counts an update of variable i and draws its proposal; ok is
// false where the update ends there: an evidence variable, a chain stopped
// on an error, or a draw that recorded one.
func (p *proposal) propose(c *core.Core, i int) (v int, ok bool) {
	if c.Failure != nil || c.Clamped[i] {
		return 0, false
	}
	c.Stat.Steps++
	if v = p.draw(c, i); v < 0 {
		return 0, false
	}
	c.Stat.Proposals++
	return v, true
}

// draw draws the minibatch and a value v ~ ψ·exp(hard factors) for variable
// i; it fills p.logPsi. It returns −1 after recording an error.
func (p *proposal) draw(c *core.Core, i int) int {
	if c.KG != nil {
		return p.drawCompiled(c, i)
	}
	d := c.M.Domain(i).Size
	logPsi, w := p.logPsi[:d], p.w[:d]
	if !c.HardEnergies(i, w) {
		return -1
	}
	clear(logPsi)
	if soft, _ := c.M.Degree(i); soft > 0 {
		l := c.M.L()
		// B ~ Poisson(λL_i/L) picks ∝ M_φ, every pick kept (minibatch.Draw
		// with a source that keeps everything), in chunks.
		b := minibatch.Poisson(c.R, p.lambda*c.M.Li(i)/l)
		c.Stat.Picks += int64(b)
		p.counts.Reset()
		if !c.PickAll(p.counts, i, b) {
			return -1
		}
		for _, k32 := range p.counts.Keys() {
			k := int(k32)
			mk := c.M.Bound(i, k)
			coef := float64(p.counts.Count(k)) * l / (p.lambda * mk) // s_φ L/(λM_φ)
			if !addScaled(c, i, k, mk, coef, logPsi) || c.Spend(d) {
				return -1
			}
		}
		c.Stat.Factors += int64(p.counts.Len())
	}
	return p.sample(c, i, w, logPsi)
}

// sample draws v ∝ ψ(v)·exp(hard energies): w holds the hard energies and
// logPsi log ψ. It returns −1 after recording an error.
func (p *proposal) sample(c *core.Core, i int, w, logPsi []float64) int {
	for v := range w {
		w[v] += logPsi[v]
	}
	v := core.SampleLog(c.R, w)
	if v < 0 {
		c.Fail(fmt.Errorf("variable %d: every value has zero probability given the others", i))
	}
	return v
}

// MGPMH is Minibatch-Gibbs-Proposal Metropolis–Hastings (De Sa, Chen & Wong
// 2018): a local minibatch s_φ ~ Poisson(λM_φ/L), φ ∈ A[i], drawn
// independently of x, gives the proposal ψ(u) ∝ exp(Σ s_φ (L/(λM_φ))
// φ̃(x_{i←u})); a draw v ~ ψ is accepted with probability
//
//	min(1, exp(U_i(v) − U_i(x_i)) · ψ(x_i)/ψ(v)),
//
// where U_i sums all of A[i] exactly. The correction makes it exact for any
// λ, at the price of evaluating A[i] (cost Δ) every step. Default λ = L².
type MGPMH struct {
	base
	prop *proposal
}

// NewMGPMH returns an MGPMH sampler on m.
func NewMGPMH(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*MGPMH, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c, err := core.NewSiteCore("MGPMH", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	lambda, err := core.LambdaOf(opt, m.L())
	if err != nil {
		return nil, fmt.Errorf("gibbs: MGPMH: %w", err)
	}
	if err := checkMGPMH(&c, opt, lambda); err != nil {
		return nil, err
	}
	if err := minibatch.CheckMean(lambda); err != nil {
		return nil, fmt.Errorf("gibbs: MGPMH: λ = %g: %w", lambda, err)
	}
	s := &MGPMH{base: newBase(c)}
	s.core().UpdateFn = s.Update
	s.prop = newProposal(s.core(), lambda)
	return s, nil
}

// Lambda returns λ.
func (s *MGPMH) Lambda() float64 { return s.prop.lambda }

// Update proposes a new value of variable i and accepts or rejects it.
func (s *MGPMH) Update(i int) {
	v, ok := s.prop.propose(s.core(), i)
	if !ok {
		return
	}
	cur := int(s.core().X[i])
	if v == cur {
		s.core().Stat.Accepted++
		return
	}
	// Exact soft energies of A[i] at both values (hard factors cancel
	// between U_i and ψ, which both contain them).
	du, ok := softDelta(s.core(), i, cur, v)
	if !ok {
		return
	}
	if s.core().Accept(du + s.prop.logPsi[cur] - s.prop.logPsi[v]) {
		s.core().X[i] = float64(v)
	}
}

// DoubleMINGibbs is DoubleMIN-Gibbs (De Sa, Chen & Wong 2018): the state is
// (x, ε) as in MIN-Gibbs; the proposal is MGPMH's local minibatch proposal
// (batch λ1 = λ); a fresh global estimate ε' = ε(x_{i←v}) with batch λ2
// replaces MGPMH's exact energies in the acceptance probability
//
//	min(1, exp(ε' − ε) · ψ(x_i)/ψ(v)),
//
// and on acceptance ε = ε'. It is exact (pseudo-marginal MH on the augmented
// space) for any λ1, λ2, but the variance of ε' − ε makes it sticky unless λ2
// is large: the Poisson-Gibbs paper runs λ1 = L² with λ2 = L² and 10⁴·L².
// Defaults: λ = L², λ2 = L² (Options.Lambda2, Options.Lambda2Scale).
type DoubleMINGibbs struct {
	base
	prop *proposal
	est  *estimator
	eps  float64
}

// NewDoubleMINGibbs returns a DoubleMIN-Gibbs sampler on m, which must be a
// factorgraph.GlobalModel.
func NewDoubleMINGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*DoubleMINGibbs, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	g, err := globalModel("DoubleMINGibbs", m)
	if err != nil {
		return nil, err
	}
	c, err := core.NewSiteCore("DoubleMINGibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	lambda, err := core.LambdaOf(opt, m.L())
	if err != nil {
		return nil, fmt.Errorf("gibbs: DoubleMINGibbs: %w", err)
	}
	lambda2, err := core.Lambda2Of(opt, m.L())
	if err != nil {
		return nil, fmt.Errorf("gibbs: DoubleMINGibbs: %w", err)
	}
	if err := checkDoubleMIN(&c, opt, lambda, lambda2); err != nil {
		return nil, err
	}
	if err := minibatch.CheckMean(lambda); err != nil {
		return nil, fmt.Errorf("gibbs: DoubleMINGibbs: λ = %g: %w", lambda, err)
	}
	est, err := newEstimator(g, lambda2)
	if err != nil {
		return nil, fmt.Errorf("gibbs: DoubleMINGibbs: %w", err)
	}
	s := &DoubleMINGibbs{base: newBase(c), est: est}
	s.core().UpdateFn = s.Update
	s.prop = newProposal(s.core(), lambda)
	if s.eps, _, _, err = s.est.estimate(s.core(), s.core().X); err != nil {
		return nil, fmt.Errorf("gibbs: DoubleMINGibbs: initial estimate: %w", err)
	}
	return s, nil
}

// Lambda returns λ1, the local proposal's batch parameter.
func (s *DoubleMINGibbs) Lambda() float64 { return s.prop.lambda }

// Lambda2 returns λ2, the global estimate's batch parameter.
func (s *DoubleMINGibbs) Lambda2() float64 { return s.est.lambda }

// Update proposes a new value of variable i with a fresh global estimate
// and accepts or rejects the pair.
func (s *DoubleMINGibbs) Update(i int) {
	v, ok := s.prop.propose(s.core(), i)
	if !ok {
		return
	}
	cur := s.core().X[i]
	s.core().X[i] = float64(v)
	eps, picks, factors, err := s.est.estimate(s.core(), s.core().X)
	s.core().Stat.Picks += int64(picks)
	s.core().Stat.Factors += int64(factors)
	s.core().X[i] = cur
	if err != nil {
		if err != errAborted {
			s.core().Fail(err)
		}
		return
	}
	// Hard factors cancel between the target and ψ, which both contain them.
	if s.core().Accept(eps - s.eps + s.prop.logPsi[int(cur)] - s.prop.logPsi[v]) {
		s.core().X[i], s.eps = float64(v), eps
	}
}

// LocalUpdates reports true (see gibbs.Worker): an MGPMH update reads A[i] only.
func (*MGPMH) LocalUpdates() bool { return true }

// LocalUpdates reports false (see gibbs.Worker): MIN-Gibbs's estimates read the whole
// state, and its cached estimate ε is global.
func (*MINGibbs) LocalUpdates() bool { return false }

// LocalUpdates reports false (see gibbs.Worker): DoubleMIN-Gibbs's estimates read the
// whole state, and its cached estimate ε is global.
func (*DoubleMINGibbs) LocalUpdates() bool { return false }
