package lattice

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/pgibbs/pgibbs/diag"
)

// pair returns the pair function f(x_i, x_j): δ for Potts, s_i·s_j for Ising,
// x_i·x_j for continuous spins.
func (l *Lattice) pair(a, b float64) float64 {
	switch l.kind {
	case PottsSpins:
		if a == b {
			return 1
		}
		return 0
	case IsingSpins:
		return (2*a - 1) * (2*b - 1)
	}
	return a * b
}

// CheckState returns an error naming the first site whose value lies
// outside its domain, or a length mismatch, if x is not a state of l. O(n).
func (l *Lattice) CheckState(x []float64) error {
	if len(x) != l.n {
		return fmt.Errorf("lattice: state of %d values for %d sites", len(x), l.n)
	}
	for i, v := range x {
		if !l.dom.Contains(v) {
			return fmt.Errorf("lattice: site %d holds %v, outside its domain %v", i, v, l.dom)
		}
	}
	return nil
}

// Energy returns the energy per site H(x)/n of state x, where
//
//	H(x) = −Σ_{i<j} J_ij f(x_i, x_j),   π(x) ∝ exp(−βH(x)),
//
// computed exactly from every pair: O(n·K). For long-range lattices see
// EnergyMC. It returns NaN if x is not a state of l (see CheckState).
func (l *Lattice) Energy(x []float64) float64 {
	if l.CheckState(x) != nil {
		return math.NaN()
	}
	e := 0.0
	for i := range l.n {
		xi := x[i]
		for k := range l.w {
			e += l.Coupling(k) * l.pair(xi, x[l.Neighbour(i, k)])
		}
	}
	return -e / (2 * float64(l.n)) // each pair is counted from both ends
}

// EnergyMC returns an unbiased Monte Carlo estimate of the energy per site
// H(x)/n from samples pairs: each a uniform site i and an offset k drawn
// with probability |J_k|/Σ|J| from the lattice's alias table, so that
//
//	H(x)/n = −(Σ_k |J_k|/2)·E[sign(J_k)·f(x_i, x_{i+k})].
//
// The estimate's standard deviation is at most (Σ|J|/2)·(fmax−fmin)/(2√samples).
// It costs O(samples) whatever K is, and does not allocate. It returns NaN
// for samples ≤ 0 or a state of the wrong length; the values of x are not
// checked (see CheckState).
func (l *Lattice) EnergyMC(x []float64, r *rand.Rand, samples int) float64 {
	if samples <= 0 || len(x) != l.n {
		return math.NaN()
	}
	s := 0.0
	for range samples {
		i := r.IntN(l.n)
		k := l.table.Pick(r)
		f := l.pair(x[i], x[l.Neighbour(i, k)])
		if (l.signBeta < 0) != l.isAnti(k) { // J_k < 0
			f = -f
		}
		s += f
	}
	return -l.jsum / 2 * s / float64(samples)
}

// Magnetisation returns the order parameter of state x: for Potts spins
// (q·max_v n_v/n − 1)/(q − 1), where n_v counts the sites in state v (0 when
// the states are equally populated, 1 when all sites agree); for Ising spins
// |Σ_i s_i|/n (the same number for q = 2); for continuous spins |Σ_i x_i|/n.
// O(n). It returns NaN if x is not a state of l (see CheckState).
func (l *Lattice) Magnetisation(x []float64) float64 {
	if l.CheckState(x) != nil {
		return math.NaN()
	}
	if l.kind == ContinuousSpins {
		s := 0.0
		for _, v := range x[:l.n] {
			s += v
		}
		return math.Abs(s) / float64(l.n)
	}
	counts := make([]int64, l.q)
	for _, v := range x[:l.n] {
		counts[int(v)]++
	}
	return l.order(counts)
}

// order returns the Potts order parameter from the state counts.
func (l *Lattice) order(counts []int64) float64 {
	var mx int64
	for _, c := range counts {
		mx = max(mx, c)
	}
	q := float64(l.q)
	return (q*float64(mx)/float64(l.n) - 1) / (q - 1)
}

