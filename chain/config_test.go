package chain_test

import (
	"errors"
	"io"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// TestRefuse: a refusal names its package and field, says why, and wraps
// the reason's own error.
func TestRefuse(t *testing.T) {
	err := chain.Refuse("simulation", "Sweeps", "%d: %w", -1, io.ErrUnexpectedEOF)
	var ce *chain.ConfigError
	if !errors.As(err, &ce) || ce.Pkg != "simulation" || ce.Field != "Sweeps" {
		t.Fatalf("%#v: want a *ConfigError of simulation's Sweeps", err)
	}
	if got, want := err.Error(), "simulation: Sweeps -1: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("the reason's error is not wrapped")
	}
}
