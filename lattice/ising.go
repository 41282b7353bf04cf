package lattice

import (
	"fmt"
	"math"
)

// Exact finite-size results for the 2-D nearest-neighbour Ising model on a
// periodic torus, from Kaufman's partition function (B. Kaufman, Phys. Rev.
// 76, 1232, 1949) in the form used by A. E. Ferdinand and M. E. Fisher
// (Phys. Rev. 185, 832, 1969), for validating samplers against the finite
// lattice rather than Onsager's infinite one.

// maxTorusSide is the largest side IsingTorusEnergy and IsingTorusLogZ accept
// (their cost is O(side), so the bound only keeps side² finite and exact).
const maxTorusSide = 1 << 24

// torusGroundBeta is the coupling above which the torus is in its ground
// state to double precision: the first excitations (one flipped spin, cost 8)
// change ln Z by n·e^{−8K} < 10⁻¹²⁰ and the energy per site by 8e^{−8K}.
const torusGroundBeta = 40

// IsingTorusEnergy returns the exact mean energy per site ⟨H⟩/n of the 2-D
// nearest-neighbour Ising model
//
//	π(s) ∝ exp(−βH(s)),   H(s) = −Σ_<ij> s_i s_j,   s_i = ±1,
//
// on the size×size periodic torus (n = size² sites, 2n bonds, J = 1): the
// model of New(Params{Dim: 2, Size: size, Coupling: NearestNeighbour{},
// Spin: Ising(), Beta: beta}), in the units of Lattice.Energy, so a
// Measurer's energy series averages to it. It is −(1/n)·∂ln Z/∂β with Z from
// Kaufman's formula (see IsingTorusLogZ), differentiated analytically, factor
// by factor, in a form free of overflow and of cancellation at small and
// large β; it agrees with exact enumeration to about 1e−14.
//
// Any size ≥ 2 is accepted. At size 2 the neighbours ±1 of a site coincide
// and the torus of Kaufman's formula couples each neighbouring pair by two
// bonds (NearestNeighbour lattices need size ≥ 3). β = 0 gives 0; β < 0 (the
// antiferromagnet) is accepted on even sides, where flipping one sublattice
// maps it onto the ferromagnet at −β (the energy changes sign), and is an
// error on odd sides (frustrated). For β > 40 the ground-state value −2 is
// returned (the correction, 8e^{−8β}, is below 10⁻¹³⁸).
func IsingTorusEnergy(size int, beta float64) (float64, error) {
	z, err := isingTorus(size, size, beta)
	return z.energy, err
}

// IsingTorusLogZ returns ln Z of the 2-D nearest-neighbour Ising model on the
// size×size periodic torus (see IsingTorusEnergy for the model and the sizes
// and β accepted), Z = Σ_s exp(β Σ_<ij> s_i s_j), from Kaufman's formula for
// an m×n torus (here m = n = size; as in Ferdinand & Fisher 1969)
//
//	Z = ½ (2 sinh 2β)^{mn/2} (Z₁ + Z₂ + Z₃ + Z₄),
//	Z₁ = Π_{r=0}^{n−1} 2cosh(½mγ_{2r+1}),  Z₂ = Π_{r=0}^{n−1} 2sinh(½mγ_{2r+1}),
//	Z₃ = Π_{r=0}^{n−1} 2cosh(½mγ_{2r}),    Z₄ = Π_{r=0}^{n−1} 2sinh(½mγ_{2r}),
//	cosh γ_l = cosh 2β cosh 2β* − cos(πl/n)  (l ≥ 1, γ_l > 0),
//	γ₀ = 2β + ln tanh β = 2(β − β*),         tanh β* = e^{−2β},
//
// where γ₀ changes sign at β_c = ln(1 + √2)/2 (Z₄ < 0 above T_c). It is
// computed in log space: each factor absorbs one (2 sinh 2β)^{m/2}, which
// makes it (2(A + B))^{m/2} ± (2(A − B))^{m/2} with A = cosh²2β − sinh 2β·cos(πl/n)
// and B = √(A² − sinh²2β) = sinh 2β·sinh γ_l, and for l = 0 exactly
// (e^{2β} − 1)^m ± (1 + e^{−2β})^m; the four products are carried as a log
// scale times a signed mantissa and summed relative to the largest. The
// free energy per site is −ln Z/(βn).
func IsingTorusLogZ(size int, beta float64) (float64, error) {
	z, err := isingTorus(size, size, beta)
	return z.logZ, err
}

// torusZ is ln Z of a torus and its mean energy per site.
type torusZ struct{ logZ, energy float64 }

// isingTorus checks the arguments and returns ln Z and the energy per site of
// the m×n torus (m the multiplier of γ in the factors, n the number of
// factors; Z is symmetric in m and n).
func isingTorus(m, n int, beta float64) (torusZ, error) {
	switch {
	case m < 2 || n < 2 || m > maxTorusSide || n > maxTorusSide:
		return torusZ{}, fmt.Errorf("lattice: Ising torus %d×%d: need sides from 2 to %d", m, n, maxTorusSide)
	case math.IsNaN(beta) || math.IsInf(beta, 0):
		return torusZ{}, fmt.Errorf("lattice: Ising torus at β = %v: need a finite β", beta)
	case beta < 0 && (m%2 != 0 || n%2 != 0):
		return torusZ{}, fmt.Errorf("lattice: Ising torus %d×%d at β = %v: the antiferromagnet is exact only on even sides", m, n, beta)
	}
	sites := float64(m) * float64(n)
	k := math.Abs(beta)
	var z torusZ
	switch {
	case k == 0:
		z = torusZ{logZ: sites * math.Ln2}
	case k > torusGroundBeta:
		z = torusZ{logZ: 2*sites*k + math.Ln2, energy: -2}
	default:
		z = kaufman(m, n, k)
	}
	if beta < 0 {
		z.energy = -z.energy
	}
	return z, nil
}

