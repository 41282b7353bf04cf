package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/numeric/chebyshev"
	"github.com/pgibbs/pgibbs/numeric/its"
)

// method is how a continuous sampler draws x_i from its conditional.
type method int

const (
	methodITS       method = iota // one Chebyshev approximation of the density (FITS)
	methodDA                      // energy interpolant, then density interpolant (Algorithm 3)
	methodRejection               // uniform proposals under an exact envelope
)

// DefaultMaxTries bounds the proposals of one rejection-sampling draw; past
// it the sampler stops with an error rather than loop for ever.
const DefaultMaxTries = 10_000_000

// Continuous is the type of the six continuous-state samplers of the
// paper, built by NewGibbsITS, NewGibbsDA, NewGibbsRejection (exact
// energies) and NewPGITS, NewPGDA, NewPGRejection (Poisson-minibatched
// energies); Name says which one it is. Each resamples a continuous x_i
// from (an approximation of) its conditional:
//
//   - Gibbs-ITS: a Chebyshev approximation f̃ ≈ exp(U) of the density
//     from the exact energy U at m+1 nodes, fast inverse transform
//     sampling, and a Metropolis–Hastings correction that makes the update
//     exact however rough f̃ is;
//   - Gibbs-DA: double Chebyshev approximation (Algorithm 3 with exact
//     energies): a degree-m interpolant Ũ of the energy, a degree-k
//     interpolant of exp(Ũ), inverse transform sampling and the same
//     correction;
//   - PGITS and PGDA: Gibbs-ITS and Gibbs-DA with the energy replaced by
//     the Poisson-minibatched U_s of PoissonGibbs (O(λ + L) factors instead
//     of |A[i]|), corrected with the same U_s; PGDA is Algorithm 3 of Zhang
//     & De Sa (2019);
//   - Gibbs-rejection and PG-rejection: uniform proposals on x_i's interval
//     under the envelope exp(L_i) (exact energy) or exp(Σ s_φ log(1 + L/λ))
//     (minibatched energy); Stats.Tries counts the proposals.
//
// All six leave π invariant exactly, for any λ, m and k. Discrete variables
// of a mixed graph get the matching discrete update (plain Gibbs or
// Poisson-Gibbs); a model whose free variables are all discrete is refused
// (use gibbs, auto or pgibbs). Options.M and Options.K set m and k,
// Options.MaxTries bounds a rejection draw, and Options.MaxDraws the work
// of a step: (m + 3)·|A[i]| factor values with exact energies, the
// minibatch and (m + 3) values of each of its distinct factors with
// minibatched ones (one value a try for rejection sampling).
type Continuous struct {
	core
	name     string // the sampler's name in messages and snapshots ("PGDA")
	regName  string // its name in the registry of New ("pgda")
	method   method
	pg       *pgState  // nil: exact energies
	degM     int       // m: degree of the energy (DA) or density (ITS) interpolant
	degK     int       // k: degree of DA's density interpolant
	nodes    []float64 // Chebyshev points of [nodesLo, nodesHi], then x_i
	energies []float64 // energies at nodes
	nodesLo  float64
	nodesHi  float64
	nodesOK  bool // nodes hold the Chebyshev points of [nodesLo, nodesHi]
	series   chebyshev.Series
	its      its.Sampler
	maxTries int64

	// sec is the model's batched evaluation along one variable, or nil
	// (then section evaluates point by point).
	sec factorgraph.SectionEvaluator
	// vals holds one factor's values at the points of a section, chunk
	// the values of a chunk of factors at one point.
	vals  []float64
	chunk [64]float64
}

