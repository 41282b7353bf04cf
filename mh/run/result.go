package run

import (
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// Result is what a run's chains did, pooled.
type Result struct {
	Chains int
	// Stats are the samplers' counters summed over the chains (burn-in
	// included): Steps, acceptance, batch sizes (Stats.MeanBatch),
	// likelihood evaluations (Stats.EvalsPerStep), full-data steps.
	Stats mh.Stats
	// Mean is θ's mean past the burn-in, pooled over the chains
	// (chain.PoolMeans).
	Mean []float64
	// Quantities are the tracked quantities (Series: every coordinate of
	// θ, [coordinate][chain][draw]) and Verdict their convergence verdict
	// by the configuration's criteria (chain.Judge).
	Quantities [][][]float64
	Verdict    chain.Verdict
	// TV is, for the bias example (a *targets.Bias target), the total
	// variation between the chains' pooled histogram of θ (their traces)
	// and its exact, uniform, target; nil for other targets.
	TV *float64
}

// Result pools chains that have run (built by Chain, in any number and
// order): their counters, means, tracked quantities and verdict.
func (e *Experiment) Result(chains []*chain.Chain) (*Result, error) {
	if len(chains) == 0 {
		return nil, fmt.Errorf("mh/run: no chains")
	}
	out := &Result{Chains: len(chains)}
	means := make([]*chain.Means, len(chains))
	for k, c := range chains {
		s, err := Sampler(c)
		if err != nil {
			return nil, err
		}
		if means[k], err = observer[*chain.Means](c); err != nil {
			return nil, err
		}
		out.Stats.Add(s.Stats())
	}
	out.Mean = chain.PoolMeans(means...)
	qs, name, err := e.Series(chains)
	if err != nil {
		return nil, err
	}
	out.Quantities, out.Verdict = qs, chain.Judge(qs, name, e.cfg.Criteria)
	if b, ok := e.cfg.Target.(*targets.Bias); ok {
		tv, err := biasTV(chains, b.K())
		if err != nil {
			return nil, err
		}
		out.TV = &tv
	}
	return out, nil
}

// biasTV returns the total variation between the histogram of the chains'
// traced draws of θ (each trace whole) and the uniform law on {0, …, k−1}.
func biasTV(chains []*chain.Chain, k int) (float64, error) {
	h := make([]float64, k)
	for _, c := range chains {
		t, err := observer[*chain.Trace](c)
		if err != nil {
			return 0, err
		}
		for _, v := range t.Draws()[0] {
			if i := int(v); i >= 0 && i < k {
				h[i]++
			}
		}
	}
	u := make([]float64, k)
	for i := range u {
		u[i] = 1
	}
	tv, _ := diag.TotalVariation(h, u)
	return tv, nil
}
