package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// logBig returns log x for a positive float64 x to double precision, from
// its exact value m·2^e (math/big), m an integer below 2⁵³: log m (a
// normal number's logarithm) plus e·ln 2, with ln 2 to 100 digits — an
// independent path that never takes the logarithm of a subnormal.
func logBig(x float64) float64 {
	f := new(big.Float).SetFloat64(x)
	mant := new(big.Float)
	e := f.MantExp(mant) // x = mant·2^e, mant ∈ [0.5, 1)
	m, _ := mant.Float64()
	ln2, _ := new(big.Float).SetPrec(400).SetString("0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156058633269964186875")
	t := new(big.Float).SetPrec(400).Mul(ln2, new(big.Float).SetInt64(int64(e)))
	t.Add(t, new(big.Float).SetPrec(400).SetFloat64(math.Log(m)))
	r, _ := t.Float64()
	return r
}

// TestLogSubnormal: Log agrees with the exact value (math/big) to a few
// units in the last place on subnormals of every magnitude, matches known
// values, and is math.Log itself on the other arguments.
func TestLogSubnormal(t *testing.T) {
	known := []struct{ x, want float64 }{
		{5e-324, -1074 * math.Ln2}, // the smallest subnormal, 2⁻¹⁰⁷⁴
		{0x1p-1060, -1060 * math.Ln2},
		{0x1p-1023, -1023 * math.Ln2},
		{0x1p-1022, -1022 * math.Ln2}, // the smallest normal
	}
	for _, k := range known {
		if got := Log(k.x); math.Abs(got-k.want) > 2e-16*math.Abs(k.want) {
			t.Errorf("Log(%v) = %v, want %v", k.x, got, k.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for n := range 20000 {
		// Subnormals of every magnitude: the mantissa bits, 1 to 2⁵²−1,
		// with a uniformly drawn number of significant bits.
		bits := r.Uint64N(1<<52-1) + 1
		bits >>= r.UintN(52)
		x := math.Float64frombits(max(bits, 1))
		if n == 0 {
			x = 1e-320
		}
		got, want := Log(x), logBig(x)
		if d := math.Abs(got-want) / math.Abs(want); d > worst {
			worst = d
		}
	}
	if worst > 4e-16 {
		t.Errorf("Log on subnormals: largest relative error %g, want ≤ 4e-16", worst)
	}
	if got, want := Log(1e-320), -736.8272; math.Abs(got-want) > 1e-3 {
		t.Errorf("Log(1e-320) = %v, want about %v (math.Log gives %v)", got, want, math.Log(1e-320))
	}
	for _, x := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1, 0.5, 1e-300, 2.2250738585072014e-308, 1e300, math.MaxFloat64} {
		got, want := Log(x), math.Log(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log(%v) = %v, math.Log %v", x, got, want)
		}
	}
	t.Logf("20000 subnormals: largest relative error %.2g; math.Log(1e-320) = %v, Log %v", worst, math.Log(1e-320), Log(1e-320))
}
