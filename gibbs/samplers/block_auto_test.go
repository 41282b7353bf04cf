package samplers

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// TestAutoSamplerChoice: the registry's auto runs blocks where single-site
// chains freeze and blocks are affordable (strongly coupled chains, hard
// zeros linking variables), and Auto elsewhere (weak couplings, a dense
// weak graph); blocked.New's width follows the same rule.
func TestAutoSamplerChoice(t *testing.T) {
	cases := []struct {
		name    string
		g       *factorgraph.Graph
		blocked bool
		width   int // blocked.New's largest block width, 0: not checked
	}{
		{"strong chain", gibbstest.PottsChain(t, 30, 8, 0.1), true, 1},
		{"weak chain", gibbstest.PottsChain(t, 30, 0.5, 0.1), false, 1},
		{"dense weak", gibbstest.DenseWeak(t, 40, 0.01, 0.1), false, 0},
		{"hard zeros", gibbstest.Graphs(t)[9].G, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New("auto", c.g, rand.New(rand.NewPCG(1, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.(*blocked.Blocked); ok != c.blocked {
				t.Errorf("auto built %T, blocked %v", s, c.blocked)
			}
			b, err := blocked.New(c.g, rand.New(rand.NewPCG(1, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.width > 0 {
				w := 0
				for _, bi := range b.Blocks() {
					w = max(w, bi.Width)
				}
				if w != c.width {
					t.Errorf("blocked.New: width %d, want %d", w, c.width)
				}
			}
		})
	}
}

// TestAutoSamplerExactness: the registry's auto (blocks on the graphs with
// hard zeros linking variables, Auto on the others) has the exact joint and
// marginals on the random test graphs.
func TestAutoSamplerExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), []gibbstest.SamplerCase{{Name: "auto", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		return NewAuto(m, r, &gibbs.Options{Init: init, LambdaScale: gibbstest.MixedScale})
	}, Steps: 0}}, 31, 1)
}