// kaufmanProduct is one of Kaufman's four products and its derivative with
// respect to K, as e^scale·v and e^scale·d: the mantissas stay of order one
// whatever the size.
type kaufmanProduct struct{ scale, v, d float64 }

// mul multiplies the product by a positive factor f with ln f = logf and
// f'/f = dlog.
func (p *kaufmanProduct) mul(logf, dlog float64) {
	p.scale += logf
	p.d += p.v * dlog
}

// kaufman returns ln Z and the energy per site of the m×n torus at coupling
// K > 0 (see IsingTorusLogZ): Z = ½ Σ_i Z_i with (2 sinh 2K)^{m/2} absorbed
// into each of the n factors of each product, and the energy −(1/mn)·Z'/Z
// from the factors' logarithmic derivatives.
func kaufman(m, n int, k float64) torusZ {
	mf := float64(m)
	// l = 0: (2 sinh 2K)^{m/2}·2cosh(½mγ₀) = e^a + e^b and …·2sinh(½mγ₀) =
	// e^a − e^b, with e^a = (e^{2K} − 1)^m and e^b = (1 + e^{−2K})^m.
	a, da := mf*math.Log(math.Expm1(2*k)), 2*mf/-math.Expm1(-2*k)
	b, db := mf*math.Log1p(math.Exp(-2*k)), -2*mf/(math.Exp(2*k)+1)
	top := max(a, b)
	ea, eb := math.Exp(a-top), math.Exp(b-top)
	p := [4]kaufmanProduct{ // Z₁, Z₂ (odd l), Z₃, Z₄ (even l)
		{v: 1}, {v: 1},
		{scale: top, v: ea + eb, d: da*ea + db*eb},
		{scale: top, v: ea - eb, d: da*ea - db*eb},
	}
	s, c := math.Sinh(2*k), math.Cosh(2*k)
	for l := 1; l < 2*n; l++ {
		f := kaufmanFactors(m, n, l, s, c, math.Sinh(k))
		i := 2 * (1 - l%2) // odd l: Z₁, Z₂; even l: Z₃, Z₄
		p[i].mul(f.logCosh, f.dCosh)
		p[i+1].mul(f.logSinh, f.dSinh)
	}
	top = math.Inf(-1)
	for _, q := range p {
		if q.v != 0 {
			top = max(top, q.scale)
		}
	}
	var sum, dsum float64
	for _, q := range p {
		w := math.Exp(q.scale - top)
		sum += w * q.v
		dsum += w * q.d
	}
	return torusZ{logZ: top + math.Log(sum) - math.Ln2, energy: -dsum / sum / (mf * float64(n))}
}

// kaufmanFactor holds the logarithms of the l-th factors (2 sinh 2K)^{m/2}·
// 2cosh(½mγ_l) and (2 sinh 2K)^{m/2}·2sinh(½mγ_l) (l ≥ 1) and their
// derivatives with respect to K.
type kaufmanFactor struct{ logCosh, dCosh, logSinh, dSinh float64 }

// kaufmanFactors returns the l-th factors (l ≥ 1) of an m×n torus at
// coupling K, given s = sinh 2K, c = cosh 2K and sh = sinh K. With
// A = c² − s·cos θ (θ = πl/n), B = s·sinh γ = √((A − s)(A + s)),
//
//	ln f_± = (m/2)·ln 2(A + B) + ln(1 ± e^{−mγ}),
//	(ln f_±)' = (mc/s)·[B + (s² − 1)·t_±]/B,   t₊ = tanh(½mγ), t₋ = coth(½mγ),
//
// (from (ln f)' = mc/s + (m/2)γ'·t and γ' = 2c(s² − 1)/(sB)), where the
// bracket is evaluated as (B − 1) + s²t + (1 − t) with B − 1 = (A − c)(A + c)/(B + 1)
// and A − c = 2c·sinh²K − s·cos θ, so that the O(1/K) terms cancel
// analytically rather than in floating point as K → 0.
func kaufmanFactors(m, n, l int, s, c, sh float64) kaufmanFactor {
	mf := float64(m)
	half := math.Sin(math.Pi * float64(l) / float64(2*n)) // sin(θ/2)
	cos := 1 - 2*half*half
	below := (1-s)*(1-s) + 2*s*half*half // A − s
	above := 1 + s*s + 2*s*half*half     // A + s
	a := c*c - s*cos
	b := math.Sqrt(below) * math.Sqrt(above)
	gamma := math.Log1p((below + b) / s) // cosh γ = A/s
	rho := math.Exp(-mf * gamma)
	logBase := mf / 2 * math.Log(2*(a+b))
	bm1 := (2*c*sh*sh - s*cos) * (a + c) / (b + 1)
	t := math.Tanh(mf * gamma / 2)
	plus := bm1 + s*s*t + 2*rho/(1+rho)
	minus := bm1 + s*s/t - 2*rho/(1-rho)
	scale := mf * c / s / b
	return kaufmanFactor{
		logCosh: logBase + math.Log1p(rho), dCosh: scale * plus,
		logSinh: logBase + math.Log(-math.Expm1(-mf*gamma)), dSinh: scale * minus,
	}
}
