package core

// ExactUpdate resamples discrete variable i from its full conditional
// (Algorithm 1), adding the change of the log-potential to LogDelta while
// LogTracking is set.
func (c *Core) ExactUpdate(i int) {
	c.tracking = c.LogTracking
	switch {
	case c.KG != nil:
		c.exactCompiled(i)
	case c.Tor != nil:
		c.exactTorus(i)
	default:
		c.exactGeneric(i)
	}
	c.tracking = false
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
