package targets

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/mh"
)

// BoundKind selects the control-variate remainder bound of a GLM target.
type BoundKind int

const (
	// Corollary2 is the bound of Prado, Nemeth & Sherlock (2024),
	// Corollary 2: c_i^{(k)} = L_k‖x_i‖₂^{k+1}, φ = mh.GLMScale1/2.
	Corollary2 BoundKind = iota
	// Cornish is the SMH bound of Cornish et al. (2019):
	// c_i^{(k)} = L_k max_j |x_ij|^{k+1}, φ = mh.L1PowScale.
	Cornish
)

// design holds a row-major N×d design matrix and per-row norms.
type design struct {
	x       []float64
	n, d    int
	norm2   []float64 // ‖x_i‖₂
	normInf []float64 // max_j |x_ij|
}

func newDesign(x []float64, n, d int) (design, error) {
	if d < 1 || n < 1 {
		return design{}, fmt.Errorf("targets: design of %d rows and %d columns; need at least one of each", n, d)
	}
	if len(x) != n*d {
		return design{}, fmt.Errorf("targets: design has %d entries, want %d×%d", len(x), n, d)
	}
	ds := design{x: x, n: n, d: d, norm2: make([]float64, n), normInf: make([]float64, n)}
	for i := range n {
		s, m := 0.0, 0.0
		for j, v := range x[i*d : (i+1)*d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return design{}, fmt.Errorf("targets: design entry (%d,%d) is %v", i, j, v)
			}
			s += v * v
			m = max(m, math.Abs(v))
		}
		ds.norm2[i] = math.Sqrt(s)
		ds.normInf[i] = m
	}
	return ds, nil
}

func (ds *design) row(i int) []float64 { return ds.x[i*ds.d : (i+1)*ds.d] }

// outer sets dst (d×d, row-major) to h·x_i x_iᵀ: the Hessian of a GLM's
// log-likelihood term, whose curvature h along x_i is the link's.
func (ds *design) outer(dst []float64, i int, h float64) {
	x := ds.row(i)
	for a, xa := range x {
		for b, xb := range x {
			dst[a*ds.d+b] = h * xa * xb
		}
	}
}

func (ds *design) eta(i int, theta []float64) float64 {
	s := 0.0
	for j, v := range ds.row(i) {
		s += v * theta[j]
	}
	return s
}

// remainder returns c_i^{(k)} for the bound kind, given L_k.
func (ds *design) remainder(kind BoundKind, order, i int, lk float64) float64 {
	p := float64(order + 1)
	if kind == Cornish {
		return lk * math.Pow(ds.normInf[i], p)
	}
	return lk * math.Pow(ds.norm2[i], p)
}

func remainderScale(kind BoundKind, order int, ref, theta, thetaP []float64) float64 {
	if kind == Cornish {
		return mh.L1PowScale(order, ref, theta, thetaP)
	}
	if order == 1 {
		return mh.GLMScale1(ref, theta, thetaP)
	}
	return mh.GLMScale2(ref, theta, thetaP)
}

// euclid returns ‖θ − θ'‖₂.
func euclid(theta, thetaP []float64) float64 {
	s := 0.0
	for j, v := range theta {
		d := v - thetaP[j]
		s += d * d
	}
	return math.Sqrt(s)
}

// box is an optional axis-aligned support.
type box struct{ lo, hi []float64 }

func (b *box) set(lo, hi []float64, d int) error {
	if lo == nil && hi == nil {
		b.lo, b.hi = nil, nil
		return nil
	}
	if len(lo) != d || len(hi) != d {
		return fmt.Errorf("targets: box bounds of length %d and %d, dimension %d", len(lo), len(hi), d)
	}
	for j := range d {
		if !(lo[j] < hi[j]) || math.IsInf(lo[j], 0) || math.IsInf(hi[j], 0) {
			return fmt.Errorf("targets: box side %d is [%v, %v]; need finite lo < hi", j, lo[j], hi[j])
		}
	}
	b.lo, b.hi = append([]float64(nil), lo...), append([]float64(nil), hi...)
	return nil
}

func (b *box) logPrior(theta []float64) float64 {
	if b.lo == nil {
		return 0
	}
	for j, v := range theta {
		if !(v >= b.lo[j] && v <= b.hi[j]) {
			return math.Inf(-1)
		}
	}
	return 0
}

// etaRange returns the range of x_iᵀθ over the box.
func (b *box) etaRange(x []float64) (lo, hi float64) {
	for j, v := range x {
		p, q := v*b.lo[j], v*b.hi[j]
		lo += min(p, q)
		hi += max(p, q)
	}
	return lo, hi
}
