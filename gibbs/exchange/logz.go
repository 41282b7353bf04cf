package exchange

import (
	"math"
	"slices"
)

// logZ accumulates, at every round of swaps, the bridge sampling estimate
// of each ratio of neighbouring partition functions (Bennett 1976; Meng &
// Wong 1996, with the geometric bridge π_k^½ π_{k+1}^½):
//
//	Z_k / Z_{k+1} = E_{k+1}[exp(Δ_k ℓ/2)] / E_k[exp(−Δ_k ℓ/2)],  Δ_k = β_k − β_{k+1},
//
// each expectation taken with a reference c_k subtracted from ℓ (the
// midpoint of the two rungs' mean energies) so that nothing overflows. The
// sums are kept in batches of rounds (at most maxBatches, merged in pairs
// as the run grows) whose means give the estimate's standard error.
type logZ struct {
	refs    []float64 // c_k, pair k = (k, k+1)
	set     bool
	size    int64     // rounds a batch
	batches []lzBatch // closed batches
	cur     lzBatch
}

// lzBatch holds a batch's sums: a[k] of exp(Δ_k(ℓ_{k+1} − c_k)/2) over
// the states at rung k+1, b[k] of exp(−Δ_k(ℓ_k − c_k)/2) over those at
// rung k, over n rounds.
type lzBatch struct {
	N    int64
	A, B []float64
}

const maxBatches = 64

func newBatch(K int) lzBatch {
	return lzBatch{A: make([]float64, max(0, K-1)), B: make([]float64, max(0, K-1))}
}

func (z *logZ) reset(K int) {
	*z = logZ{refs: make([]float64, max(0, K-1)), size: 1, cur: newBatch(K)}
}

// setRefs sets the references c_k from the mean energies measured at the
// rungs measured (the tuning's last ladder), interpolated to betas.
func (z *logZ) setRefs(measured []float64, m []moment, betas []float64) {
	for k := range z.refs {
		z.refs[k] = (momentAt(measured, m, betas[k]).mean + momentAt(measured, m, betas[k+1]).mean) / 2
	}
	z.set = true
}

// add adds a round's energies ell (ell[k] that of the state at rung k).
func (z *logZ) add(betas, ell []float64) {
	if !z.set {
		for k := range z.refs {
			z.refs[k] = (ell[k] + ell[k+1]) / 2
		}
		z.set = true
	}
	for k, c := range z.refs {
		d := betas[k] - betas[k+1]
		z.cur.A[k] += math.Exp(d * (ell[k+1] - c) / 2)
		z.cur.B[k] += math.Exp(-d * (ell[k] - c) / 2)
	}
	z.cur.N++
	if z.cur.N < z.size {
		return
	}
	z.batches = append(z.batches, z.cur)
	z.cur = newBatch(len(z.refs) + 1)
	if len(z.batches) == maxBatches {
		// Merge neighbouring batches: half as many, twice as long.
		for j := range maxBatches / 2 {
			a, b := z.batches[2*j], z.batches[2*j+1]
			for k := range a.A {
				a.A[k] += b.A[k]
				a.B[k] += b.B[k]
			}
			a.N += b.N
			z.batches[j] = a
		}
		z.batches = z.batches[:maxBatches/2]
		z.size *= 2
	}
}

// minBatches is the fewest closed batches that give a standard error.
const minBatches = 8

