package core

// drew records the conditional of the update of i that just drew from the
// weights w (total their sum), copying w.
func (c *Core) drew(i int, w []float64, total float64) {
	c.CondI, c.CondTot, c.CondAt = i, total, c.Stat.Steps
	c.CondW = append(c.CondW[:0], w...)
}

// LastConditional returns the recorded draw if it was the last update's.
func (c *Core) LastConditional() (int, []float64, float64) {
	if !c.Recording || c.CondAt != c.Stat.Steps || c.CondW == nil {
		return -1, nil, 0
	}
	return c.CondI, c.CondW, c.CondTot
}

// RecordConditionals implements chain.Conditioner.
func (c *Core) RecordConditionals(on bool) { c.Recording, c.CondW = on, c.CondW[:0:0] }
