package site

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/glass"
	"github.com/pgibbs/pgibbs/potts"
)

// TestBinaryCompiled checks plain Gibbs's update of a binary variable on a
// graph of Potts pairs, with or without fields (core.binaryCompiled: the
// two energies summed in locals), against the general path it replaces
// (core.Core.NoBinary), whose stationary distribution the enumeration
// tests check: the same draws bit for bit, step by step and in sweeps,
// with evidence, with the log-potential tracked and with conditionals
// recorded (which take the general path); on models whose variables are
// all binary (the branch-free sums of core.pottsRow2Binary) and on models
// where binary variables neighbour three-valued ones (whose third value
// counts in neither energy). Its broken variant, the two energies
// swapped, must give another chain.
func TestBinaryCompiled(t *testing.T) {
	spinGlass, err := glass.New(glass.Spec{L: 7, Beta: 2, FieldSD: 0.3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	p, err := potts.Sparse(400, 6, 2, 0.4, r)
	if err != nil {
		t.Fatal(err)
	}
	for k := range p.W {
		p.W[k] = 1.5 * (r.Float64() - 0.4)
	}
	pairs := pairsGraph(t, p, 23)
	for _, tc := range []struct {
		name   string
		g      *factorgraph.Graph
		record bool
	}{
		{"glass", spinGlass, false},
		{"pairs/evidence", pairs, false},
		{"glass/recorded", spinGlass, true},
		{"mixed", mixedGraph(t, false), false},
		{"mixed/fields", mixedGraph(t, true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(general, broken bool) ([]float64, float64) {
				s, err := NewGibbs(tc.g, rand.New(rand.NewPCG(7, 8)), nil)
				if err != nil {
					t.Fatal(err)
				}
				s.core().NoBinary, s.core().BrokenBinary = general, broken
				s.TrackLogPotential(true)
				s.RecordConditionals(tc.record)
				for range 20 * tc.g.NumVars() {
					s.Step()
				}
				for range 5 {
					s.Sweep()
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				return slices.Clone(s.State()), s.LogPotentialChange()
			}
			want, wantD := run(true, false)
			got, gotD := run(false, false)
			if !slices.Equal(got, want) || math.Float64bits(gotD) != math.Float64bits(wantD) {
				t.Errorf("binary path: state or log-potential change (%v against %v) differs from the general path's", gotD, wantD)
			}
			if bad, _ := run(false, true); !tc.record && slices.Equal(bad, want) {
				t.Error("the binary path with its energies swapped gave the same chain")
			}
			// Assign (a cluster move's flips) tracks the log-potential
			// change the same way, bit for bit.
			assign := func(general, broken bool) float64 {
				s, err := NewGibbs(tc.g, rand.New(rand.NewPCG(7, 8)), nil)
				if err != nil {
					t.Fatal(err)
				}
				s.core().NoBinary, s.core().BrokenBinary = general, broken
				s.TrackLogPotential(true)
				r := rand.New(rand.NewPCG(9, 10))
				free := tc.g.Free()
				for range 50 * len(free) {
					i := free[r.IntN(len(free))]
					s.Assign(i, 1-s.State()[i])
				}
				return s.LogPotentialChange()
			}
			wantA, gotA, badA := assign(true, false), assign(false, false), assign(false, true)
			if math.Float64bits(gotA) != math.Float64bits(wantA) {
				t.Errorf("Assign's log-potential change %v, the general path's %v", gotA, wantA)
			}
			if badA == wantA {
				t.Errorf("Assign with the energies swapped tracks the same change, %v", badA)
			}
		})
	}
}

// mixedGraph returns a sparse graph of Potts pairs over binary variables
// and, every fifth, three-valued ones (with a field on every variable if
// fields), some of each observed.
func mixedGraph(t *testing.T, fields bool) *factorgraph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(11, 12))
	const n = 300
	b := factorgraph.NewBuilder()
	size := func(i int) int { return 2 + min(1, i%5/4) }
	for i := range n {
		b.AddVariable(factorgraph.Discrete(size(i)))
	}
	for range 3 * n {
		i, j := r.IntN(n), r.IntN(n)
		if i != j {
			b.AddFactor(factorgraph.NewPotts(i, j, 2*r.Float64()-0.8))
		}
	}
	for i := range n {
		if fields {
			logp := make([]float64, size(i))
			for v := range logp {
				logp[v] = r.NormFloat64()
			}
			b.AddFactor(factorgraph.NewUnary(i, logp))
		}
		if i%37 == 0 {
			b.Observe(i, float64(size(i)-1))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestUpdateScan: a run of updates through core.Core.UpdateScan (a
// replica's share of a round of replica exchange: the checks made once
// for the run) is the same chain, bit for bit, as the same updates made
// one by one with Update, log-potential included, on all-binary and mixed
// models, from every position of the scan and wrapping around it; its
// broken variant (the energies swapped on the run's path only) is not.
func TestUpdateScan(t *testing.T) {
	spinGlass, err := glass.New(glass.Spec{L: 7, Beta: 2, FieldSD: 0.3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		g    *factorgraph.Graph
	}{
		{"glass", spinGlass},
		{"mixed", mixedGraph(t, false)},
		{"mixed/fields", mixedGraph(t, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scan := tc.g.Free()
			run := func(byScan, broken bool) ([]float64, float64) {
				s, err := NewGibbs(tc.g, rand.New(rand.NewPCG(7, 8)), nil)
				if err != nil {
					t.Fatal(err)
				}
				s.TrackLogPotential(true)
				// On the glass every variable is binary: the run's own
				// loop must make every update, UpdateFn none.
				calls := 0
				if byScan && tc.name == "glass" {
					fn := s.core().UpdateFn
					s.core().UpdateFn = func(i int) { calls++; fn(i) }
				}
				defer func() {
					if calls > 0 {
						t.Errorf("UpdateScan left %d updates of binary variables to UpdateFn", calls)
					}
				}()
				r := rand.New(rand.NewPCG(1, 2)) // the runs' lengths
				p := 0
				for range 200 {
					m := r.IntN(2 * len(scan))
					if byScan {
						s.core().BrokenBinary = broken
						p = s.core().UpdateScan(scan, p, m)
						s.core().BrokenBinary = false
						continue
					}
					for range m {
						s.Update(scan[p])
						p = (p + 1) % len(scan)
					}
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				return slices.Clone(s.State()), s.LogPotentialChange()
			}
			want, wantD := run(false, false)
			got, gotD := run(true, false)
			if !slices.Equal(got, want) || math.Float64bits(gotD) != math.Float64bits(wantD) {
				t.Errorf("UpdateScan: state or log-potential change (%v against %v) differs from Update's", gotD, wantD)
			}
			if bad, _ := run(true, true); slices.Equal(bad, want) {
				t.Error("UpdateScan with the energies swapped gave the same chain")
			}
		})
	}
}

// TestExchangeCluster: core.Core.ExchangeCluster (Houdayer's move between
// twins in one walk of the cluster's rows) exchanges two states on the
// connected component of their differing variables that holds the seed —
// the component found here by a search of the graph's neighbours — and
// adds to the tracked log-potential the exact change of the state's ℓ, on
// glasses and random binary pair graphs with fields and evidence, at
// random pairs of states; with the energies swapped (its broken variant)
// the change is wrong. It does not apply to a model with a variable of
// three values.
func TestExchangeCluster(t *testing.T) {
	spinGlass, err := glass.New(glass.Spec{L: 7, Beta: 2, FieldSD: 0.3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := potts.Sparse(200, 4, 2, 0.6, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	pairs := pairsGraph(t, p, 17)
	if s, err := NewGibbs(mixedGraph(t, true), rand.New(rand.NewPCG(1, 1)), nil); err != nil {
		t.Fatal(err)
	} else if s.TrackLogPotential(true); s.core().CanExchangeCluster() {
		t.Error("ExchangeCluster applies to a model with three-valued variables")
	}
	for _, tc := range []struct {
		name string
		g    *factorgraph.Graph
	}{{"glass", spinGlass}, {"pairs/evidence", pairs}} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			r := rand.New(rand.NewPCG(5, 6))
			run := func(broken bool) (wrong int) {
				s, err := NewGibbs(g, rand.New(rand.NewPCG(7, 8)), nil)
				if err != nil {
					t.Fatal(err)
				}
				s.TrackLogPotential(true)
				c := s.core()
				if !c.CanExchangeCluster() {
					t.Fatal("ExchangeCluster does not apply")
				}
				c.BrokenBinary = broken
				stamp := make([]uint32, g.NumVars())
				var queue []int32
				for trial := range 200 {
					x, y := slices.Clone(s.State()), slices.Clone(s.State())
					for _, i := range g.Free() {
						x[i], y[i] = float64(r.IntN(2)), float64(r.IntN(2))
					}
					var diff []int
					for _, i := range g.Free() {
						if x[i] != y[i] {
							diff = append(diff, i)
						}
					}
					if len(diff) == 0 {
						continue
					}
					seed := diff[r.IntN(len(diff))]
					want := component(g, x, y, seed)
					wx, wy := slices.Clone(x), slices.Clone(y)
					for _, i := range want {
						wx[i], wy[i] = y[i], x[i]
					}
					s.Share(x)
					s.SetLogPotentialChange(0)
					queue = c.ExchangeCluster(y, int32(seed), stamp, uint32(trial+1), queue)
					got := make([]int, len(queue))
					for k, i := range queue {
						got[k] = int(i)
					}
					slices.Sort(got)
					if !slices.Equal(got, want) || !slices.Equal(x, wx) || !slices.Equal(y, wy) {
						t.Fatalf("trial %d: cluster %v, want %v (or the states not exchanged on it)", trial, got, want)
					}
					delta := g.LogPotential(x) - g.LogPotential(swapBack(x, y, want))
					if math.Abs(s.LogPotentialChange()-delta) > 1e-9*(1+math.Abs(delta)) {
						wrong++
					}
				}
				return wrong
			}
			if w := run(false); w > 0 {
				t.Errorf("the tracked change of ℓ is wrong in %d trials", w)
			}
			if w := run(true); w == 0 {
				t.Error("the broken variant (energies swapped) tracked every change right")
			}
		})
	}
}

// component returns, sorted, the connected component of the variables
// where x and y differ (adjacent when a factor reads both) that holds seed.
func component(g *factorgraph.Graph, x, y []float64, seed int) []int {
	seen := map[int]bool{seed: true}
	queue := []int{seed}
	var nb []int
	for q := 0; q < len(queue); q++ {
		nb = g.Neighbours(nb[:0], queue[q])
		for _, j := range nb {
			if !seen[j] && x[j] != y[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	slices.Sort(queue)
	return queue
}

// swapBack returns x with the values of y on vars (x before an exchange
// that gave x and y on vars).
func swapBack(x, y []float64, vars []int) []float64 {
	z := slices.Clone(x)
	for _, i := range vars {
		z[i] = y[i]
	}
	return z
}
