package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// logBigAbove1 returns log x to double precision for x ≥ 1 from math/big:
// log m + e·ln2 for x = m·2^e, m ∈ [0.5, 1) (logBig's split), with log m
// by the series of atanh: log m = 2·atanh((m−1)/(m+1)) at 256 bits.
func logBigAbove1(x float64) float64 {
	const prec = 256
	f := new(big.Float).SetPrec(prec).SetFloat64(x)
	mant := new(big.Float).SetPrec(prec)
	e := f.MantExp(mant)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	num := new(big.Float).SetPrec(prec).Sub(mant, one)
	den := new(big.Float).SetPrec(prec).Add(mant, one)
	z := new(big.Float).SetPrec(prec).Quo(num, den)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(z)
	for k := int64(1); k < 200; k += 2 {
		q := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, q)
		term.Mul(term, z2)
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	ln2, _ := new(big.Float).SetPrec(prec).SetString("0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156058633269964186875")
	sum.Add(sum, new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	r, _ := sum.Float64()
	return r
}

// TestLogAtLeast1: within 2.5·10⁻¹⁶ + 2 ulp of log x (256-bit) on [1, 2]
// (dense), at table points and just below the next, on row sums of up to
// 10⁴ terms and up to MaxFloat64; exact at 1; the other arguments are
// math.Log's. A degree-5 polynomial (r⁶, r⁷ dropped) fails it.
func TestLogAtLeast1(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var xs []float64
	for k := range 3000 {
		xs = append(xs, 1+float64(k)/3000)
	}
	for j := range 128 {
		c := 1 + float64(j)/128
		xs = append(xs, c, math.Nextafter(c+1.0/128, 0))
	}
	for range 3000 {
		xs = append(xs, 1+r.Float64(), 1+r.Float64()*1e4, math.Exp(r.Float64()*700))
	}
	xs = append(xs, math.MaxFloat64, 2, math.Nextafter(2, 0), math.Nextafter(1, 2))
	worst, at := 0.0, 0.0
	for _, x := range xs {
		want := logBigAbove1(x)
		got := LogAtLeast1(x)
		tol := 2.5e-16 + 2*(math.Nextafter(want, math.Inf(1))-want)
		if d := math.Abs(got - want); d/tol > worst {
			worst, at = d/tol, x
		}
	}
	if worst > 1 {
		t.Errorf("LogAtLeast1(%v) off by %.2f times the tolerance", at, worst)
	}
	t.Logf("worst %.3f of the tolerance at %v", worst, at)
	if LogAtLeast1(1) != 0 {
		t.Errorf("LogAtLeast1(1) = %v", LogAtLeast1(1))
	}
	for _, x := range []float64{0.5, 0, -1, math.Inf(1), math.NaN(), 1e-310} {
		if got, want := LogAtLeast1(x), math.Log(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("LogAtLeast1(%v) = %v, want math.Log's %v", x, got, want)
		}
	}
}

func BenchmarkLogAtLeast1(b *testing.B) {
	b.Run("xmath", func(b *testing.B) {
		s := 0.0
		for i := range b.N {
			s += LogAtLeast1(1 + float64(i&1023)*0.0009)
		}
		sink = s
	})
	b.Run("math", func(b *testing.B) {
		s := 0.0
		for i := range b.N {
			s += math.Log(1 + float64(i&1023)*0.0009)
		}
		sink = s
	})
}
