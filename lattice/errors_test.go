package lattice

import (
	"errors"
	"strings"
	"testing"
)

// TestParamsError: New and Colouring refuse parameters that cannot work
// with a *ParamsError whose Err says why without the package's prefix.
func TestParamsError(t *testing.T) {
	for _, p := range []Params{
		{Dim: 4, Size: 8, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.4},
		{Dim: 2, Size: 8, Coupling: Gaussian{Gamma: -1}, Spin: Ising(), Beta: 0.4},
		{Dim: 2, Size: 8, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0},
	} {
		_, err := New(p)
		var pe *ParamsError
		if !errors.As(err, &pe) || strings.HasPrefix(pe.Err.Error(), "lattice:") || err.Error() != "lattice: "+pe.Err.Error() {
			t.Errorf("%+v: %v, want a *ParamsError", p, err)
		}
	}
	l, err := New(Params{Dim: 2, Size: 8, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Colouring()
	if pe := (*ParamsError)(nil); !errors.As(err, &pe) || !strings.Contains(pe.Err.Error(), "nothing to run in parallel") {
		t.Errorf("full-torus power law: Colouring: %v, want a *ParamsError", err)
	}
}
