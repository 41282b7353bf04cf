package core

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/internal/compiled"
)

// MaxDrawsOf returns the limit of Options.MaxDraws.
func MaxDrawsOf(o *gibbs.Options) (float64, error) {
	switch {
	case o.MaxDraws == 0:
		return gibbs.DefaultMaxDraws, nil
	case !(o.MaxDraws > 0):
		return 0, fmt.Errorf("MaxDraws = %v: need a limit > 0 (0: the default %.2g; +Inf: none)", o.MaxDraws, float64(gibbs.DefaultMaxDraws))
	}
	return o.MaxDraws, nil
}

// Worst is the largest expected work of an update over the free variables,
// and a variable where it occurs.
type Worst struct {
	Work float64
	I    int
}

// WorstUpdate returns the largest of work(i) over the free variables.
func (c *Core) WorstUpdate(work func(i int) float64) Worst {
	w := Worst{Work: math.Inf(-1), I: -1}
	free := c.Free
	if c.Tor != nil {
		free = free[:1] // a translation-invariant lattice: every site alike
	}
	for _, i := range free {
		if x := work(i); x > w.Work || math.IsNaN(x) {
			w = Worst{x, i}
			if math.IsNaN(x) {
				break
			}
		}
	}
	return w
}

// Values returns the number of values D_i a factor of A[i] is evaluated at
// in a discrete update (1 for a continuous variable).
func (c *Core) Values(i int) float64 { return float64(max(c.Size[i], 1)) }

// ExactWork is the work of a plain Gibbs update of discrete variable i.
func (c *Core) ExactWork(i int) float64 {
	soft, hard := c.M.Degree(i)
	return float64(soft+hard) * c.Values(i)
}

// maxExact returns the largest exactWork over the free variables (0 if
// none is discrete).
func (c *Core) maxExact() float64 {
	w := c.WorstUpdate(func(i int) float64 {
		if c.Size[i] == 0 {
			return 0
		}
		return c.ExactWork(i)
	})
	return max(w.Work, 0)
}

// autoWork returns the largest work of an update of Mixed with the default
// λ = L²: exact where Costs prefers it (at least where the minibatch,
// L_i(L + 1) draws, is not smaller than the soft factors of A[i]).
func (c *Core) autoWork() float64 {
	l := c.M.L()
	return max(c.WorstUpdate(func(i int) float64 {
		if d := c.M.Li(i) * (l + 1); !Costs.PreferExact(c.M, c.KG, i, d) {
			return c.MinibatchWork(i, d, c.Values(i))
		}
		return c.ExactWork(i)
	}).Work, 0)
}

// UseAuto is the advice of a refusal to use Mixed, with its cost here.
func (c *Core) UseAuto() string {
	return fmt.Sprintf("use auto (about %.2g draws and factor values a step here)", c.autoWork())
}

// MinibatchWork is the work of an update of variable i on a minibatch of
// draws expected draws: the draws, then the distinct kept factors and the
// hard ones, each evaluated at points values.
func (c *Core) MinibatchWork(i int, draws, points float64) float64 {
	soft, hard := c.M.Degree(i)
	return draws + (min(draws, float64(soft))+float64(hard))*points
}

