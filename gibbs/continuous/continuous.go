package continuous

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chebyshev"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/its"
)

// method is how a continuous sampler draws x_i from its conditional.
type method int

const (
	methodITS       method = iota // one Chebyshev approximation of the density (FITS)
	methodDA                      // energy interpolant, then density interpolant (Algorithm 3)
	methodRejection               // uniform proposals under an exact envelope
)

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
	base
	name     string // the sampler's name in messages and snapshots ("PGDA")
	regName  string // its name in the registry of New ("pgda")
	method   method
	pg       *core.PGState // nil: exact energies
	degM     int           // m: degree of the energy (DA) or density (ITS) interpolant
	degK     int           // k: degree of DA's density interpolant
	nodes    []float64     // Chebyshev points of [nodesLo, nodesHi], then x_i
	energies []float64     // energies at nodes
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

func newContinuous(name, regName string, meth method, minibatched bool, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c, err := core.NewSiteCore(name, m, r, opt, false)
	if err != nil {
		return nil, err
	}
	s := &Continuous{base: newBase(c), name: name, regName: regName, method: meth, degM: opt.M, degK: opt.K, maxTries: opt.MaxTries}
	s.core().UpdateFn = s.Update
	if s.degM == 0 {
		s.degM = 3
	}
	if s.degK == 0 {
		s.degK = 10
	}
	if s.maxTries == 0 {
		s.maxTries = gibbs.DefaultMaxTries
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
		for _, i := range c.Free {
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
	for _, i := range s.core().Free {
		if s.core().Size[i] == 0 {
			return nil
		}
	}
	alt := "gibbs, auto or pgibbs"
	return fmt.Errorf("gibbs: %s: every free variable is discrete; %s samples continuous variables (the discrete ones of a mixed model by plain Gibbs or Poisson-Gibbs updates): use %s", s.regName, s.regName, alt)
}

// checkWork resolves λ of a minibatched sampler and refuses the sampler if
// a step would exceed Options.MaxDraws (see gibbs/internal/core, limits.go); a rejection
// sampler's tries are bounded by Options.MaxTries instead, and the limit
// applies to one try.
func (s *Continuous) checkWork(opt *gibbs.Options, minibatched bool) error {
	points := float64(s.degM + 3) // the m + 1 nodes, x_i and the proposal
	if s.method == methodRejection {
		points = 1
	}
	if minibatched {
		var err error
		if s.pg, err = core.NewPG(s.core(), opt); err != nil {
			return fmt.Errorf("gibbs: %s: %w", s.name, err)
		}
		if err := s.pg.Check(s.core(), opt, s.regName, points); err != nil {
			return err
		}
		if err := s.pg.Init(s.core(), s.core().Free); err != nil {
			return fmt.Errorf("gibbs: %s: %w", s.name, err)
		}
		return nil
	}
	limit, err := core.MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", s.regName, err)
	}
	w := s.core().WorstUpdate(func(i int) float64 {
		if s.core().Size[i] > 0 {
			return s.core().ExactWork(i)
		}
		soft, hard := s.core().M.Degree(i)
		return float64(soft+hard) * points
	})
	if !(w.Work > limit) {
		return nil
	}
	soft, hard := s.core().M.Degree(w.I)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at %g points)", w.Work, w.I, soft+hard, points)
	instead := "use pgits or pgda, or a smaller m"
	if s.method == methodRejection {
		what = fmt.Sprintf("evaluate about %.2g factor values a try (variable %d: |A[i]| = %d factors)", w.Work, w.I, soft+hard)
		instead = "use pg-rejection, pgits or pgda"
	}
	if s.core().Size[w.I] > 0 {
		what = fmt.Sprintf("evaluate about %.2g factor values (discrete variable %d: |A[i]| = %d factors at D = %d values)", w.Work, w.I, soft+hard, s.core().Size[w.I])
		instead = "use a minibatched sampler (pgits, pgda or pg-rejection)"
	}
	return core.TooMuch(s.regName, what, limit, instead)
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
	return s.pg.Lambda
}

// Update resamples variable i.
func (s *Continuous) Update(i int) { s.updateWith(i, (*Continuous).correct) }

// corrector decides on the proposal v for continuous variable i drawn from
// the polynomial approximation of its conditional: (*Continuous).correct in
// every sampler of the package.
type corrector func(s *Continuous, i int, v float64)