// ExactEnergy, as the samples argument of NewMeasurer, makes every
// measurement compute the energy exactly: within the measurement pass for
// at most AutoExactOffsets offsets, by FFT beyond (O(n log n) whatever K:
// about a Swendsen–Wang sweep's cost on a power-law lattice).
const ExactEnergy = -1

// AutoExactOffsets is the largest K for which a Measurer built with samples
// = 0 computes the energy exactly (O(n·K) a measurement, about a
// nanosecond a pair: less than a plain Gibbs sweep's O(n·K)); above it, it
// estimates the energy from n sampled pairs (O(n), the cost of a cheap
// sweep).
const AutoExactOffsets = 64

// Measurer records the energy per site, the order parameter, M2 and SK (see
// Series) of a chain on a lattice once per sweep, or once every k sweeps
// (SetEvery): as a chain.Observer of single-site updates it measures when t
// is a multiple of n (of k·n), of a chain whose steps are sweeps every step
// (every k-th); Measure records a measurement of any state directly. A
// measurement is one pass over the state (O(n), with the nearest-neighbour
// pairs in the same loop; O(n·K) for the exact energy of other lattices),
// and Result turns the series into means with binning error bars.
type Measurer struct {
	l       *Lattice
	r       *rand.Rand
	samples int // energy pairs a measurement; 0: exact
	every   int64
	pass    *pass
	fft     *fftEnergy // the exact energy of a long-range lattice, or nil
	err     error      // the first invalid state seen

	energy, mag []float64
	m2, sk      []float64 // the squared magnetisation and S(k_min) (Series)
}

