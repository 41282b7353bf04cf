package xmath

import (
	"math"
	"math/big"
)

const (
	n = 128
	// shift rounds x·N/ln2 to an integer in the low bits of its mantissa.
	shift  = 0x1.8p52
	invLn2 = n / math.Ln2
	// ln2/N in two parts: ln2Hi has 36 significant bits, so ln2Hi·k is
	// exact for |k| < 2¹⁷ (x ≥ −708 keeps |k| ≤ 130 800).
	ln2Hi = 0x1.62e42fefa0000p-8
	ln2Lo = 0x1.cf79abc9e3b3ap-47 // ln2/N − ln2Hi
	// minX: below it 2^{k/N} leaves the normal range.
	minX = -708.0
)

// table[j] = 2^{j/N} with its exponent bits cleared to those of 1.
var table [n]uint64

func init() {
	// 2^{1/N} by seven square roots at 128 bits, its powers rounded once.
	const prec = 128
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range 7 {
		root.Sqrt(root)
	}
	pw := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range table {
		f, _ := pw.Float64()
		table[j] = math.Float64bits(f)
		pw.Mul(pw, root)
	}
}

// ExpNeg returns e^x for x ≤ 0 (any other x, NaN included, goes to
// math.Exp), the weight of a heat-bath draw (e^{−|Δ|}, e^{u_v − max u}),
// at less than half the latency of math.Exp. ExpNeg(0) = 1 and
// ExpNeg(−Inf) = 0 exactly.
//
// A heat-bath update spends much of its time waiting on one exp: math.Exp
// on amd64 evaluates a Taylor series of degree 11 and squares its result
// four times, some thirty dependent operations. Here x = k·ln2/N + r with
// N = 128, |r| ≤ ln2/256, and e^x = 2^{k/N}·e^r: 2^{j/N} from a table of N
// entries (correctly rounded, from math/big), e^r − 1 by a polynomial of
// degree 5 evaluated by Estrin's scheme (truncation r⁶/720 < 10⁻¹⁸
// relative), the power of two added to the exponent bits. The result is
// within 2 ulp of math.Exp's, which no sampler can tell from exact; below
// −708, where e^x nears the subnormal range, it is math.Exp's.
func ExpNeg(x float64) float64 {
	if !(x >= minX && x <= 0) {
		return math.Exp(x)
	}
	kf := x*invLn2 + shift
	k := math.Float64bits(kf) // low bits: round(x·N/ln2), two's complement
	kf -= shift
	r := (x - kf*ln2Hi) - kf*ln2Lo
	r2 := r * r
	// e^r − 1 ≈ r + r²/2 + r³/6 + r⁴/24 + r⁵/120 (Estrin), added last so
	// that its rounding is that of one addition.
	q := r + r2*((0.5+r*(1.0/6))+r2*((1.0/24)+r*(1.0/120)))
	j := k % n
	s := math.Float64frombits(table[j] + (k-j)<<(52-7))
	return s + s*q
}
