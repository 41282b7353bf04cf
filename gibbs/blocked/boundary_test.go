package blocked

import (
	"github.com/pgibbs/pgibbs/blocks"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// poissonBlockCase is a samplerCase of Blocked with Poisson-minibatched
// boundaries on the blocks of(g) (nil: automatic of width w) and λ_B =
// scale·L_B².
func poissonBlockCase(name string, of func(*factorgraph.Graph) [][]int, w int, scale float64) gibbstest.SamplerCase {
	return gibbstest.SamplerCase{Name: name, New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		var b [][]int
		if of != nil {
			b = of(m.(*factorgraph.Graph))
		}
		return NewWith(m, r, &gibbs.Options{Init: init, LambdaScale: scale}, b, Config{Config: blocks.Config{MaxWidth: w}, Boundary: BoundaryPoisson})
	}, Steps: 2 * blockSteps}
}

// TestBlockedPoissonBoundaryExactness: blocks whose boundary factors enter
// through Poisson auxiliaries have the exact joint and marginals on the
// random graphs (hard zeros, evidence), with overlapping user blocks and
// automatic ones, at the default λ_B = L_B² and a small one (λ_B =
// 0.1·L_B², many factors with s_φ = 0).
func TestBlockedPoissonBoundaryExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), []gibbstest.SamplerCase{
		poissonBlockCase("Blocked/poisson-boundary/overlapping", overlappingBlocks, 0, 0),
		poissonBlockCase("Blocked/poisson-boundary/width-1", nil, 1, 0),
		poissonBlockCase("Blocked/poisson-boundary/width-1/λ=0.1L²", nil, 1, 0.1),
	}, 23, 1)
}

// wrongBoundaryScale breaks s's minibatched boundaries: the conditional
// uses log(1 + 2φ̃/(aM_φ)), as if λ_B had been halved there and not in the
// counts' rates.
func wrongBoundaryScale(s *Blocked) {
	for _, p := range s.plans {
		if p.bnd != nil {
			p.bnd.inv = slices.Clone(p.bnd.inv)
			for k := range p.bnd.inv {
				p.bnd.inv[k] *= 2
			}
		}
	}
}

// countedTwice breaks s's minibatched boundaries: the boundary factors
// are tabulated in full as well as through their counts (the loop that
// should skip them does not).
func countedTwice(s *Blocked) {
	for _, p := range s.plans {
		if p.bnd != nil {
			p.unmark()
			p.split() // the lists the exact tabulation walks, now with them
		}
	}
}

// TestBlockedPoissonBoundaryCatchesBroken: the exactness check rejects a
// minibatched boundary whose conditional and counts use different λ_B, and
// one that also tabulates the boundary factors in full.
func TestBlockedPoissonBoundaryCatchesBroken(t *testing.T) {
	gibbstest.SkipShort(t)
	broken := func(breakIt func(*Blocked)) func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 29)), &gibbs.Options{Init: tg.Init, LambdaScale: 0.1}, nil,
				Config{Config: blocks.Config{MaxWidth: 1}, Boundary: BoundaryPoisson})
			if err == nil {
				breakIt(s)
			}
			return s, err
		}
	}
	gibbstest.CheckBroken(t, gibbstest.Graphs(t), []gibbstest.BrokenCase{
		{Name: "Blocked/poisson-boundary/wrong-scale", New: broken(wrongBoundaryScale), Steps: 2 * blockSteps},
		{Name: "Blocked/poisson-boundary/counted-twice", New: broken(countedTwice), Steps: 2 * blockSteps},
	})
}

// TestBlockedPoissonBoundaryCost: on a complete graph of 200 weakly coupled
// variables in blocks of 4, BoundaryAuto minibatches every block's
// boundary (796 factors, L_B ≈ 4) and an update tabulates about λ_B + L_B
// boundary factors, not 796; BoundaryExact tabulates them all.
func TestBlockedPoissonBoundaryCost(t *testing.T) {
	const n, k = 200, 4
	g := gibbstest.DenseWeak(t, n, 0.005, 0.1)
	var blocks [][]int
	for i := 0; i < n; i += k {
		blocks = append(blocks, []int{i, i + 1, i + 2, i + 3})
	}
	inside := k*(k-1)/2 + k // the pairs and fields inside a block
	for _, c := range []struct {
		mode      Boundary
		minibatch bool
	}{{BoundaryAuto, true}, {BoundaryPoisson, true}, {BoundaryExact, false}} {
		s, err := NewWith(g, rand.New(rand.NewPCG(3, 3)), nil, blocks, Config{Boundary: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		p := s.plans[0]
		if (p.bnd != nil) != c.minibatch {
			t.Fatalf("%v: minibatched %v, want %v", c.mode, p.bnd != nil, c.minibatch)
		}
		const updates = 2000
		for range updates {
			s.Step()
		}
		perUpdate := float64(s.Stats().Factors) / updates
		if !c.minibatch {
			if want := float64(len(p.facs)); perUpdate != want {
				t.Errorf("%v: %.1f factors an update, want all %v", c.mode, perUpdate, want)
			}
			continue
		}
		bd := p.bnd
		if len(bd.facs) != k*(n-k) {
			t.Fatalf("%v: %d boundary factors, want %d", c.mode, len(bd.facs), k*(n-k))
		}
		// The distinct factors kept are at most the picks, λ_B + L_B on
		// average; allow 10% over the mean (the mean of 2000 draws).
		if limit := float64(inside) + 1.1*(bd.lambda+bd.l); perUpdate > limit {
			t.Errorf("%v: %.1f factors an update, more than %d inside + 1.1·(λ_B + L_B) = %.1f", c.mode, perUpdate, inside, limit)
		}
		t.Logf("%v: λ_B = %.2f, L_B = %.2f: %.1f factors an update of %d touching a block", c.mode, bd.lambda, bd.l, perUpdate, len(p.facs))
	}
}
