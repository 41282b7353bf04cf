package core

import "math"

// ExactUpdate resamples discrete variable i from its full conditional
// (Algorithm 1), adding the change of the log-potential to LogDelta while
// LogTracking is set.
func (c *Core) ExactUpdate(i int) {
	switch {
	case c.KG != nil:
		c.exactCompiled(i)
	case c.Tor != nil:
		c.exactTorus(i)
	default:
		c.exactGeneric(i)
	}
}

// exactGeneric is exactUpdate through the model's interface.
func (c *Core) exactGeneric(i int) {
	c.Stat.Steps++
	u := c.U[:c.M.Domain(i).Size]
	clear(u)
	soft, hard := c.M.Degree(i)
	for k := range soft + hard {
		if !c.addExact(i, k, u) || c.Spend(len(u)) {
			return
		}
	}
	c.Stat.Factors += int64(soft + hard)
	c.set(i, u)
}

// HardEnergies sets h[v] to the sum of the hard factors of A[i] at x_{i←v}
// (0 everywhere without hard factors). It reports false after an error.
func (c *Core) HardEnergies(i int, h []float64) bool {
	if c.KG != nil {
		return c.HardCompiled(i, h)
	}
	clear(h)
	soft, hard := c.M.Degree(i)
	for k := soft; k < soft+hard; k++ {
		if !c.addExact(i, k, h) {
			return false
		}
	}
	c.Stat.Factors += int64(hard)
	return true
}

// Assign sets discrete variable i to v — a move another kernel makes on
// the shared state (a Houdayer move of replica exchange) — and, while
// LogTracking is set, adds the change of the log-potential to LogDelta:
// U[v] − U[old] of i's conditional at the state, as an update would (NaN
// where it cannot tell).
func (c *Core) Assign(i int, v float64) {
	if c.LogTracking && c.X[i] != v && !math.IsNaN(c.LogDelta) {
		u := c.U[:c.Size[i]]
		o, n := int(c.X[i]), int(v)
		if k := c.KG; len(u) == 2 && !c.NoBinary && k != nil && (k.AllPotts || k.Fields) && k.HardStart[i] == k.HardStart[i+1] && uint(o) < 2 && uint(n) < 2 && float64(n) == v {
			// A binary variable's two energies summed in locals, in
			// energies' order (the same sums, bit for bit:
			// TestBinaryCompiled).
			nb, w := k.Row(i)
			u0, u1 := c.binaryEnergies(nb, w, false)
			c.LogDelta += (u1 - u0) * float64(n-o)
		} else if c.energies(i, u) && uint(o) < uint(len(u)) && uint(n) < uint(len(u)) && float64(n) == v {
			c.LogDelta += u[n] - u[o]
		} else {
			c.LogDelta = math.NaN()
		}
	}
	c.X[i] = v
	if c.x8ok { // the steps' byte copy (scanBytes)
		if b := uint8(v); float64(b) == v && int32(b) < c.Size[i] {
			c.x8[i] = b
		} else {
			c.x8ok = false
		}
	}
}

// energies sets u[v] = Σ_{φ∈A[i]} φ(x_{i←v}) at the state, hard factors
// included, lower bounds left out, without the polls of an interruptible
// update. It reports false after recording an error of a generic factor.
func (c *Core) energies(i int, u []float64) bool {
	clear(u)
	if k := c.KG; k != nil {
		nb, w := k.Row(i)
		if k.AllPotts || k.Fields {
			c.addPottsFields(nb, w, u)
		} else {
			for p, j := range nb {
				if j < 0 {
					if !c.addOp(i, &k.Ops[^j], u) {
						return false
					}
					continue
				}
				if v := int(c.X[j]); uint(v) < uint(len(u)) {
					u[v] += w[p]
				}
			}
		}
		hard := k.Hard[k.HardStart[i]:k.HardStart[i+1]]
		for o := range hard {
			if !c.addOp(i, &hard[o], u) {
				return false
			}
		}
		return true
	}
	soft, hard := c.M.Degree(i)
	for k := range soft + hard {
		if !c.addExact(i, k, u) {
			return false
		}
	}
	return true
}
