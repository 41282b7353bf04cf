package lattice

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// isingRun returns two Swendsen–Wang chains (6000 and 4000 measured sweeps
// after 200) of the 2-D nearest-neighbour Ising model on the side×side
// torus at β.
func isingRun(t *testing.T, side int, beta float64, seed uint64) (*Lattice, []Series) {
	t.Helper()
	l := isingNN(t, side, beta)
	return l, []Series{swSeries(t, l, 6000, 200, seed), swSeries(t, l, 4000, 200, seed+1)}
}

// agreeAll compares two independent sets of Observables, observable by
// observable, and returns the largest |a − b|/√(σa² + σb²) with its name.
func agreeAll(a, b Observables) (float64, string) {
	worst, where := 0.0, ""
	nb := named(b)
	for name, x := range named(a) {
		y := nb[name]
		z := math.Abs(x.Mean-y.Mean) / math.Hypot(x.Err, y.Err)
		if z > worst || math.IsNaN(z) {
			worst, where = z, fmt.Sprintf("%s: %.5g ± %.2g against %.5g ± %.2g", name, x.Mean, x.Err, y.Mean, y.Err)
		}
	}
	return worst, where
}

// exactC returns the specific heat of the side×side Ising torus at β,
// −β²·d⟨e⟩/dβ, from Kaufman's exact energy by a central difference.
func exactC(t *testing.T, side int, beta float64) float64 {
	const h = 1e-4
	up, err := IsingTorusEnergy(side, beta+h)
	if err != nil {
		t.Fatal(err)
	}
	down, err := IsingTorusEnergy(side, beta-h)
	if err != nil {
		t.Fatal(err)
	}
	return -beta * beta * (up - down) / (2 * h)
}