// NewMeasurer returns a Measurer for l. samples sets how the energy is
// measured: ExactEnergy (or any negative value) for the exact energy (the
// pair sum for K ≤ AutoExactOffsets, the FFT beyond), a positive number for
// EnergyMC with that many pairs drawn from r, and 0 for the default: exact
// when K ≤ AutoExactOffsets, else EnergyMC with n pairs (an O(n)
// measurement; its noise adds to the energy's variance, so the specific
// heat and reweighting want exact energies). r may be nil when the energy
// is exact.
func NewMeasurer(l *Lattice, r *rand.Rand, samples int) (*Measurer, error) {
	if samples == 0 {
		samples = ExactEnergy
		if l.NumOffsets() > AutoExactOffsets {
			samples = l.n
		}
	}
	if samples < 0 {
		samples = 0
	}
	if samples > 0 && r == nil {
		return nil, errors.New("lattice: measurer: Monte Carlo energies need a *rand.Rand")
	}
	m := &Measurer{l: l, r: r, samples: samples, every: 1, pass: newPass(l)}
	if samples == 0 && l.NumOffsets() > AutoExactOffsets {
		var err error
		if m.fft, err = newFFTEnergy(l); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// SetEvery makes Observe measure one sweep in k (k ≥ 1; 1 at first): after
// steps t = k, 2k, … of a chain of sweeps, t = k·n, 2k·n, … of single-site
// updates. The series then hold one measurement every k sweeps. Snapshots
// record k, and Restore refuses a snapshot of another k.
func (m *Measurer) SetEvery(k int) error {
	if k < 1 {
		return fmt.Errorf("lattice: measurer: a measurement every %d sweeps", k)
	}
	m.every = int64(k)
	return nil
}

// SetWorkers makes each measurement run on w goroutines (w ≥ 1; 1 at
// first): the caller's and w − 1 that live as long as the Measurer. A
// measurement is then about w times faster where w cores are free (those
// of a Chromatic's workers, idle between sweeps). The values of discrete
// spins are the same for every w; those of continuous spins may differ by
// rounding (the sums are taken in w parts). It does not allocate a
// measurement.
func (m *Measurer) SetWorkers(w int) error {
	if w < 1 {
		return fmt.Errorf("lattice: measurer: %d workers", w)
	}
	m.pass.setWorkers(w)
	if pp := m.pass.pool; pp != nil {
		runtime.AddCleanup(m, func(pp *passPool) { pp.stop() }, pp)
	}
	return nil
}

// Every returns k of SetEvery.
func (m *Measurer) Every() int { return int(m.every) }

// EnergySamples returns the number of pairs a measurement samples, 0 when the
// energy is exact.
func (m *Measurer) EnergySamples() int { return m.samples }

// fail records the first error.
func (m *Measurer) fail(err error) {
	if m.err == nil {
		m.err = fmt.Errorf("%w (measurement %d)", err, len(m.energy)+1)
	}
}

// Observe implements chain.Observer. After a step that updated site i it
// checks the new value and records a measurement every n steps (t = n, 2n,
// …; k·n, 2k·n, … with SetEvery(k)): a chain of single-site updates is
// measured once a sweep. After a step that may have changed every site
// (i < 0: a sweep, chromatic or systematic, or a cluster update) it records
// a measurement (after every k-th). The state of a sweep is trusted: a
// kernel of package gibbs produces states of l, and the measurement does
// not check x again (an invalid value of q > 2 Potts spins is still
// reported; one of other spins gives meaningless numbers). An invalid state
// is reported by Result.
func (m *Measurer) Observe(t int64, i int, x []float64) {
	if m.err != nil {
		return
	}
	if i < 0 {
		if t%m.every == 0 {
			m.record(x, false)
		}
		return
	}
	if v := x[i]; !m.l.dom.Contains(v) {
		m.fail(fmt.Errorf("lattice: site %d holds %v, outside its domain %v", i, v, m.l.dom))
		return
	}
	if t%(int64(m.l.n)*m.every) == 0 {
		m.record(x, false)
	}
}

// Measure records a measurement of state x, checking it first (CheckState).
// An invalid state is reported by Result.
func (m *Measurer) Measure(x []float64) {
	if m.err == nil {
		m.record(x, true)
	}
}

// record records a measurement of x, checking it first if asked.
func (m *Measurer) record(x []float64, check bool) {
	if len(x) != m.l.n || check {
		if err := m.l.CheckState(x); err != nil {
			m.fail(err)
			return
		}
	}
	v, err := m.pass.run(x, m.samples == 0 && m.fft == nil)
	if err != nil {
		if err = m.l.CheckState(x); err == nil {
			err = errBadValue
		}
		m.fail(err)
		return
	}
	switch {
	case m.samples > 0:
		v.e = m.l.EnergyMC(x, m.r, m.samples)
	case m.fft != nil:
		v.e = m.fft.energy(x)
	}
	m.energy = append(m.energy, v.e)
	m.mag = append(m.mag, v.m)
	m.m2 = append(m.m2, v.m2)
	m.sk = append(m.sk, v.sk)
}

// measurerVersion is the version of the Measurer's snapshots (2: with the
// M2 and SK series).
const measurerVersion = 2

// measurerState is the snapshot of a Measurer.
type measurerState struct {
	Version       int       `json:"version"`
	Kind          string    `json:"kind"`
	Sites         int       `json:"sites"`
	Offsets       int       `json:"offsets"`
	States        int       `json:"states"` // q of discrete spins, 0 for continuous
	Samples       int       `json:"samples"`
	Every         int64     `json:"every,omitempty"` // SetEvery's k (absent: 1)
	Energy        []float64 `json:"energy"`
	Magnetisation []float64 `json:"magnetisation"`
	M2            []float64 `json:"m2"`
	SK            []float64 `json:"sk"`
	Err           string    `json:"err,omitempty"`
}

// Snapshot returns the Measurer's state as versioned JSON (it implements
// chain.Snapshotter): the series so far, SetEvery's k and the first
// invalid state seen, so that a checkpointed run resumes with the same
// measurements. The *rand.Rand of Monte Carlo energies is the caller's: marshal its
// source (a *rand.PCG) alongside.
func (m *Measurer) Snapshot() ([]byte, error) {
	st := measurerState{Version: measurerVersion, Kind: "lattice-measurer", Sites: m.l.n, Offsets: len(m.l.w),
		Samples: m.samples, Energy: m.energy, Magnetisation: m.mag, M2: m.m2, SK: m.sk}
	if m.every != 1 {
		st.Every = m.every
	}
	if m.l.kind != ContinuousSpins {
		st.States = m.l.q
	}
	if m.err != nil {
		st.Err = m.err.Error()
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("lattice: measurer snapshot: %w", err)
	}
	return data, nil
}

// Restore sets the Measurer's series from a Snapshot of a Measurer of the
// same lattice (sites, offsets, spin states), energy method and SetEvery's
// k; a snapshot
// of another is an error saying what differs, and leaves m unchanged.
func (m *Measurer) Restore(data []byte) error {
	var st measurerState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("lattice: restore measurer: %w", err)
	}
	states := 0
	if m.l.kind != ContinuousSpins {
		states = m.l.q
	}
	switch {
	case st.Version != measurerVersion || st.Kind != "lattice-measurer":
		return fmt.Errorf("lattice: restore measurer from a snapshot of %q version %d; this build reads %q version %d",
			st.Kind, st.Version, "lattice-measurer", measurerVersion)
	case st.Sites != m.l.n || st.Offsets != len(m.l.w) || st.States != states:
		return fmt.Errorf("lattice: restore measurer: snapshot of a lattice of %d sites, %d offsets and %d states; this one has %d, %d and %d",
			st.Sites, st.Offsets, st.States, m.l.n, len(m.l.w), states)
	case st.Samples != m.samples:
		return fmt.Errorf("lattice: restore measurer: snapshot measured energies with %d sampled pairs, this measurer with %d (0: exact)",
			st.Samples, m.samples)
	case max(st.Every, 1) != m.every:
		return fmt.Errorf("lattice: restore measurer: snapshot measured one sweep in %d, this measurer one in %d", max(st.Every, 1), m.every)
	case len(st.Energy) != len(st.Magnetisation) || len(st.M2) != len(st.Energy) || len(st.SK) != len(st.Energy):
		return fmt.Errorf("lattice: restore measurer: snapshot has %d energies but %d magnetisations, %d squared magnetisations and %d structure factors",
			len(st.Energy), len(st.Magnetisation), len(st.M2), len(st.SK))
	}
	m.energy, m.mag, m.m2, m.sk = st.Energy, st.Magnetisation, st.M2, st.SK
	m.err = nil
	if st.Err != "" {
		m.err = errors.New(st.Err)
	}
	return nil
}

// Energies returns the energy-per-site series, one value a measurement; the
// caller must not modify it.
func (m *Measurer) Energies() []float64 { return m.energy }

// Magnetisations returns the order-parameter series.
func (m *Measurer) Magnetisations() []float64 { return m.mag }

// Series returns every series measured so far (views; the caller must not
// modify them).
func (m *Measurer) Series() Series { return Series{E: m.energy, M: m.mag, M2: m.m2, SK: m.sk} }

// Result summarises a run's measurements.
type Result struct {
	Measurements  int
	Energy        diag.Estimate // energy per site H/n
	Magnetisation diag.Estimate // order parameter
	// EnergySamples is the number of pairs each energy measurement sampled
	// (0: exact). The Monte Carlo noise is independent between measurements,
	// so Energy.Err includes it.
	EnergySamples int
}

// Result returns the means and binning errors of the series. It needs at
// least 4 measurements, and returns the first invalid state the Measurer saw
// as an error.
func (m *Measurer) Result() (Result, error) {
	res := Result{Measurements: len(m.energy), EnergySamples: m.samples}
	if m.err != nil {
		return res, m.err
	}
	var err error
	if res.Energy, err = diag.BinningEstimate(m.energy); err != nil {
		return res, fmt.Errorf("lattice: energy: %w", err)
	}
	if res.Magnetisation, err = diag.BinningEstimate(m.mag); err != nil {
		return res, fmt.Errorf("lattice: magnetisation: %w", err)
	}
	return res, nil
}

// minBinderBlocks is the fewest jackknife blocks BinderCumulant uses, the
// fewest blocks of a level diag.BinningError may choose as its plateau.
const minBinderBlocks = 16

// BinderCumulant returns the Binder cumulant
//
//	U = 1 − ⟨m⁴⟩/(3⟨m²⟩²)
//
// of a series m of per-sweep measurements of the magnetisation, with ⟨·⟩ the
// mean over the whole series (the ratio of the sample moments; its O(1/len)
// bias is not corrected). U depends only on even moments, so m and |m| give
// the same value: it applies directly to a Measurer's Magnetisations() of
// Ising spins, |Σ s_i|/n per sweep (burn-in is the caller's to drop). U → 0
// for Gaussian m (the disordered phase), 2/3 for m = ±const (the ordered
// phase); at the critical point of the 2-D Ising model on L×L tori it tends
// to U* = 0.61069… as L → ∞. (For Potts spins with q > 2 the Measurer's order
// parameter is a scalar, not the q − 1-component magnetisation, and its U
// has other limits.)
//
// Err is a delete-one-block jackknife error: the series is cut into B
// consecutive blocks of nearly equal length (boundaries ⌊j·len/B⌋), U_(j) is
// U without block j, and Err² = (B − 1)/B·Σ_j (U_(j) − Ū)². The blocks are
// as long as the longer of the plateau block sizes diag.BinningError finds
// for the series m² and m⁴ (or, when one has no plateau, its level of
// largest error among those with at least 16 blocks; Plateau is then
// false and Err a lower bound), so there are at least 16 of them and, at a
// plateau, blocks longer than the correlation time. Tau is (Err/Err₁)²,
// with Err₁ the jackknife error over single measurements: the factor by
// which correlation inflates the variance of U.
//
// It needs at least 16 finite values with ⟨m²⟩ > 0.
func BinderCumulant(m []float64) (diag.Estimate, error) {
	if len(m) < minBinderBlocks {
		return diag.Estimate{}, fmt.Errorf("lattice: Binder cumulant of %d values; it needs at least %d", len(m), minBinderBlocks)
	}
	m2, m4 := make([]float64, len(m)), make([]float64, len(m))
	for i, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return diag.Estimate{}, fmt.Errorf("lattice: Binder cumulant: m[%d] = %v", i, v)
		}
		m2[i], m4[i] = v*v, v*v*v*v
	}
	b2, ok2, err := diag.PlateauBlock(m2)
	if err != nil {
		return diag.Estimate{}, fmt.Errorf("lattice: Binder cumulant: %w", err)
	}
	b4, ok4, err := diag.PlateauBlock(m4)
	if err != nil {
		return diag.Estimate{}, fmt.Errorf("lattice: Binder cumulant: %w", err)
	}
	u, se, err := binderJackknife(m2, m4, len(m)/max(b2, b4))
	if err != nil {
		return diag.Estimate{}, err
	}
	_, se1, _ := binderJackknife(m2, m4, len(m))
	tau := 1.0
	if se1 > 0 {
		tau = (se / se1) * (se / se1)
	}
	return diag.Estimate{Mean: u, Err: se, Tau: tau, Plateau: ok2 && ok4}, nil
}

