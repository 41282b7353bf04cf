package gibbstest

import (
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// ContinuousName reports whether the sampler called name samples
// continuous variables (and refuses a model without any).
func ContinuousName(name string) bool {
	switch name {
	case "gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection":
		return true
	}
	return false
}

func Build(t testing.TB, b *factorgraph.Builder) *factorgraph.Graph {
	t.Helper()
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
