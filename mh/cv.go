package mh

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// controlVariates holds the precomputed sums of the order-k Taylor control
// variates ℓ̂_i around θ̂ (Cornish et al. 2019; Prado, Nemeth & Sherlock
// 2024, eqs. (1)–(2)):
//
//	Σ_i [ℓ̂_i(θ') − ℓ̂_i(θ)] = Gᵀ(θ'−θ) + ½(a'ᵀHa' − aᵀHa),
//
// G = Σ_i ∇ℓ_i(θ̂), H = Σ_i ∇²ℓ_i(θ̂) (order 2), a = θ − θ̂, a' = θ' − θ̂.
type controlVariates struct {
	t     ControlVariates
	d     int
	order int
	ref   []float64
	g, h  []float64 // G and H
	w     weights   // c_i^{(k)}
	a, ap []float64 // θ − θ̂, θ' − θ̂ of the current pair
	delta []float64 // θ' − θ
	sumA  []float64 // a + a'
	gi    []float64 // scratch ∇ℓ_i(θ̂)
	hi    []float64 // scratch ∇²ℓ_i(θ̂)
}

// cvOrder returns the control-variate order of Options.Order = order for
// the sampler called name: 1 (for 0), 1 or 2.
func cvOrder(name string, order int) (int, error) {
	switch order {
	case 0:
		return 1, nil
	case 1, 2:
		return order, nil
	}
	return 0, fmt.Errorf("mh: %s: control-variate order Options.Order = %d; want 1 or 2 (0 means 1)", name, order)
}

// newCVBase sets up a sampler of family (mhss, smh) with control variates
// of order k = o.Order (1 or 2; 0 means 1) around o.Ref (nil: the initial
// state): its base, named family+k, its options (the zero Options for a nil
// o) and its control variates. check, if not nil, vets the family's own
// options once the base is built.
func newCVBase(family string, t Target, o *Options, r *rand.Rand, check func(o *Options, name string) error) (base, *Options, *controlVariates, error) {
	if o == nil {
		o = &Options{}
	}
	order, err := cvOrder(family, o.Order)
	if err != nil {
		return base{}, nil, nil, err
	}
	name := fmt.Sprintf("%s%d", family, order)
	b, err := newBase(name, t, o, r)
	if err != nil {
		return base{}, nil, nil, err
	}
	if check != nil {
		if err := check(o, name); err != nil {
			return base{}, nil, nil, err
		}
	}
	ref := o.Ref
	if ref == nil {
		ref = b.x
	}
	cv, err := newControlVariates(name, t, order, ref)
	return b, o, cv, err
}

func newControlVariates(name string, t Target, order int, ref []float64) (*controlVariates, error) {
	cvt, ok := t.(ControlVariates)
	if !ok {
		return nil, fmt.Errorf("mh: %s: target %T does not implement ControlVariates", name, t)
	}
	if order != 1 && order != 2 {
		return nil, fmt.Errorf("mh: %s: control-variate order %d must be 1 or 2", name, order)
	}
	if k := cvt.CVOrder(); order > k {
		return nil, fmt.Errorf("mh: %s: target %T declares remainder bounds up to order %d, not %d", name, t, k, order)
	}
	d, n := t.Dim(), t.N()
	if len(ref) != d {
		return nil, fmt.Errorf("mh: %s: reference point has length %d, target dimension is %d", name, len(ref), d)
	}
	if lp := t.LogPrior(ref); math.IsNaN(lp) || math.IsInf(lp, 0) {
		return nil, fmt.Errorf("mh: %s: reference point %v is outside the support", name, ref)
	}
	c := &controlVariates{t: cvt, d: d, order: order, ref: append([]float64(nil), ref...),
		g: make([]float64, d), a: make([]float64, d), ap: make([]float64, d),
		delta: make([]float64, d), sumA: make([]float64, d), gi: make([]float64, d)}
	if order == 2 {
		c.h = make([]float64, d*d)
		c.hi = make([]float64, d*d)
	}
	for i := range n {
		cvt.GradLogLik(c.gi, i, c.ref)
		for j, v := range c.gi {
			c.g[j] += v
		}
		if order == 2 {
			cvt.HessLogLik(c.hi, i, c.ref)
			for j, v := range c.hi {
				c.h[j] += v
			}
		}
	}
	for j, v := range c.g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mh: %s: summed gradient at the reference point has entry %d = %v", name, j, v)
		}
	}
	for j, v := range c.h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mh: %s: summed Hessian at the reference point has entry %d = %v", name, j, v)
		}
	}
	var err error
	c.w, err = newWeights(name, n, func(i int) float64 { return cvt.RemainderBound(order, i) })
	if err != nil {
		return nil, err
	}
	return c, nil
}

// setPair prepares the per-pair vectors for (θ, θ').
func (c *controlVariates) setPair(theta, thetaP []float64) {
	for j := range c.d {
		c.a[j] = theta[j] - c.ref[j]
		c.ap[j] = thetaP[j] - c.ref[j]
		c.delta[j] = thetaP[j] - theta[j]
		c.sumA[j] = c.a[j] + c.ap[j]
	}
}

// scale returns φ^{(k)}(θ̂; θ, θ').
func (c *controlVariates) scale(theta, thetaP []float64) float64 {
	return c.t.RemainderScale(c.order, c.ref, theta, thetaP)
}

