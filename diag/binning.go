package diag

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoPlateau is returned, together with the full [Binning] curve, when no
// block size of a binning analysis meets the plateau criterion: the series
// is too short for its correlation time, and every standard error on the
// curve may be too small.
var ErrNoPlateau = errors.New("diag: binning analysis found no plateau; the series is too short for its correlation time")

// minPlateauBlocks is the fewest blocks a plateau level may have.
const minPlateauBlocks = 16

// BinningLevel is one level of a binning analysis.
type BinningLevel struct {
	BlockSize int     // draws per block, 2^level
	Blocks    int     // number of blocks at this level
	SE        float64 // standard error of the mean estimated from the block means
	SEErr     float64 // statistical error of SE itself, SE/√(2(Blocks−1))
}

// Binning is the result of [BinningError].
type Binning struct {
	// Levels holds the standard error for block sizes 1, 2, 4, …, as long
	// as at least 2 blocks remain.
	Levels []BinningLevel
	// Plateau is the index in Levels of the level chosen as the plateau,
	// or −1 if none qualifies.
	Plateau int
	// SE is the standard error of the mean at the plateau (NaN if there is
	// none).
	SE float64
	// Tau is (SE/Levels[0].SE)², the integrated autocorrelation time
	// 1 + 2Σ_{t≥1} ρ_t implied by SE; len(x)/Tau is an effective sample size.
	Tau float64
}

// BinningError returns the standard error of the mean of a correlated series
// by the binning (blocking) analysis of Flyvbjerg & Petersen (J. Chem. Phys.
// 91, 461, 1989): the series is averaged in non-overlapping blocks of
// B = 1, 2, 4, … draws (each level pairs up the block means of the previous
// one, dropping a last unpaired block), and at each level the standard error
// of the mean is estimated as if the n_B block means were independent,
//
//	SE_B = √( Σ_j (m_j − m̄)² / (n_B(n_B − 1)) ).
//
// SE_B grows with B and levels off once blocks are much longer than the
// correlation time. The plateau chosen is the smallest B with
//
//	B³ > 2·len(x)·(SE_B/SE_1)⁴,
//
// the criterion of Lee et al. (Phys. Rev. E 83, 066706, 2011), which balances
// the bias of short blocks against the noise of few blocks, among the levels
// with at least 16 blocks (an SE known to within about 18%): with fewer
// blocks the ratio SE_B/SE_1 is too noisy for the criterion to mean
// anything, and a series much shorter than its correlation time would
// otherwise pass at its last levels.
//
// BinningError returns an error if x has fewer than 4 values or holds a NaN
// or infinite value. If no level meets the criterion it returns the curve
// with Plateau = −1 and SE = Tau = NaN, and [ErrNoPlateau]. A constant
// series has SE = 0 at every level and plateau 0.
func BinningError(x []float64) (Binning, error) {
	if len(x) < 4 {
		return Binning{}, fmt.Errorf("diag: binning analysis of %d values; it needs at least 4", len(x))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Binning{}, fmt.Errorf("diag: binning analysis: x[%d] = %v", i, v)
		}
	}
	m := append([]float64(nil), x...)
	var res Binning
	for size := 1; len(m) >= 2; size *= 2 {
		n := float64(len(m))
		mean := 0.0
		for _, v := range m {
			mean += v
		}
		mean /= n
		ss := 0.0
		for _, v := range m {
			d := v - mean
			ss += d * d
		}
		se := math.Sqrt(ss / (n * (n - 1)))
		res.Levels = append(res.Levels, BinningLevel{
			BlockSize: size,
			Blocks:    len(m),
			SE:        se,
			SEErr:     se / math.Sqrt(2*(n-1)),
		})
		// Next level: means of consecutive pairs.
		half := len(m) / 2
		for j := range half {
			m[j] = (m[2*j] + m[2*j+1]) / 2
		}
		m = m[:half]
	}
	res.Plateau = -1
	res.SE, res.Tau = math.NaN(), math.NaN()
	se1 := res.Levels[0].SE
	if se1 == 0 {
		res.Plateau, res.SE, res.Tau = 0, 0, 1
		return res, nil
	}
	for k, l := range res.Levels {
		if l.Blocks < minPlateauBlocks {
			break
		}
		r := l.SE / se1
		b := float64(l.BlockSize)
		if b*b*b > 2*float64(len(x))*r*r*r*r { // Lee et al. (2011)
			res.Plateau, res.SE, res.Tau = k, l.SE, r*r
			return res, nil
		}
	}
	return res, ErrNoPlateau
}
