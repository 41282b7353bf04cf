package lattice

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// pairEnergy returns H(x)/n = −(1/n) Σ_{i<j} J(r_ij) f(x_i, x_j) from the
// kernel and minimal-image distances, independently of the offset list.
func pairEnergy(p Params, x []float64) float64 {
	n := len(x)
	e := 0.0
	for i := range n {
		for j := i + 1; j < n; j++ {
			d2 := minimalD2(p.Dim, p.Size, i, j)
			if p.Cutoff > 0 && float64(d2) > p.Cutoff*p.Cutoff {
				continue
			}
			var f float64
			switch p.Spin.Kind {
			case PottsSpins:
				if x[i] == x[j] {
					f = 1
				}
			case IsingSpins:
				f = (2*x[i] - 1) * (2*x[j] - 1)
			default:
				f = x[i] * x[j]
			}
			e += p.Coupling.Coupling(p.Dim, d2) * f
		}
	}
	return -e / float64(n)
}

func TestEnergyExact(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, p := range structureCases() {
		for _, spin := range []Spin{Potts(3), Ising(), Continuous(-0.5, 2)} {
			p.Spin = spin
			l := mustNew(t, p)
			x := factorgraph.RandomState(l, r)
			got, want := l.Energy(x), pairEnergy(p, x)
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Fatalf("%v: energy per site %v, pair sum %v", l, got, want)
			}
		}
	}
}

// mcZ returns the z-score of the mean of reps Monte Carlo energy estimates
// of x against the exact energy.
func mcZ(l *Lattice, x []float64, exact float64, r *rand.Rand) float64 {
	const reps, samples = 400, 2000
	mean, sq := 0.0, 0.0
	for range reps {
		e := l.EnergyMC(x, r, samples)
		mean += e
		sq += e * e
	}
	mean /= reps
	sd := math.Sqrt(max(0, sq/reps-mean*mean))
	return math.Abs(mean-exact) / (sd / math.Sqrt(reps))
}

