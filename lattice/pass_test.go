package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestPass: a Measurer's one-pass measurement gives the values of the
// reference functions (Energy, Magnetisation, structure) to within
// floating-point rounding, on random and ordered states of
// nearest-neighbour, short-range and long-range lattices of Ising, Potts
// (q = 2 and more) and continuous spins in 1, 2 and 3 dimensions, through
// both Measure and Observe, on one goroutine and on three (the same
// values for discrete spins); with Monte Carlo energies the energy series is
// EnergyMC's, drawn from the same stream.
func TestPass(t *testing.T) {
	spins := []Spin{Ising(), Potts(2), Potts(3), Potts(5), Continuous(-1, 2)}
	kernels := []struct {
		k      Coupling
		cutoff float64
	}{
		{NearestNeighbour{}, 0},
		{Gaussian{Gamma: 0.7}, 2.3},  // short range
		{PowerLaw{Sigma: 0.5}, 0},    // every pair of sites
		{PowerLaw{Sigma: 1}, 1.5},    // diagonal neighbours too
		{NearestNeighbour{}, 2},      // a cutoff beyond reach
		{Gaussian{Gamma: 3}, 0},      // short, by underflow only
		{PowerLaw{Sigma: 2}, 1.0001}, // the nearest neighbours of a power law: not the nn kernel's pass
	}
	r := rand.New(rand.NewPCG(5, 6))
	for dim := 1; dim <= 3; dim++ {
		for _, size := range []int{3, 4, 7} {
			for _, kc := range kernels {
				for _, sp := range spins {
					p := Params{Dim: dim, Size: size, Coupling: kc.k, Spin: sp, Beta: 0.3, Cutoff: kc.cutoff}
					if dim == 3 && size == 7 {
						p.Beta = -0.2
					}
					l, err := New(p)
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%d-D side %d %v cutoff %v %v", dim, size, kc.k, kc.cutoff, sp)
					for trial := range 3 {
						x := factorgraph.RandomState(l, r)
						if trial == 2 { // an ordered state
							for i := range x {
								x[i] = x[0]
							}
						}
						checkPass(t, name, l, x)
					}
				}
			}
		}
	}
}