// sumDiff returns Σ_i [ℓ̂_i(θ') − ℓ̂_i(θ)] for the current pair, using
// a'ᵀHa' − aᵀHa = (θ'−θ)ᵀH(a + a') for symmetric H.
func (c *controlVariates) sumDiff() float64 {
	s := dot(c.g, c.delta)
	if c.order == 2 {
		s += 0.5 * quad(c.h, c.delta, c.sumA)
	}
	return s
}

// diff returns ℓ̂_i(θ') − ℓ̂_i(θ) for the current pair.
func (c *controlVariates) diff(i int) float64 {
	c.t.GradLogLik(c.gi, i, c.ref)
	s := dot(c.gi, c.delta)
	if c.order == 2 {
		c.t.HessLogLik(c.hi, i, c.ref)
		s += 0.5 * quad(c.hi, c.delta, c.sumA)
	}
	return s
}

func dot(x, y []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += v * y[j]
	}
	return s
}

// quad returns uᵀAv for a row-major square A.
func quad(a, u, v []float64) float64 {
	d := len(u)
	s := 0.0
	for i, ui := range u {
		if ui == 0 {
			continue
		}
		s += ui * dot(a[i*d:(i+1)*d], v)
	}
	return s
}

// GLMScale1 returns the first-order remainder scale of Corollary 2 of
// Prado, Nemeth & Sherlock (2024) for a model whose ℓ_i depends on θ
// through x_iᵀθ with |ℓ″| ≤ L1:
//
//	φ^{(1)} = ‖Δ‖ · max{D1(ω)‖a‖, D1(ω')‖a'‖},  D1(ω) = (1 + |ω|)/2,
//
// with Δ = θ'−θ, a = θ−θ̂, a' = θ'−θ̂, ω = aᵀΔ/(‖a‖‖Δ‖), ω' = a'ᵀΔ/(‖a'‖‖Δ‖);
// then |r_i^{(1)}| ≤ L1‖x_i‖² · φ^{(1)}. It is symmetric in (θ, θ').
func GLMScale1(ref, theta, thetaP []float64) float64 {
	nd, na, nap, ad, apd := pairNorms(ref, theta, thetaP)
	if nd == 0 {
		return 0
	}
	t1, t2 := 0.0, 0.0
	if na > 0 {
		t1 = 0.5 * (1 + math.Abs(ad)/(na*nd)) * na
	}
	if nap > 0 {
		t2 = 0.5 * (1 + math.Abs(apd)/(nap*nd)) * nap
	}
	return nd * max(t1, t2)
}

// GLMScale2 returns the second-order remainder scale of Corollary 2 of
// Prado, Nemeth & Sherlock (2024) for a model whose ℓ_i depends on θ
// through x_iᵀθ with |ℓ‴| ≤ L2:
//
//	φ^{(2)} = ½‖Δ‖ {‖Δ‖²/6 + D2(ω)‖a‖² + D2(ω')‖a'‖²},
//	D2(ω) = (2 + |ω|c)^{3/2}/(3^{3/2} c),  c = √(2 + ω²/4) − |ω|/2,
//
// so that |r_i^{(2)}| ≤ L2‖x_i‖³ · φ^{(2)}. It is symmetric in (θ, θ').
func GLMScale2(ref, theta, thetaP []float64) float64 {
	nd, na, nap, ad, apd := pairNorms(ref, theta, thetaP)
	if nd == 0 {
		return 0
	}
	s := nd * nd / 6
	if na > 0 {
		s += d2(ad/(na*nd)) * na * na
	}
	if nap > 0 {
		s += d2(apd/(nap*nd)) * nap * nap
	}
	return 0.5 * nd * s
}

func d2(omega float64) float64 {
	w := min(math.Abs(omega), 1)
	c := math.Sqrt(2+w*w/4) - w/2
	return math.Pow(2+w*c, 1.5) / (3 * math.Sqrt(3) * c)
}

// pairNorms returns ‖Δ‖, ‖a‖, ‖a'‖, aᵀΔ and a'ᵀΔ.
func pairNorms(ref, theta, thetaP []float64) (nd, na, nap, ad, apd float64) {
	for j, r := range ref {
		a, ap := theta[j]-r, thetaP[j]-r
		dl := thetaP[j] - theta[j]
		nd += dl * dl
		na += a * a
		nap += ap * ap
		ad += a * dl
		apd += ap * dl
	}
	return math.Sqrt(nd), math.Sqrt(na), math.Sqrt(nap), ad, apd
}

// L1PowScale returns the remainder scale of the SMH bounds of Cornish et
// al. (2019), (‖θ−θ̂‖₁^{k+1} + ‖θ'−θ̂‖₁^{k+1}) / (k+1)!: if every partial
// derivative of order k+1 of ℓ_i is bounded by Ū_{k+1,i} on the support,
// then |r_i^{(k)}| ≤ Ū_{k+1,i} · L1PowScale(k, θ̂, θ, θ').
func L1PowScale(order int, ref, theta, thetaP []float64) float64 {
	n0, n1 := 0.0, 0.0
	for j, r := range ref {
		n0 += math.Abs(theta[j] - r)
		n1 += math.Abs(thetaP[j] - r)
	}
	if order == 1 {
		return (n0*n0 + n1*n1) / 2
	}
	return (n0*n0*n0 + n1*n1*n1) / 6
}
