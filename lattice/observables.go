package lattice

import (
	"errors"
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/diag"
)

// Observables are the observables of finite-size scaling, estimated from the
// Series of one or more independent chains of one lattice model at inverse
// temperature β, on n sites (side N). Per measurement t a chain records the
// energy per site e_t = E, the order parameter M, the squared vector
// magnetisation m²_t = M2 and the structure factor SK (see Series); with
// ⟨·⟩ the mean over every measurement of every chain:
//
//	AbsM             ⟨|m|⟩ = ⟨M⟩ (|Σ s|/n for Ising spins; the Potts order parameter (q·max n_a/n − 1)/(q − 1))
//	M2               ⟨m²⟩ = ⟨M2⟩
//	M4               ⟨m⁴⟩ = ⟨M2²⟩
//	Energy           ⟨e⟩ = ⟨E⟩
//	Chi              χ  = βn(⟨m²⟩ − ⟨|m⃗|⟩²), |m⃗| = √M2 (connected susceptibility)
//	ChiDisconnected  χ' = βn⟨m²⟩ (disconnected susceptibility)
//	SpecificHeat     C  = β²n(⟨e²⟩ − ⟨e⟩²)
//	Binder           U  = 1 − ⟨m⁴⟩/(3⟨m²⟩²)
//	Xi               ξ₂ = √(n⟨M2⟩/⟨SK⟩ − 1)/(2 sin(π/N)) (CorrelationLength)
//
// For Ising spins |m⃗| = √M2 = M, so χ = βn(⟨m²⟩ − ⟨|m|⟩²), the usual
// finite-lattice connected susceptibility (⟨m⟩ of the signed magnetisation
// is 0 on a finite torus by symmetry: ⟨|m|⟩ stands in for it). For q-state
// Potts spins m⃗ is the (q − 1)-component vector magnetisation of Series
// (|m⃗| is not the order parameter M), and χ, χ' and U are those of m⃗: U
// tends to 2/3 in the ordered phase and to 1 − (q + 1)/(3(q − 1)) for a
// Gaussian m⃗ (0 for Ising spins, 1/3 for q = 3). For continuous spins m is
// Σx/n. χ and χ' are per site (n·Var(m) and n⟨m²⟩, times β); C is per site
// and needs exact energies: a Monte Carlo energy (EnergyMC, the Measurer's
// default above AutoExactOffsets offsets) adds its noise to ⟨e²⟩ − ⟨e⟩². An
// observable the data leave undefined (⟨m²⟩ = 0 for U, n⟨M2⟩ < ⟨SK⟩ for ξ₂)
// is NaN.
//
// # Errors
//
// Every Estimate's Err is a blocked jackknife error. Each chain is cut into
// consecutive blocks of Block measurements or a little more (chain c into
// ⌊len_c/Block⌋ blocks of nearly equal length, boundaries ⌊j·len_c/B_c⌋; a
// chain shorter than Block is one block); the blocks of all the chains
// form one set of Blocks groups. The estimate θ̂ is the observable of all the
// measurements, θ_(j) that of all but block j, and, with m_j the length of
// block j, N the measurements, g the blocks and h_j = N/m_j, the error is
// the delete-m_j jackknife of Busing, Meijer and van der Leeden (Statistics
// and Computing 9, 3, 1999),
//
//	Err² = (1/g)·Σ_j (p_j − θ_J)²/(h_j − 1),  p_j = h_j θ̂ − (h_j − 1)θ_(j),  θ_J = gθ̂ − Σ_j (1 − m_j/N)θ_(j),
//
// which is (g − 1)/g·Σ_j (θ_(j) − θ̄)² for equal blocks. A ratio or a
// variance (χ, C, U, ξ₂) is not the mean of a series, so its error needs
// the jackknife (binning a per-measurement series cannot give it). Block is
// the largest block size of a binning plateau (diag.BinningError) of any
// chain's series M, √M2, M2, M2², E, E², SK (or, for a series without a
// plateau, its level of largest error among those with at least 16 blocks;
// Plateau is then false and the errors lower bounds), raised where needed
// so that there are at most 256 blocks: blocks are longer than the
// correlation times, so they are nearly independent. θ̂ itself is not
// bias-corrected (its bias, O(τ/N), is far below Err for long runs).
//
// Tau is (Err/Err₁)², with Err₁ the same jackknife over single
// measurements (blocks of one): the integrated autocorrelation time
// 1 + 2Σρ_t of the observable's underlying series — for a mean, the series
// itself; for χ, C, U and ξ₂, their linearisation (for χ, βn(m² −
// 2⟨|m⃗|⟩|m⃗|)) —, the factor by which correlation inflates the variance.
//
// # Pooling chains
//
// The chains must be independent runs of the same model (distinct random
// streams, each past its burn-in); they may have different lengths. Every
// measurement weighs the same: the pooled moments are those of the
// concatenated measurements, and the chains' blocks enter one jackknife.
// (For chains of equal length the pooled mean of a series is diag.PoolEstimates's
// mean of chain means.) Like PoolEstimates, the errors cannot see chains
// that disagree, stuck in different phases: compare chains with R̂.
type Observables struct {
	Beta         float64 // the inverse temperature β the observables are at
	Sites, Side  int     // n and N
	Chains       int
	Measurements int // N, in all chains
	Block        int // the measurements of a jackknife block (see Errors)
	Blocks       int // the number of jackknife blocks

	AbsM, M2, M4    diag.Estimate
	Energy          diag.Estimate
	Chi             diag.Estimate // connected
	ChiDisconnected diag.Estimate
	SpecificHeat    diag.Estimate
	Binder          diag.Estimate
	Xi              diag.Estimate
}