// updateWith is Update with the decision on polynomial proposals passed in.
func (s *Continuous) updateWith(i int, correct corrector) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	d := s.core().M.Domain(i)
	if d.IsDiscrete() {
		if s.pg != nil {
			s.pg.DiscreteUpdate(s.core(), i)
		} else {
			s.core().ExactUpdate(i)
		}
		return
	}
	s.core().Stat.Steps++
	if s.pg != nil {
		if soft, _ := s.core().M.Degree(i); soft > 0 {
			if !s.pg.Draw(s.core(), i) {
				return
			}
		} else {
			s.pg.Counts.Reset()
		}
		if !s.pg.Cache(s.core(), i) {
			return
		}
	} else {
		soft, hard := s.core().M.Degree(i)
		s.core().Stat.Factors += int64(soft + hard)
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
	soft, hard := s.core().M.Degree(i)
	from := 0
	if p := s.pg; p != nil {
		for j, k := range p.Keys {
			t := s.section(i, k, at)
			lo, hi, sk, inv := p.Lo[j], p.Hi[j], p.S[j], p.Inv[j]
			for v, tv := range t {
				if !(tv >= lo && tv <= hi) {
					s.core().Fail(factorgraph.CheckError(s.core().M, i, k, tv))
					return false
				}
				if tv != 0 {
					u[v] += sk * math.Log1p(tv*inv) // s_φ log(1 + L φ̃/(λM_φ))
				}
			}
			if s.core().Spend(len(at)) {
				return false
			}
		}
		from = soft
	}
	for k := from; k < soft+hard; k++ {
		if !s.core().AddChecked(i, k, s.section(i, k, at), u) {
			return false
		}
		if s.core().Spend(len(at)) {
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
		s.sec.EvalSection(i, k, s.core().X, at, t)
		return t
	}
	save := s.core().X[i]
	for j, v := range at {
		s.core().X[i] = v
		t[j] = s.core().M.Eval(i, k, s.core().X)
	}
	s.core().X[i] = save
	return t
}

// energyAt returns the energy of variable i's conditional at the single
// point x_{i←v}, the same sum as energy's: for one point, setting x_i and
// evaluating each factor directly costs less than a section per factor.
func (s *Continuous) energyAt(i int, v float64) (float64, bool) {
	save := s.core().X[i]
	s.core().X[i] = v
	u, ok := s.energyHere(i)
	s.core().X[i] = save
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
	soft, hard := s.core().M.Degree(i)
	u := 0.0
	from := 0
	if p := s.pg; p != nil {
		for c := 0; c < len(p.Keys); c += len(s.chunk) {
			keys := p.Keys[c:min(c+len(s.chunk), len(p.Keys))]
			t := s.chunk[:len(keys)]
			for j, k := range keys {
				t[j] = s.core().M.Eval(i, k, s.core().X)
			}
			for j, tj := range t {
				if !(tj >= p.Lo[c+j] && tj <= p.Hi[c+j]) {
					s.core().Fail(factorgraph.CheckError(s.core().M, i, keys[j], tj))
					return 0, false
				}
				if tj != 0 {
					u += p.S[c+j] * math.Log1p(tj*p.Inv[c+j])
				}
			}
			if s.core().Spend(len(t)) {
				return 0, false
			}
		}
		from = soft
	}
	for k := from; k < soft+hard; k++ {
		t := s.core().M.Eval(i, k, s.core().X)
		if lo, hi := factorgraph.Limits(s.core().M.Bound(i, k)); !(t >= lo && t <= hi) {
			s.core().Fail(factorgraph.CheckError(s.core().M, i, k, t))
			return 0, false
		}
		u += t
		if s.core().Spend(1) {
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
			s.core().Fail(fmt.Errorf("variable %d: %w", i, err))
			return
		}
		s.nodes, s.nodesLo, s.nodesHi, s.nodesOK = nodes[:s.degM+2], d.Lo, d.Hi, true
	}
	// The energies at the m+1 nodes and, for the correction, at x_i, in
	// one pass over the factors.
	s.nodes[s.degM+1] = s.core().X[i]
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
		s.core().Fail(fmt.Errorf("variable %d: %w", i, err))
		return
	}
	v := s.its.Draw(s.core().R)
	s.core().Stat.Proposals++
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
	if s.core().Accept(s.its.LogAcceptRatio(s.core().X[i], s.energies[s.degM+1], v, uNew)) {
		s.core().X[i] = v
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
	bound := s.core().M.Li(i)
	if s.pg != nil {
		bound = s.pg.Bound()
	}
	for tries := int64(1); ; tries++ {
		if tries > s.maxTries {
			s.core().Fail(fmt.Errorf("variable %d: rejection sampling accepted nothing in %d tries", i, s.maxTries))
			return
		}
		s.core().Stat.Tries++
		if s.core().Spend(1) { // every try looks at least once in pollEvery tries
			return
		}
		v := d.Lo + (d.Hi-d.Lo)*s.core().R.Float64()
		u, ok := s.energyAt(i, v)
		if !ok {
			return
		}
		if math.Log(s.core().R.Float64()) < u-bound {
			s.core().X[i] = v
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
func NewGibbsITS(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("GibbsITS", "gibbs-its", methodITS, false, m, r, opt)
}

// NewGibbsDA returns a Gibbs-DA sampler on m ("gibbs-da"): Gibbs sampling
// with double Chebyshev approximation (Algorithm 3 with exact energies).
// The degree-m interpolant Ũ of the exact energy, a degree-k interpolant of
// exp(Ũ) (no further energy evaluations), inverse transform sampling, and
// the same Metropolis–Hastings correction as Gibbs-ITS. Options.M and
// Options.K set m and k (defaults 3 and 10, the paper's settings on the
// spin model).
func NewGibbsDA(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("GibbsDA", "gibbs-da", methodDA, false, m, r, opt)
}

// NewPGITS returns a PGITS sampler on m ("pgits"): Poisson-Gibbs with fast
// inverse transform sampling. As Gibbs-ITS, with the energy replaced by
// the Poisson-minibatched U_s of PoissonGibbs (O(λ + L) factors instead of
// |A[i]|), corrected by Metropolis–Hastings with the same U_s. Exact for
// any λ and m.
func NewPGITS(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("PGITS", "pgits", methodITS, true, m, r, opt)
}

// NewPGDA returns a PGDA sampler on m ("pgda"): Poisson-Gibbs with double
// Chebyshev approximation, Algorithm 3 of Zhang & De Sa (2019). The
// minibatched energy at m+1 nodes, the degree-m interpolant Ũ, a degree-k
// interpolant f̃ ≈ exp(Ũ), inverse transform sampling, and the correction
// p = exp(U_v) f̃(x_i) / (exp(U_{x_i}) f̃(v)). Its spectral gap is within a
// constant of plain Gibbs's for m = Θ(log L), k = Θ(L), λ = Θ(L²)
// (Theorem 4).
func NewPGDA(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("PGDA", "pgda", methodDA, true, m, r, opt)
}

// NewGibbsRejection returns a Gibbs-rejection sampler on m
// ("gibbs-rejection"): uniform proposals on x_i's interval accepted with
// probability exp(U(v) − L_i), where U is the exact shifted energy
// (0 ≤ U ≤ L_i). Exact; Stats.Tries counts the proposals. Continuous
// variables must have no hard factors.
func NewGibbsRejection(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("GibbsRejection", "gibbs-rejection", methodRejection, false, m, r, opt)
}

// NewPGRejection returns a PG-rejection sampler on m ("pg-rejection"):
// Poisson-Gibbs with rejection sampling, uniform proposals accepted with
// probability exp(U_s(v) − Σ s_φ log(1 + L/λ)).
func NewPGRejection(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Continuous, error) {
	return newContinuous("PGRejection", "pg-rejection", methodRejection, true, m, r, opt)
}

// LocalUpdates reports true (see gibbs.Worker): a continuous update reads A[i] only.
func (*Continuous) LocalUpdates() bool { return true }

// Snapshot implements chain.Snapshotter.
func (s *Continuous) Snapshot() ([]byte, error) { return s.core().SnapshotState(s.SnapshotKind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Continuous) Restore(data []byte) error {
	_, err := s.core().RestoreState(s.SnapshotKind(), data)
	return err
}

// SnapshotKind is the continuous sampler's snapshot kind, its name in messages:
// "GibbsITS", "GibbsDA", "PGITS", "PGDA", "GibbsRejection" or
// "PGRejection" (the kinds of the six types it replaces, so that their
// snapshots still restore).
func (s *Continuous) SnapshotKind() string { return s.name }
