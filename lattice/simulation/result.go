package simulation

import (
	"cmp"
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/lattice"
)

// Result is what a run measured, pooled over its chains. Its JSON holds
// the measurements, the energy's method, the observables and the
// reweighting (the fields of `pgibbs lattice -json` that describe them);
// the estimates, the verdict and the counters are the caller's to write.
type Result struct {
	Chains       int `json:"-"`
	Measurements int `json:"measurements"` // a chain
	// Energy (per site, H/n) and Magnetisation (the order parameter |m|)
	// are the pooled chains' estimates: the Observables' (blocked
	// jackknife) where they could be computed, else the chains' binning
	// estimates pooled (diag.PoolEstimates). Plateau is whether every
	// chain's binning analysis of both found a plateau (if not, the run is
	// short for its correlation time and the error bars are lower bounds).
	Energy, Magnetisation diag.Estimate `json:"-"`
	Plateau               bool          `json:"-"`
	// EnergySamples is the pairs a measurement's energy sampled (0: exact).
	EnergySamples int `json:"-"`
	// Observables are the finite-size-scaling observables of the pooled
	// chains (lattice.Observables), nil when there are too few
	// measurements.
	Observables *Observables `json:"observables,omitempty"`
	// Reweighted is the reweighting of Config.Reweight, if asked.
	Reweighted *Reweighted `json:"reweight,omitempty"`
	// Verdict is the convergence verdict on the energy and magnetisation
	// series (Simulation.Verdict).
	Verdict chain.Verdict `json:"-"`
	// Stats are the samplers' counters summed over the chains.
	Stats gibbs.Stats `json:"-"`
	// ClustersPerStep is each chain's single-cluster updates a step (Wolff;
	// nil for other samplers).
	ClustersPerStep []int `json:"-"`
	// State is the first chain's final configuration.
	State []float64 `json:"-"`
}

// Reweighted are the observables reweighted to a grid of β (single-histogram
// reweighting, Ferrenberg & Swendsen 1988).
type Reweighted struct {
	Beta0       float64    `json:"beta0"`        // the run's β
	Window      [2]float64 `json:"window"`       // where the weights' effective fraction is ≥ MinFraction
	MinFraction float64    `json:"min_fraction"` // Grid.MinFraction
	Points      []Point    `json:"points"`
	// Peak is the maximum of the reweighted χ over the window, nil if
	// there is none (Notes say why).
	Peak *Peak `json:"chi_peak,omitempty"`
	// Notes warn about the peak: at an end of the window, or none.
	Notes []string `json:"notes,omitempty"`
}

// Point is the reweighted observables at one β of the grid, or, outside
// the window, Refused says so. ESS is the weights' effective fraction.
type Point struct {
	Beta        float64      `json:"beta"`
	ESS         float64      `json:"ess_fraction"`
	Observables *Observables `json:"observables,omitempty"`
	Refused     string       `json:"refused,omitempty"`
}

// Refused is Point.Refused.
const Refused = "outside the window (a smaller minimum fraction widens it, at the price of noisier estimates)"

// Result pools the measurements of chains that have run (built by Chain,
// in any number and order): the estimates, the observables, the
// reweighting and the verdict. It returns the first invalid state a
// Measurer saw, or a chain with fewer than 4 measurements, as an error.
func (s *Simulation) Result(chains []*chain.Chain) (*Result, error) {
	if len(chains) == 0 {
		return nil, fmt.Errorf("simulation: no chains")
	}
	out := &Result{Chains: len(chains)}
	var es, ms []diag.Estimate
	series := make([]lattice.Series, len(chains))
	for k, c := range chains {
		sm, err := Sampler(c)
		if err != nil {
			return nil, err
		}
		meas, err := Measurer(c)
		if err != nil {
			return nil, err
		}
		res, err := meas.Result()
		if err != nil {
			return nil, err
		}
		out.Measurements, out.EnergySamples = res.Measurements, res.EnergySamples
		es, ms, series[k] = append(es, res.Energy), append(ms, res.Magnetisation), meas.Series()
		out.Stats.Add(sm.Stats())
		if w, ok := sm.(*cluster.Wolff); ok {
			out.ClustersPerStep = append(out.ClustersPerStep, w.Clusters())
		}
		if k == 0 {
			out.State = sm.State()
		}
	}
	out.Energy, out.Magnetisation = diag.PoolEstimates(es), diag.PoolEstimates(ms)
	out.Plateau = out.Energy.Plateau && out.Magnetisation.Plateau
	if obs, err := s.l.Observables(series...); err == nil {
		out.Observables = &Observables{Observables: obs, ExactEnergy: out.EnergySamples == 0}
		out.Energy, out.Magnetisation = obs.Energy, obs.AbsM
	}
	var err error
	if out.Verdict, err = s.Verdict(chains); err != nil {
		return nil, err
	}
	if s.cfg.Reweight != nil {
		if out.Reweighted, err = s.reweight(series); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reweight reweights the series to the grid: each β inside the window or
// refused, and χ's peak.
func (s *Simulation) reweight(series []lattice.Series) (*Reweighted, error) {
	g := s.cfg.Reweight
	rw, err := s.l.Reweighter(series...)
	if err != nil {
		return nil, fmt.Errorf("simulation: reweighting: %w", err)
	}
	if err := rw.SetMinFraction(cmp.Or(g.MinFraction, lattice.DefaultMinFraction)); err != nil {
		return nil, fmt.Errorf("simulation: reweighting: %w", err)
	}
	out := &Reweighted{Beta0: rw.Beta0(), MinFraction: rw.MinFraction()}
	out.Window[0], out.Window[1] = rw.Window()
	for k := range g.N {
		pt := Point{Beta: g.Beta(k)}
		pt.ESS = rw.ESS(pt.Beta)
		if o, err := rw.At(pt.Beta); err == nil {
			pt.Observables = &Observables{Observables: o.Observables, ExactEnergy: true}
		} else {
			pt.Refused = Refused
		}
		out.Points = append(out.Points, pt)
	}
	if p, err := rw.ChiPeak(); err == nil {
		out.Peak = &Peak{p}
		if p.Edge {
			out.Notes = append(out.Notes, "χ is largest at an end of the window: its peak may lie beyond; run nearer it")
		}
	} else {
		out.Notes = append(out.Notes, "no χ peak: "+err.Error())
	}
	return out, nil
}
