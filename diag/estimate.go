package diag

import (
	"errors"
	"math"
)

// Estimate is an estimated quantity with its error bar: the one
// value-and-standard-error type of the module (package lattice's
// observables, their pooled and reweighted forms, and the binning and
// jackknife estimators here all return it). A [Summary] carries the same
// error bar for draws of several chains as Mean and MCSE.
type Estimate struct {
	Mean float64
	// Err is the standard error of Mean: for [BinningEstimate] the binning
	// error at the plateau, or, when the series is too short to show one
	// (Plateau false), the largest error of the levels with at least 16
	// blocks, a lower bound on the true error; for a jackknife estimate,
	// the jackknife's.
	Err float64
	// Tau is the integrated autocorrelation time 1 + 2Σρ_t in draws: the
	// factor by which correlation inflates the variance (NaN when not
	// computed).
	Tau float64
	// Plateau reports whether the binning analysis behind Err found its
	// plateau (see [BinningError]).
	Plateau bool
}

// ErrorLevel returns the index in b.Levels of the level whose standard
// error an estimate uses: the plateau if there is one, otherwise the level
// of largest error among those with at least 16 blocks (the first of equal
// ones), or 0 if none has 16 blocks. Without a plateau that error is a lower
// bound on the true one.
func (b Binning) ErrorLevel() int {
	if b.Plateau >= 0 {
		return b.Plateau
	}
	k, se := 0, math.Inf(-1)
	for i, lv := range b.Levels {
		if lv.Blocks >= minPlateauBlocks && lv.SE > se {
			k, se = i, lv.SE
		}
	}
	return k
}

// BinningEstimate returns the mean of the series x with its binning error
// ([BinningError]) and τ: at the plateau, or, when the series is too short
// to show one, at [Binning.ErrorLevel] with Plateau false (τ is then NaN for
// a constant series). Its errors are BinningError's other than
// [ErrNoPlateau].
func BinningEstimate(x []float64) (Estimate, error) {
	b, err := BinningError(x)
	if err != nil && !errors.Is(err, ErrNoPlateau) {
		return Estimate{}, err
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if err == nil {
		return Estimate{Mean: mean, Err: b.SE, Tau: b.Tau, Plateau: true}, nil
	}
	se := b.Levels[b.ErrorLevel()].SE
	tau := math.NaN()
	if s1 := b.Levels[0].SE; s1 > 0 {
		tau = (se / s1) * (se / s1)
	}
	return Estimate{Mean: mean, Err: se, Tau: tau}, nil
}

// PlateauBlock returns the block size of the binning plateau of x and true,
// or, without a plateau, the block size of [Binning.ErrorLevel] and false:
// the block length for a blocked jackknife ([JackknifeVar]) of a function of
// x's means, blocks longer than the correlation time. Its errors are
// BinningError's other than [ErrNoPlateau].
func PlateauBlock(x []float64) (size int, plateau bool, err error) {
	b, err := BinningError(x)
	if err != nil && !errors.Is(err, ErrNoPlateau) {
		return 0, false, err
	}
	return b.Levels[b.ErrorLevel()].BlockSize, err == nil, nil
}

// JackknifeVar returns the delete-m_j (grouped) jackknife variance of
// Busing, Meijer and van der Leeden (Statistics and Computing 9, 3, 1999)
// of an estimator whose value on all n draws is theta and, without group j
// (counts[j] draws), rep[j]: with g groups and h_j = n/counts[j],
//
//	Var = (1/g)·Σ_j (p_j − θ_J)²/(h_j − 1),  p_j = h_j θ − (h_j − 1)rep[j],  θ_J = gθ − Σ_j (1 − counts[j]/n)rep[j],
//
// which is (g − 1)/g·Σ_j (rep[j] − mean(rep))² for equal groups. Groups of
// consecutive draws longer than the correlation time ([PlateauBlock]) make
// it the error of a correlated series' ratio or variance.
func JackknifeVar(theta float64, rep []float64, counts []int, n int) float64 {
	g := float64(len(rep))
	thetaJ := g * theta
	for j, r := range rep {
		thetaJ -= (1 - float64(counts[j])/float64(n)) * r
	}
	v := 0.0
	for j, r := range rep {
		h := float64(n) / float64(counts[j])
		p := h*theta - (h-1)*r
		v += (p - thetaJ) * (p - thetaJ) / (h - 1)
	}
	return v / g
}

// PoolEstimates combines the estimates of one quantity by independent
// chains of equal length (as many draws each): the pooled mean is the mean
// of the chain means; the chains are independent (distinct RNG streams), so
// the variance of that mean is Σ_c err_c²/K², and the pooled error is
// √(Σ_c err_c²)/K (for equal errors, err/√K). τ is the chains' mean finite
// τ (NaN if none is finite), and the plateau holds if every chain's binning
// analysis found one. The per-chain errors cannot see chains that disagree
// (stuck in different phases, say): R̂ over the draws is what reports that.
// One chain's estimate is returned as it is.
func PoolEstimates(es []Estimate) Estimate {
	if len(es) == 1 {
		return es[0]
	}
	var p Estimate
	p.Plateau = true
	var v float64
	taus := 0
	for _, e := range es {
		p.Mean += e.Mean
		v += e.Err * e.Err
		if !math.IsNaN(e.Tau) && !math.IsInf(e.Tau, 0) {
			p.Tau += e.Tau
			taus++
		}
		p.Plateau = p.Plateau && e.Plateau
	}
	k := float64(len(es))
	p.Mean /= k
	p.Err = math.Sqrt(v) / k
	if taus > 0 {
		p.Tau /= float64(taus)
	} else {
		p.Tau = math.NaN()
	}
	return p
}
