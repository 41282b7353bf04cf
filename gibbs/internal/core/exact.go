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
					if !c.addSoftOp(i, int(^j), u) {
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

// CanExchangeCluster reports whether ExchangeCluster applies: c's rows
// are Potts pairs and fields over binary variables with no hard factor,
// and c tracks its log-potential.
func (c *Core) CanExchangeCluster() bool {
	k := c.KG
	return k != nil && (k.AllPotts || k.Fields) && len(k.Hard) == 0 && c.AllBinary && !c.NoBinary && c.LogTracking && c.Failure == nil
}

// ExchangeCluster makes Houdayer's cluster move between c's state X and
// y, the state of a twin at the same temperature (CanExchangeCluster must
// hold): it grows the cluster of the variables where X and y differ
// that is connected to seed through c's rows (the factors that can
// change a conditional), breadth first, exchanging X and y on each
// variable as it leaves the queue, and adds each exchange's change of
// the log-potential to LogDelta as Assign does. A variable where X and y
// differ still differs after the exchange, so the cluster is the one
// grown first and exchanged after, and each exchange sees the state
// Assign would, variable after variable: one walk of each row instead of
// two. stamp marks the variables queued (stamp[i] == cur); queue is
// scratch, returned with the cluster in the order it grew.
func (c *Core) ExchangeCluster(y []float64, seed int32, stamp []uint32, cur uint32, queue []int32) []int32 {
	k, x := c.KG, c.X
	queue = append(queue[:0], seed)
	stamp[seed] = cur
	for q := 0; q < len(queue); q++ {
		i := queue[q]
		nb, w := k.Row(int(i))
		w = w[:len(nb)]
		var u0, u1 float64 // pottsFields2Binary's sums, in its order
		for p, j := range nb {
			if j < 0 {
				vals := k.FieldVals[^j][:2]
				u0 += vals[0]
				u1 += vals[1]
				continue
			}
			v := x[j]
			u0 += w[p] * (1 - v)
			u1 += w[p] * v
			if stamp[j] != cur && v != y[j] {
				stamp[j] = cur
				queue = append(queue, j)
			}
		}
		if c.BrokenBinary {
			u0, u1 = u1, u0
		}
		o, n := x[i], y[i]
		if !math.IsNaN(c.LogDelta) {
			c.LogDelta += (u1 - u0) * (n - o)
		}
		x[i], y[i] = n, o
		if c.x8ok {
			c.x8[i] = uint8(n)
		}
	}
	return queue
}