// checkPass compares one measurement of x by a Measurer with the
// reference values.
func checkPass(t *testing.T, name string, l *Lattice, x []float64) {
	t.Helper()
	e, mag := l.Energy(x), l.Magnetisation(x)
	m2, sk := l.structure(x)
	var first Series
	for k, observe := range []bool{false, true, true} {
		m, err := NewMeasurer(l, nil, ExactEnergy)
		if err != nil {
			t.Fatal(err)
		}
		if k == 2 { // three goroutines
			if err := m.SetWorkers(3); err != nil {
				t.Fatal(err)
			}
		}
		if observe {
			m.Observe(1, -1, x)
		} else {
			m.Measure(x)
		}
		s := m.Series()
		if m.err != nil || len(s.E) != 1 {
			t.Fatalf("%s: %v, %d measurements", name, m.err, len(s.E))
		}
		// Sums of up to n·K terms of size up to Σ|J|: rounding of a few
		// ulps of the largest partial sums.
		scale := l.CouplingSum() * max(1, l.p.Spin.Hi*l.p.Spin.Hi, l.p.Spin.Lo*l.p.Spin.Lo)
		if !near(s.E[0], e, 1e-12*scale) || !near(s.M[0], mag, 1e-12) || !near(s.M2[0], m2, 1e-12) ||
			!near(s.SK[0], sk, 1e-10*float64(l.n)) {
			t.Errorf("%s, x = %v: pass E %v M %v M2 %v SK %v; reference %v %v %v %v",
				name, x, s.E[0], s.M[0], s.M2[0], s.SK[0], e, mag, m2, sk)
		}
		if k == 0 {
			first = s
		} else if l.kind != ContinuousSpins && (s.E[0] != first.E[0] || s.M[0] != first.M[0] || s.M2[0] != first.M2[0] || s.SK[0] != first.SK[0]) {
			t.Errorf("%s: measurement %d differs from the first: %v, %v", name, k, s, first)
		}
	}
	if l.NumOffsets() > 1 { // Monte Carlo energies: EnergyMC's, same stream
		m, err := NewMeasurer(l, rand.New(rand.NewPCG(1, 1)), 50)
		if err != nil {
			t.Fatal(err)
		}
		m.Measure(x)
		if want := l.EnergyMC(x, rand.New(rand.NewPCG(1, 1)), 50); m.Energies()[0] != want || !near(m.Magnetisations()[0], mag, 1e-12) {
			t.Errorf("%s: Monte Carlo measurement E %v M %v, want %v %v", name, m.Energies()[0], m.Magnetisations()[0], want, mag)
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestPassInvalid: an invalid value of q > 2 Potts spins in a sweep's
// state is reported, naming the site, without a panic.
func TestPassInvalid(t *testing.T) {
	l := mustNew(t, Params{Dim: 2, Size: 4, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 1})
	for _, v := range []float64{3, -1, math.NaN()} {
		m, _ := NewMeasurer(l, nil, ExactEnergy)
		x := make([]float64, 16)
		x[9] = v
		m.Observe(1, -1, x)
		if _, err := m.Result(); err == nil || m.err == nil || len(m.Energies()) != 0 {
			t.Errorf("value %v: %v", v, err)
		} else if want := fmt.Sprintf("site 9 holds %v", v); !strings.Contains(m.err.Error(), want) {
			t.Errorf("value %v: error %q, want %q", v, m.err, want)
		}
	}
}

// TestMeasurerEvery: SetEvery(k) keeps the measurements of sweeps k, 2k,
// … (single-site chains: of updates k·n, 2k·n, …) of the every-sweep
// series, and snapshots refuse a restore into another k.
func TestMeasurerEvery(t *testing.T) {
	l := mustNew(t, Params{Dim: 2, Size: 5, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 0.4})
	r := rand.New(rand.NewPCG(3, 4))
	all, _ := NewMeasurer(l, nil, ExactEnergy)
	third, _ := NewMeasurer(l, nil, ExactEnergy)
	site, _ := NewMeasurer(l, nil, ExactEnergy)
	if err := third.SetEvery(3); err != nil {
		t.Fatal(err)
	}
	if err := site.SetEvery(3); err != nil {
		t.Fatal(err)
	}
	if third.SetEvery(0) == nil || third.Every() != 3 {
		t.Error("SetEvery(0) accepted")
	}
	n := int64(l.n)
	for sweep := int64(1); sweep <= 20; sweep++ {
		x := factorgraph.RandomState(l, r)
		all.Observe(sweep, -1, x)
		third.Observe(sweep, -1, x)
		for i := range n {
			site.Observe((sweep-1)*n+i+1, int(i), x)
		}
	}
	a, b, c := all.Series(), third.Series(), site.Series()
	if len(b.E) != 6 || len(c.E) != 6 {
		t.Fatalf("%d and %d measurements of 20 sweeps every 3, want 6", len(b.E), len(c.E))
	}
	for k := range b.E {
		if b.E[k] != a.E[3*k+2] || b.SK[k] != a.SK[3*k+2] || c.M[k] != a.M[3*k+2] || c.M2[k] != a.M2[3*k+2] {
			t.Errorf("measurement %d differs from sweep %d's", k, 3*k+3)
		}
	}
	snap, err := third.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Restore(snap); err == nil || !strings.Contains(err.Error(), "one sweep in 3") {
		t.Errorf("restore of every 3 into every 1: %v", err)
	}
	if err := site.Restore(snap); err != nil || len(site.Energies()) != 6 {
		t.Errorf("restore: %v", err)
	}
	snap, _ = all.Snapshot()
	if strings.Contains(string(snap), "every") {
		t.Errorf("a snapshot of every sweep records k: %s", snap[:100])
	}
}
