package mh_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// fixedMove always proposes θ + delta with the given log proposal ratio:
// it isolates one accept/reject decision of a sampler.
type fixedMove struct{ delta, logq float64 }

func (f *fixedMove) Propose(dst, theta []float64, r *rand.Rand) float64 {
	dst[0] = theta[0] + f.delta
	return f.logq
}

// moveKinds are the distinct decisions of the lazy walk on the bias
// example (the log-likelihood differences do not depend on θ): interior
// moves up and down, and the moves at the two ends, whose proposal ratios
// are ½ and 2.
var moveKinds = []struct {
	name        string
	from, delta float64 // from is relative: ≥ 0 from 0, < 0 from K
	logq        float64
}{
	{"up", 10, 1, 0},
	{"down", 10, -1, 0},
	{"0→1", 0, 1, math.Log(0.5)},
	{"1→0", 1, -1, math.Log(2)},
	{"K-2→K-1", -2, 1, math.Log(2)},
	{"K-1→K-2", -1, -1, math.Log(0.5)},
}

// acceptance estimates the acceptance probability of each kind of move.
func acceptance(t *testing.T, name string, o mh.Options, trials []int) (p, se []float64) {
	tg, err := targets.NewBias(1000)
	if err != nil {
		t.Fatal(err)
	}
	p = make([]float64, len(moveKinds))
	se = make([]float64, len(moveKinds))
	for k, mk := range moveKinds {
		prop := &fixedMove{delta: mk.delta, logq: mk.logq}
		o.Proposal = prop
		from := mk.from
		if from < 0 {
			from += 1000
		}
		o.Init = []float64{from}
		s, err := mh.New(name, tg, rng(31, uint64(k)), &o)
		if err != nil {
			t.Fatal(err)
		}
		n := trials[k]
		theta := []float64{from}
		for range n {
			if err := s.SetState(theta); err != nil {
				t.Fatal(err)
			}
			s.Step()
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		p[k] = float64(st.Accepted) / float64(n)
		se[k] = math.Sqrt(p[k] * (1 - p[k]) / float64(n))
	}
	return p, se
}

// stationaryTV returns the total-variation distance between the uniform
// law and the stationary law of the birth–death chain on {0..K−1} with the
// acceptance probabilities p of the move kinds (lazy-walk proposal).
func stationaryTV(p []float64, k int) float64 {
	logNu := make([]float64, k)
	for i := 0; i+1 < k; i++ {
		var up, down float64
		switch {
		case i == 0:
			up, down = 0.5*p[2], 0.25*p[3]
		case i+1 == k-1:
			up, down = 0.25*p[4], 0.5*p[5]
		default:
			up, down = 0.25*p[0], 0.25*p[1]
		}
		logNu[i+1] = logNu[i] + math.Log(up/down)
	}
	mx := math.Inf(-1)
	for _, v := range logNu {
		mx = max(mx, v)
	}
	z := 0.0
	for _, v := range logNu {
		z += math.Exp(v - mx)
	}
	tv := 0.0
	for _, v := range logNu {
		tv += math.Abs(math.Exp(v-mx)/z - 1/float64(k))
	}
	return tv / 2
}

// TestBiasExample reproduces the bias demonstration of the TunaMH paper
// (§2.1, Fig. 1b): on the bias example, whose posterior is uniform on
// {0..K−1}, the approximate tests accept moves up and down at different
// rates, so the TV distance of their stationary law to the truth grows with
// K, while the exact TunaMH's does not. Each sampler's acceptance
// probability is estimated for every kind of move, and the stationary law of
// the resulting birth–death chain is computed for K = 50, 200, 500.
//
// AustereMH runs with the paper's m = 30, ε = 0.01. The minibatch Barker
// test runs with m = 10: with m = 30 its imbalance is real but small
// (p_up − p_down = −0.0017 by exact summation over the binomial number of
// 5s in the batch, TV 0.02, 0.08, 0.20 at K = 50, 200, 500), and resolving
// it by simulation would take about 10⁷ trials.
func TestBiasExample(t *testing.T) {
	skipShort(t)
	ks := []int{50, 200, 500}
	cases := []struct {
		name   string
		o      mh.Options
		trials []int
		exact  bool
	}{
		{"tunamh", mh.Options{Chi: 0.3}, []int{300_000, 300_000, 200_000, 200_000, 200_000, 200_000}, true},
		{"barker", mh.Options{BatchSize: 10}, []int{200_000, 200_000, 10_000, 10_000, 10_000, 10_000}, false},
		{"austere", mh.Options{BatchSize: 30, Epsilon: 0.01}, []int{10_000, 10_000, 10_000, 10_000, 10_000, 10_000}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, se := acceptance(t, c.name, c.o, c.trials)
			// Interior balance: p_up = p_down for an exact sampler.
			zIn := (p[0] - p[1]) / math.Hypot(se[0], se[1])
			// End balance: ½ p(0→1) = ¼ p(1→0), and ¼ p(K−2→K−1) = ½ p(K−1→K−2).
			z0 := (0.5*p[2] - 0.25*p[3]) / math.Hypot(0.5*se[2], 0.25*se[3])
			z1 := (0.25*p[4] - 0.5*p[5]) / math.Hypot(0.25*se[4], 0.5*se[5])
			tv := make([]float64, len(ks))
			for i, k := range ks {
				tv[i] = stationaryTV(p, k)
			}
			t.Logf("acceptance %.4f; interior z = %.1f, end z = %.1f, %.1f; TV at K = %v: %.3f", p, zIn, z0, z1, ks, tv)
			if c.exact {
				if math.Abs(zIn) > 4 || math.Abs(z0) > 4 || math.Abs(z1) > 4 {
					t.Errorf("exact sampler out of balance: z = %.1f, %.1f, %.1f", zIn, z0, z1)
				}
				return
			}
			if math.Abs(zIn) < 6 {
				t.Errorf("approximate sampler shows no interior imbalance: z = %.1f", zIn)
			}
			if !(tv[0] < tv[1] && tv[1] < tv[2] && tv[2] > 0.3) {
				t.Errorf("TV distance does not grow with K: %.3f", tv)
			}
		})
	}
}