// ComputeObservables returns the Observables of the chains' Series, of a
// model at inverse temperature beta on sites sites of side side (for ξ₂).
// Each chain needs at least 16 measurements, its four series of equal
// length and finite; the series are copied.
func ComputeObservables(beta float64, sites, side int, chains ...Series) (Observables, error) {
	s, err := newSample(beta, sites, side, chains)
	if err != nil {
		return Observables{}, err
	}
	return s.observe(beta, true), nil
}

// Observables returns the Observables of chains of l (ComputeObservables at
// l's β, sites and side).
func (l *Lattice) Observables(chains ...Series) (Observables, error) {
	return ComputeObservables(l.p.Beta, l.n, l.size, chains...)
}

// The per-measurement quantities the observables are functions of, in the
// order of a moments array.
const (
	qM   = iota // M
	qAbs        // |m⃗| = √M2
	qM2         // M2
	qM4         // M2²
	qE          // E − shift
	qE2         // (E − shift)²
	qSK         // SK
	nq
)

// moments holds weighted sums of the quantities (or their means).
type moments [nq]float64

// group is the weighted sums of a block of measurements: the weight, the
// weighted quantities and the number of measurements.
type group struct {
	w     float64
	s     moments
	count int
}

// span is a block: measurements [lo, hi) of chain c.
type span struct{ c, lo, hi int }

// sample holds the measurements of the chains at β₀, their blocks and the
// energy shift, for the observables at β₀ and reweighted to other β.
type sample struct {
	beta0       float64
	sites, side int
	chains      []Series
	n           int     // measurements
	shift       float64 // subtracted from E (the mean energy), for precision
	sigmaH      float64 // standard deviation of the total energy n·E
	block       int
	plateau     bool
	spans       []span
	// sign multiplies β − β₀ in the reweighting exponent: 1; the tests set
	// −1 (a broken reweighting they must reject).
	sign float64
	// naive makes every block a single measurement (errors that ignore
	// autocorrelation: a broken variant for the tests).
	naive bool
}

// minChainMeasurements is the fewest measurements a chain may have.
const minChainMeasurements = 16

// maxJackknifeBlocks bounds the number of jackknife blocks.
const maxJackknifeBlocks = 256

// newSample checks and copies the chains, and sets the blocks.
func newSample(beta float64, sites, side int, chains []Series) (*sample, error) {
	switch {
	case !(beta != 0) || math.IsInf(beta, 0) || math.IsNaN(beta):
		return nil, fmt.Errorf("lattice: observables at β = %v: need a finite non-zero β", beta)
	case sites < 1 || side < 1:
		return nil, fmt.Errorf("lattice: observables of %d sites of side %d", sites, side)
	case len(chains) == 0:
		return nil, errors.New("lattice: observables of no chains")
	}
	s := &sample{beta0: beta, sites: sites, side: side, sign: 1}
	var sum float64
	for c, ch := range chains {
		k := len(ch.E)
		if len(ch.M) != k || len(ch.M2) != k || len(ch.SK) != k {
			return nil, fmt.Errorf("lattice: observables: chain %d has %d energies, %d M, %d M2 and %d SK", c, k, len(ch.M), len(ch.M2), len(ch.SK))
		}
		if k < minChainMeasurements {
			return nil, fmt.Errorf("lattice: observables: chain %d has %d measurements; need at least %d", c, k, minChainMeasurements)
		}
		cp := Series{E: append([]float64(nil), ch.E...), M: append([]float64(nil), ch.M...),
			M2: append([]float64(nil), ch.M2...), SK: append([]float64(nil), ch.SK...)}
		for t := range k {
			for _, v := range []float64{cp.E[t], cp.M[t], cp.M2[t], cp.SK[t]} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("lattice: observables: chain %d, measurement %d: %v", c, t, v)
				}
			}
			if cp.M2[t] < 0 || cp.SK[t] < 0 {
				return nil, fmt.Errorf("lattice: observables: chain %d, measurement %d: M2 = %v, SK = %v", c, t, cp.M2[t], cp.SK[t])
			}
			sum += cp.E[t]
		}
		s.chains = append(s.chains, cp)
		s.n += k
	}
	s.shift = sum / float64(s.n)
	var ss float64
	for _, ch := range s.chains {
		for _, e := range ch.E {
			ss += (e - s.shift) * (e - s.shift)
		}
	}
	s.sigmaH = float64(sites) * math.Sqrt(ss/float64(s.n))
	if err := s.setBlocks(); err != nil {
		return nil, err
	}
	return s, nil
}