func newContinuous(name, regName string, meth method, minibatched bool, m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	if opt == nil {
		opt = &Options{}
	}
	c, err := newSiteChain(name, m, r, opt, false)
	if err != nil {
		return nil, err
	}
	s := &Continuous{core: c, name: name, regName: regName, method: meth, degM: opt.M, degK: opt.K, maxTries: opt.MaxTries}
	s.update = s.Update
	if s.degM == 0 {
		s.degM = 3
	}
	if s.degK == 0 {
		s.degK = 10
	}
	if s.maxTries == 0 {
		s.maxTries = DefaultMaxTries
	}
	switch {
	case s.degM < 1 || s.degM > 1<<16:
		return nil, fmt.Errorf("gibbs: %s: degree m = %d: need 1 ≤ m ≤ 65536", name, s.degM)
	case s.degK < 1 || s.degK > 1<<16:
		return nil, fmt.Errorf("gibbs: %s: degree k = %d: need 1 ≤ k ≤ 65536", name, s.degK)
	case s.maxTries < 0:
		return nil, fmt.Errorf("gibbs: %s: max tries %d < 0", name, s.maxTries)
	}
	if err := s.checkModel(); err != nil {
		return nil, err
	}
	if err := s.checkWork(opt, minibatched); err != nil {
		return nil, err
	}
	if meth == methodRejection {
		// An envelope needs bounded factors.
		for _, i := range c.free {
			if _, hard := m.Degree(i); hard > 0 && !m.Domain(i).IsDiscrete() {
				name, _, _ := m.Describe(i, 0+firstHard(m, i))
				return nil, fmt.Errorf("gibbs: %s: continuous variable %d has hard (unbounded) %s; rejection sampling needs bounded factors", s.name, i, name)
			}
		}
	}
	s.nodes = make([]float64, s.degM+2)
	s.energies = make([]float64, s.degM+2)
	s.vals = make([]float64, s.degM+2)
	s.sec, _ = m.(factorgraph.SectionEvaluator)
	return s, nil
}

// checkModel refuses a model whose free variables are all discrete: a
// continuous sampler on it would only be plain Gibbs or Poisson-Gibbs under
// another name.
func (s *Continuous) checkModel() error {
	for _, i := range s.free {
		if s.size[i] == 0 {
			return nil
		}
	}
	alt := "gibbs, auto or pgibbs"
	return fmt.Errorf("gibbs: %s: every free variable is discrete; %s samples continuous variables (the discrete ones of a mixed model by plain Gibbs or Poisson-Gibbs updates): use %s", s.regName, s.regName, alt)
}

// checkWork resolves λ of a minibatched sampler and refuses the sampler if
// a step would exceed Options.MaxDraws (see limits.go); a rejection
// sampler's tries are bounded by Options.MaxTries instead, and the limit
// applies to one try.
func (s *Continuous) checkWork(opt *Options, minibatched bool) error {
	points := float64(s.degM + 3) // the m + 1 nodes, x_i and the proposal
	if s.method == methodRejection {
		points = 1
	}
	if minibatched {
		var err error
		if s.pg, err = newPGParams(&s.core, opt); err != nil {
			return fmt.Errorf("gibbs: %s: %w", s.name, err)
		}
		if err := s.pg.check(&s.core, opt, s.regName, points); err != nil {
			return err
		}
		if err := s.pg.init(&s.core, s.free); err != nil {
			return fmt.Errorf("gibbs: %s: %w", s.name, err)
		}
		return nil
	}
	limit, err := maxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", s.regName, err)
	}
	w := s.worstUpdate(func(i int) float64 {
		if s.size[i] > 0 {
			return s.exactWork(i)
		}
		soft, hard := s.m.Degree(i)
		return float64(soft+hard) * points
	})
	if !(w.work > limit) {
		return nil
	}
	soft, hard := s.m.Degree(w.i)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at %g points)", w.work, w.i, soft+hard, points)
	instead := "use pgits or pgda, or a smaller m"
	if s.method == methodRejection {
		what = fmt.Sprintf("evaluate about %.2g factor values a try (variable %d: |A[i]| = %d factors)", w.work, w.i, soft+hard)
		instead = "use pg-rejection, pgits or pgda"
	}
	if s.size[w.i] > 0 {
		what = fmt.Sprintf("evaluate about %.2g factor values (discrete variable %d: |A[i]| = %d factors at D = %d values)", w.work, w.i, soft+hard, s.size[w.i])
		instead = "use a minibatched sampler (pgits, pgda or pg-rejection)"
	}
	return tooMuch(s.regName, what, limit, instead)
}

