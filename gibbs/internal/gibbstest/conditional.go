package gibbstest

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// RBZ runs s for steps updates in 50 batches, each with fresh
// Rao–Blackwellised marginals, and returns the largest batch-means z-score
// of a marginal probability against the exact one. It also fails (+Inf) if
// a reported conditional puts mass on a value of probability zero.
func RBZ(g *factorgraph.Graph, s gibbs.Sampler, steps int) (float64, string) {
	const batches = 50
	exact := MarginalsOf(g, Enumerate(g))
	per := steps / batches
	est := make([][][]float64, batches)
	for b := range batches {
		mg := chain.NewMarginals(factorgraph.Sizes(g))
		mg.RaoBlackwellise(s.(chain.Conditioner))
		for t := range per {
			i := s.Step()
			mg.Observe(int64(t+1), i, s.State())
		}
		est[b] = mg.Probs()
	}
	if err := s.Err(); err != nil {
		return math.Inf(1), err.Error()
	}
	worst, where := 0.0, ""
	for i, pi := range exact {
		for v, p := range pi {
			mean, sq := 0.0, 0.0
			for b := range batches {
				f := est[b][i][v]
				if p == 0 && f != 0 {
					return math.Inf(1), fmt.Sprintf("P(x%d=%d) = %v, exact 0", i, v, f)
				}
				mean += f
				sq += f * f
			}
			mean /= batches
			sd := math.Sqrt(max(0, sq/batches-mean*mean) * batches / (batches - 1))
			// A floor on the error: an estimator that is exact at every
			// step (a block of the whole model) must still match to 1e-9.
			se := max(sd/math.Sqrt(batches), 1e-9)
			if p*float64(per) < MinVisits {
				continue
			}
			if z := math.Abs(mean-p) / se; z > worst {
				worst, where = z, fmt.Sprintf("P(x%d=%d): %.4f, exact %.4f (se %.5f)", i, v, mean, p, se)
			}
		}
	}
	return worst, where
}
