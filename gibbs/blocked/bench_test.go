package blocked

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/internal/densegen"
)

// BenchmarkBuild times the construction of a Blocked sampler (the blocks
// and their compiled updates: blocked.NewWith) on the generated dense
// models, at the widths infer.Choose tries (MaxVars as its candidates set
// it: 128 on the 10 200 variables of hubs2) and for the forests.
func BenchmarkBuild(b *testing.B) {
	for _, md := range []struct {
		name    string
		pairs   densegen.Pairs
		maxVars int
	}{
		{"kbip125", densegen.KBip(125), 1024},
		{"kbip250", densegen.KBip(250), 1024},
		{"dense448", densegen.Complete(448), 1024},
		{"hubs2", densegen.Hubs(200, 10000, 1), 128},
	} {
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
					if _, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
