package diag

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Summary holds the usual convergence summary of one quantity sampled by
// several chains, as Stan prints it.
type Summary struct {
	Mean      float64 // mean of all draws
	SD        float64 // standard deviation of all draws (divisor S−1)
	MCSE      float64 // Monte Carlo standard error of Mean, SD/√ESS
	ESS       float64 // split-chain ESS of the raw draws, see [ESS]
	BulkESS   float64 // see [BulkESS]
	TailESS   float64 // see [TailESS]
	RHat      float64 // rank-normalised split-R̂, see [RHat]
	SplitRHat float64 // classic split-R̂, see [SplitRHat]
}

// Summarize returns the [Summary] of draws given as chains × draws, sorting
// the draws once for all the rank-based diagnostics. Its errors are those of
// [ESS] (at least 6 draws per chain); the NaN cases are those of the
// individual diagnostics.
func Summarize(chains [][]float64) (Summary, error) {
	if err := checkChains(chains, minESSDraws); err != nil {
		return Summary{}, err
	}
	sc := getScratch()
	defer putScratch(sc)
	var s Summary
	sc.sorted = flatten(sc.sorted, chains)
	s.Mean, s.SD = stat.MeanStdDev(sc.sorted, nil)
	halves := sc.split(chains)
	s.ESS = sc.essSplit(halves)
	s.MCSE = s.SD / math.Sqrt(s.ESS)
	s.SplitRHat = sc.rhatSplit(halves)
	s.BulkESS = sc.essSplit(sc.rankNormalize(halves))
	sorted := sc.sortedDraws(chains)
	s.TailESS = sc.tailESS(chains, sorted)
	s.RHat = sc.rhatRank(chains, sorted)
	return s, nil
}
