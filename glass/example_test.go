package glass_test

import (
	"context"
	"fmt"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/glass"
)

// A 4×4 glass with free boundaries: its couplings, the graph, and log Z of
// exp(−βE) by exact elimination, the graph's log Z less the shift.
func Example() {
	s := glass.Spec{L: 4, Beta: 2, FieldSD: 0.1, Seed: 1}
	in, err := glass.Draw(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := in.Graph()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d variables, %d factors (%d bonds, %d fields)\n", g.NumVars(), g.NumFactors(), len(in.Bonds), len(in.Field))
	fmt.Print("bonds of the first row:")
	for _, b := range in.Bonds[:7] {
		fmt.Printf(" %d–%d:%+g", b.A, b.B, b.J)
	}
	fmt.Println()
	comps, err := elim.Plan(context.Background(), g, elim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	logZ := elim.ClampedLogPotential(g)
	for _, c := range comps {
		res, err := c.Solve(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		logZ += res.LogZ
	}
	fmt.Printf("log Z of the graph %.4f = log Z %.4f + shift β·ΣJ = %g\n", logZ, logZ-in.LogZShift(), in.LogZShift())
	// Output:
	// 16 variables, 40 factors (24 bonds, 16 fields)
	// bonds of the first row: 0–1:+1 0–4:-1 1–2:-1 1–5:-1 2–3:+1 2–6:+1 3–7:+1
	// log Z of the graph 27.8722 = log Z 35.8722 + shift β·ΣJ = -8
}