func firstHard(m factorgraph.Model, i int) int {
	soft, _ := m.Degree(i)
	return soft
}

// Name returns the sampler's name in New's registry: "gibbs-its",
// "gibbs-da", "pgits", "pgda", "gibbs-rejection" or "pg-rejection".
func (s *Continuous) Name() string { return s.regName }

// Lambda returns λ of the minibatched samplers (0 for the exact ones).
func (s *Continuous) Lambda() float64 {
	if s.pg == nil {
		return 0
	}
	return s.pg.lambda
}

// Update resamples variable i.
func (s *Continuous) Update(i int) { s.updateWith(i, (*Continuous).correct) }

// corrector decides on the proposal v for continuous variable i drawn from
// the polynomial approximation of its conditional: (*Continuous).correct in
// every sampler of the package.
type corrector func(s *Continuous, i int, v float64)

// updateWith is Update with the decision on polynomial proposals passed in.
func (s *Continuous) updateWith(i int, correct corrector) {
	if s.err != nil || s.clamped[i] {
		return
	}
	d := s.m.Domain(i)
	if d.IsDiscrete() {
		if s.pg != nil {
			s.pg.discreteUpdate(&s.core, i)
		} else {
			s.exactUpdate(i)
		}
		return
	}
	s.stats.Steps++
	if s.pg != nil {
		if soft, _ := s.m.Degree(i); soft > 0 {
			if !s.pg.draw(&s.core, i) {
				return
			}
		} else {
			s.pg.counts.Reset()
		}
		if !s.pg.cache(&s.core, i) {
			return
		}
	} else {
		soft, hard := s.m.Degree(i)
		s.stats.Factors += int64(soft + hard)
	}
	if s.method == methodRejection {
		s.rejection(i, d)
		return
	}
	s.polynomial(i, d, correct)
}

// energy sets u[j] to the energy of variable i's conditional at
// x_{i←at[j]}: the exact Σ_{φ∈A[i]} φ̃, or the minibatched U_s of the soft
// factors cached last plus the exact hard factors. It evaluates one factor
// at all the points at once (section) and, for every point, adds the
// factors' terms in the order of A[i] (soft factors in the order of the
// draw's keys, then hard factors), so each u[j] is the same sum, bit for
// bit, as a point-by-point evaluation. It reports false after recording an
// error (a value outside its factor's range, or NaN).
func (s *Continuous) energy(i int, at, u []float64) bool {
	u = u[:len(at)]
	clear(u)
	soft, hard := s.m.Degree(i)
	from := 0
	if p := s.pg; p != nil {
		for j, k := range p.keys {
			t := s.section(i, k, at)
			lo, hi, sk, inv := p.lo[j], p.hi[j], p.s[j], p.inv[j]
			for v, tv := range t {
				if !(tv >= lo && tv <= hi) {
					s.fail(factorgraph.CheckError(s.m, i, k, tv))
					return false
				}
				if tv != 0 {
					u[v] += sk * math.Log1p(tv*inv) // s_φ log(1 + L φ̃/(λM_φ))
				}
			}
			if s.spend(len(at)) {
				return false
			}
		}
		from = soft
	}
	for k := from; k < soft+hard; k++ {
		t := s.section(i, k, at)
		lo, hi := factorgraph.Limits(s.m.Bound(i, k))
		for v, tv := range t {
			if !(tv >= lo && tv <= hi) {
				s.fail(factorgraph.CheckError(s.m, i, k, tv))
				return false
			}
			u[v] += tv
		}
		if s.spend(len(at)) {
			return false
		}
	}
	return true
}