// binderJackknife returns U of the series whose squares and fourth powers
// are m2 and m4, and its delete-one-block jackknife error over nb blocks.
func binderJackknife(m2, m4 []float64, nb int) (u, se float64, err error) {
	n := len(m2)
	s2, s4 := make([]float64, nb), make([]float64, nb)
	var t2, t4 float64
	for j := range nb {
		for i := j * n / nb; i < (j+1)*n/nb; i++ {
			s2[j] += m2[i]
			s4[j] += m4[i]
		}
		t2 += s2[j]
		t4 += s4[j]
	}
	binder := func(sum2, sum4, k float64) float64 { return 1 - sum4*k/(3*sum2*sum2) }
	if !(t2 > 0) {
		return 0, 0, errors.New("lattice: Binder cumulant: ⟨m²⟩ = 0")
	}
	u = binder(t2, t4, float64(n))
	uj := make([]float64, nb)
	mean := 0.0
	for j := range nb {
		k := float64(n - ((j+1)*n/nb - j*n/nb))
		uj[j] = binder(t2-s2[j], t4-s4[j], k)
		if math.IsNaN(uj[j]) || math.IsInf(uj[j], 0) {
			return 0, 0, fmt.Errorf("lattice: Binder cumulant: ⟨m²⟩ = 0 without block %d of %d", j, nb)
		}
		mean += uj[j]
	}
	mean /= float64(nb)
	ss := 0.0
	for _, v := range uj {
		ss += (v - mean) * (v - mean)
	}
	return u, math.Sqrt(ss * float64(nb-1) / float64(nb)), nil
}
