package blocked

import (
	"github.com/pgibbs/pgibbs/chain"
)

var _ chain.BlockConditioner = (*Blocked)(nil)

// Conditionals implements chain.BlockConditioner: after a Step or Update
// that drew a block, the block's variables and the marginal of each under
// the distribution the block was drawn from,
//
//	p_j(v) = π(x_j = v | x_−B) = Σ_{x_B: x_j = v} π(x_B | x_−B),
//
// computed from the block's own elimination (see Blocked). Averaged over the
// chain (chain.Marginals.RaoBlackwellise) they estimate π's marginals
// without bias: at stationarity x_−B has its law under π before the draw,
// and p_j is the conditional expectation of the indicator of x_j = v given
// x_−B (Rao–Blackwell), with no more variance than the indicator, usually
// far less (every configuration of the block is weighted, not the one
// drawn). Recording costs a second pass over the block's tables, about as
// much as the elimination. nil when recording is off (RecordConditionals),
// after a Sweep, or after an update that drew nothing.
func (s *Blocked) Conditionals() (vars []int, p [][]float64) {
	if !s.core().Recording || s.core().CondAt != s.core().Stat.Steps || s.condB < 0 {
		return nil, nil
	}
	return s.plans[s.condB].ivars, s.condOut
}

// Conditional implements chain.Conditioner: a block update draws several
// variables, so there is no single-variable conditional to report (i < 0);
// see Conditionals.
func (s *Blocked) Conditional() (int, []float64, float64) { return -1, nil, 0 }

// reportMarginals makes the marginals blockMarginals computed for block b
// (if ok) what Conditionals reports after this update.
func (s *Blocked) reportMarginals(b int, p *blockPlan, ok bool) {
	s.condB = -1
	if !ok {
		return
	}
	s.condOut = s.condOut[:0]
	for l := range p.vars {
		s.condOut = append(s.condOut, s.condP[l][:p.size[l]])
	}
	s.condB, s.core().CondAt = b, s.core().Stat.Steps
}

// blockMarginals sets condP[l] to the marginal of the block's local
// variable l under π(x_B | x_−B), from the tables the forward elimination
// left in the arena. It is the downward pass of two-pass sum-product on the
// bucket tree of the elimination (the "collect, then distribute" schedule
// of S. L. Lauritzen and D. J. Spiegelhalter, JRSS B 50:157–224, 1988;
// Dawid 1992), in the form that needs no division: after forward, bucket
// v's table holds π(x_v | x_S) for each assignment of S = others_v (and,
// given x_S, x_v is independent of the variables eliminated after it: why
// backward sampling is exact), so in reverse elimination order
//
//	Q_v(x_v, x_S) = π(x_v | x_S) · P_S(x_S),   P_S = Σ_{C_p∖S} Q_p,
//
// where p is the bucket v's message went to (S ⊆ C_p = {p} ∪ others_p, and
// P_S = 1 for a bucket with no others), gives the block conditional's
// marginal on each clique; v's marginal is Q_v summed over x_S. Linear
// space, multiply-adds only: the exponentials were taken once, by forward.
// It reports false if a marginal had no mass, which an update that drew
// the block cannot produce.
func (s *Blocked) blockMarginals(p *blockPlan) bool {
	for k := len(p.buckets) - 1; k >= 0; k-- {
		bk := &p.buckets[k]
		d := bk.dims[0]
		t, q := s.arena[bk.off:bk.off+bk.n], s.lin[:bk.n]
		out := s.condP[bk.v][:d]
		switch {
		case d == 2: // binary variables: one pass, the sums in registers
			var o0, o1 float64
			if bk.delta >= 0 {
				for r, ps := range s.arena[bk.delta : bk.delta+bk.n/2] {
					a, b := t[2*r]*ps, t[2*r+1]*ps
					q[2*r], q[2*r+1] = a, b
					o0 += a
					o1 += b
				}
			} else {
				for r := 0; r+1 < len(t); r += 2 {
					q[r], q[r+1] = t[r], t[r+1]
					o0 += t[r]
					o1 += t[r+1]
				}
			}
			out[0], out[1] = o0, o1
		default:
			if bk.delta >= 0 {
				for r, ps := range s.arena[bk.delta : bk.delta+bk.n/d] {
					for j, a := range t[r*d : (r+1)*d] {
						q[r*d+j] = a * ps
					}
				}
			} else {
				copy(q, t)
			}
			clear(out)
			for r := 0; r < len(q); r += d {
				for j, a := range q[r : r+d] {
					out[j] += a
				}
			}
		}
		sum := 0.0
		for _, a := range out {
			sum += a
		}
		if !(sum > 0) {
			return false
		}
		for j := range out {
			out[j] /= sum
		}
		for _, in := range bk.ins {
			if in.child >= 0 {
				c := &p.buckets[in.child]
				ps := s.arena[c.delta : c.delta+c.n/c.dims[0]]
				clear(ps)
				projectInto(ps, q, in.fdims, in.fstr, s.cnt)
			}
		}
	}
	return true
}
