package simulation

import (
	"encoding/json"
	"math"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/lattice"
)

// The JSON forms of a run's description and results: the objects `pgibbs
// lattice -json` writes. Undefined values (NaN, ±Inf) are null or left
// out: JSON has no NaN.

// Setup describes a simulation: the model, its couplings and the run's
// settings. Fields that do not apply are left out of its JSON: γ or σ
// of the other kernels, the states of continuous spins and the interval
// of discrete ones, Chromatic's fields of other samplers, λ of samplers
// that draw no minibatch.
type Setup struct {
	Dim         int      `json:"dim"`
	Size        int      `json:"size"`
	Sites       int      `json:"sites"`
	Kernel      string   `json:"kernel"` // nn, gaussian, power, or a Coupling's String
	Gamma       float64  `json:"gamma,omitempty"`
	Sigma       float64  `json:"sigma,omitempty"`
	Cutoff      float64  `json:"cutoff,omitempty"`
	Spin        string   `json:"spin"` // potts, ising or continuous
	States      int      `json:"states,omitempty"`
	Lo          *float64 `json:"lo,omitempty"` // continuous spins only
	Hi          *float64 `json:"hi,omitempty"`
	Beta        float64  `json:"beta"`
	Update      string   `json:"update,omitempty"`
	Workers     int      `json:"workers,omitempty"`
	Classes     int      `json:"colour_classes,omitempty"`
	Start       string   `json:"start"`
	L           float64  `json:"L"`
	Lambda      float64  `json:"lambda,omitempty"`
	Offsets     int      `json:"offsets"`
	PairFactors float64  `json:"pair_factors"`
	CouplingSum float64  `json:"coupling_sum"`
	Sweeps      int64    `json:"sweeps"`
	// MeasureEvery is Config.MeasureEvery when above 1.
	MeasureEvery int `json:"measure_every,omitempty"`
}

// Setup returns the description of the simulation.
func (s *Simulation) Setup() Setup {
	p, l := s.l.Params(), s.l
	out := Setup{Dim: p.Dim, Size: p.Size, Sites: l.Sites(), Kernel: p.Coupling.String(), Cutoff: p.Cutoff,
		Spin: spinName(p.Spin.Kind), States: p.Spin.States, Beta: p.Beta, Start: s.cfg.Start.String(), L: l.L(), Lambda: s.Lambda(),
		Offsets: l.NumOffsets(), PairFactors: l.PairFactors(), CouplingSum: l.CouplingSum(), Sweeps: s.cfg.Sweeps}
	switch k := p.Coupling.(type) {
	case lattice.NearestNeighbour:
		out.Kernel = "nn"
	case lattice.Gaussian:
		out.Kernel, out.Gamma = "gaussian", k.Gamma
	case lattice.PowerLaw:
		out.Kernel, out.Sigma = "power", k.Sigma
	}
	if p.Spin.Kind == lattice.ContinuousSpins {
		out.States, out.Lo, out.Hi = 0, &p.Spin.Lo, &p.Spin.Hi
	}
	if s.cfg.MeasureEvery > 1 {
		out.MeasureEvery = s.cfg.MeasureEvery
	}
	if s.cfg.Sampler == Chromatic {
		out.Update, out.Workers, out.Classes = s.cfg.Update, s.cfg.Workers, len(s.classes)
	}
	return out
}

// Estimates are the JSON form of a Result's two estimates (undefined τ
// as 0).
type Estimates struct {
	EnergyPerSite      float64 `json:"energy_per_site"`
	EnergyError        float64 `json:"energy_error"`
	EnergyTau          float64 `json:"energy_tau"`
	EnergyMethod       string  `json:"energy_method"` // exact or monte-carlo
	EnergySamples      int     `json:"energy_samples,omitempty"`
	Magnetisation      float64 `json:"magnetisation"`
	MagnetisationError float64 `json:"magnetisation_error"`
	MagnetisationTau   float64 `json:"magnetisation_tau"`
	ErrorPlateau       bool    `json:"error_plateau"`
}

// Estimates returns the JSON form of r's estimates.
func (r *Result) Estimates() Estimates {
	out := Estimates{EnergyPerSite: r.Energy.Mean, EnergyError: r.Energy.Err, EnergyTau: finite(r.Energy.Tau),
		EnergyMethod: "exact", EnergySamples: r.EnergySamples,
		Magnetisation: r.Magnetisation.Mean, MagnetisationError: r.Magnetisation.Err,
		MagnetisationTau: finite(r.Magnetisation.Tau), ErrorPlateau: r.Plateau}
	if r.EnergySamples > 0 {
		out.EnergyMethod = "monte-carlo"
	}
	return out
}

// finite returns v, or 0 if v is NaN or infinite.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Estimate is the JSON form of a diag.Estimate: its mean, error and τ,
// null when undefined.
type Estimate struct {
	Mean *float64 `json:"mean"`
	Err  *float64 `json:"err"`
	Tau  *float64 `json:"tau,omitempty"`
}

// EstimateOf returns e's JSON form.
func EstimateOf(e diag.Estimate) Estimate {
	def := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return Estimate{Mean: def(e.Mean), Err: def(e.Err), Tau: def(e.Tau)}
}

// Observables are the pooled chains' lattice.Observables. Their JSON has
// the specific heat only with exact energies (a Monte Carlo energy's
// noise adds to its variance).
type Observables struct {
	lattice.Observables
	ExactEnergy bool
}

// MarshalJSON writes the observables with their errors and τ.
func (o Observables) MarshalJSON() ([]byte, error) {
	out := struct {
		AbsM            Estimate  `json:"abs_m"`
		M2              Estimate  `json:"m2"`
		M4              Estimate  `json:"m4"`
		Energy          Estimate  `json:"energy"`
		Chi             Estimate  `json:"chi"`
		ChiDisconnected Estimate  `json:"chi_disconnected"`
		SpecificHeat    *Estimate `json:"specific_heat,omitempty"`
		Binder          Estimate  `json:"binder"`
		Xi              Estimate  `json:"xi"`
		Blocks          int       `json:"jackknife_blocks"`
		Block           int       `json:"jackknife_block"`
	}{AbsM: EstimateOf(o.AbsM), M2: EstimateOf(o.M2), M4: EstimateOf(o.M4), Energy: EstimateOf(o.Energy),
		Chi: EstimateOf(o.Chi), ChiDisconnected: EstimateOf(o.ChiDisconnected), Binder: EstimateOf(o.Binder), Xi: EstimateOf(o.Xi),
		Blocks: o.Blocks, Block: o.Block}
	if o.ExactEnergy {
		c := EstimateOf(o.SpecificHeat)
		out.SpecificHeat = &c
	}
	return json.Marshal(out)
}

// Peak is the maximum of the reweighted χ over the window.
type Peak struct{ lattice.Peak }

// MarshalJSON writes the peak's position and height with their errors.
func (p Peak) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Beta   Estimate `json:"beta"`
		Height Estimate `json:"height"`
		Edge   bool     `json:"at_window_edge"`
	}{EstimateOf(p.Beta), EstimateOf(p.Height), p.Edge})
}