// estimate returns log Z(β_0)/Z(β_{K−1}) and its standard error (+Inf
// with fewer than minBatches closed batches). Once there are enough, the
// first quarter of the batches is left out (a burn-in: the cold rungs'
// first rounds, still settling into their valleys, bias log Z low) and so
// is the batch still open.
func (z *logZ) estimate(betas []float64) (ratio, se float64) {
	use := z.batches
	if len(use) >= minBatches {
		use = use[len(use)/4:]
	} else {
		use = append(slices.Clone(use), z.cur)
	}
	K1 := len(z.refs)
	sumA := make([]float64, K1)
	sumB := make([]float64, K1)
	var n int64
	for _, b := range use {
		n += b.N
		for k := range K1 {
			sumA[k] += b.A[k]
			sumB[k] += b.B[k]
		}
	}
	if n == 0 {
		return math.NaN(), math.Inf(1)
	}
	for k, c := range z.refs {
		d := betas[k] - betas[k+1]
		ratio += d*c + math.Log(sumA[k]/float64(n)) - math.Log(sumB[k]/float64(n))
	}
	if len(z.batches) < minBatches {
		return ratio, math.Inf(1)
	}
	// Batch means of the linearised estimate: Σ_k Â_k,b/Â_k − B̂_k,b/B̂_k
	// (the batches used have equal lengths).
	s := make([]float64, len(use))
	for j, b := range use {
		for k := range K1 {
			s[j] += (b.A[k]/float64(b.N))/(sumA[k]/float64(n)) - (b.B[k]/float64(b.N))/(sumB[k]/float64(n))
		}
	}
	se = batchSE(s)
	// The same with minBatches batches as long as the batches allow (at
	// least twice as long): the larger of the two, as batches shorter than
	// the cold rungs' valley changes make the first too small.
	if g := len(s) / minBatches; g >= 2 {
		long := make([]float64, minBatches)
		for j := range long {
			for _, x := range s[j*g : (j+1)*g] {
				long[j] += x / float64(g)
			}
		}
		se = max(se, batchSE(long))
	}
	return ratio, se
}

// batchSE returns the standard error of the mean of the batch means s.
func batchSE(s []float64) float64 {
	nb := len(s)
	mean := 0.0
	for _, x := range s {
		mean += x
	}
	mean /= float64(nb)
	v, c1 := 0.0, 0.0
	for j, x := range s {
		v += (x - mean) * (x - mean)
		if j > 0 {
			c1 += (x - mean) * (s[j-1] - mean)
		}
	}
	// Batches shorter than the slowest mode's time (a cold rung's
	// valley, which only round trips through the ladder change) are
	// correlated, and their plain variance of the mean too small: it is
	// scaled by (1 + ρ)/(1 − ρ), ρ the batch means' lag-1 correlation
	// (an AR(1) model of them), where ρ > 0.
	rho := 0.0
	if v > 0 {
		rho = min(max(c1/v, 0), maxRho)
	}
	v /= float64(nb - 1)
	return math.Sqrt(v / float64(nb) * (1 + rho) / (1 - rho))
}

// maxRho bounds the batch means' lag-1 correlation the standard error
// corrects for: beyond it the batches are far too short for any estimate.
const maxRho = 0.9

// LogZ returns an estimate of log Z, the logarithm of the model's
// partition function given its evidence, Σ_x exp(ℓ(x)) over the free
// variables' values, and its standard error (batch means; +Inf before
// enough rounds), from the rounds of swaps since the ladder was fixed:
// the bridge along the ladder, and where a tuned ladder stops short of
// β = 0 the log-Z tail's from its hottest rung down (LogZRungs; the two
// independent, their errors added in quadrature). ok is false when
// neither reaches β = 0 or a hard factor reads a free variable: log Z is
// then known at no end of the ladder. At β = 0 with no hard factors every
// state has weight 1, so log Z(0) = Σ_i log D_i over the free variables.
func (e *Exchange) LogZ() (logZ, stderr float64, ok bool) {
	K := len(e.betas)
	if e.betas[K-1] != 0 && e.tail == nil || !e.logZ0() {
		return math.NaN(), math.NaN(), false
	}
	r, se := e.lz.estimate(e.betas)
	if e.tail != nil {
		hot, hse, ok := e.tail.LogZ()
		if !ok {
			return math.NaN(), math.NaN(), false
		}
		return hot + r, math.Hypot(se, hse), true
	}
	z0 := 0.0
	for _, i := range e.g.Free() {
		z0 += math.Log(float64(e.g.Domain(i).Size))
	}
	return z0 + r, se, true
}