// TestReweighting: Swendsen–Wang on the 8×8 Ising torus at β₀ = 0.42,
// reweighted to β = 0.40 and 0.44 (inside the window), agrees with direct
// runs at those β on all nine observables within 4 combined errors, and
// both agree with the torus's exact energy and specific heat (Kaufman).
// The window's ends have the effective fraction MinFraction and refuse β far
// outside. The broken variant, the weights with the sign of β − β₀
// flipped, reweights to the mirror β and must disagree with the direct
// run. At the window's ends the reweighted observables still agree with
// direct runs there. The χ peak lies inside the window, and a direct run
// at its position gives its height within errors.
func TestReweighting(t *testing.T) {
	const beta0, side = 0.42, 8
	l, runs := isingRun(t, side, beta0, 10)
	r, err := l.Reweighter(runs...)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := r.Window()
	t.Logf("window [%.4f, %.4f] (σ_H = %.1f, 1.52/σ_H = %.4f)", lo, hi, r.s.sigmaH, 1.52/r.s.sigmaH)
	for _, b := range []float64{lo, hi} {
		if f := r.ESS(b); math.Abs(f-DefaultMinFraction) > 1e-6 {
			t.Errorf("ESS at the window's end %v: %v, want %v", b, f, DefaultMinFraction)
		}
	}
	if w := 1.52 / r.s.sigmaH; !(lo < beta0-w/2 && lo > beta0-3*w && hi > beta0+w/2 && hi < beta0+3*w) {
		t.Errorf("window [%v, %v], Gaussian estimate ±%v around %v", lo, hi, w, beta0)
	}
	at0, err := r.At(beta0)
	if err != nil {
		t.Fatal(err)
	}
	direct0, err := l.Observables(runs...)
	if err != nil {
		t.Fatal(err)
	}
	if at0.Observables != direct0 || at0.ESS != 1 {
		t.Errorf("At(β₀) = %+v, ComputeObservables %+v", at0, direct0)
	}
	for _, far := range []float64{beta0 + 0.3, beta0 - 0.3, math.NaN()} {
		if _, err := r.At(far); !errors.Is(err, ErrOutsideWindow) {
			t.Errorf("At(%v): %v, want ErrOutsideWindow", far, err)
		}
	}

	// At the window's ends too, reweighted and direct runs agree.
	for k, beta := range []float64{lo, hi} {
		rw, err := r.At(beta)
		if err != nil {
			t.Fatal(err)
		}
		ld, direct := isingRun(t, side, beta, uint64(60+2*k))
		d, err := ld.Observables(direct...)
		if err != nil {
			t.Fatal(err)
		}
		z, where := agreeAll(rw.Observables, d)
		t.Logf("window end β = %.4f (ESS %.2f): reweighted against direct, worst %.2fσ (%s)", beta, rw.ESS, z, where)
		if z > 4 {
			t.Errorf("window end β = %v: reweighted against direct %.1fσ (%s)", beta, z, where)
		}
	}

	for k, beta := range []float64{0.40, 0.44} {
		if !r.Inside(beta) {
			t.Fatalf("β = %v outside the window [%v, %v]", beta, lo, hi)
		}
		rw, err := r.At(beta)
		if err != nil {
			t.Fatal(err)
		}
		ld, direct := isingRun(t, side, beta, uint64(20+2*k))
		d, err := ld.Observables(direct...)
		if err != nil {
			t.Fatal(err)
		}
		z, where := agreeAll(rw.Observables, d)
		e, err := IsingTorusEnergy(side, beta)
		if err != nil {
			t.Fatal(err)
		}
		c := exactC(t, side, beta)
		zE, zC := math.Abs(rw.Energy.Mean-e)/rw.Energy.Err, math.Abs(rw.SpecificHeat.Mean-c)/rw.SpecificHeat.Err
		t.Logf("β = %v (ESS %.2f): reweighted against direct, worst %.2fσ (%s); energy %.5f ± %.4f, C %.4f ± %.3f, exact %.5f, %.4f",
			beta, rw.ESS, z, where, rw.Energy.Mean, rw.Energy.Err, rw.SpecificHeat.Mean, rw.SpecificHeat.Err, e, c)
		if z > 4 || zE > 4 || zC > 4 {
			t.Errorf("β = %v: reweighted against direct %.1fσ (%s), energy %.1fσ, C %.1fσ from exact", beta, z, where, zE, zC)
		}
		// The broken variant: the sign of β − β₀ flipped in the weights.
		r.s.sign = -1
		broken := r.s.observe(beta, false)
		r.s.sign = 1
		zb, whereB := agreeAll(broken, d)
		t.Logf("  broken (sign of β − β₀ flipped): worst %.1fσ (%s)", zb, whereB)
		if zb < 8 {
			t.Errorf("β = %v: reweighting with the wrong sign agrees with the direct run (worst %.1fσ)", beta, zb)
		}
	}

	p, err := r.ChiPeak()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("χ peak at β = %.4f ± %.4f, height %.4f ± %.4f", p.Beta.Mean, p.Beta.Err, p.Height.Mean, p.Height.Err)
	if p.Edge || !(p.Beta.Err > 0) || !(p.Height.Err > 0) || !r.Inside(p.Beta.Mean) {
		t.Fatalf("χ peak %+v", p)
	}
	for _, d := range []float64{-0.01, 0.01} {
		if o, err := r.At(p.Beta.Mean + d); err == nil && o.Chi.Mean > p.Height.Mean {
			t.Errorf("χ(%v) = %v above the peak %v", p.Beta.Mean+d, o.Chi.Mean, p.Height.Mean)
		}
	}
	// A window that ends before the peak: the largest χ is at its end, a
	// bound with no error bar (every jackknife replica's maximum is the
	// same end), not an estimate with a zero one.
	if err := r.SetMinFraction(0.95); err != nil {
		t.Fatal(err)
	}
	if lo, hi := r.Window(); p.Beta.Mean >= lo && p.Beta.Mean <= hi {
		t.Fatalf("window [%v, %v] still holds the peak at %v", lo, hi, p.Beta.Mean)
	}
	if e, err := r.ChiPeak(); err != nil || !e.Edge || !math.IsNaN(e.Beta.Err) || !(e.Height.Err > 0) {
		t.Errorf("χ peak on a window that misses it: %+v, %v; want Edge, β's error NaN", e, err)
	}
	if _, err := r.At(p.Beta.Mean); !errors.Is(err, ErrOutsideWindow) || !strings.Contains(err.Error(), "SetMinFraction") {
		t.Errorf("At outside the window: %v; want ErrOutsideWindow, saying how to widen it", err)
	}
	if err := r.SetMinFraction(DefaultMinFraction); err != nil {
		t.Fatal(err)
	}
	lp, direct := isingRun(t, side, p.Beta.Mean, 30)
	d, err := lp.Observables(direct...)
	if err != nil {
		t.Fatal(err)
	}
	if z := math.Abs(d.Chi.Mean-p.Height.Mean) / math.Hypot(d.Chi.Err, p.Height.Err); z > 4 {
		t.Errorf("direct χ at the peak %v ± %v, peak height %v ± %v", d.Chi.Mean, d.Chi.Err, p.Height.Mean, p.Height.Err)
	}
}

