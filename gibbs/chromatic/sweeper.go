package chromatic

// Where implements chain.Locator: the workers share one state.
func (c *Chromatic) Where() string {
	if l, ok := c.workers[0].(interface{ Where() string }); ok {
		return l.Where()
	}
	return ""
}
