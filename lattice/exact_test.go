package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// This file proves that the implicit model is the model it claims to be:
// Poisson-Gibbs and Gibbs on tiny long-range lattices visit every state with
// the frequency exact enumeration gives (batch-means z-scores, the approach
// of package gibbs's exactness tests), and the same check rejects lattices
// with the construction bugs an implicit model invites.

// exactCases are tiny lattices whose 81–512 states can be enumerated: even
// sides (where offsets N/2 and −N/2 coincide), an odd side, an
// antiferromagnet, and Ising spins.
var exactCases = []struct {
	name string
	p    Params
}{
	{"ring4-potts3-power", Params{Dim: 1, Size: 4, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.9}},
	{"3x3-potts2-power", Params{Dim: 2, Size: 3, Coupling: PowerLaw{Sigma: 0.5}, Spin: Potts(2), Beta: 0.6}},
	{"2x2-potts3-gauss-anti", Params{Dim: 2, Size: 2, Coupling: Gaussian{Gamma: 0.5}, Spin: Potts(3), Beta: -0.8}},
	{"2x2x2-ising-power", Params{Dim: 3, Size: 2, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 0.35}},
}

// exactPi returns π over all states (site 0 fastest) from the pair sum
// Σ_{i<j} βJ(r_ij) f(x_i, x_j) of pairEnergy, with the minimal-image distance
// computed from coordinates, not from the lattice's offsets.
func exactPi(p Params) []float64 {
	n := 1
	for range p.Dim {
		n *= p.Size
	}
	q := p.Spin.States
	size := 1
	for range n {
		size *= q
	}
	x := make([]float64, n)
	logp := make([]float64, size)
	mx := math.Inf(-1)
	for s := range logp {
		decodeState(s, q, x)
		e := -p.Beta * float64(n) * pairEnergy(p, x) // β Σ_{i<j} J f
		logp[s] = e
		mx = max(mx, e)
	}
	total := 0.0
	for s := range logp {
		logp[s] = math.Exp(logp[s] - mx)
		total += logp[s]
	}
	for s := range logp {
		logp[s] /= total
	}
	return logp
}

func decodeState(s, q int, x []float64) {
	for i := range x {
		x[i] = float64(s % q)
		s /= q
	}
}

func encodeState(x []float64, q int) int {
	s, stride := 0, 1
	for _, v := range x {
		s += int(v) * stride
		stride *= q
	}
	return s
}

// zScore runs s for steps updates and returns the largest batch-means
// z-score of the frequency of any joint state or single-site value against
// π, with a description of where it occurred.
func zScore(s gibbs.Sampler, pi []float64, n, q, steps int) (float64, string) {
	const batches = 50
	// Cells: joint states, then (site, value) pairs.
	probs := append([]float64(nil), pi...)
	marg := make([]float64, n*q)
	x := make([]float64, n)
	for st, p := range pi {
		decodeState(st, q, x)
		for i, v := range x {
			marg[i*q+int(v)] += p
		}
	}
	probs = append(probs, marg...)
	per := steps / batches
	counts := make([][]float64, batches)
	state := s.State()
	for b := range batches {
		counts[b] = make([]float64, len(probs))
		for range per {
			s.Step()
			counts[b][encodeState(state, q)]++
			for i, v := range state {
				counts[b][len(pi)+i*q+int(v)]++
			}
		}
	}
	if err := s.Err(); err != nil {
		return math.Inf(1), err.Error()
	}
	worst, where := 0.0, ""
	for c, p := range probs {
		if p*float64(per) < 10 {
			continue // too rare for batch means
		}
		mean, sq := 0.0, 0.0
		for b := range batches {
			f := counts[b][c] / float64(per)
			mean += f
			sq += f * f
		}
		mean /= batches
		sd := math.Sqrt(max(0, sq/batches-mean*mean) * batches / (batches - 1))
		se := max(sd/math.Sqrt(batches), math.Sqrt(p*(1-p)/float64(per*batches)))
		if z := math.Abs(mean-p) / se; z > worst {
			cell := fmt.Sprintf("state %d", c)
			if c >= len(pi) {
				cell = fmt.Sprintf("P(x%d = %d)", (c-len(pi))/q, (c-len(pi))%q)
			}
			worst, where = z, fmt.Sprintf("%s: frequency %.4f, exact %.4f (se %.4f)", cell, mean, p, se)
		}
	}
	return worst, where
}

