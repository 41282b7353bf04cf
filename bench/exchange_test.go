package bench

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/glass"
)

// BenchmarkExchangeGlass compares a replica update of the library's
// replica exchange (plain Gibbs replicas on a 16×16 ±J glass, β = 2,
// the ladder tuned) with a hand-written parallel-tempering heat bath on
// the same instance and the same ladder: int8 spins, neighbour lists,
// systematic sweeps, an exp a spin, energies kept up to date at every
// flip, even–odd swap rounds after each sweep. Both report ns a replica
// update.
func BenchmarkExchangeGlass(b *testing.B) {
	spec := glass.Spec{L: 16, Beta: 2, FieldSD: 0.1, Seed: 1}
	g, err := glass.New(spec)
	if err != nil {
		b.Fatal(err)
	}
	e, _ := samplers.Lookup("exchange")
	s, err := e.New(g, rand.New(rand.NewPCG(1, 1)), &samplers.Config{Replica: "gibbs"})
	if err != nil {
		b.Fatal(err)
	}
	x := s.(*exchange.Exchange)
	var betas []float64
	for _, r := range x.Ladder() {
		betas = append(betas, r.Beta)
	}
	b.Run("sampler=exchange", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			x.Step()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(x.Replicas()), "ns/replica-update")
	})
	b.Run("sampler=handwritten", func(b *testing.B) {
		in, err := glass.Draw(spec)
		if err != nil {
			b.Fatal(err)
		}
		pt := newHandPT(in, betas, rand.New(rand.NewPCG(1, 1)))
		b.ReportAllocs()
		b.ResetTimer()
		n := len(in.Field)
		for t := range b.N {
			pt.step(t % n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(betas)), "ns/replica-update")
	})
}

// handPT is a hand-written parallel-tempering heat bath for a ±J glass:
// the baseline of BenchmarkExchangeGlass.
type handPT struct {
	nbr   [][4]int32   // neighbours (−1: none)
	jn    [][4]float64 // their couplings
	h     []float64
	beta  float64 // the model's β
	betas []float64
	s     [][]int8  // s[k]: replica k's spins
	e     []float64 // replica k's energy −Σ J s s − Σ h s
	r     *rand.Rand
	round int
}

func newHandPT(in *glass.Instance, betas []float64, r *rand.Rand) *handPT {
	n := len(in.Field)
	pt := &handPT{nbr: make([][4]int32, n), jn: make([][4]float64, n), h: in.Field, beta: in.Spec.Beta, betas: betas, r: r}
	deg := make([]int, n)
	for i := range pt.nbr {
		pt.nbr[i] = [4]int32{-1, -1, -1, -1}
	}
	for _, bd := range in.Bonds {
		pt.nbr[bd.A][deg[bd.A]], pt.jn[bd.A][deg[bd.A]] = int32(bd.B), bd.J
		pt.nbr[bd.B][deg[bd.B]], pt.jn[bd.B][deg[bd.B]] = int32(bd.A), bd.J
		deg[bd.A]++
		deg[bd.B]++
	}
	for range betas {
		s := make([]int8, n)
		for i := range s {
			s[i] = int8(2*r.IntN(2) - 1)
		}
		pt.s = append(pt.s, s)
		pt.e = append(pt.e, pt.energy(s))
	}
	return pt
}

func (pt *handPT) energy(s []int8) float64 {
	e := 0.0
	for i, nb := range pt.nbr {
		for k, j := range nb {
			if j > int32(i) {
				e -= pt.jn[i][k] * float64(s[i]) * float64(s[j])
			}
		}
		e -= pt.h[i] * float64(s[i])
	}
	return e
}

// step updates spin i in every replica; after the last spin, a round of
// swaps.
func (pt *handPT) step(i int) {
	for k, s := range pt.s {
		f := pt.h[i]
		for m, j := range pt.nbr[i] {
			if j >= 0 {
				f += pt.jn[i][m] * float64(s[j])
			}
		}
		// P(s_i = +1) = 1 / (1 + exp(−2 β_k β f)).
		old := s[i]
		if pt.r.Float64()*(1+math.Exp(-2*pt.betas[k]*pt.beta*f)) < 1 {
			s[i] = 1
		} else {
			s[i] = -1
		}
		pt.e[k] -= float64(s[i]-old) * f
	}
	if i == len(pt.h)-1 {
		for k := pt.round & 1; k+1 < len(pt.s); k += 2 {
			// log-potential ℓ = −βE: accept with exp((β_k − β_{k+1})(ℓ_{k+1} − ℓ_k)).
			logA := (pt.betas[k] - pt.betas[k+1]) * pt.beta * (pt.e[k] - pt.e[k+1])
			if logA >= 0 || pt.r.Float64() < math.Exp(logA) {
				pt.s[k], pt.s[k+1] = pt.s[k+1], pt.s[k]
				pt.e[k], pt.e[k+1] = pt.e[k+1], pt.e[k]
			}
		}
		pt.round++
	}
}

// BenchmarkGibbsGlass: a plain Gibbs update on the 16×16 ±J glass of
// BenchmarkExchangeGlass (binary variables: the two-value conditional).
func BenchmarkGibbsGlass(b *testing.B) {
	g, err := glass.New(glass.Spec{L: 16, Beta: 2, FieldSD: 0.1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := samplers.New("gibbs", g, rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		s.Step()
	}
}
