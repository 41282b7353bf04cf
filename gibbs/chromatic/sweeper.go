package chromatic

import "github.com/pgibbs/pgibbs/chain"

// Where implements chain.Locator: the workers share one state.
func (c *Chromatic) Where() string {
	if l, ok := c.workers[0].Worker.(chain.Locator); ok {
		return l.Where()
	}
	return ""
}
