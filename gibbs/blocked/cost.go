package blocked

import (
	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// Calibration of BuildCost: nanoseconds a unit of the construction's work
// (blocks.EstimateWork's and the compilation's), the compilation's units
// per factor incidence of a free variable (its blocks read each incidence
// of their variables, up to 2 + blocks.RecoverFactor times over; the
// forests' once), and a construction's fixed cost in nanoseconds.
const (
	nsPerUnit          = 4
	compileUnits       = 375
	compileUnitsForest = 75
	buildFixedNs       = 1e5
)

// BuildCost returns an estimate, made before anything is built, of the
// time NewWith takes to build and compile the blocks of a Blocked sampler
// on m with cfg (no blocks given), in nanoseconds of the project's machine
// kind: the unit of package infer's cost model, so that a caller with a
// deadline can pass over a candidate that cannot be built in time. It
// reads each free variable's count of factors (O(n)) and nothing else: the
// construction is near-linear in the factor incidences (blocks.Build), and
// the estimate is blocks.EstimateWork plus the compilation's share of them,
// at nsPerUnit. A zero cfg.MaxWidth (the width chosen from the model)
// counts every width New may try (12, 8 and 4); the initial state's search
// (Options.Init absent on a model with zeros) is not counted. A model
// NewWith refuses at once (one that does not list its factors) costs 0.
//
// Calibration: fitted to the CPU time of NewWith on the 37 shared UAI
// models (data/uai, data/uai-hard) and generated dense models (K_{n,n} up
// to n = 500, the complete graph on 448 variables, 200 hubs among 10⁴
// leaves, grids up to 300×300) at widths 4, 8, 12, 16 and the forests,
// MaxVars as infer's candidates set it, on the project's 2-core machine
// kind under load: for the 89 constructions of more than 0.1 s the
// estimate was 0.30–2.6 times the CPU time taken (median 0.85; the same
// constructions' times vary by up to 2 times with the machine's load).
// Constructions of a few milliseconds are over-estimated by up to 0.12 s:
// the min-fill checks' fixed budget.
func BuildCost(m factorgraph.Model, cfg Config) float64 {
	bm, ok := m.(blockModel)
	if g, isGraph := m.(*factorgraph.Graph); !ok || isGraph && g == nil {
		return 0
	}
	widths := []int{cfg.MaxWidth}
	if cfg.MaxWidth == 0 && !cfg.Forests {
		widths = autoWidths
	}
	incid := 0.0
	for _, i := range m.Free() {
		soft, hard := m.Degree(i)
		incid += float64(soft + hard)
	}
	cost := buildFixedNs
	for _, w := range widths {
		b := cfg.bounds()
		b.MaxWidth = w
		units := blocks.EstimateWork(bm, b) + compileUnits*incid
		if cfg.Forests {
			units = blocks.EstimateWork(bm, b) + compileUnitsForest*incid
		}
		cost += nsPerUnit * units
	}
	return cost
}
