package chebyshev_test

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/chebyshev"
)

func ExamplePoints() {
	x, err := chebyshev.Points(nil, 4, 0, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, xj := range x {
		fmt.Printf("%.6f\n", xj)
	}
	// Output:
	// 2.000000
	// 1.707107
	// 1.000000
	// 0.292893
	// 0.000000
}

func ExampleSeries_Fit() {
	// Interpolate exp on [−1,1] at the 16 points of degree 15.
	const m = 15
	x, _ := chebyshev.Points(nil, m, -1, 1)
	v := make([]float64, m+1)
	for j, xj := range x {
		v[j] = math.Exp(xj)
	}
	var s chebyshev.Series
	if err := s.Fit(-1, 1, v); err != nil {
		fmt.Println(err)
		return
	}
	var worst float64
	for i := 0; i <= 1000; i++ {
		t := -1 + float64(i)/500
		worst = math.Max(worst, math.Abs(s.Eval(t)-math.Exp(t)))
	}
	fmt.Printf("degree %d, max error below 1e-14: %v\n", s.Degree(), worst < 1e-14)
	fmt.Printf("c_0 = %.15f = I_0(1)\n", s.Coeffs()[0])
	// Output:
	// degree 15, max error below 1e-14: true
	// c_0 = 1.266065877752008 = I_0(1)
}

func ExampleSeries_Integral() {
	s, err := chebyshev.NewFromFunc(0, math.Pi, 24, math.Sin)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("∫_0^π sin = %.14f\n", s.Integral())
	// Output:
	// ∫_0^π sin = 2.00000000000000
}

func ExampleSeries_Antiderivative() {
	// ∫_0^x cos = sin x.
	s, _ := chebyshev.NewFromFunc(0, 3, 30, math.Cos)
	var P chebyshev.Series
	if err := P.Antiderivative(s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("degree %d, |P(0)| < 1e-15: %v\n", P.Degree(), math.Abs(P.Eval(0)) < 1e-15)
	fmt.Printf("P(1) = %.14f, sin 1 = %.14f\n", P.Eval(1), math.Sin(1))
	// Output:
	// degree 31, |P(0)| < 1e-15: true
	// P(1) = 0.84147098480790, sin 1 = 0.84147098480790
}

func ExampleSeries_Mul() {
	// (1 + T_1)² = 1.5 + 2T_1 + 0.5T_2 on [−1,1], i.e. (1+x)².
	s, _ := chebyshev.New(-1, 1, []float64{1, 1})
	var sq chebyshev.Series
	if err := sq.Mul(s, s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sq.Coeffs(), sq.Eval(0.5))
	// Output:
	// [1.5 2 0.5] 2.25
}

func ExampleSeries_FitAdaptive() {
	// Chebfun-style degree choice: resolve exp(−x²)·cos(5x) on [−2,2] to
	// machine precision.
	f := func(x float64) float64 { return math.Exp(-x*x) * math.Cos(5*x) }
	var s chebyshev.Series
	if err := s.FitAdaptive(-2, 2, f, 0x1p-52, 1<<12); err != nil {
		fmt.Println(err)
		return
	}
	var worst float64
	for i := 0; i <= 1000; i++ {
		x := -2 + float64(i)/250
		worst = math.Max(worst, math.Abs(s.Eval(x)-f(x)))
	}
	fmt.Printf("resolved at degree below 64: %v; max error below 1e-14: %v\n", s.Degree() < 64, worst < 1e-14)
	// Output:
	// resolved at degree below 64: true; max error below 1e-14: true
}
