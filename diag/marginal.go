package diag

import (
	"fmt"
	"math"
)

// sumTol is how far from 1 the sum of a marginal may be. Marginals printed
// with six digits (UAI .MAR files) are off by a few 1e-6; counts or
// unnormalised weights are off by far more and are rejected.
const sumTol = 1e-4

// MarginalL2 returns the mean over all variables of the Euclidean distance
// between estimated and exact marginals,
//
//	(1/n) Σ_i ‖p̂_i − p_i‖₂,
//
// the error metric of Fig. 1 of Zhang & De Sa (NeurIPS 2019). est[i] and
// exact[i] are the probability vectors of variable i; different variables may
// have different domain sizes. See [MarginalL2Vars] for the contract.
func MarginalL2(est, exact [][]float64) (float64, error) {
	return MarginalL2Vars(est, exact, nil)
}

// MarginalL2Vars is [MarginalL2] restricted to the variables listed in vars
// (nil means all variables), so that evidence variables can be left out.
//
// It returns an error if est and exact hold different numbers of variables,
// if vars is non-nil but empty or holds an out-of-range or repeated index, or
// if, for a variable in the set, the two vectors differ in length, are empty,
// hold a NaN, infinite or negative entry, or do not sum to 1 within 1e-4.
func MarginalL2Vars(est, exact [][]float64, vars []int) (float64, error) {
	n, err := checkMarginals(est, exact, vars)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for k := range n {
		i := varAt(vars, k)
		ss := 0.0
		for v, p := range est[i] {
			d := p - exact[i][v]
			ss += d * d
		}
		sum += math.Sqrt(ss)
	}
	return sum / float64(n), nil
}

// MarginalAbs returns the mean and the maximum, over all (variable, value)
// pairs, of the absolute marginal error |p̂_i(v) − p_i(v)|, the convention of
// the UAI inference evaluations. A variable with D values contributes D pairs
// to the mean. See [MarginalAbsVars] for the contract.
func MarginalAbs(est, exact [][]float64) (mean, max float64, err error) {
	return MarginalAbsVars(est, exact, nil)
}

// MarginalAbsVars is [MarginalAbs] restricted to the variables listed in vars
// (nil means all variables). Its errors are those of [MarginalL2Vars].
func MarginalAbsVars(est, exact [][]float64, vars []int) (mean, max float64, err error) {
	n, err := checkMarginals(est, exact, vars)
	if err != nil {
		return 0, 0, err
	}
	sum := 0.0
	pairs := 0
	for k := range n {
		i := varAt(vars, k)
		for v, p := range est[i] {
			d := math.Abs(p - exact[i][v])
			sum += d
			if d > max {
				max = d
			}
		}
		pairs += len(est[i])
	}
	return sum / float64(pairs), max, nil
}

// varAt returns the k-th variable of the set: vars[k], or k when vars is nil.
func varAt(vars []int, k int) int {
	if vars == nil {
		return k
	}
	return vars[k]
}

