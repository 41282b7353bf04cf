package diag

import (
	"fmt"
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
	var s Summary
	s.Mean, s.SD = stat.MeanStdDev(flatten(chains), nil)
	halves := split(chains)
	s.ESS = essSplit(halves)
	s.MCSE = s.SD / math.Sqrt(s.ESS)
	s.BulkESS = essSplit(rankNormalize(halves))
	sorted := sortedDraws(chains)
	s.TailESS = tailESS(chains, sorted)
	s.RHat = rhatRank(chains, sorted)
	s.SplitRHat = rhatSplit(halves)
	return s, nil
}

// Worst is the convergence summary of several quantities sampled by the
// same chains: the largest R̂ and the smallest bulk and tail ESS over the
// quantities, and which quantity each was — what a run needs to decide
// whether it has converged. Quantities constant over every chain say nothing
// and are left out; a quantity constant within each chain at values that
// differ between chains is stuck (its R̂ is +Inf, its ESS 0).
type Worst struct {
	// RHatMax is the largest [RHat] over the non-stuck quantities (NaN with
	// one chain or no such quantity); RHatArg is its quantity (−1: none).
	RHatMax float64
	RHatArg int
	// BulkESSMin is the smallest [BulkESS] (a NaN counts as 0) and
	// TailESSMin the smallest defined [TailESS] (NaN if none is: the tail
	// ESS of a discrete quantity whose 5% or 95% quantile is an end of its
	// range is undefined); BulkESSArg and TailESSArg are their quantities.
	BulkESSMin, TailESSMin float64
	BulkESSArg, TailESSArg int
	// Used counts the quantities that are not constant over every chain;
	// Stuck those of them constant within each chain.
	Used, Stuck int
}

// WorstOf returns the [Worst] summary of quantities[q][chain][draw]. Its
// errors are those of [BulkESS] for any quantity (at least 6 draws a chain,
// equal lengths, finite draws).
func WorstOf(quantities [][][]float64) (Worst, error) {
	w := Worst{RHatMax: math.NaN(), RHatArg: -1, BulkESSMin: math.Inf(1), TailESSMin: math.Inf(1),
		BulkESSArg: -1, TailESSArg: -1}
	for q, chains := range quantities {
		if err := checkChains(chains, minESSDraws); err != nil {
			return w, fmt.Errorf("quantity %d: %w", q, err)
		}
		if constant(chains) {
			continue
		}
		w.Used++
		sorted := sortedDraws(chains)
		bulk := essSplit(rankNormalize(split(chains)))
		tail := tailESS(chains, sorted)
		if len(chains) > 1 {
			switch r := rhatRank(chains, sorted); {
			case math.IsInf(r, 1):
				w.Stuck++
			case !math.IsNaN(r) && !(r <= w.RHatMax):
				w.RHatMax, w.RHatArg = r, q
			}
		}
		if math.IsNaN(bulk) {
			bulk = 0
		}
		if bulk < w.BulkESSMin {
			w.BulkESSMin, w.BulkESSArg = bulk, q
		}
		if tail < w.TailESSMin {
			w.TailESSMin, w.TailESSArg = tail, q
		}
	}
	if w.Used == 0 {
		w.BulkESSMin = math.NaN()
	}
	if w.TailESSArg < 0 {
		w.TailESSMin = math.NaN()
	}
	return w, nil
}
