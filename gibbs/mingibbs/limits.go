package mingibbs

import (
	"fmt"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// checkMIN refuses MIN-Gibbs with batch parameter lambda (psi: Ψ).
func checkMIN(c *core.Core, opt *gibbs.Options, lambda, psi float64) error {
	work := func(i int) float64 {
		_, hard := c.M.Degree(i)
		return (c.Values(i)-1)*lambda + float64(hard)*c.Values(i)
	}
	return c.CheckWork(opt, "mingibbs", work, func(w core.Worst) (string, string) {
		what := fmt.Sprintf("draw about %.2g factors (variable %d: D − 1 = %d global estimates of %s draws each, Ψ = %.2g)",
			w.Work, w.I, c.Size[w.I]-1, core.LambdaText("λ", opt.Lambda, opt.LambdaScale, "Ψ", lambda), psi)
		return what, c.UseAuto() + ", or a smaller λ"
	})
}

// proposalWork is the work of MGPMH's and DoubleMIN-Gibbs's local proposal
// for variable i with batch parameter lambda: λL_i/L draws and the kept
// factors evaluated at D_i values, the hard ones too.
func proposalWork(c *core.Core, i int, lambda float64) float64 {
	l := c.M.L()
	if l == 0 {
		_, hard := c.M.Degree(i)
		return float64(hard) * c.Values(i)
	}
	return c.MinibatchWork(i, lambda*c.M.Li(i)/l, c.Values(i))
}

// checkMGPMH refuses MGPMH with batch parameter lambda.
func checkMGPMH(c *core.Core, opt *gibbs.Options, lambda float64) error {
	work := func(i int) float64 {
		soft, _ := c.M.Degree(i)
		return proposalWork(c, i, lambda) + float64(soft)*c.Values(i)
	}
	return c.CheckWork(opt, "mgpmh", work, func(w core.Worst) (string, string) {
		soft, hard := c.M.Degree(w.I)
		what := fmt.Sprintf("draw and evaluate about %.2g factors (variable %d: a proposal with %s, L = %.2g, and the exact correction over |A[i]| = %d factors at D = %d values)",
			w.Work, w.I, core.LambdaText("λ", opt.Lambda, opt.LambdaScale, "L", lambda), c.M.L(), soft+hard, c.Size[w.I])
		return what, "use a smaller λ, or " + c.UseAuto()[4:]
	})
}

// checkDoubleMIN refuses DoubleMIN-Gibbs with batch parameters lambda
// (local) and lambda2 (global).
func checkDoubleMIN(c *core.Core, opt *gibbs.Options, lambda, lambda2 float64) error {
	work := func(i int) float64 { return proposalWork(c, i, lambda) + lambda2 }
	return c.CheckWork(opt, "doublemin", work, func(w core.Worst) (string, string) {
		what := fmt.Sprintf("draw about %.2g factors (variable %d: a proposal with %s and a global estimate with %s, L = %.2g)",
			w.Work, w.I, core.LambdaText("λ", opt.Lambda, opt.LambdaScale, "L", lambda),
			core.LambdaText("λ2", opt.Lambda2, opt.Lambda2Scale, "L", lambda2), c.M.L())
		return what, "use a smaller λ or λ2, or " + c.UseAuto()[4:]
	})
}