// quantities writes the quantities of measurement t of chain c into q.
func (s *sample) quantities(c, t int, q *moments) {
	ch := &s.chains[c]
	e := ch.E[t] - s.shift
	m2 := ch.M2[t]
	q[qM], q[qAbs], q[qM2], q[qM4] = ch.M[t], math.Sqrt(m2), m2, m2*m2
	q[qE], q[qE2], q[qSK] = e, e*e, ch.SK[t]
}

// setBlocks chooses the block size from the binning plateaus of every
// chain's quantities and cuts the chains into blocks.
func (s *sample) setBlocks() error {
	s.block, s.plateau = 1, true
	var q moments
	for c, ch := range s.chains {
		k := len(ch.E)
		series := make([][]float64, nq)
		for i := range series {
			series[i] = make([]float64, k)
		}
		for t := range k {
			s.quantities(c, t, &q)
			for i := range series {
				series[i][t] = q[i]
			}
		}
		for i, x := range series {
			size, ok, err := diag.PlateauBlock(x)
			if err != nil {
				return fmt.Errorf("lattice: observables: chain %d, quantity %d: %w", c, i, err)
			}
			s.block = max(s.block, size)
			s.plateau = s.plateau && ok
		}
	}
	s.block = max(s.block, (s.n+maxJackknifeBlocks-1)/maxJackknifeBlocks)
	s.spans = s.cut(s.block)
	return nil
}

// cut returns the blocks of about size measurements.
func (s *sample) cut(size int) []span {
	var out []span
	for c, ch := range s.chains {
		k := len(ch.E)
		nb := max(1, k/size)
		for j := range nb {
			out = append(out, span{c: c, lo: j * k / nb, hi: (j + 1) * k / nb})
		}
	}
	return out
}

// observable is one of the Observables' functions of the means of the
// quantities at β.
type observable int

const (
	obsAbsM observable = iota
	obsM2
	obsM4
	obsEnergy
	obsChi
	obsChiDisc
	obsC
	obsBinder
	obsXi
	numObservables
)

// value returns observable o of the means mu at beta.
func (s *sample) value(o observable, beta float64, mu *moments) float64 {
	n := float64(s.sites)
	switch o {
	case obsAbsM:
		return mu[qM]
	case obsM2:
		return mu[qM2]
	case obsM4:
		return mu[qM4]
	case obsEnergy:
		return s.shift + mu[qE]
	case obsChi:
		return beta * n * (mu[qM2] - mu[qAbs]*mu[qAbs])
	case obsChiDisc:
		return beta * n * mu[qM2]
	case obsC:
		return beta * beta * n * (mu[qE2] - mu[qE]*mu[qE])
	case obsBinder:
		if !(mu[qM2] > 0) {
			return math.NaN()
		}
		return 1 - mu[qM4]/(3*mu[qM2]*mu[qM2])
	case obsXi:
		return CorrelationLength(mu[qM2], mu[qSK], s.sites, s.side)
	}
	return math.NaN()
}

// logWeight returns the exponent of measurement t of chain c's weight at
// beta, −(β − β₀)·n·(E_t − shift) (times sign).
func (s *sample) logWeight(beta float64, c, t int) float64 {
	return -s.sign * (beta - s.beta0) * float64(s.sites) * (s.chains[c].E[t] - s.shift)
}

// maxLogWeight returns the largest exponent at beta (0 at β₀).
func (s *sample) maxLogWeight(beta float64) float64 {
	mx := math.Inf(-1)
	for c, ch := range s.chains {
		for t := range ch.E {
			mx = max(mx, s.logWeight(beta, c, t))
		}
	}
	return mx
}

