package blocks

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgibbs/pgibbs/internal/densegen"
)

// BenchmarkBuild times Build on the generated dense models at the widths
// infer.Choose tries (MaxVars as its candidates set it) and for the
// forests.
func BenchmarkBuild(b *testing.B) {
	for _, md := range benchModels() {
		g := dense(b, md.pairs)
		for _, cfg := range constructions {
			cfg.MaxVars = md.maxVars
			name := fmt.Sprintf("model=%s/width=%d", md.name, cfg.MaxWidth)
			if cfg.Forests {
				name = fmt.Sprintf("model=%s/forests", md.name)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Build(context.Background(), g, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchModel is a generated model of the benchmarks and MaxVars as
// infer's candidates set it for its size.
type benchModel struct {
	name    string
	pairs   densegen.Pairs
	maxVars int
}

func benchModels() []benchModel {
	return []benchModel{
		{"kbip125", densegen.KBip(125), 1024},
		{"kbip250", densegen.KBip(250), 1024},
		{"dense448", densegen.Complete(448), 1024},
		{"hubs2", densegen.Hubs(200, 10000, 1), 128},
	}
}
