package factorgraph_test

import (
	"errors"
	"fmt"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// A builder refuses a graph that would not fit in memory before allocating
// it: here a limit of 1 MB and a million variables, 85 bytes each to
// build. The error is a *MemoryError.
func ExampleBuilder_SetMaxBytes() {
	b := factorgraph.NewBuilder()
	b.SetMaxBytes(1 << 20)
	b.AddVariables(1000000, factorgraph.Discrete(2))
	_, err := b.Build()
	fmt.Println(err)
	var me *factorgraph.MemoryError
	if errors.As(err, &me) {
		fmt.Printf("need %.0f bytes, limit %.0f\n", me.Need, me.Limit)
	}
	// Output:
	// factorgraph: AddVariables(1000000, {0..1}) (after 0 variables): the graph needs about 81.3 MB, more than the limit of 1 MB (Builder.SetMaxBytes)
	// need 85262144 bytes, limit 1048576
}
