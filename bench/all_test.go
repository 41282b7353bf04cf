package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// BenchmarkAll measures one variable update of every sampler of package
// gibbs on the paper's models, under one name pattern for benchstat:
//
//	go test -run '^$' -bench 'All/' ./bench
//
// The discrete samplers run on the Potts model (20×20, D = 10, β = 4.6),
// with the paper's settings: λ = L², DoubleMIN-Gibbs with λ2 = L² and
// 10⁴·L², and MIN-Gibbs with λ = 10⁻³Ψ² (its theory asks for Ψ², about 10⁶
// draws for each of the D − 1 estimates of a step); the continuous ones on
// the spin model (m = 3, k = 10, λ = L²). Besides ns/op, factors/op and
// draws/op, MH-corrected samplers report accept and rejection samplers
// tries/op.
func BenchmarkAll(b *testing.B) {
	type run struct {
		model, sampler, name string
		opts                 gibbs.Options
		warm                 int
	}
	runs := []run{
		{"potts20", "gibbs", "gibbs", gibbs.Options{}, 10000},
		{"potts20", "pgibbs", "pgibbs", gibbs.Options{}, 10000},
		{"potts20", "auto", "auto", gibbs.Options{}, 10000},
		{"potts20", "mgpmh", "mgpmh", gibbs.Options{}, 10000},
		{"potts20", "mingibbs", "mingibbs", gibbs.Options{LambdaScale: 1e-3}, 200},
		{"potts20", "doublemin", "doublemin", gibbs.Options{Lambda2Scale: 1}, 10000},
		{"potts20", "doublemin-1e4", "doublemin", gibbs.Options{Lambda2Scale: 1e4}, 20},
	}
	for _, name := range []string{"gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection"} {
		runs = append(runs, run{"spin20", name, name, gibbs.Options{}, 2000})
	}
	for _, r := range runs {
		b.Run("model="+r.model+"/sampler="+r.sampler, func(b *testing.B) {
			var s gibbs.Sampler
			var err error
			switch r.model {
			case "potts20":
				s, err = samplers.New(r.name, lattice(b, 20), rand.New(rand.NewPCG(1, 2)), &r.opts)
			default:
				g, gerr := spinOnce()
				if gerr != nil {
					b.Fatal(gerr)
				}
				s, err = samplers.New(r.name, g, rand.New(rand.NewPCG(1, 2)), &r.opts)
			}
			if err != nil {
				b.Fatal(err)
			}
			before := s.Stats()
			runStepsWarm(b, s, r.warm)
			st := s.Stats()
			if st.Proposals > before.Proposals {
				b.ReportMetric(st.AcceptanceRate(), "accept")
			}
			if st.Tries > 0 {
				b.ReportMetric(st.TriesPerStep(), "tries/op")
			}
		})
	}
}
