package factorgraph

import (
	"fmt"
	"math"
)

// A user factor that implements Tabulator gives the samplers two ways to
// evaluate it: Value at one state, Conditional at every value of one
// variable. They use both — a block update tabulates a factor through
// Conditional and thins its Poisson-minibatched boundary with Value, an
// exact single-site update reads Conditional where Poisson-Gibbs reads
// Value — so a factor whose two disagree makes a chain that is exact for
// neither. Build checks them against each other on a few states.

// consistencyStates is the number of states at which Build compares a user
// factor's Conditional with its Value: every scope variable at its lowest
// value, at its highest, and at values drawn from a hash of the factor's
// index (the same at every build).
const consistencyStates = 3

// checkTabulator compares the Conditional of factor f (scope vars) with
// its Value at consistencyStates states, for every discrete variable of the
// scope and each of its values; fac must be a userTabulator (library
// factors are trusted: their tests compare the two). x (one entry a
// variable, zero outside the scope) and dst (the largest domain size) are
// scratch. A panic in the user's code is reported as an error.
func checkTabulator(f int, fac Factor, vars []int, domains []Domain, x, dst []float64) (err error) {
	cond := fac.(Tabulator)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("factorgraph: %s: panicked while Build compared its Conditional with its Value at %s: %v", describe(f, vars), stateOf(vars, x), p)
		}
		for _, v := range vars {
			x[v] = 0
		}
	}()
	h := uint64(f)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	for s := range consistencyStates {
		for _, v := range vars {
			d := domains[v]
			switch {
			case s == 0 && d.IsDiscrete():
				x[v] = 0
			case s == 0:
				x[v] = d.Lo
			case s == 1 && d.IsDiscrete():
				x[v] = float64(d.Size - 1)
			case s == 1:
				x[v] = d.Hi
			default:
				h = splitmix(h)
				if d.IsDiscrete() {
					x[v] = float64(h % uint64(d.Size))
				} else {
					x[v] = d.Lo + (d.Hi-d.Lo)*float64(h>>11)*0x1p-53
				}
			}
		}
		for _, i := range vars {
			d := domains[i]
			if !d.IsDiscrete() {
				continue
			}
			out := dst[:d.Size]
			save := x[i]
			cond.Conditional(out, x, i)
			if x[i] != save {
				return fmt.Errorf("factorgraph: %s: Conditional for variable %d modified the state at %s", describe(f, vars), i, stateOf(vars, x))
			}
			for v, c := range out {
				x[i] = float64(v)
				val := fac.Value(x)
				x[i] = save
				if !agree(c, val) {
					return fmt.Errorf("factorgraph: %s: Conditional disagrees with Value at %s: with variable %d at %d, Conditional gives %v and Value %v; samplers evaluate a factor through both (a block update tabulates with Conditional and thins its minibatched boundary with Value), so they must agree",
						describe(f, vars), stateOf(vars, x), i, v, c, val)
				}
			}
		}
	}
	return nil
}

// userTabulator reports whether fac implements Tabulator and is not
// one of the library's factors.
func userTabulator(fac Factor) bool {
	switch fac.(type) {
	case *Table, *Potts:
		return false
	}
	_, ok := fac.(Tabulator)
	return ok
}

// maxSize returns the largest domain size (at least 1).
func maxSize(domains []Domain) int {
	m := 1
	for _, d := range domains {
		m = max(m, d.Size)
	}
	return m
}

// agree reports whether a Conditional's c and a Value's val are the same
// number up to rounding (equal infinities, both NaN, or within 10⁻⁹
// relative).
func agree(c, val float64) bool {
	switch {
	case c == val:
		return true
	case math.IsNaN(c) || math.IsNaN(val):
		return math.IsNaN(c) && math.IsNaN(val)
	case math.IsInf(c, 0) || math.IsInf(val, 0):
		return false
	}
	return math.Abs(c-val) <= 1e-9*max(1, math.Abs(c), math.Abs(val))
}

// stateOf formats the values of vars in x: "x3 = 0, x9 = 1".
func stateOf(vars []int, x []float64) string {
	return listVars(vars, ", ", func(v int) string { return fmt.Sprintf("x%d = %v", v, x[v]) })
}

// splitmix returns the next state of a SplitMix64 sequence's output
// function applied to h (a fixed, seedless hash: the states Build checks
// are the same at every build).
func splitmix(h uint64) uint64 {
	h += 0x9e3779b97f4a7c15
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}