// section returns φ̃ of the k-th factor of A[i] at x_{i←at[j]} for every j,
// in s.vals.
func (s *Continuous) section(i, k int, at []float64) []float64 {
	t := s.vals[:len(at)]
	if s.sec != nil {
		s.sec.EvalSection(i, k, s.x, at, t)
		return t
	}
	save := s.x[i]
	for j, v := range at {
		s.x[i] = v
		t[j] = s.m.Eval(i, k, s.x)
	}
	s.x[i] = save
	return t
}

// energyAt returns the energy of variable i's conditional at the single
// point x_{i←v}, the same sum as energy's: for one point, setting x_i and
// evaluating each factor directly costs less than a section per factor.
func (s *Continuous) energyAt(i int, v float64) (float64, bool) {
	save := s.x[i]
	s.x[i] = v
	u, ok := s.energyHere(i)
	s.x[i] = save
	return u, ok
}

// energyHere returns the energy of variable i's conditional at the current
// state. It evaluates the minibatch's factors in chunks, values first and
// their terms after, so that the evaluations of a chunk, independent of
// each other, overlap in the processor (one after the other, each term's
// log1p would wait for its factor's value); the terms are added in the
// same order. The exact terms (a plain sum) are added as they come:
// chunking them measured slower on cheap factors.
func (s *Continuous) energyHere(i int) (float64, bool) {
	soft, hard := s.m.Degree(i)
	u := 0.0
	from := 0
	if p := s.pg; p != nil {
		for c := 0; c < len(p.keys); c += len(s.chunk) {
			keys := p.keys[c:min(c+len(s.chunk), len(p.keys))]
			t := s.chunk[:len(keys)]
			for j, k := range keys {
				t[j] = s.m.Eval(i, k, s.x)
			}
			for j, tj := range t {
				if !(tj >= p.lo[c+j] && tj <= p.hi[c+j]) {
					s.fail(factorgraph.CheckError(s.m, i, keys[j], tj))
					return 0, false
				}
				if tj != 0 {
					u += p.s[c+j] * math.Log1p(tj*p.inv[c+j])
				}
			}
			if s.spend(len(t)) {
				return 0, false
			}
		}
		from = soft
	}
	for k := from; k < soft+hard; k++ {
		t := s.m.Eval(i, k, s.x)
		if lo, hi := factorgraph.Limits(s.m.Bound(i, k)); !(t >= lo && t <= hi) {
			s.fail(factorgraph.CheckError(s.m, i, k, t))
			return 0, false
		}
		u += t
		if s.spend(1) {
			return 0, false
		}
	}
	return u, true
}

// polynomial draws x_i from a Chebyshev approximation of its conditional
// and corrects the draw by Metropolis–Hastings (Algorithm 3).
func (s *Continuous) polynomial(i int, d factorgraph.Domain, correct corrector) {
	if !s.nodesOK || d.Lo != s.nodesLo || d.Hi != s.nodesHi {
		s.nodesOK = false
		nodes, err := chebyshev.Points(s.nodes[:0], s.degM, d.Lo, d.Hi) // reuses s.nodes
		if err != nil {
			s.fail(fmt.Errorf("variable %d: %w", i, err))
			return
		}
		s.nodes, s.nodesLo, s.nodesHi, s.nodesOK = nodes[:s.degM+2], d.Lo, d.Hi, true
	}
	// The energies at the m+1 nodes and, for the correction, at x_i, in
	// one pass over the factors.
	s.nodes[s.degM+1] = s.x[i]
	if !s.energy(i, s.nodes, s.energies) {
		return
	}
	u := s.energies[:s.degM+1]
	var err error
	if s.method == methodITS {
		err = s.its.FitLogDensity(d.Lo, d.Hi, u) // f̃ ≈ exp(U), degree 2m
	} else {
		floorHard(u)
		if err = s.series.Fit(d.Lo, d.Hi, u); err == nil { // Ũ, degree m
			err = s.its.FitEnergySeries(&s.series, s.degK) // f̃ ≈ exp(Ũ), degree 2k
		}
	}
	if err != nil {
		s.fail(fmt.Errorf("variable %d: %w", i, err))
		return
	}
	v := s.its.Draw(s.r)
	s.stats.Proposals++
	correct(s, i, v)
}

