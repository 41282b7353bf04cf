package blocked

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Boundary is how a Blocked update treats the soft factors crossing its
// block's boundary (those that also read a free variable outside the
// block): tabulated in full, or through the Poisson auxiliaries of
// Algorithm 2 of Zhang & De Sa (NeurIPS 2019), with the block in place of
// the single variable.
//
// With L_B = Σ_{φ∈∂B} M_φ over the block's soft boundary factors ∂B and a
// parameter λ_B, each update draws s_φ ~ Poisson(λ_B·M_φ/L_B + φ̃(x)) for
// φ ∈ ∂B (by thinning: λ_B + L_B alias picks on average, whatever |∂B| is)
// and then draws x_B jointly, by elimination, from
//
//	π(x_B | x_−B, s) ∝ exp(Σ_{φ∋B, φ∉∂B} φ̃(x)) · Π_{φ∈∂B, s_φ>0} (1 + L_B·φ̃(x)/(λ_B·M_φ))^{s_φ},
//
// so that only the factors with s_φ > 0 are tabulated. It is exact by the
// augmentation of Algorithm 2: the joint π(x)·Π_{φ∈∂B} Poisson(s_φ;
// λ_B M_φ/L_B + φ̃(x)) has x-marginal π, and its conditional of x_B given
// (x_−B, s) is the display (the Poisson's e^{−φ̃(x)} cancels π's e^{φ̃(x)},
// and the constants (λ_B M_φ/L_B)^{s_φ} drop out). An update is two Gibbs
// steps of that joint, s given x and then x_B given the rest, each leaving
// it invariant; forgetting s leaves π invariant. Factors inside the block
// (reading no free variable outside it) and hard factors are always
// tabulated exactly, so the zeros and the couplings the block exists to
// absorb are never thinned.
type Boundary int

const (
	// BoundaryAuto minibatches the boundary of the blocks where the
	// expected minibatch work, (λ_B + L_B)·(1 + D̄) factor values, is
	// smaller than tabulating it in full, |∂B|·D̄ (D̄: the mean number of
	// values a boundary factor is tabulated at); the other blocks are
	// exact. It is the default.
	BoundaryAuto Boundary = iota
	// BoundaryExact tabulates every factor touching the block.
	BoundaryExact
	// BoundaryPoisson minibatches the boundary of every block that has one.
	BoundaryPoisson
)

// String returns the mode's name: auto, exact or poisson.
func (b Boundary) String() string {
	switch b {
	case BoundaryAuto:
		return "auto"
	case BoundaryExact:
		return "exact"
	case BoundaryPoisson:
		return "poisson"
	}
	return fmt.Sprintf("Boundary(%d)", int(b))
}

// ParseBoundary returns the Boundary named s (auto, exact or poisson).
func ParseBoundary(s string) (Boundary, error) {
	for _, b := range []Boundary{BoundaryAuto, BoundaryExact, BoundaryPoisson} {
		if s == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("boundary %q: want auto, exact or poisson", s)
}

// boundary is the Poisson-minibatched boundary of a block: its soft
// boundary factors (indices into the plan's facs), their ranges M_φ and an
// alias table over them, L_B, λ_B, a = λ_B/L_B, and per factor 1/(aM_φ),
// the scale of the minibatched term log(1 + φ̃/(aM_φ)).
type boundary struct {
	facs   []int32
	m      []float64
	inv    []float64
	alias  minibatch.Alias
	l      float64
	lambda float64
	a      float64
}

// planBoundary decides whether block plan p minibatches its boundary under
// mode, with λ_B from opt (Lambda, or LambdaScale·L_B²), and if so sets
// p.bnd and marks its factors.
func planBoundary(p *blockPlan, mode Boundary, opt *gibbs.Options) error {
	p.nExact = len(p.facs)
	if mode == BoundaryExact {
		return nil
	}
	bd := &boundary{}
	values := 0.0
	for k := range p.facs {
		fc := &p.facs[k]
		fc.bnd = -1
		if !(fc.m > 0) || math.IsInf(fc.m, 1) || !fc.cross {
			continue // hard, constant (M_φ = 0: nothing to draw) or inside the block
		}
		fc.bnd = int32(len(bd.facs))
		bd.facs = append(bd.facs, int32(k))
		bd.m = append(bd.m, fc.m)
		bd.l += fc.m
		values += float64(p.pots[fc.pot].n)
	}
	if len(bd.facs) == 0 || !(bd.l > 0) {
		p.unmark()
		return nil
	}
	var err error
	if bd.lambda, err = core.ResolveLambda("λ", opt.Lambda, opt.LambdaScale, "L_B", bd.l); err != nil {
		return err
	}
	if err := minibatch.CheckMean(bd.lambda + bd.l); err != nil {
		return fmt.Errorf("λ_B = %g, L_B = %g: %w", bd.lambda, bd.l, err)
	}
	dbar := values / float64(len(bd.facs))
	if mode == BoundaryAuto && (bd.lambda+bd.l)*(1+dbar) >= float64(len(bd.facs))*dbar {
		p.unmark()
		return nil
	}
	bd.a = bd.lambda / bd.l
	bd.inv = make([]float64, len(bd.m))
	for k, mk := range bd.m {
		bd.inv[k] = 1 / (bd.a * mk)
	}
	if bd.alias, err = minibatch.NewAlias(bd.m); err != nil {
		return err
	}
	p.bnd, p.nExact = bd, len(p.facs)-len(bd.facs)
	// The expected work: λ_B + L_B picks, each evaluated once, and at most
	// as many factors tabulated in place of the boundary's.
	p.work += (bd.lambda + bd.l) * (1 + dbar)
	p.work -= values
	return nil
}

// unmark marks every factor of p as tabulated exactly.
func (p *blockPlan) unmark() {
	for k := range p.facs {
		p.facs[k].bnd = -1
	}
}

// boundarySource is the minibatch.Source of a block's boundary draw: picks
// by M_φ, kept with probability (aM_φ + φ̃(x))/(M_φ(a + 1)) at the current
// state. A factor value out of its range is recorded in err and never kept.
type boundarySource struct {
	s   *Blocked
	p   *blockPlan
	err error
}

func (src *boundarySource) Pick(r *rand.Rand) int { return src.p.bnd.alias.Pick(r) }

func (src *boundarySource) Keep(k int) float64 {
	bd := src.p.bnd
	fc := &src.p.facs[bd.facs[k]]
	sv := fc.f.Value(src.s.core().X) - fc.shift
	if !(sv >= fc.lo && sv <= fc.hi) {
		if src.err == nil {
			src.err = factorgraph.CheckError(src.s.core().M, fc.i, fc.k, sv)
		}
		return 0
	}
	return (bd.a*bd.m[k] + sv) / (bd.m[k] * (bd.a + 1))
}

// drawBoundary draws the Poisson counts of p's boundary at the current
// state into s.Counts (Statement 1 of Zhang & De Sa 2019: thinning). It
// reports false after an error or an interrupt.
func (s *Blocked) drawBoundary(p *blockPlan) bool {
	bd := p.bnd
	s.src.s, s.src.p, s.src.err = s, p, nil
	b := minibatch.Draw(s.core().R, bd.lambda+bd.l, &s.src, s.counts)
	s.core().Stat.Picks += int64(b)
	if s.src.err != nil {
		s.core().Fail(s.src.err)
		return false
	}
	return !s.core().Spend(b)
}
