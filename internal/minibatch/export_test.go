package minibatch

// weight returns the probability with which Pick returns k, reconstructed
// from the table (O(n)): what the tests check the table against.
func (a Alias) weight(k int) float64 {
	n := float64(len(a.Prob))
	p := a.Prob[k] / n
	for j, idx := range a.Index {
		if int(idx) == k && j != k {
			p += (1 - a.Prob[j]) / n
		}
	}
	return p
}
