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

// SummarizeUnequal is [Summarize] for chains of unequal lengths — chains
// stopped by a time limit, say — by the standard rule for R̂: every chain is
// truncated to the length of the shortest, keeping its first draws, and
// the Summary is that of the truncated chains (all of it: Mean, SD and MCSE
// too, so that the error bar and the diagnostics describe the same draws).
// Keeping each chain's first draws compares the chains over the same
// stretch since their burn-in, which is what split-R̂'s between-chain
// comparison assumes; the draws a longer chain made beyond that are not
// used. It returns the common length kept. The draws must be equally spaced
// alike in every chain (traces thinned to different intervals are not).
// Its errors are Summarize's, for the shortest chain's length.
func SummarizeUnequal(chains [][]float64) (s Summary, kept int, err error) {
	if len(chains) == 0 {
		return Summary{}, 0, checkChains(chains, minESSDraws)
	}
	kept = len(chains[0])
	for _, c := range chains {
		kept = min(kept, len(c))
	}
	cut := make([][]float64, len(chains))
	for c, x := range chains {
		cut[c] = x[:kept]
	}
	s, err = Summarize(cut)
	return s, kept, err
}