// correct is the Metropolis–Hastings correction of the proposal v of
// variable i drawn from the polynomial density f̃ fitted last: accept with
// probability min(1, p), p = exp(U(v)) f̃(x_i) / (exp(U(x_i)) f̃(v)).
func (s *Continuous) correct(i int, v float64) {
	uNew, ok := s.energyAt(i, v)
	if !ok {
		return
	}
	if s.accept(s.its.LogAcceptRatio(s.x[i], s.energies[s.degM+1], v, uNew)) {
		s.x[i] = v
	}
}

// hardFloor is how far below the smallest finite node energy a node ruled
// out by a hard factor is put in DA's energy interpolant. It is mild on
// purpose: a low-degree polynomial forced down a deep cliff dives through the
// allowed region next to it and starves it of proposals (an independence
// proposal that under-covers the target mixes badly), while one that spills
// into the forbidden region only wastes the draws that land there.
const hardFloor = 2

// floorHard replaces −Inf energies (nodes a hard factor rules out) by the
// smallest finite energy minus hardFloor, so that the energy interpolant of
// DA exists. The interpolant only shapes the proposal: the Metropolis–Hastings
// correction, which uses the true energies, keeps the update exact, and a
// proposal in a forbidden region is rejected.
func floorHard(u []float64) {
	lowest := math.Inf(1)
	for _, e := range u {
		if !math.IsInf(e, -1) {
			lowest = min(lowest, e)
		}
	}
	if math.IsInf(lowest, 1) {
		return // all −Inf: the fit reports it
	}
	for j, e := range u {
		if math.IsInf(e, -1) {
			u[j] = lowest - hardFloor
		}
	}
}

// rejection draws x_i by rejection from the uniform distribution on its
// interval under the envelope exp(bound): bound = L_i for the exact energy,
// Σ s_φ log(1 + L/λ) for the minibatched one.
func (s *Continuous) rejection(i int, d factorgraph.Domain) {
	bound := s.m.Li(i)
	if s.pg != nil {
		bound = s.pg.bound()
	}
	for tries := int64(1); ; tries++ {
		if tries > s.maxTries {
			s.fail(fmt.Errorf("variable %d: rejection sampling accepted nothing in %d tries", i, s.maxTries))
			return
		}
		s.stats.Tries++
		if s.spend(1) { // every try looks at least once in pollEvery tries
			return
		}
		v := d.Lo + (d.Hi-d.Lo)*s.r.Float64()
		u, ok := s.energyAt(i, v)
		if !ok {
			return
		}
		if math.Log(s.r.Float64()) < u-bound {
			s.x[i] = v
			return
		}
	}
}

// NewGibbsITS returns a Gibbs-ITS sampler on m ("gibbs-its"): Gibbs
// sampling of continuous variables by fast inverse transform sampling
// (Olver & Townsend 2013). The exact energy U of x_i's conditional at the
// m+1 Chebyshev points of its interval gives a non-negative polynomial
// density f̃ ≈ exp(U) (package its); a draw v ~ f̃ is accepted with
// probability min(1, exp(U(v)) f̃(x_i) / (exp(U(x_i)) f̃(v))), which makes the
// update exact however rough f̃ is. A step evaluates A[i] at m + 3 points.
// Discrete variables get plain Gibbs updates. Options.M sets m (default 3).
func NewGibbsITS(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("GibbsITS", "gibbs-its", methodITS, false, m, r, opt)
}

