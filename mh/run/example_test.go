package run_test

import (
	"context"
	"fmt"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/run"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// The Barker test on the bias example with K = 20 states, whose exact
// target is uniform: four chains of 4000 steps in one call.
func Example() {
	target, opts, err := targets.Paper(targets.Setup{Model: "bias", Sampler: "barker", K: 20}, mh.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := run.Run(context.Background(), run.Config{Target: target, Sampler: "barker", Options: opts,
		Chains: 4, Seed: 1, Steps: 4000, Burn: 400})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("steps %d, draws judged %d a chain\n", res.Stats.Steps, res.Verdict.Draws)
	fmt.Printf("mean of θ within 2 of the uniform's 9.5: %v\n", res.Mean[0] > 7.5 && res.Mean[0] < 11.5)
	fmt.Printf("TV to the uniform target below 0.3: %v\n", *res.TV < 0.3)
	// Output:
	// steps 16000, draws judged 3600 a chain
	// mean of θ within 2 of the uniform's 9.5: true
	// TV to the uniform target below 0.3: true
}
