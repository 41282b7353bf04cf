package gibbs

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// The expected work of one step, which the constructors bound by
// Options.MaxDraws. Work is counted in minibatch draws and factor values: a
// factor evaluated at the D values of a discrete variable counts D, at the
// m + 3 points of a continuous update m + 3. Per update of variable i, with
// d_i the expected minibatch of Poisson-Gibbs (L_i(λ/L + 1) draws, λ_i + L_i
// per variable), soft_i and hard_i the soft and hard factors of A[i] and D_i
// its domain size:
//
//	gibbs, auto's exact updates     (soft_i + hard_i)·D_i
//	pgibbs, auto's minibatch ones   d_i + min(d_i, soft_i)·D_i + hard_i·D_i
//	mingibbs                        (D_i − 1)·λ + hard_i·D_i   (λ = Ψ² by default)
//	mgpmh                           λL_i/L + min(λL_i/L, soft_i)·D_i + (soft_i + hard_i)·D_i
//	doublemin                       λL_i/L + (min(λL_i/L, soft_i) + hard_i)·D_i + λ2
//	gibbs-its, gibbs-da             (m + 3)·(soft_i + hard_i)
//	pgits, pgda                     d_i + (m + 3)·(min(d_i, soft_i) + hard_i)
//	gibbs-rejection                 soft_i + hard_i            (one try)
//	pg-rejection                    d_i + min(d_i, soft_i)     (one try)
//
// (the expected number of distinct factors a minibatch keeps is at most
// its expected draws and at most soft_i). The work of a step is the largest
// over the free variables; a continuous sampler's discrete variables count
// as gibbs's or pgibbs's. Rejection sampling's tries are bounded by
// Options.MaxTries instead, and every try can be interrupted.

// maxDrawsOf returns the limit of Options.MaxDraws.
func maxDrawsOf(o *Options) (float64, error) {
	switch {
	case o.MaxDraws == 0:
		return DefaultMaxDraws, nil
	case !(o.MaxDraws > 0):
		return 0, fmt.Errorf("MaxDraws = %v: need a limit > 0 (0: the default %.2g; +Inf: none)", o.MaxDraws, float64(DefaultMaxDraws))
	}
	return o.MaxDraws, nil
}

// worst is the largest expected work of an update over the free variables,
// and a variable where it occurs.
type worst struct {
	work float64
	i    int
}

// worstUpdate returns the largest of work(i) over the free variables.
func (c *core) worstUpdate(work func(i int) float64) worst {
	w := worst{work: math.Inf(-1), i: -1}
	free := c.free
	if c.torus != nil {
		free = free[:1] // a translation-invariant lattice: every site alike
	}
	for _, i := range free {
		if x := work(i); x > w.work || math.IsNaN(x) {
			w = worst{x, i}
			if math.IsNaN(x) {
				break
			}
		}
	}
	return w
}

// values returns the number of values D_i a factor of A[i] is evaluated at
// in a discrete update (1 for a continuous variable).
func (c *core) values(i int) float64 { return float64(max(c.size[i], 1)) }

// exactWork is the work of a plain Gibbs update of discrete variable i.
func (c *core) exactWork(i int) float64 {
	soft, hard := c.m.Degree(i)
	return float64(soft+hard) * c.values(i)
}

// maxExact returns the largest exactWork over the free variables (0 if
// none is discrete).
func (c *core) maxExact() float64 {
	w := c.worstUpdate(func(i int) float64 {
		if c.size[i] == 0 {
			return 0
		}
		return c.exactWork(i)
	})
	return max(w.work, 0)
}

// autoWork returns the largest work of an update of Mixed with the default
// λ = L²: exact where the minibatch, L_i(L + 1) draws, is not smaller than
// the soft factors of A[i].
func (c *core) autoWork() float64 {
	l := c.m.L()
	return max(c.worstUpdate(func(i int) float64 {
		soft, _ := c.m.Degree(i)
		if d := c.m.Li(i) * (l + 1); d < float64(soft) {
			return c.minibatchWork(i, d, c.values(i))
		}
		return c.exactWork(i)
	}).work, 0)
}

// useAuto is the advice of a refusal to use Mixed, with its cost here.
func (c *core) useAuto() string {
	return fmt.Sprintf("use auto (about %.2g draws and factor values a step here)", c.autoWork())
}

