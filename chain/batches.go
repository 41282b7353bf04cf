package chain

import "math"

// maxBatches is the most batches Marginals.TrackBatches keeps: when a
// boundary would make one more, adjacent batches are merged in pairs and
// the batch length doubles, so that a run of unknown length keeps between
// maxBatches/2 and maxBatches batches of equal length.
const maxBatches = 64

// batchRecord is Marginals' record of batch means (TrackBatches): the
// cumulative counts of the tracked coordinates' values at every batch
// boundary, from the boundary where tracking started.
type batchRecord struct {
	coords []int
	every  int64       // the batch length, in observed states
	at     []int64     // mg.n at each boundary kept
	cum    [][]float64 // cum[b] = the counts of coords' values at at[b], concatenated
}

// TrackBatches makes mg record, every `every` observed states (at least
// 1), the counts of the coordinates coords, so that BatchErrors can give
// the standard error of their marginals by batch means: between 32 and 64
// batches of equal length, the length doubling as the run goes on (a
// run's length need not be known). The cost is one comparison an
// Observe and O(len(coords)) a boundary. Tracking starts now (or, after
// Restore, at the restored state): the states observed before are in
// Probs but not in the batches.
func (mg *Marginals) TrackBatches(coords []int, every int64) {
	mg.batch = &batchRecord{coords: append([]int(nil), coords...), every: max(1, every)}
	mg.anchorBatches()
}

// anchorBatches starts mg's batch record afresh at the current state.
func (mg *Marginals) anchorBatches() {
	r := mg.batch
	if r == nil {
		mg.nextBatch = -1
		return
	}
	r.at, r.cum = r.at[:0], r.cum[:0]
	mg.recordBatch()
}

// recordBatch records a boundary at the current state, merging batches
// in pairs once there would be more than maxBatches.
func (mg *Marginals) recordBatch() {
	r := mg.batch
	if len(r.at) == maxBatches+1 {
		// Keep every other boundary: half as many batches, twice as long.
		k := 0
		for b := 0; b < len(r.at); b += 2 {
			r.at[k], r.cum[k] = r.at[b], r.cum[b]
			k++
		}
		r.at, r.cum = r.at[:k], r.cum[:k]
		r.every *= 2
		// The boundary now is not one of the doubled length's unless it
		// falls on one: record it only if so.
		if (mg.n-r.at[0])%r.every != 0 {
			mg.nextBatch = r.at[k-1] + r.every
			return
		}
	}
	row := make([]float64, 0, len(r.coords)*2)
	for _, j := range r.coords {
		b, d := mg.at(j)
		if b == nil {
			continue
		}
		at := len(row)
		row = append(row, b[mgHeader:mgHeader+d]...)
		if mg.n > 0 {
			mg.held(b, d, row[at:])
		}
	}
	r.at, r.cum = append(r.at, mg.n), append(r.cum, row)
	mg.nextBatch = mg.n + r.every
}

// BatchMeans returns the means of the batches recorded
// (TrackBatches): means[k][v][b] is the fraction of batch b's states in
// which coordinate coords[k] had value v (Rao–Blackwellised: the average
// of its conditionals there); nil for a coordinate not counted. With
// fewer than two batches (or no tracking) it returns nil.
func (mg *Marginals) BatchMeans() [][][]float64 {
	r := mg.batch
	if r == nil || len(r.at) < 3 {
		return nil
	}
	nb := len(r.at) - 1
	means := make([][][]float64, len(r.coords))
	off := 0
	for k, j := range r.coords {
		_, d := mg.at(j)
		if d == 0 {
			continue
		}
		means[k] = make([][]float64, d)
		for v := range d {
			m := make([]float64, nb)
			for b := range nb {
				m[b] = (r.cum[b+1][off+v] - r.cum[b][off+v]) / float64(r.at[b+1]-r.at[b])
			}
			means[k][v] = m
		}
		off += d
	}
	return means
}

// BatchErrors returns, for each coordinate of TrackBatches' coords (nil
// for one not counted) and each of its values v, the standard error of
// the marginal P(x_j = v) by batch means — √(s²/B), s² the variance of
// the B batches' means —, and B. With fewer than two batches (or no
// tracking) it returns nil and the batches recorded. Batch means
// underestimate an error where a batch is not much longer than the
// chain's autocorrelation time: a chain held in one mode looks precise to
// its own batches.
func (mg *Marginals) BatchErrors() (se [][]float64, batches int) {
	means := mg.BatchMeans()
	if means == nil {
		if mg.batch == nil {
			return nil, 0
		}
		return nil, max(len(mg.batch.at)-1, 0)
	}
	se = make([][]float64, len(means))
	for k, mk := range means {
		if mk == nil {
			continue
		}
		se[k] = make([]float64, len(mk))
		for v, m := range mk {
			se[k][v] = BatchError(m)
		}
	}
	return se, len(mg.batch.at) - 1
}

// BatchError returns the standard error of the mean of a run by batch
// means: √(s²/B), s² the sample variance of its B batches' means m (0 if
// B < 2).
func BatchError(m []float64) float64 {
	nb := float64(len(m))
	if nb < 2 {
		return 0
	}
	sum, sum2 := 0.0, 0.0
	for _, x := range m {
		sum += x
		sum2 += x * x
	}
	mean := sum / nb
	return math.Sqrt(max(0, sum2-nb*mean*mean) / (nb - 1) / nb)
}