// NewGibbsDA returns a Gibbs-DA sampler on m ("gibbs-da"): Gibbs sampling
// with double Chebyshev approximation (Algorithm 3 with exact energies).
// The degree-m interpolant Ũ of the exact energy, a degree-k interpolant of
// exp(Ũ) (no further energy evaluations), inverse transform sampling, and
// the same Metropolis–Hastings correction as Gibbs-ITS. Options.M and
// Options.K set m and k (defaults 3 and 10, the paper's settings on the
// spin model).
func NewGibbsDA(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("GibbsDA", "gibbs-da", methodDA, false, m, r, opt)
}

// NewPGITS returns a PGITS sampler on m ("pgits"): Poisson-Gibbs with fast
// inverse transform sampling. As Gibbs-ITS, with the energy replaced by
// the Poisson-minibatched U_s of PoissonGibbs (O(λ + L) factors instead of
// |A[i]|), corrected by Metropolis–Hastings with the same U_s. Exact for
// any λ and m.
func NewPGITS(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("PGITS", "pgits", methodITS, true, m, r, opt)
}

// NewPGDA returns a PGDA sampler on m ("pgda"): Poisson-Gibbs with double
// Chebyshev approximation, Algorithm 3 of Zhang & De Sa (2019). The
// minibatched energy at m+1 nodes, the degree-m interpolant Ũ, a degree-k
// interpolant f̃ ≈ exp(Ũ), inverse transform sampling, and the correction
// p = exp(U_v) f̃(x_i) / (exp(U_{x_i}) f̃(v)). Its spectral gap is within a
// constant of plain Gibbs's for m = Θ(log L), k = Θ(L), λ = Θ(L²)
// (Theorem 4).
func NewPGDA(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("PGDA", "pgda", methodDA, true, m, r, opt)
}

// NewGibbsRejection returns a Gibbs-rejection sampler on m
// ("gibbs-rejection"): uniform proposals on x_i's interval accepted with
// probability exp(U(v) − L_i), where U is the exact shifted energy
// (0 ≤ U ≤ L_i). Exact; Stats.Tries counts the proposals. Continuous
// variables must have no hard factors.
func NewGibbsRejection(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("GibbsRejection", "gibbs-rejection", methodRejection, false, m, r, opt)
}

// NewPGRejection returns a PG-rejection sampler on m ("pg-rejection"):
// Poisson-Gibbs with rejection sampling, uniform proposals accepted with
// probability exp(U_s(v) − Σ s_φ log(1 + L/λ)).
func NewPGRejection(m factorgraph.Model, r *rand.Rand, opt *Options) (*Continuous, error) {
	return newContinuous("PGRejection", "pg-rejection", methodRejection, true, m, r, opt)
}

// cache records the kept factors of the current draw with their
// coefficients, for Continuous.energy. It reports false if the update must
// stop.
func (p *pgState) cache(c *core, i int) bool {
	p.keys, p.s, p.inv, p.lo, p.hi = p.keys[:0], p.s[:0], p.inv[:0], p.lo[:0], p.hi[:0]
	for _, k32 := range p.counts.Keys() {
		if c.spend(1) {
			return false
		}
		k := int(k32)
		mk := c.m.Bound(i, k)
		lo, hi := factorgraph.Limits(mk)
		p.keys = append(p.keys, k)
		p.s = append(p.s, float64(p.counts.Count(k)))
		p.inv = append(p.inv, 1/(p.a*mk))
		p.lo, p.hi = append(p.lo, lo), append(p.hi, hi)
	}
	return true
}

// bound returns max_x U_s(x) = Σ s_φ log(1 + L/λ), the envelope of
// PG-rejection, for the cached draw.
func (p *pgState) bound() float64 {
	n := 0.0
	for _, s := range p.s {
		n += s
	}
	return n * math.Log1p(1/p.a)
}
