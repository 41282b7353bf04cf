package exchange

import (
	"context"
	"fmt"
	"math"
)

// moment is the mean and standard deviation of ℓ at one rung.
type moment struct{ mean, sd float64 }

// evenLadder returns k rungs evenly spaced on [0, 1], from 1 down.
func evenLadder(k int) []float64 {
	b := make([]float64, k)
	for j := range b {
		b[j] = 1 - float64(j)/float64(k-1)
	}
	b[k-1] = 0
	return b
}

// tune runs sweeps sweeps of every replica, with their rounds of swaps,
// and returns the moments of ℓ at each rung over the rounds.
func (e *Exchange) tune(ctx context.Context, sweeps int) ([]moment, error) {
	K := len(e.betas)
	sum := make([]float64, K)
	sq := make([]float64, K)
	rounds := sweeps * max(1, int(math.Round(stepsPerSweep(e.ladders[0].reps[0], len(e.g.Free()))/float64(e.coldEvery))))
	for range rounds {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("exchange: tuning the ladder: %w", err)
		}
		for range e.coldEvery {
			e.Step()
		}
		e.Step() // the round of swaps
		if err := e.Err(); err != nil {
			return nil, err
		}
		for _, ld := range e.ladders {
			for k, l := range ld.ell {
				sum[k] += l
				sq[k] += l * l
			}
		}
	}
	m := make([]moment, K)
	n := float64(rounds * len(e.ladders))
	for k := range m {
		mean := sum[k] / n
		m[k] = moment{mean, math.Sqrt(max(0, sq[k]/n-mean*mean))}
	}
	return m, nil
}

// placeRungs returns the ladder on [lo, hi] (within the measured rungs'
// range) whose neighbouring rungs have the swap acceptance acc predicted
// from the standard deviations of ℓ measured at betas (m): for Gaussian
// energies of standard deviation σ at both ends, the swap between β and
// β − δ is accepted with probability erfc(δσ/2), so rungs are spaced by
// 2·erfc⁻¹(acc) in the thermodynamic length Λ(β) = ∫_β^hi σ(b) db (σ
// interpolated linearly between the measured rungs), as many as that
// takes, at most maxK, from hi down to lo.
func placeRungs(betas []float64, m []moment, acc float64, maxK int, lo, hi float64) []float64 {
	const grid = 4096
	sigma := func(b float64) float64 { return momentAt(betas, m, b).sd }
	// cum[j]: Λ from hi down to b_j = hi − j(hi − lo)/grid.
	cum := make([]float64, grid+1)
	h := (hi - lo) / grid
	for j := 1; j <= grid; j++ {
		b := hi - float64(j)*h
		cum[j] = cum[j-1] + h*(sigma(b)+sigma(b+h))/2
	}
	total := cum[grid]
	step := 2 * math.Erfcinv(acc)
	K := 2
	if total > 0 {
		K = min(maxK, max(2, int(math.Ceil(total/step))+1))
	}
	out := make([]float64, K)
	out[0], out[K-1] = hi, lo
	j := 0
	for r := 1; r < K-1; r++ {
		target := total * float64(r) / float64(K-1)
		for j < grid && cum[j+1] < target {
			j++
		}
		t := 0.0
		if d := cum[j+1] - cum[j]; d > 0 {
			t = (target - cum[j]) / d
		}
		out[r] = hi - (float64(j)+t)*h
	}
	// Keep the ladder strictly decreasing whatever the rounding.
	for r := 1; r < K; r++ {
		if !(out[r] < out[r-1]) {
			out[r] = math.Nextafter(out[r-1], math.Inf(-1))
		}
	}
	out[K-1] = min(out[K-1], lo)
	return out
}

// momentAt returns the moments of ℓ at b, interpolated linearly between
// those measured at the rungs betas (decreasing).
func momentAt(betas []float64, m []moment, b float64) moment {
	for k := 1; k < len(betas); k++ {
		if b >= betas[k] {
			t := (b - betas[k]) / (betas[k-1] - betas[k])
			return moment{m[k].mean + t*(m[k-1].mean-m[k].mean), m[k].sd + t*(m[k-1].sd-m[k].sd)}
		}
	}
	return m[len(m)-1]
}
