package samplers

import (
	"os"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// TestMain sets Mixed's choice to the rule by size alone (core.Costs):
// on the small graphs of the exactness tests the cost model would update
// every variable by plain Gibbs, and those tests need both kinds of
// update (TestMixedKinds). TestMixedCost tests the model itself.
func TestMain(m *testing.M) {
	core.Costs = core.MixedCost{}
	os.Exit(m.Run())
}
