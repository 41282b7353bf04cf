package lattice

import (
	"fmt"
	"math"
)

// Coupling is a coupling function J(r) between two sites of a lattice that
// depends only on their distance r (the papers' kernel: the CLI flag and the
// messages still say -kernel and "kernel"). Distances are minimal-image
// Euclidean distances on the periodic lattice, so that r² is an integer
// d2 ≥ 1 (see the package documentation).
//
// Coupling returns J for two sites of a dim-dimensional lattice at squared
// distance d2 ≥ 1; it must be a pure function of its arguments, safe for
// concurrent use. A zero coupling leaves the pair uncoupled; NaN and ±Inf are
// errors (New reports them). Reach returns the largest squared distance at
// which Coupling may be non-zero, or 0 if it may be non-zero at every
// distance: New enumerates only the offsets within reach, so a short-range
// kernel costs O(reach^{dim/2}) to set up however large the lattice is.
// String names the kernel for messages and output.
//
// A kernel that is also a Validator is validated by New.
type Coupling interface {
	Coupling(dim, d2 int) float64
	Reach() int
	String() string
}

// Validator is a Coupling that can check its parameters (Gaussian,
// PowerLaw): New returns Validate's error, wrapped, for a kernel that
// cannot work.
type Validator interface {
	Validate() error
}

// NearestNeighbour is the nearest-neighbour coupling: J = 1 at distance 1,
// 0 elsewhere (the 2·dim neighbours along the axes).
type NearestNeighbour struct{}

// Coupling returns 1 for d2 = 1 and 0 otherwise.
func (NearestNeighbour) Coupling(_, d2 int) float64 {
	if d2 == 1 {
		return 1
	}
	return 0
}

// Reach returns 1.
func (NearestNeighbour) Reach() int { return 1 }

// String returns "nn".
func (NearestNeighbour) String() string { return "nn" }

// Gaussian is the kernel of the Poisson-Gibbs paper's Potts model,
// J(r) = exp(−Gamma·r²). Couplings that underflow to exactly 0 in float64
// (Gamma·r² > 745.13) leave their pairs uncoupled, as in package potts.
type Gaussian struct {
	Gamma float64
}

// Coupling returns exp(−Gamma·d2).
func (g Gaussian) Coupling(_, d2 int) float64 { return math.Exp(-g.Gamma * float64(d2)) }

// gaussianUnderflow bounds the arguments whose exponential is not 0 in
// float64: math.Exp(x) = 0 for x < −745.14.
const gaussianUnderflow = 746

// Reach returns the smallest squared distance beyond which exp(−Gamma·d2)
// is exactly 0, or 0 (unbounded) when that is beyond any lattice.
func (g Gaussian) Reach() int {
	r := math.Floor(gaussianUnderflow/g.Gamma) + 1
	if !(r < 1<<40) {
		return 0
	}
	return int(r)
}

// String returns e.g. "gaussian(γ=1.5)".
func (g Gaussian) String() string { return fmt.Sprintf("gaussian(γ=%g)", g.Gamma) }

// Validate reports a width that is not finite and positive.
func (g Gaussian) Validate() error {
	if !(g.Gamma > 0) || math.IsInf(g.Gamma, 0) {
		return fmt.Errorf("gaussian kernel width γ = %v: need a finite γ > 0", g.Gamma)
	}
	return nil
}

// PowerLaw is the long-range kernel J(r) = r^−(dim+Sigma) between every pair
// of sites (J = 1 at distance 1). For Sigma > 0 the sum Σ_j J_ij converges as
// the lattice grows, so the energy is extensive without Kac normalisation;
// Sigma ≤ 0 is rejected.
type PowerLaw struct {
	Sigma float64
}

// Coupling returns d2^−(dim+Sigma)/2.
func (p PowerLaw) Coupling(dim, d2 int) float64 {
	return math.Pow(float64(d2), -(float64(dim)+p.Sigma)/2)
}

// Reach returns 0: every pair of sites is coupled.
func (PowerLaw) Reach() int { return 0 }

// String returns e.g. "power(σ=1)".
func (p PowerLaw) String() string { return fmt.Sprintf("power(σ=%g)", p.Sigma) }

// Validate reports an exponent that is not finite and positive.
func (p PowerLaw) Validate() error {
	if !(p.Sigma > 0) || math.IsInf(p.Sigma, 0) {
		return fmt.Errorf("power-law exponent σ = %v: need a finite σ > 0", p.Sigma)
	}
	return nil
}

var (
	_ Coupling = NearestNeighbour{}
	_ Coupling = Gaussian{}
	_ Coupling = PowerLaw{}
)
