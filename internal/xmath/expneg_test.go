package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulps returns the distance in units in the last place between a and b.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(b, math.Inf(1)) - b)
}

// TestExpNeg: within 2 ulp of math.Exp on a dense grid and random points of
// [−708, 0] and below it, exact at 0 and −Inf, NaN kept. A table or a
// polynomial coefficient off in its last place fails it.
func TestExpNeg(t *testing.T) {
	worst, at := 0.0, 0.0
	check := func(x float64) {
		got, want := ExpNeg(x), math.Exp(x)
		if u := ulps(got, want); u > worst {
			worst, at = u, x
		}
	}
	for x := 0.0; x > -750; x -= 0.000731 {
		check(x)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(-r.ExpFloat64() * math.Pow(10, float64(r.IntN(8)-5)))
	}
	for _, x := range []float64{math.Copysign(0, -1), -5e-324, -1e-300, -1e-17, -math.Ln2 / 256, -math.Ln2, -708, -708.0000001, -745, -746} {
		check(x)
	}
	if worst > 2 {
		t.Errorf("ExpNeg(%v) is %.2f ulp from math.Exp", at, worst)
	}
	t.Logf("worst %.3f ulp at %v", worst, at)
	if ExpNeg(0) != 1 || ExpNeg(math.Inf(-1)) != 0 || !math.IsNaN(ExpNeg(math.NaN())) || ExpNeg(1) != math.E {
		t.Errorf("ExpNeg(0), ExpNeg(−Inf), ExpNeg(NaN), ExpNeg(1) = %v, %v, %v, %v", ExpNeg(0), ExpNeg(math.Inf(-1)), ExpNeg(math.NaN()), ExpNeg(1))
	}
}

var sink float64

func BenchmarkExpNeg(b *testing.B) {
	b.Run("xmath", func(b *testing.B) {
		x := -0.3
		for range b.N {
			x = -ExpNeg(x) // a dependent chain: latency
		}
		sink = x
	})
	b.Run("math", func(b *testing.B) {
		x := -0.3
		for range b.N {
			x = -math.Exp(x)
		}
		sink = x
	})
}

// expBig returns e^x to double precision from a 256-bit evaluation: the
// Taylor series of e^{x/2¹⁶}, squared sixteen times.
func expBig(x float64) float64 {
	const prec = 256
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.Quo(y, new(big.Float).SetPrec(prec).SetInt64(1<<16))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := int64(1); k < 30; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
	}
	for range 16 {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

// TestExpNegExact: within 1 ulp of e^x computed at 256 bits (math/big), on
// points spread over [−708, 0] and crowded where |r| is largest. A
// polynomial coefficient of 1/110 for 1/120 fails it.
func TestExpNegExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst, at := 0.0, 0.0
	for k := range 4000 {
		var x float64
		switch k % 3 {
		case 0:
			x = -708 * r.Float64()
		case 1:
			x = -r.ExpFloat64()
		default: // midway between two table points: |r| = ln2/256
			x = -(float64(r.IntN(20000)) + 0.5) * math.Ln2 / 128
		}
		if u := ulps(ExpNeg(x), expBig(x)); u > worst {
			worst, at = u, x
		}
	}
	if worst > 1 {
		t.Errorf("ExpNeg(%v) is %.2f ulp from e^x", at, worst)
	}
	t.Logf("worst %.3f ulp at %v", worst, at)
}