// minibatchWork is the work of an update of variable i on a minibatch of
// draws expected draws: the draws, then the distinct kept factors and the
// hard ones, each evaluated at points values.
func (c *core) minibatchWork(i int, draws, points float64) float64 {
	soft, hard := c.m.Degree(i)
	return draws + (min(draws, float64(soft))+float64(hard))*points
}

// lambdaText describes λ as the options set it: "λ = 3e+04", "λ = L² =
// 2.6e+01", "λ = 5·L² = 1.3e+02", or "λ = L² overflows".
func lambdaText(name string, abs, scale float64, qname string, lambda float64) string {
	if abs > 0 {
		return fmt.Sprintf("%s = %.2g", name, abs)
	}
	f := qname + "²"
	if scale != 0 && scale != 1 {
		f = fmt.Sprintf("%.2g·%s", scale, f)
	}
	if math.IsInf(lambda, 1) {
		return fmt.Sprintf("%s = %s overflows", name, f)
	}
	return fmt.Sprintf("%s = %s = %.2g", name, f, lambda)
}

// tooMuch returns the refusal of sampler name (its registry name): a step
// would do what, more than limit; instead says what to use.
func tooMuch(name, what string, limit float64, instead string) error {
	return fmt.Errorf("gibbs: %s: a step would %s, more than the limit %.2g (Options.MaxDraws): %s", name, what, limit, instead)
}

// drawText describes the work w of a minibatch update: "draw about 4.8e+09
// factors", with " and evaluate about … factor values" when those are not
// negligible.
func drawText(draws, w float64) string {
	if w-draws <= draws {
		return fmt.Sprintf("draw about %.2g factors", draws)
	}
	return fmt.Sprintf("draw about %.2g factors and evaluate about %.2g factor values", draws, w-draws)
}

// check refuses Poisson-Gibbs, or a minibatched continuous sampler whose
// kept factors are evaluated at points values each (m + 3, or 1 for a
// rejection try; 0: Poisson-Gibbs, the domain size), on c when a step would
// exceed the limit of opt. name is the sampler's registry name.
func (p *pgState) check(c *core, opt *Options, name string, points float64) error {
	limit, err := maxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	draws := func(i int) float64 { return p.draws(c.m, i) }
	w := c.worstUpdate(func(i int) float64 {
		pts := points
		if pts == 0 || c.size[i] > 0 {
			pts = c.values(i)
		}
		return c.minibatchWork(i, draws(i), pts)
	})
	if !(w.work > limit) {
		return nil
	}
	d := draws(w.i)
	what := fmt.Sprintf("%s (%s, L = %.2g)", drawText(d, w.work), lambdaText("λ", opt.Lambda, opt.LambdaScale, "L", p.lambda), c.m.L())
	if p.perVariable {
		what = fmt.Sprintf("%s (variable %d: λ_i + L_i with %s, L_i = %.2g)", drawText(d, w.work), w.i,
			lambdaText("λ", opt.Lambda, opt.LambdaScale, "L", p.lambda), c.m.Li(w.i))
	}
	switch {
	case points == 1:
		return tooMuch(name, what, limit, fmt.Sprintf("use a smaller λ, or gibbs-rejection (about %.2g factor values a try here)", c.continuousExact(1)))
	case points != 0:
		return tooMuch(name, what, limit, fmt.Sprintf("use a smaller λ or m, or the exact-energy samplers (gibbs-its, gibbs-da: about %.2g factor values a step here)",
			c.continuousExact(points)))
	}
	return tooMuch(name, what, limit, fmt.Sprintf("use auto or gibbs (at most Δ = %d factors, %.2g factor values, a step here), or a smaller λ",
		c.m.MaxDegree(), c.maxExact()))
}

// draws returns the expected minibatch of a Poisson-Gibbs update of i,
// L_i(λ/L + 1) (λ_i + L_i in the per-variable variant).
func (p *pgState) draws(m factorgraph.Model, i int) float64 {
	l, lambda := p.scale(m, i)
	if l == 0 {
		return 0
	}
	return m.Li(i) * (lambda/l + 1)
}

