package blocks

import "math"

// Estimates of Build's work, in its meter's units, per factor incidence of
// a free variable (Σ_i |A[i]|): the interaction graph, the cores and the
// growth of blocks of bounded width, or the forests (fitted on the
// generated dense models, 120–180 and 40–120 units an incidence); of the
// fresh min-fill checks, per pair of a free variable and a block member
// (n·min(MaxVars, n): 100 on the shared UAI models), within their
// budget; and per hard incidence, the frozen-link test (its searches for
// feasible states, which look at the context themselves, counted as units:
// a block of width w rarely splits a hard link, the forests often do).
const (
	estIncidence       = 200
	estIncidenceForest = 50
	estMinFillPair     = 100
	estHard            = 1.25e4
	estHardForest      = 5e4
)

// EstimateWork returns an estimate, made before it starts, of the work
// Build (or Forests, cfg.Forests) does on m, in the units its meter
// counts (a few nanoseconds each: see package internal/meter), from the
// free variables' counts of factors alone (O(n)). The construction's cost
// is near-linear in the model's factor incidences (see Build): the
// estimate is a multiple of them, plus the min-fill checks' budget where
// blocks can be large, plus the frozen-link test on models with hard
// factors. blocked.BuildCost turns it into time (and documents the
// calibration). A cfg with negative bounds gives +Inf.
func EstimateWork(m Model, cfg Config) float64 {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return math.Inf(1)
	}
	free := m.Free()
	n := float64(len(free))
	incid, hard := 0.0, 0.0
	for _, i := range free {
		soft, h := m.Degree(i)
		incid += float64(soft + h)
		hard += float64(h)
	}
	if cfg.Forests {
		return estIncidenceForest*incid + estHardForest*hard
	}
	minFill := min(mfBase+mfPerIncidence*incid, estMinFillPair*n*min(n, float64(cfg.MaxVars)))
	return estIncidence*incid + minFill + estHard*hard
}