// groups returns the weighted sums at beta of every block of spans (into
// dst) and of all the measurements. The weights are exp(logWeight − its
// maximum), so the largest is 1; at β₀ every weight is 1.
func (s *sample) groups(beta float64, spans []span, dst []group) ([]group, group) {
	dst = dst[:0]
	var total group
	mx := s.maxLogWeight(beta)
	var q moments
	for _, sp := range spans {
		var g group
		for t := sp.lo; t < sp.hi; t++ {
			w := 1.0
			if beta != s.beta0 {
				w = math.Exp(s.logWeight(beta, sp.c, t) - mx)
			}
			s.quantities(sp.c, t, &q)
			g.w += w
			for i := range q {
				g.s[i] += w * q[i]
			}
		}
		g.count = sp.hi - sp.lo
		dst = append(dst, g)
		total.w += g.w
		for i := range g.s {
			total.s[i] += g.s[i]
		}
		total.count += g.count
	}
	return dst, total
}

// means returns the means of the sums of total without g.
func means(total, g group) moments {
	var mu moments
	w := total.w - g.w
	for i := range mu {
		mu[i] = (total.s[i] - g.s[i]) / w
	}
	return mu
}

// observe returns the Observables at beta (reweighted from β₀ unless beta
// is β₀), with their errors over the blocks and, if withTau, their τ from
// the jackknife over single measurements.
func (s *sample) observe(beta float64, withTau bool) Observables {
	fs := make([]func(*moments) float64, numObservables)
	for k := range fs {
		fs[k] = func(mu *moments) float64 { return s.value(observable(k), beta, mu) }
	}
	ests, blocks := s.estimates(beta, fs, withTau)
	o := Observables{Beta: beta, Sites: s.sites, Side: s.side, Chains: len(s.chains), Measurements: s.n,
		Block: s.block, Blocks: blocks}
	if s.naive {
		o.Block = 1
	}
	o.AbsM, o.M2, o.M4, o.Energy = ests[obsAbsM], ests[obsM2], ests[obsM4], ests[obsEnergy]
	o.Chi, o.ChiDisconnected, o.SpecificHeat = ests[obsChi], ests[obsChiDisc], ests[obsC]
	o.Binder, o.Xi = ests[obsBinder], ests[obsXi]
	return o
}

// estimates returns the estimates at beta of the functions fs of the
// (reweighted) means: θ̂ of all the measurements, its blocked jackknife
// error and, if withTau, τ = (Err/Err₁)²; and the number of blocks.
func (s *sample) estimates(beta float64, fs []func(*moments) float64, withTau bool) ([]diag.Estimate, int) {
	spans := s.spans
	if s.naive {
		spans = s.cut(1)
	}
	gs, total := s.groups(beta, spans, nil)
	full := means(total, group{})
	counts := make([]int, len(gs))
	for j, g := range gs {
		counts[j] = g.count
	}
	rep := make([][]float64, len(fs))
	for k := range rep {
		rep[k] = make([]float64, len(gs))
	}
	for j, g := range gs {
		mu := means(total, g)
		for k, f := range fs {
			rep[k][j] = f(&mu)
		}
	}
	var err1 []float64
	if withTau {
		err1 = s.singleErrors(beta, total, fs)
	}
	ests := make([]diag.Estimate, len(fs))
	for k, f := range fs {
		theta := f(&full)
		e := diag.Estimate{Mean: theta, Err: math.Sqrt(diag.JackknifeVar(theta, rep[k], counts, s.n)), Tau: math.NaN(), Plateau: s.plateau && !s.naive}
		if withTau {
			e.Tau = tauRatio(e.Err, err1[k])
		}
		ests[k] = e
	}
	return ests, len(gs)
}

// tauRatio returns (err/err1)², 1 when both are 0.
func tauRatio(err, err1 float64) float64 {
	if err1 == 0 && err == 0 {
		return 1
	}
	return (err / err1) * (err / err1)
}

// singleErrors returns the jackknife errors at beta of the functions fs
// over single measurements (equal groups: (N − 1)/N·Σ(θ_(t) − θ̄)²,
// accumulated by Welford's recurrence), given the sums of all of them.
func (s *sample) singleErrors(beta float64, total group, fs []func(*moments) float64) []float64 {
	mean, m2 := make([]float64, len(fs)), make([]float64, len(fs))
	mx := s.maxLogWeight(beta)
	var q moments
	k := 0
	for c, ch := range s.chains {
		for t := range ch.E {
			w := 1.0
			if beta != s.beta0 {
				w = math.Exp(s.logWeight(beta, c, t) - mx)
			}
			s.quantities(c, t, &q)
			g := group{w: w}
			for i := range q {
				g.s[i] = w * q[i]
			}
			mu := means(total, g)
			k++
			for o, f := range fs {
				v := f(&mu)
				d := v - mean[o]
				mean[o] += d / float64(k)
				m2[o] += d * (v - mean[o])
			}
		}
	}
	out := make([]float64, len(fs))
	for o := range out {
		out[o] = math.Sqrt(m2[o] * float64(s.n-1) / float64(s.n))
	}
	return out
}
