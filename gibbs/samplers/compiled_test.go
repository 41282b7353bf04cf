package samplers

import (
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// TestExactnessCompiledMixed runs the enumeration check on graphs that mix
// compiled and generic factors.
func TestExactnessCompiledMixed(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.MixedGraphs(t), exactSamplers(), 77, 2)
}