// checkExact refuses plain Gibbs on c when a step would exceed the limit
// of opt.
func (c *core) checkExact(opt *Options, name string) error {
	limit, err := maxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	w := c.worstUpdate(c.exactWork)
	if !(w.work > limit) {
		return nil
	}
	soft, hard := c.m.Degree(w.i)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at D = %d values)", w.work, w.i, soft+hard, c.size[w.i])
	return tooMuch(name, what, limit, c.useAuto())
}

// continuousExact returns the largest work of an exact-energy continuous
// update over the free variables, at points values a factor.
func (c *core) continuousExact(points float64) float64 {
	return max(c.worstUpdate(func(i int) float64 {
		soft, hard := c.m.Degree(i)
		if c.size[i] > 0 {
			return c.exactWork(i)
		}
		return float64(soft+hard) * points
	}).work, 0)
}

// checkWork refuses sampler name on c when the largest work(i) over the
// free variables exceeds the limit of opt; describe says what a step of
// the worst variable would do and what to use instead.
func (c *core) checkWork(opt *Options, name string, work func(i int) float64, describe func(w worst) (what, instead string)) error {
	limit, err := maxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	w := c.worstUpdate(work)
	if !(w.work > limit) {
		return nil
	}
	what, instead := describe(w)
	return tooMuch(name, what, limit, instead)
}

// checkMIN refuses MIN-Gibbs with batch parameter lambda (psi: Ψ).
func (c *core) checkMIN(opt *Options, lambda, psi float64) error {
	work := func(i int) float64 {
		_, hard := c.m.Degree(i)
		return (c.values(i)-1)*lambda + float64(hard)*c.values(i)
	}
	return c.checkWork(opt, "mingibbs", work, func(w worst) (string, string) {
		what := fmt.Sprintf("draw about %.2g factors (variable %d: D − 1 = %d global estimates of %s draws each, Ψ = %.2g)",
			w.work, w.i, c.size[w.i]-1, lambdaText("λ", opt.Lambda, opt.LambdaScale, "Ψ", lambda), psi)
		return what, c.useAuto() + ", or a smaller λ"
	})
}

// proposalWork is the work of MGPMH's and DoubleMIN-Gibbs's local proposal
// for variable i with batch parameter lambda: λL_i/L draws and the kept
// factors evaluated at D_i values, the hard ones too.
func (c *core) proposalWork(i int, lambda float64) float64 {
	l := c.m.L()
	if l == 0 {
		_, hard := c.m.Degree(i)
		return float64(hard) * c.values(i)
	}
	return c.minibatchWork(i, lambda*c.m.Li(i)/l, c.values(i))
}

// checkMGPMH refuses MGPMH with batch parameter lambda.
func (c *core) checkMGPMH(opt *Options, lambda float64) error {
	work := func(i int) float64 {
		soft, _ := c.m.Degree(i)
		return c.proposalWork(i, lambda) + float64(soft)*c.values(i)
	}
	return c.checkWork(opt, "mgpmh", work, func(w worst) (string, string) {
		soft, hard := c.m.Degree(w.i)
		what := fmt.Sprintf("draw and evaluate about %.2g factors (variable %d: a proposal with %s, L = %.2g, and the exact correction over |A[i]| = %d factors at D = %d values)",
			w.work, w.i, lambdaText("λ", opt.Lambda, opt.LambdaScale, "L", lambda), c.m.L(), soft+hard, c.size[w.i])
		return what, "use a smaller λ, or " + c.useAuto()[4:]
	})
}

// checkDoubleMIN refuses DoubleMIN-Gibbs with batch parameters lambda
// (local) and lambda2 (global).
func (c *core) checkDoubleMIN(opt *Options, lambda, lambda2 float64) error {
	work := func(i int) float64 { return c.proposalWork(i, lambda) + lambda2 }
	return c.checkWork(opt, "doublemin", work, func(w worst) (string, string) {
		what := fmt.Sprintf("draw about %.2g factors (variable %d: a proposal with %s and a global estimate with %s, L = %.2g)",
			w.work, w.i, lambdaText("λ", opt.Lambda, opt.LambdaScale, "L", lambda),
			lambdaText("λ2", opt.Lambda2, opt.Lambda2Scale, "L", lambda2), c.m.L())
		return what, "use a smaller λ or λ2, or " + c.useAuto()[4:]
	})
}
