package mingibbs

import (
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// addScaled adds coef·φ̃(x_{i←v}) of the k-th factor of A[i] (bound mk) to
// dst[v] for every v, checking each value against the factor's range. It
// reports false after recording an error.
func addScaled(c *core.Core, i, k int, mk, coef float64, dst []float64) bool {
	buf := c.Buf[:len(dst)]
	c.M.EvalAll(i, k, c.X, buf)
	lo, hi := factorgraph.Limits(mk)
	for v, t := range buf {
		if !(t >= lo && t <= hi) {
			c.Fail(factorgraph.CheckError(c.M, i, k, t))
			return false
		}
		dst[v] += coef * t
	}
	return true
}

// softDelta returns Σ_{soft φ∈A[i]} φ̃(x_{i←v}) − φ̃(x_{i←cur}), evaluating
// every soft factor of A[i] at both values.
func softDelta(c *core.Core, i, cur, v int) (float64, bool) {
	if c.KG != nil {
		return softDeltaCompiled(c, i, cur, v)
	}
	soft, _ := c.M.Degree(i)
	du := 0.0
	for k := range soft {
		mk := c.M.Bound(i, k)
		lo, hi := factorgraph.Limits(mk)
		a := c.M.Eval(i, k, c.X)
		c.X[i] = float64(v)
		b := c.M.Eval(i, k, c.X)
		c.X[i] = float64(cur)
		if !(a >= lo && a <= hi) {
			c.Fail(factorgraph.CheckError(c.M, i, k, a))
			return 0, false
		}
		if !(b >= lo && b <= hi) {
			c.Fail(factorgraph.CheckError(c.M, i, k, b))
			return 0, false
		}
		du += b - a
		if c.Spend(2) {
			return 0, false
		}
	}
	c.Stat.Factors += int64(soft)
	return du, true
}

// softDeltaCompiled is softDelta over the compiled A[i]: the exact soft
// conditional at every value, one pass over A[i] (into c.U, which MGPMH
// does not otherwise use; addCompiled takes c.Buf2).
func softDeltaCompiled(c *core.Core, i, cur, v int) (float64, bool) {
	u := c.U[:c.Size[i]]
	clear(u)
	n, ok := c.AddCompiled(i, u, false)
	if !ok {
		return 0, false
	}
	c.Stat.Factors += int64(n)
	return u[v] - u[cur], true
}
