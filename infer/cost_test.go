package infer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
)

// BenchmarkCostModel sets the cost model (cost.go) against the clock: a
// step of each sampler on shared UAI models (skipped without their
// files), reporting the model's price of a step (model-ns/step) and the
// clock's over it (clock/model). The choice ranks samplers by the
// model's prices, so what matters is that the ratio is about the same
// for every sampler of a model:
//
//	go test -run '^$' -bench CostModel ./infer
//
// On 2026-12-04 (this machine kind) clock/model was 0.5–0.95 for single
// sites, 0.5–0.85 for blocks of widths 4 and 8 (0.3–0.9 at width 12, the
// wider the lower) and 0.65–1.3 for exchange with Houdayer moves: within
// a model, the prices stand in the clock's proportions to within two. On
// 2026-12-05, with binary rows of Potts pairs and fields priced costRow a
// factor (Grids_11; Segmentation_11, whose pair tables the UAI readers now
// split), single sites were 0.87 and 0.89, blocks of width 4 0.61 and 0.63.
func BenchmarkCostModel(b *testing.B) {
	w := func(width int) Spec {
		return Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: width}}}
	}
	for _, model := range []string{"Grids_11", "Pedigree_11", "CSP_12", "Segmentation_11", "ObjectDetection_11"} {
		file := "../../shared/data/uai/" + model + ".uai"
		if _, err := os.Stat(file); err != nil {
			b.Logf("%s: %v", model, err)
			continue
		}
		p, err := uai.ReadProblem(file, file+".evid", "")
		if err != nil {
			b.Fatal(err)
		}
		g, err := p.Model.Graph(p.Evidence)
		if err != nil {
			b.Fatal(err)
		}
		for _, spec := range []Spec{{Name: "site"}, w(4), w(8), {Name: "exchange", Houdayer: true}} {
			b.Run(fmt.Sprintf("model=%s/sampler=%s", model, spec), func(b *testing.B) {
				smp, err := spec.New(g, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{})
				if err != nil {
					b.Skip(err)
				}
				if c, ok := smp.(interface{ RecordConditionals(bool) }); ok {
					c.RecordConditionals(true)
				}
				price := stepCost(g, smp)
				b.ReportAllocs()
				for b.Loop() {
					smp.Step()
				}
				b.ReportMetric(price, "model-ns/step")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/price, "clock/model")
			})
		}
	}
}
