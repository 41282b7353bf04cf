package mingibbs

import (
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// compiledEstimator is the global estimator of the MIN-Gibbs family over a
// compiled graph: B ~ Poisson(λ) picks ∝ M_φ over the active factors, all
// kept, and ε(y) = Σ_picks log(1 + Ψφ̃(y)/(λM_φ)) — the same sum as
// Σ_{s_φ>0} s_φ log(1 + Ψφ̃(y)/(λM_φ)), without collecting the counts. A
// Potts pair adds log(1 + Ψ/λ) or nothing.
type compiledEstimator struct {
	kg     *compiled.Graph
	global []compiled.Factor
	gen    minibatch.PoissonGen
	alias  minibatch.Alias // over active, ∝ M_φ
	active []int32
	full   float64 // log(1 + Ψ/λ)
	seen   []uint32
	epoch  uint32
}

// activeLister is a model that lists the soft factors touching a free
// variable, the factors of the global estimators (factorgraph.Graph.Active):
// every model with a compiled graph, a *factorgraph.Graph, is one.
type activeLister interface{ Active() []int32 }

func newCompiledEstimator(k *compiled.Graph, m factorgraph.GlobalModel, lambda float64) *compiledEstimator {
	al, ok := m.(activeLister)
	if !ok {
		return nil // the generic path
	}
	active := al.Active()
	if len(active) == 0 || !(lambda > 0) {
		return nil
	}
	global := k.Global()
	w := make([]float64, len(active))
	for j, f := range active {
		w[j] = global[f].M
	}
	alias, err := minibatch.NewAlias(w)
	if err != nil {
		return nil // the generic path reports what is wrong
	}
	return &compiledEstimator{
		kg: k, global: global, gen: minibatch.NewPoissonTable(lambda), alias: alias, active: active,
		full: math.Log1p(m.Psi() / lambda), seen: make([]uint32, m.NumFactors()),
	}
}

// estimateCompiled is estimator.estimate over the compiled graph.
func (e *estimator) estimateCompiled(c *core.Core, x []float64) (eps float64, picks, factors int, err error) {
	ce, r := e.ce, c.R
	picks = ce.gen.Rand(r)
	if ce.epoch++; ce.epoch == 0 {
		clear(ce.seen)
		ce.epoch = 1
	}
	scale := e.psi / e.lambda
	for left := picks; left > 0; {
		chunk := min(left, core.PollEvery)
		for range chunk {
			f := ce.active[ce.alias.Pick(r)]
			if ce.seen[f] != ce.epoch {
				ce.seen[f] = ce.epoch
				factors++
			}
			gf := &ce.global[f]
			switch gf.Kind {
			case compiled.Potts:
				if (x[gf.A] == x[gf.B]) != gf.Neg {
					eps += ce.full
				}
				continue
			case compiled.Table:
				if t := ce.kg.Value(gf, x); t != 0 {
					eps += math.Log1p(scale * t / gf.M)
				}
				continue
			}
			t := e.m.EvalFactor(int(f), x)
			if !factorgraph.InRange(t, gf.M) {
				return 0, picks, factors, factorgraph.GlobalCheckError(e.m, int(f), t)
			}
			if c.Spend(1) {
				return 0, picks, factors, errAborted
			}
			if t != 0 {
				eps += math.Log1p(scale * t / gf.M)
			}
		}
		if left -= chunk; left > 0 && c.Stop() {
			return 0, picks, factors, errAborted
		}
	}
	return eps, picks, factors, nil
}

// drawCompiled is proposal.draw over the compiled A[i]: B ~ Poisson(λL_i/L)
// picks ∝ M_φ, all kept, log ψ(u) = Σ_φ s_φ (L/(λM_φ)) φ̃(x_{i←u}); a Potts
// pair adds L/λ at the value of its other variable (or, W < 0, at every
// other value: −L/λ there up to a constant).
func (p *proposal) drawCompiled(c *core.Core, i int) int {
	k := c.KG
	d := int(c.Size[i])
	logPsi, w := p.logPsi[:d], p.w[:d]
	if !c.HardCompiled(i, w) {
		return -1
	}
	clear(logPsi)
	if s0, s1 := k.SoftStart[i], k.SoftStart[i+1]; s1 > s0 {
		l := c.M.L()
		b := minibatch.Poisson(c.R, p.lambda*p.li[i]/l)
		c.Stat.Picks += int64(b)
		p.counts.Reset()
		if !c.PickAll(p.counts, i, b) {
			return -1
		}
		for _, j32 := range p.counts.Keys() {
			if c.Spend(d) {
				return -1
			}
			op := k.SoftOp(s0 + int(j32))
			o := &op
			coef := float64(p.counts.Count(int(j32))) * l / (p.lambda * o.M) // s_φ L/(λM_φ)
			if o.Kind == compiled.Potts {
				if v := int(c.X[o.Ref]); v < d {
					if o.Neg {
						logPsi[v] -= coef * o.M
					} else {
						logPsi[v] += coef * o.M
					}
				}
				continue
			}
			if o.Kind == compiled.Table {
				t := &k.Tabs
				base, st := t.Base(o.Ref, c.X, o.Stride, c.X[i]), int(o.Stride)
				vals := t.Values(o.Ref)
				for v := range logPsi {
					logPsi[v] += coef * (vals[base+v*st] - o.Lo)
				}
				continue
			}
			if !addScaled(c, i, int(o.Ref), o.M, coef, logPsi) {
				return -1
			}
		}
		c.Stat.Factors += int64(p.counts.Len())
	}
	return p.sample(c, i, w, logPsi)
}