// LambdaText describes λ as the options set it: "λ = 3e+04", "λ = L² =
// 2.6e+01", "λ = 5·L² = 1.3e+02", or "λ = L² overflows".
func LambdaText(name string, abs, scale float64, qname string, lambda float64) string {
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

// TooMuch returns the refusal of sampler name (its registry name): a step
// would do what, more than limit; instead says what to use.
func TooMuch(name, what string, limit float64, instead string) error {
	return fmt.Errorf("gibbs: %s: a step would %s, more than the limit %.2g (Options.MaxDraws): %s", name, what, limit, instead)
}

// DrawText describes the work w of a minibatch update: "draw about 4.8e+09
// factors", with " and evaluate about … factor values" when those are not
// negligible.
func DrawText(draws, w float64) string {
	if w-draws <= draws {
		return fmt.Sprintf("draw about %.2g factors", draws)
	}
	return fmt.Sprintf("draw about %.2g factors and evaluate about %.2g factor values", draws, w-draws)
}

// Check refuses Poisson-Gibbs, or a minibatched continuous sampler whose
// kept factors are evaluated at points values each (m + 3, or 1 for a
// rejection try; 0: Poisson-Gibbs, the domain size), on c when a step would
// exceed the limit of opt. name is the sampler's registry name.
func (p *PGState) Check(c *Core, opt *gibbs.Options, name string, points float64) error {
	limit, err := MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	draws := func(i int) float64 { return p.Draws(c.M, i) }
	w := c.WorstUpdate(func(i int) float64 {
		pts := points
		if pts == 0 || c.Size[i] > 0 {
			pts = c.Values(i)
		}
		return c.MinibatchWork(i, draws(i), pts)
	})
	if !(w.Work > limit) {
		return nil
	}
	d := draws(w.I)
	what := fmt.Sprintf("%s (%s, L = %.2g)", DrawText(d, w.Work), LambdaText("λ", opt.Lambda, opt.LambdaScale, "L", p.Lambda), c.M.L())
	if p.perVariable {
		what = fmt.Sprintf("%s (variable %d: λ_i + L_i with %s, L_i = %.2g)", DrawText(d, w.Work), w.I,
			LambdaText("λ", opt.Lambda, opt.LambdaScale, "L", p.Lambda), c.M.Li(w.I))
	}
	switch {
	case points == 1:
		return TooMuch(name, what, limit, fmt.Sprintf("use a smaller λ, or gibbs-rejection (about %.2g factor values a try here)", c.continuousExact(1)))
	case points != 0:
		return TooMuch(name, what, limit, fmt.Sprintf("use a smaller λ or m, or the exact-energy samplers (gibbs-its, gibbs-da: about %.2g factor values a step here)",
			c.continuousExact(points)))
	}
	return TooMuch(name, what, limit, fmt.Sprintf("use auto or gibbs (at most Δ = %d factors, %.2g factor values, a step here), or a smaller λ",
		c.M.MaxDegree(), c.maxExact()))
}

// Draws returns the expected minibatch of a Poisson-Gibbs update of i,
// L_i(λ/L + 1) (λ_i + L_i in the per-variable variant).
func (p *PGState) Draws(m factorgraph.Model, i int) float64 {
	l, lambda := p.scale(m, i)
	if l == 0 {
		return 0
	}
	return m.Li(i) * (lambda/l + 1)
}

// CheckExact refuses plain Gibbs on c when a step would exceed the limit
// of opt.
func (c *Core) CheckExact(opt *gibbs.Options, name string) error {
	limit, err := MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	w := c.WorstUpdate(c.ExactWork)
	if !(w.Work > limit) {
		return nil
	}
	soft, hard := c.M.Degree(w.I)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at D = %d values)", w.Work, w.I, soft+hard, c.Size[w.I])
	return TooMuch(name, what, limit, c.UseAuto())
}

// continuousExact returns the largest work of an exact-energy continuous
// update over the free variables, at points values a factor.
func (c *Core) continuousExact(points float64) float64 {
	return max(c.WorstUpdate(func(i int) float64 {
		soft, hard := c.M.Degree(i)
		if c.Size[i] > 0 {
			return c.ExactWork(i)
		}
		return float64(soft+hard) * points
	}).Work, 0)
}

// CheckWork refuses sampler name on c when the largest work(i) over the
// free variables exceeds the limit of opt; describe says what a step of
// the worst variable would do and what to use instead.
func (c *Core) CheckWork(opt *gibbs.Options, name string, work func(i int) float64, describe func(w Worst) (what, instead string)) error {
	limit, err := MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	w := c.WorstUpdate(work)
	if !(w.Work > limit) {
		return nil
	}
	what, instead := describe(w)
	return TooMuch(name, what, limit, instead)
}

