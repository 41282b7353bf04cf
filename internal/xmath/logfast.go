package xmath

import "math"

// logTab[j] = log(1 + j/128) and invTab[j] = 1/(1 + j/128): LogAtLeast1's
// table.
var logTab, invTab [128]float64

func init() {
	for j := range logTab {
		c := 1 + float64(j)/128
		logTab[j] = math.Log1p(float64(j) / 128)
		invTab[j] = 1 / c
	}
}

// ln2 in two parts for k·ln2 (fdlibm's): ln2Hi·k is exact for |k| < 2²⁰.
const (
	logLn2Hi = 6.93147180369123816490e-01
	logLn2Lo = 1.90821492927058770002e-10
)

// LogAtLeast1 returns log x for x ≥ 1, the log-sum of a row of weights whose
// largest is 1 (the message of an elimination step, max + log Σ e^{u−max}),
// at about half the cost of math.Log; other arguments go to math.Log.
// x = 2^k·m with m ∈ [1, 2), c = 1 + j/128 the table point below m (its
// top seven bits), and log x = k·ln2 + log c + log1p((m − c)/c), the last
// by its Taylor polynomial of degree 7 (|r| < 1/128: truncation below
// 2·10⁻¹⁸). Its absolute error is within 2.5·10⁻¹⁶ + 2 ulp of log x: a
// log-weight's rounding, not a change of the distribution.
func LogAtLeast1(x float64) float64 {
	if !(x >= 1 && x <= math.MaxFloat64) {
		return math.Log(x)
	}
	b := math.Float64bits(x)
	k := float64(int(b>>52) - 1023)
	j := (b >> 45) & 127
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	c := math.Float64frombits(j<<45 | 1023<<52) // 1 + j/128, exactly
	r := (m - c) * invTab[j]                    // m − c is exact (Sterbenz)
	r2 := r * r
	// log1p(r) − r = −r²/2 + r³/3 − r⁴/4 + r⁵/5 − r⁶/6 + r⁷/7 (Estrin).
	p := r2*(-0.5+r*(1.0/3)) + r2*r2*((-0.25+r*0.2)+r2*(-1.0/6+r*(1.0/7)))
	return k*logLn2Hi + (logTab[j] + (r + (p + k*logLn2Lo)))
}
