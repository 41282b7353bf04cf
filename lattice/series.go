package lattice

import "math"

// Series are the measurements of one chain, one entry a measurement, in
// the order taken:
//
//   - E, the energy per site H/n (exact, or the Monte Carlo estimate of
//     EnergyMC on long-range lattices: see NewMeasurer);
//   - M, the order parameter of Magnetisation;
//   - M2, the squared magnetisation per site of the spins' vector form,
//     |m⃗|² with m⃗ = (1/n)·Σ_j σ⃗_j: for Ising spins σ = ±1, m² = (Σ s/n)²;
//     for q-state Potts spins the simplex vectors σ⃗_j with components
//     √(q/(q−1))·(δ(x_j, a) − 1/q), so that |m⃗|² = q/(q−1)·Σ_a (n_a/n −
//     1/q)² (the Ising value for q = 2); for continuous spins (Σ x/n)²;
//   - SK, the structure factor at the smallest nonzero wave vectors,
//     S(k_min) = (1/n)·|Σ_j σ⃗_j e^{i k·r_j}|² with k = (2π/N)·ê_a (N the
//     side), averaged over the Dim axes a, so that S(0) = n·M2.
//
// M2 and SK give the second-moment correlation length,
// ξ₂ = √(n·⟨M2⟩/⟨SK⟩ − 1) / (2 sin(π/N)), and M2 the susceptibility.
type Series struct {
	E, M, M2, SK []float64
}

// structure returns M2 and SK of state x (see Series): one pass over the
// sites, a running sum of each spin component's Fourier coefficient at
// k_min along every axis. It allocates its tables; x must be a state of l.
// It is the reference the Measurer's pass (pass.go) is tested against.
func (l *Lattice) structure(x []float64) (m2, sk float64) {
	comps := 1 // the components of a spin's vector form
	if l.kind == PottsSpins && l.q > 2 {
		comps = l.q
	}
	cos, sin := make([]float64, l.size), make([]float64, l.size)
	for c := range l.size {
		cos[c], sin[c] = math.Cos(2*math.Pi*float64(c)/float64(l.size)), math.Sin(2*math.Pi*float64(c)/float64(l.size))
	}
	// sum[c] = Σ_j σ_j,c; re/im[a·comps + c] = Σ_j σ_j,c·e^{i k_a·r_j}.
	sum := make([]float64, comps)
	re, im := make([]float64, l.dim*comps), make([]float64, l.dim*comps)
	coords := make([]int, 0, 3)
	scale := 1.0
	if comps > 1 {
		scale = math.Sqrt(float64(l.q) / float64(l.q-1))
	}
	for j := range l.n {
		coords = l.Coords(coords[:0], j)
		for c := range comps {
			var s float64
			switch {
			case l.kind == ContinuousSpins:
				s = x[j]
			case comps == 1: // Ising, or Potts with q = 2
				s = 2*x[j] - 1
			default:
				s = -1 / float64(l.q)
				if int(x[j]) == c {
					s++
				}
				s *= scale
			}
			sum[c] += s
			for a, r := range coords {
				re[a*comps+c] += s * cos[r]
				im[a*comps+c] += s * sin[r]
			}
		}
	}
	n := float64(l.n)
	for c := range comps {
		m2 += (sum[c] / n) * (sum[c] / n)
		for a := range l.dim {
			k := a*comps + c
			sk += (re[k]*re[k] + im[k]*im[k]) / n
		}
	}
	return m2, sk / float64(l.dim)
}

// CorrelationLength returns the second-moment correlation length of means
// of M2 and SK (see Series) on a lattice of n sites and side N:
// √(n·m2/sk − 1)/(2 sin(π/N)), or NaN where the argument of the root is
// negative (no correlation beyond noise).
func CorrelationLength(m2, sk float64, n, side int) float64 {
	r := float64(n)*m2/sk - 1
	if !(r >= 0) {
		return math.NaN()
	}
	return math.Sqrt(r) / (2 * math.Sin(math.Pi/float64(side)))
}