// TestBinderCrossing: the Binder cumulants of 8×8 and 16×16 Ising tori run
// at β_c cross within 4 errors and 0.003 (the finite-size shift, about
// 0.001 here) of β_c, at U between 0.57 and 0.65 (the crossing value
// tends to U* = 0.6107), with finite errors; runs at β = 0.3 (both
// disordered, U₈ > U₁₆ throughout) have no crossing, nor have runs whose
// windows do not overlap.
func TestBinderCrossing(t *testing.T) {
	reweighter := func(side int, beta float64, seed uint64) *Reweighter {
		l, runs := isingRun(t, side, beta, seed)
		r, err := l.Reweighter(runs...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := reweighter(8, betaC, 40), reweighter(16, betaC, 42)
	c, err := BinderCrossing(a, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("crossing at β = %.5f ± %.5f (β_c %.5f), U = %.4f ± %.4f, searched [%.4f, %.4f]", c.Beta.Mean, c.Beta.Err, betaC, c.U.Mean, c.U.Err, c.Lo, c.Hi)
	if math.Abs(c.Beta.Mean-betaC) > 4*c.Beta.Err+0.003 || !(c.Beta.Err > 0 && c.Beta.Err < 0.005) || c.U.Mean < 0.57 || c.U.Mean > 0.65 || !(c.U.Err > 0) {
		t.Errorf("crossing %+v", c)
	}
	if _, err := BinderCrossing(reweighter(8, 0.3, 44), reweighter(16, 0.3, 46)); !errors.Is(err, ErrNoCrossing) {
		t.Errorf("disordered runs: %v, want ErrNoCrossing", err)
	}
	// Windows apart (synthetic energies: σ_H = 51, windows of ±0.03).
	r := rand.New(rand.NewPCG(3, 3))
	near, err := NewReweighter(0.3, 1024, 32, gaussianSeries(r, 400, 0.3, -1, 0.05, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	far, err := NewReweighter(0.5, 1024, 32, gaussianSeries(r, 400, 0.3, -1, 0.05, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BinderCrossing(near, far); !errors.Is(err, ErrNoCrossing) {
		t.Errorf("windows apart: %v, want ErrNoCrossing", err)
	}
}

// TestVertex: the parabola through three points recovers a quadratic's
// maximum from any spacing; a maximum at an end is reported as the edge.
func TestVertex(t *testing.T) {
	f := func(x float64) float64 { return 2 - 5*(x-0.3)*(x-0.3) }
	x := []float64{0.1, 0.22, 0.31, 0.5, 0.6}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	if xm, ym, edge := vertex(x, y); edge || math.Abs(xm-0.3) > 1e-12 || math.Abs(ym-2) > 1e-12 {
		t.Errorf("vertex %v, %v, %v", xm, ym, edge)
	}
	if xm, _, edge := vertex(x[3:], y[3:]); !edge || xm != 0.5 {
		t.Errorf("decreasing: vertex at %v, edge %v", xm, edge)
	}
	b, u, ok := crossingNear([]float64{0, 1, 2, 3}, []float64{0, 1, 2, 3}, []float64{2, 2, 2, 2}, 0)
	if !ok || b != 2 || u != 2 {
		t.Errorf("crossing %v, %v, %v", b, u, ok)
	}
}