// zLimit is the largest z-score the exact samplers may show over the ~1000
// frequencies checked per run; the broken lattices must exceed it.
const zLimit = 5

const exactSteps = 200000

func TestExactness(t *testing.T) {
	cases := []struct {
		name string
		opt  gibbs.Options
	}{
		{"pgibbs", gibbs.Options{}},
		{"pgibbs", gibbs.Options{LambdaScale: 0.1}},
		{"gibbs", gibbs.Options{}},
		{"mgpmh", gibbs.Options{}},
	}
	for ci, tc := range exactCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := mustNew(t, tc.p)
			pi := exactPi(tc.p)
			for si, sc := range cases {
				opt := sc.opt
				s, err := samplers.New(sc.name, l, rand.New(rand.NewPCG(uint64(ci), uint64(si))), &opt)
				if err != nil {
					t.Fatal(err)
				}
				z, where := zScore(s, pi, l.Sites(), tc.p.Spin.States, exactSteps)
				if z > zLimit {
					t.Errorf("%s (λ scale %v): %s: z = %.2f > %d", sc.name, opt.LambdaScale, where, z, zLimit)
				}
				t.Logf("%s (λ scale %v, L = %.3f, K = %d): largest z %.2f", sc.name, opt.LambdaScale, l.L(), l.NumOffsets(), z)
			}
		})
	}
}

// doubledHalfOffset builds the lattice of p with the offset −N/2 along axis
// 0 listed next to +N/2: on an even side both name the same site, so that
// pair is coupled twice. This is the bug the canonical offsets
// c ∈ (−N/2, N/2] prevent.
func doubledHalfOffset(t *testing.T, p Params) *Lattice {
	offs, err := p.enumerate()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offs {
		if int(o.c[0]) == p.Size/2 {
			dup := o
			dup.c[0] = -dup.c[0]
			offs = append(offs, dup)
		}
	}
	l, err := build(p, offs)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// uniformPicks rebuilds the shared alias table over equal weights, so that
// Pick no longer draws offsets with probability M_k/L (a table built over
// weights in another order than the offsets breaks the same way).
func uniformPicks(t *testing.T, p Params) *Lattice {
	l := mustNew(t, p)
	w := make([]float64, l.NumOffsets())
	for k := range w {
		w[k] = 1
	}
	if err := l.table.Build(w, make([]int32, len(w))); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestExactnessCatchesBrokenLattices(t *testing.T) {
	for _, bc := range []struct {
		name    string
		sampler string
		build   func(t *testing.T, p Params) *Lattice
	}{
		{"doubled-N/2-offset", "gibbs", doubledHalfOffset},
		{"doubled-N/2-offset", "pgibbs", doubledHalfOffset},
		{"picks-not-∝-M", "pgibbs", uniformPicks},
	} {
		t.Run(bc.name+"/"+bc.sampler, func(t *testing.T) {
			t.Parallel()
			caught := 0
			for ci, tc := range exactCases {
				if tc.p.Size%2 != 0 && bc.name == "doubled-N/2-offset" {
					continue
				}
				l := bc.build(t, tc.p)
				s, err := samplers.New(bc.sampler, l, rand.New(rand.NewPCG(uint64(ci), 99)), nil)
				if err != nil {
					t.Fatal(err)
				}
				z, where := zScore(s, exactPi(tc.p), l.Sites(), tc.p.Spin.States, exactSteps)
				if z > zLimit {
					caught++
				}
				t.Logf("%s: largest z %.1f (%s)", tc.name, z, where)
			}
			if caught == 0 {
				t.Error("no lattice rejected the broken model")
			}
		})
	}
}