// MixedCost is the cost model by which Mixed chooses, variable by
// variable, between a plain Gibbs and a Poisson-Gibbs update, in units of
// one Potts pair read by a plain Gibbs update (about 1.4 ns in cache on
// the project's machine, 5 ns out of it: the two updates' costs scale
// alike, so that one model fits both). A plain Gibbs update of i costs its
// Potts pairs plus Value·D_i for each other soft factor; a Poisson-Gibbs
// one Fixed, Draw a minibatch draw, and Value a factor value of the other
// kinds it thins and tallies (one a draw, D_i for each such factor kept).
// The parts both updates share (hard factors, the draw from D_i weights)
// cancel. Fitted on BenchmarkStep (the paper's Potts model: 29 draws
// against 397 pairs, Poisson-Gibbs 2.4× faster) and BenchmarkSparse
// (random graphs of degree 10 and 20: 6–13 draws, plain Gibbs 1.3–2×
// faster, in cache and at 10⁶ variables). A binary variable whose row is
// Potts pairs and fields, which plain Gibbs sums in locals
// (binaryCompiled: about 0.85 ns an entry), prices its row at one unit an
// entry and a Poisson-Gibbs update at Fixed + BinaryDraw a draw: on
// K_{m,m} of binary pairs a draw cost 6–7 ns (m = 100, 250) and 16–24 ns
// where the rows left the cache or read per-pair weights (m = 1000, a
// UAI file's K₂₅₀,₂₅₀ of tables), so that Poisson-Gibbs's 50–170 draws
// took 3–6 times plain Gibbs's 250–1000 entries, which the general
// model, a unit a draw, priced the other way round
// (`go test -run '^$' -bench BinaryDense ./bench`).
type MixedCost struct {
	Fixed, Draw, Value float64
	BinaryDraw         float64
}

// Costs is the model Mixed uses. The zero MixedCost is the rule by size
// alone — a Poisson-Gibbs update wherever its expected minibatch is
// smaller than A[i] — which the exactness tests set, so that their small
// graphs get updates of both kinds.
var Costs = DefaultCosts

// DefaultCosts is the fitted model (see MixedCost).
var DefaultCosts = MixedCost{Fixed: 100, Draw: 1, Value: 3, BinaryDraw: 10}

// PreferExact reports whether the cost model c (Costs) prices a plain Gibbs
// update of i at most a Poisson-Gibbs one drawing draws factors (PGState.Draws)
// on the compiled graph k (nil: every soft factor priced as a table).
func (mc MixedCost) PreferExact(m factorgraph.Model, k *compiled.Graph, i int, draws float64) bool {
	soft, _ := m.Degree(i)
	if !(draws < float64(soft)) || mc == (MixedCost{}) {
		return !(draws < float64(soft)) // never a minibatch larger than A[i]
	}
	d := float64(max(m.Domain(i).Size, 1))
	if d == 2 && k != nil && (k.AllPotts || k.Fields) && k.HardStart[i] == k.HardStart[i+1] && mc.BinaryDraw > 0 {
		nb, _ := k.Row(i)
		return float64(len(nb)) <= mc.Fixed+mc.BinaryDraw*draws
	}
	pairs, ops, opShare := 0.0, float64(soft), 1.0
	if k != nil {
		nb, w := k.Row(i)
		pairs, ops = 0, 0
		var mOps, mAll float64
		for j, x := range w {
			a := math.Abs(x)
			mAll += a
			if nb[j] >= 0 {
				pairs++
			} else {
				ops++
				mOps += a
			}
		}
		opShare = 0
		if mAll > 0 {
			opShare = mOps / mAll
		}
	}
	exact := pairs + mc.Value*d*ops
	opDraws := draws * opShare
	pg := mc.Fixed + draws*mc.Draw + mc.Value*(opDraws+d*min(opDraws, ops))
	return exact <= pg
}
