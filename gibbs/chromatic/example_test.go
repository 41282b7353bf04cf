package chromatic_test

import (
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/potts"
)

// Chromatic sweeps update the colour classes of a nearest-neighbour
// lattice in parallel, one worker per RNG stream.
func ExampleChromatic() {
	g, err := potts.Ising(16, 0.3)
	if err != nil {
		fmt.Println(err)
		return
	}
	classes := g.Colouring()
	f, err := samplers.FactoryOf("gibbs")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := chromatic.New(f, g, classes, chain.Streams(1, 2), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 100 {
		c.Sweep()
	}
	fmt.Printf("%d colour classes, %d updates\n", len(classes), c.Stats().Steps)
	// Output:
	// 2 colour classes, 25600 updates
}