// TestEnergyMC: the Monte Carlo energy is unbiased (the mean of 400
// estimates lies within 4 standard errors of the exact energy) for ferro-
// and antiferromagnetic couplings, Potts, Ising and continuous spins; the
// same check rejects estimates drawn with offsets not ∝ |J|.
func TestEnergyMC(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, p := range []Params{
		{Dim: 2, Size: 16, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.5},
		{Dim: 2, Size: 16, Coupling: PowerLaw{Sigma: 0.5}, Spin: Ising(), Beta: -0.5},
		{Dim: 1, Size: 50, Coupling: Gaussian{Gamma: 0.05}, Spin: Continuous(-1, 1), Beta: 1},
	} {
		l := mustNew(t, p)
		x := factorgraph.RandomState(l, r)
		for i := range len(x) / 2 { // half the lattice ordered: a large energy to estimate
			x[i] = 1
		}
		if z := mcZ(l, x, l.Energy(x), r); z > 4 {
			t.Errorf("%v: Monte Carlo energy off by %.1f standard errors", l, z)
		}
		if z := mcZ(uniformPicks(t, p), x, l.Energy(x), r); z < 4 {
			t.Errorf("%v: biased estimator (uniform offsets) passed, z = %.1f", l, z)
		}
	}
	l := mustNew(t, Params{Dim: 2, Size: 4, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
	if e := l.EnergyMC(make([]float64, 16), r, 0); !math.IsNaN(e) {
		t.Errorf("estimate from 0 samples = %v", e)
	}
}

func TestMagnetisation(t *testing.T) {
	potts3 := mustNew(t, Params{Dim: 1, Size: 6, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 1})
	ising := mustNew(t, Params{Dim: 1, Size: 4, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
	cont := mustNew(t, Params{Dim: 1, Size: 4, Coupling: NearestNeighbour{}, Spin: Continuous(-1, 1), Beta: 1})
	for _, tc := range []struct {
		l    *Lattice
		x    []float64
		want float64
	}{
		{potts3, []float64{2, 2, 2, 2, 2, 2}, 1},
		{potts3, []float64{0, 1, 2, 0, 1, 2}, 0},
		{potts3, []float64{0, 0, 0, 1, 1, 2}, (3*3.0/6 - 1) / 2},
		{ising, []float64{1, 1, 1, 0}, 0.5},
		{ising, []float64{0, 0, 0, 0}, 1},
		{cont, []float64{-1, -0.5, 0, 0.5}, 0.25},
	} {
		if got := tc.l.Magnetisation(tc.x); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%v, x = %v: order parameter %v, want %v", tc.l, tc.x, got, tc.want)
		}
	}
}

// everySweep measures the state directly after every n steps.
type everySweep struct {
	m *Measurer
	n int64
}

func (e everySweep) Observe(t int64, _ int, x []float64) {
	if t%e.n == 0 {
		e.m.Measure(x)
	}
}

// TestMeasurerObserve: the incremental counts of Observe give the same
// series as recounting every state, for a chain of single-site updates
// (measured every n updates) and for a chain of sweeps (measured every
// step, systematic or chromatic).
func TestMeasurerObserve(t *testing.T) {
	for _, p := range []Params{
		{Dim: 2, Size: 8, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(4), Beta: 1},
		{Dim: 2, Size: 8, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.4},
		{Dim: 1, Size: 30, Coupling: Gaussian{Gamma: 0.2}, Spin: Continuous(-1, 1), Beta: 1},
	} {
		l := mustNew(t, p)
		name := "pgibbs"
		if p.Spin.Kind == ContinuousSpins {
			name = "pgda"
		}
		for _, kind := range []string{"single-site", "sweeps", "chromatic"} {
			inc, err := NewMeasurer(l, nil, ExactEnergy)
			if err != nil {
				t.Fatal(err)
			}
			direct, _ := NewMeasurer(l, nil, ExactEnergy)
			s, err := samplers.New(name, l, rand.New(rand.NewPCG(1, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(l.Sites())
			var k chain.Kernel = s
			switch kind {
			case "sweeps":
				k, n = gibbs.Sweeper{Sampler: s}, 1
			case "chromatic":
				if p.Coupling != (NearestNeighbour{}) {
					continue
				}
				classes, err := l.Colouring()
				if err != nil {
					t.Fatal(err)
				}
				c, err := chromatic.New(gibbsFactory(t, name), l, classes, chain.Streams(1, 2), nil)
				if err != nil {
					t.Fatal(err)
				}
				k, n = gibbs.Sweeper{Sampler: c}, 1
			}
			c := &chain.Chain{Kernel: k, Observers: []chain.Observer{inc, everySweep{direct, n}}, Burn: 5 * n}
			if err := c.Advance(context.Background(), 50*n); err != nil {
				t.Fatal(err)
			}
			if len(inc.Energies()) != 45 || !slices.Equal(inc.Energies(), direct.Energies()) ||
				!slices.Equal(inc.Magnetisations(), direct.Magnetisations()) {
				t.Errorf("%v, %s: incremental and direct measurements differ:\n%v\n%v", l, kind, inc.Magnetisations(), direct.Magnetisations())
			}
			res, err := inc.Result()
			if err != nil {
				t.Fatal(err)
			}
			if res.Measurements != 45 || res.EnergySamples != 0 || !(res.Energy.Err >= 0) || !(res.Magnetisation.Err >= 0) {
				t.Errorf("%v, %s: result %+v", l, kind, res)
			}
		}
	}
}

func TestMeasurerOptions(t *testing.T) {
	short := mustNew(t, Params{Dim: 2, Size: 10, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
	long := mustNew(t, Params{Dim: 2, Size: 10, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 1})
	r := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		l       *Lattice
		samples int
		want    int
	}{
		{short, 0, 0}, {long, 0, 100}, {long, ExactEnergy, 0}, {short, 37, 37},
	} {
		m, err := NewMeasurer(tc.l, r, tc.samples)
		if err != nil {
			t.Fatal(err)
		}
		if m.EnergySamples() != tc.want {
			t.Errorf("K = %d, samples %d: %d samples a measurement, want %d", tc.l.NumOffsets(), tc.samples, m.EnergySamples(), tc.want)
		}
	}
	if _, err := NewMeasurer(long, nil, 0); err == nil || !strings.Contains(err.Error(), "rand") {
		t.Errorf("Monte Carlo measurer without an RNG: %v", err)
	}
	m, _ := NewMeasurer(short, nil, ExactEnergy)
	for range 3 {
		m.Measure(make([]float64, 100))
	}
	if _, err := m.Result(); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("result of 3 measurements: %v", err)
	}
	m.Measure(make([]float64, 100))
	res, err := m.Result()
	if err != nil || res.Energy.Mean != -2 || res.Energy.Err != 0 || res.Magnetisation.Mean != 1 {
		t.Errorf("constant ordered series: %+v, %v", res, err)
	}
}

// TestInvalidStates: measurements of something that is not a state give NaN
// or an error naming the site, never a panic.
func TestInvalidStates(t *testing.T) {
	l := mustNew(t, Params{Dim: 2, Size: 4, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 1})
	bad := make([]float64, 16)
	bad[5] = 3
	for name, x := range map[string][]float64{"value 3": bad, "short": make([]float64, 15)} {
		if e := l.Energy(x); !math.IsNaN(e) {
			t.Errorf("%s: energy %v", name, e)
		}
		if m := l.Magnetisation(x); !math.IsNaN(m) {
			t.Errorf("%s: magnetisation %v", name, m)
		}
		if err := l.CheckState(x); err == nil {
			t.Errorf("%s: CheckState passed", name)
		}
		m, _ := NewMeasurer(l, nil, ExactEnergy)
		for range 5 {
			m.Measure(x)
		}
		if _, err := m.Result(); err == nil || !strings.HasPrefix(err.Error(), "lattice: ") {
			t.Errorf("%s: result error %v", name, err)
		}
	}
	if e := l.EnergyMC(make([]float64, 15), rand.New(rand.NewPCG(1, 1)), 10); !math.IsNaN(e) {
		t.Errorf("Monte Carlo energy of a short state: %v", e)
	}
	// Through Observe: the counts never index out of range.
	m, _ := NewMeasurer(l, nil, ExactEnergy)
	x := make([]float64, 16)
	for t0 := int64(1); t0 <= 16; t0++ {
		m.Observe(t0, int(t0-1), x)
	}
	x[2] = 7
	m.Observe(17, 2, x)
	if _, err := m.Result(); err == nil || !strings.Contains(err.Error(), "site 2 holds 7") {
		t.Errorf("observe of an invalid value: %v", err)
	}
	if err := l.CheckState(make([]float64, 16)); err != nil {
		t.Error(err)
	}
}

// TestMeasurerSnapshot: a run interrupted between measurements (mid-sweep
// for single-site updates), its chain (Measurer, sampler and both RNGs)
// checkpointed and restored into a fresh one whose Measurer has measured
// other states, continues with the uninterrupted run's series.
func TestMeasurerSnapshot(t *testing.T) {
	for _, tc := range []struct {
		p       Params
		samples int
	}{
		{Params{Dim: 2, Size: 8, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(4), Beta: 1}, 0}, // Monte Carlo energies
		{Params{Dim: 2, Size: 8, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.4}, ExactEnergy},
		{Params{Dim: 1, Size: 30, Coupling: Gaussian{Gamma: 0.2}, Spin: Continuous(-1, 1), Beta: 1}, 50},
	} {
		l := mustNew(t, tc.p)
		name := "pgibbs"
		if tc.p.Spin.Kind == ContinuousSpins {
			name = "pgda"
		}
		for _, sweeps := range []bool{false, true} {
			n := int64(l.Sites())
			if sweeps {
				n = 1
			}
			build := func() (*chain.Chain, *Measurer) {
				msrc, ssrc := rand.NewPCG(3, 4), rand.NewPCG(5, 6)
				m, err := NewMeasurer(l, rand.New(msrc), tc.samples)
				if err != nil {
					t.Fatal(err)
				}
				s, err := samplers.New(name, l, rand.New(ssrc), nil)
				if err != nil {
					t.Fatal(err)
				}
				var k chain.Kernel = s
				if sweeps {
					k = gibbs.Sweeper{Sampler: s}
				}
				return &chain.Chain{Kernel: k, Sources: []*rand.PCG{msrc, ssrc}, Observers: []chain.Observer{m}, Burn: 3 * n}, m
			}
			ctx := context.Background()
			total := 40 * n

			c, want := build()
			if err := c.Advance(ctx, total); err != nil {
				t.Fatal(err)
			}

			first := 17*n + n/3 // mid-sweep for single-site updates
			c1, _ := build()
			if err := c1.Advance(ctx, first); err != nil {
				t.Fatal(err)
			}
			st, err := c1.Save()
			if err != nil {
				t.Fatal(err)
			}

			c2, m2 := build()
			for range 6 { // stale counts and series: Restore must replace them
				m2.Measure(factorgraph.RandomState(l, rand.New(rand.NewPCG(9, 9))))
			}
			if err := c2.Load(st); err != nil {
				t.Fatalf("%v: %v", l, err)
			}
			if err := c2.Advance(ctx, total); err != nil {
				t.Fatal(err)
			}
			if len(m2.Energies()) != 37 || !slices.Equal(want.Energies(), m2.Energies()) || !slices.Equal(want.Magnetisations(), m2.Magnetisations()) {
				t.Errorf("%v (sweeps %v): resumed series differ:\n%v\n%v", l, sweeps, want.Magnetisations(), m2.Magnetisations())
			}
			if !slices.Equal(c.Kernel.State(), c2.Kernel.State()) {
				t.Errorf("%v (sweeps %v): resumed chain ends elsewhere", l, sweeps)
			}
		}
	}
}

func TestMeasurerRestoreErrors(t *testing.T) {
	p := Params{Dim: 2, Size: 6, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 1}
	l := mustNew(t, p)
	m, _ := NewMeasurer(l, nil, ExactEnergy)
	for range 5 {
		m.Measure(make([]float64, 36))
	}
	good, err := m.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := func(p Params, samples int) []byte {
		o, err := NewMeasurer(mustNew(t, p), rand.New(rand.NewPCG(1, 1)), samples)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := o.Snapshot()
		return b
	}
	size, states, kernel := p, p, p
	size.Size = 7
	states.Spin = Potts(4)
	kernel.Coupling = Gaussian{Gamma: 0.5}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte("{"), "restore measurer"},
		{"other version", []byte(strings.Replace(string(good), `"version":2`, `"version":3`, 1)), "version 3"},
		{"other kind", []byte(strings.Replace(string(good), `"lattice-measurer"`, `"trace"`, 1)), `"trace"`},
		{"other size", other(size, ExactEnergy), "49 sites"},
		{"other states", other(states, ExactEnergy), "4 states"},
		{"other kernel", other(kernel, ExactEnergy), "offsets"},
		{"other energy method", other(p, 10), "10 sampled pairs"},
		{"ragged series", []byte(strings.Replace(string(good), `"magnetisation":[1,`, `"magnetisation":[`, 1)), "5 energies but 4"},
	} {
		if err := m.Restore(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Restore error %v; want one saying %q", tc.name, err, tc.want)
		}
	}
	if res, err := m.Result(); err != nil || res.Measurements != 5 {
		t.Errorf("failed restores changed the measurer: %+v, %v", res, err)
	}
	// An invalid state seen before the snapshot is still reported after it.
	m.Measure(make([]float64, 3))
	bad, _ := m.Snapshot()
	fresh, _ := NewMeasurer(l, nil, ExactEnergy)
	if err := fresh.Restore(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Result(); err == nil || !strings.Contains(err.Error(), "state of 3 values") {
		t.Errorf("restored error: %v", err)
	}
}

// TestBinderExact: the Binder cumulant of series with known moments: m = ±c
// in any order gives 2/3 with no error (to rounding, 1e−14); the repeated
// pair (1, 2), with random signs, gives 1 − 8.5/(3·2.5²) (to 1e−14); m and
// |m| give the same value; Binder wraps BinderCumulant; short, non-finite
// and all-zero series are errors.
func TestBinderExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := make([]float64, 1000)
	for i := range pm {
		pm[i] = 0.7 * float64(2*r.IntN(2)-1)
	}
	if e, err := BinderCumulant(pm); err != nil || math.Abs(e.Mean-2.0/3) > 1e-14 || e.Err > 1e-13 {
		t.Errorf("m = ±0.7: U = %v ± %v (%v), want 2/3 ± 0", e.Mean, e.Err, err)
	}
	pair := make([]float64, 128)
	for i := range pair {
		pair[i] = float64(1 + i%2)
		if r.IntN(2) == 0 {
			pair[i] = -pair[i]
		}
	}
	want := 1 - 8.5/(3*2.5*2.5)
	e, err := BinderCumulant(pair)
	abs := make([]float64, len(pair))
	for i, v := range pair {
		abs[i] = math.Abs(v)
	}
	ea, erra := BinderCumulant(abs)
	if err != nil || erra != nil || math.Abs(e.Mean-want) > 1e-14 || e.Mean != ea.Mean || e.Err != ea.Err || !(e.Err >= 0) {
		t.Errorf("(±1, ±2)…: U = %v ± %v (%v), of |m| %v ± %v (%v); want %v", e.Mean, e.Err, err, ea.Mean, ea.Err, erra, want)
	}
	for name, m := range map[string][]float64{
		"15 values": make([]float64, 15), "zeros": make([]float64, 100),
		"NaN": append(slices.Clone(pair), math.NaN()), "Inf": append(slices.Clone(pair), math.Inf(1)),
	} {
		if _, err := BinderCumulant(m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// binderReplicas returns the Binder estimates of reps independent series of
// n values from gen.
func binderReplicas(t *testing.T, reps, n int, gen func(x []float64)) []diag.Estimate {
	t.Helper()
	x := make([]float64, n)
	var es []diag.Estimate
	for range reps {
		gen(x)
		e, err := BinderCumulant(x)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return es
}

// replicaStats returns the mean and standard deviation of U over the
// replicas, the mean jackknife error and τ, and the number of plateaus.
func replicaStats(es []diag.Estimate) (mean, sd, err, tau float64, plateaus int) {
	for _, e := range es {
		mean += e.Mean
		err += e.Err
		tau += e.Tau
		if e.Plateau {
			plateaus++
		}
	}
	k := float64(len(es))
	mean, err, tau = mean/k, err/k, tau/k
	for _, e := range es {
		sd += (e.Mean - mean) * (e.Mean - mean)
	}
	return mean, math.Sqrt(sd / (k - 1)), err, tau, plateaus
}

// TestBinderCalibration: over 300 replicas, the Binder cumulant of Gaussian
// series (uncorrelated, and AR(1) with φ = 0.9) averages to 0 and of uniform
// series on [−1, 1] to 1 − (1/5)/(3·1/9) = 0.4, within 4 standard errors of
// the replica mean (the ratio estimator's bias, 2/n for Gaussian series, is
// smaller still); the mean jackknife error matches the replicas' spread to
// within 15% (uncorrelated) and 25% (AR(1), where the blocks come from the
// binning plateau); every replica finds a plateau; and τ is about 1 for the
// uncorrelated series and above 3 for the AR(1) series (about 4.7: the
// linearised U mixes m², whose τ is (1 + φ²)/(1 − φ²) ≈ 9.5, and m⁴; a
// jackknife over single values would be about 2 times too small).
func TestBinderCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const phi, reps = 0.9, 300
	for _, tc := range []struct {
		name         string
		n            int
		want, tol    float64
		tauLo, tauHi float64
		gen          func(x []float64)
	}{
		{"gaussian", 4000, 0, 0.15, 0.5, 2, func(x []float64) {
			for i := range x {
				x[i] = r.NormFloat64()
			}
		}},
		{"uniform", 4000, 0.4, 0.15, 0.5, 2, func(x []float64) {
			for i := range x {
				x[i] = 2*r.Float64() - 1
			}
		}},
		{"ar1", 16384, 0, 0.25, 3, 20, func(x []float64) {
			x[0] = r.NormFloat64()
			for i := 1; i < len(x); i++ {
				x[i] = phi*x[i-1] + math.Sqrt(1-phi*phi)*r.NormFloat64()
			}
		}},
	} {
		mu, sd, se, tau, plateaus := replicaStats(binderReplicas(t, reps, tc.n, tc.gen))
		t.Logf("%s: U = %.5f (spread %.5f), mean jackknife error %.5f, τ %.2f, %d/%d plateaus", tc.name, mu, sd, se, tau, plateaus, reps)
		if math.Abs(mu-tc.want) > 4*sd/math.Sqrt(reps) {
			t.Errorf("%s: mean U %v ± %v, want %v", tc.name, mu, sd/math.Sqrt(reps), tc.want)
		}
		if math.Abs(se/sd-1) > tc.tol {
			t.Errorf("%s: mean jackknife error %v, replica spread %v", tc.name, se, sd)
		}
		if plateaus < reps || tau < tc.tauLo || tau > tc.tauHi {
			t.Errorf("%s: τ %v, want in [%v, %v]; %d/%d plateaus", tc.name, tau, tc.tauLo, tc.tauHi, plateaus, reps)
		}
	}
}