// checkMarginals validates the inputs of the marginal metrics and returns the
// number of variables in the set.
func checkMarginals(est, exact [][]float64, vars []int) (int, error) {
	if len(est) != len(exact) {
		return 0, fmt.Errorf("diag: %d estimated marginals for %d exact ones", len(est), len(exact))
	}
	n := len(est)
	if vars != nil {
		n = len(vars)
		seen := make([]bool, len(est))
		for k, i := range vars {
			if i < 0 || i >= len(est) {
				return 0, fmt.Errorf("diag: vars[%d] = %d out of range [0, %d)", k, i, len(est))
			}
			if seen[i] {
				return 0, fmt.Errorf("diag: vars[%d] = %d is repeated", k, i)
			}
			seen[i] = true
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("diag: no variables to compare")
	}
	for k := range n {
		i := varAt(vars, k)
		if len(est[i]) != len(exact[i]) {
			return 0, fmt.Errorf("diag: variable %d: estimate has %d values, exact marginal has %d", i, len(est[i]), len(exact[i]))
		}
		if err := checkProb("estimated", i, est[i]); err != nil {
			return 0, err
		}
		if err := checkProb("exact", i, exact[i]); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// checkProb checks that p is a probability vector.
func checkProb(which string, i int, p []float64) error {
	if len(p) == 0 {
		return fmt.Errorf("diag: variable %d: %s marginal is empty", i, which)
	}
	sum := 0.0
	for v, x := range p {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("diag: variable %d: %s marginal has p(%d) = %v; entries must be finite and non-negative", i, which, v, x)
		}
		sum += x
	}
	if math.Abs(sum-1) > sumTol {
		return fmt.Errorf("diag: variable %d: %s marginal sums to %v, not 1", i, which, sum)
	}
	return nil
}

// MarginalHellinger returns the mean and the maximum, over all variables, of
// the Hellinger distance between estimated and exact marginals,
//
//	H(p̂_i, p_i) = √(½ Σ_v (√p̂_i(v) − √p_i(v))²) = √(1 − Σ_v √(p̂_i(v) p_i(v))),
//
// the MAR error of the UAI inference competitions: the UAI 2022 evaluation
// criteria (https://uaicompetition.github.io/uci-2022/results/evaluation-criteria/)
// define the per-instance error as HErr = (1/N) Σ_i Hell(P*(V_i), P̂(V_i))
// over the N unobserved variables, Hell being the Hellinger distance as
// defined on Wikipedia, whose ½ puts H in [0, 1] (0 for equal marginals, 1
// for disjoint supports). Each variable counts once, whatever its domain
// size. See [MarginalHellingerVars] for the contract.
func MarginalHellinger(est, exact [][]float64) (mean, max float64, err error) {
	return MarginalHellingerVars(est, exact, nil)
}

// MarginalHellingerVars is [MarginalHellinger] restricted to the variables
// listed in vars (nil means all variables), so that evidence variables can
// be left out as the competitions do. Its errors are those of
// [MarginalL2Vars].
//
// H is computed from the first form, ‖√p̂ − √p‖₂/√2, which has no
// cancellation when p̂ ≈ p and, unlike 1 − Σ√(p̂p), changes only to second
// order when a marginal sums to 1 within the 1e-4 tolerance rather than
// exactly (six-digit .MAR files); it is clamped to [0, 1] against rounding.
func MarginalHellingerVars(est, exact [][]float64, vars []int) (mean, max float64, err error) {
	n, err := checkMarginals(est, exact, vars)
	if err != nil {
		return 0, 0, err
	}
	sum := 0.0
	for k := range n {
		i := varAt(vars, k)
		h := hellinger(est[i], exact[i])
		sum += h
		if h > max {
			max = h
		}
	}
	return sum / float64(n), max, nil
}

// MARScore returns the UAI 2022 competition's score of marginals est
// against exact over the variables vars (nil: all), and its mean Hellinger
// error: score = max(0, 100·(1 − HErr/HErr_u)), HErr the mean Hellinger
// error of est ([MarginalHellingerVars]) and HErr_u that of uniform
// marginals over each variable's values (100: exact, 0: no better than a
// uniform guess). Where every exact marginal is uniform (HErr_u = 0) the
// score is 100 for a zero error and 0 otherwise. Its errors are those of
// [MarginalHellingerVars].
func MARScore(est, exact [][]float64, vars []int) (score, herr float64, err error) {
	if herr, _, err = MarginalHellingerVars(est, exact, vars); err != nil {
		return 0, 0, err
	}
	uniform := make([][]float64, len(exact))
	for i, p := range exact {
		uniform[i] = make([]float64, len(p))
		for v := range uniform[i] {
			uniform[i][v] = 1 / float64(len(p))
		}
	}
	hu, _, err := MarginalHellingerVars(uniform, exact, vars)
	switch {
	case err != nil:
		return 0, 0, err
	case hu == 0 && herr == 0:
		return 100, herr, nil
	case hu == 0:
		return 0, herr, nil
	}
	return max(0, 100*(1-herr/hu)), herr, nil
}

// hellinger returns min(1, ‖√p − √q‖₂/√2) for vectors of equal length.
func hellinger(p, q []float64) float64 {
	ss := 0.0
	for v, x := range p {
		d := math.Sqrt(x) - math.Sqrt(q[v])
		ss += d * d
	}
	return min(1, math.Sqrt(ss/2))
}
