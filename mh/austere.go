package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgibbs/pgibbs/chain"
)

// Austere is AustereMH (Korattikara, Chen & Welling 2014), an approximate
// sequential-test MH kept for comparison. With u ~ U(0,1) and
//
//	μ0 = (1/N) [log u − log π0(θ')/π0(θ) − log q(θ|θ')/q(θ'|θ)],
//
// it draws data without replacement m at a time (Options.BatchSize) and
// computes, on the n points seen, the mean l̄ and standard deviation s_l of
// l_i = ℓ_i(θ') − ℓ_i(θ), s = (s_l/√n)·√(1 − (n−1)/(N−1)) and t = (l̄ − μ0)/s;
// once 1 − F_{t,n−1}(|t|) < ε (Options.Epsilon) or n = N it accepts iff
// l̄ > μ0. The batch size is the final n. A minibatch that would grow past
// Options.MaxDraws (only possible when N exceeds it) is an error.
//
// Interruption: the growing minibatch looks at the interrupt channel every
// 4096 draws. The permutation the draws without replacement shuffle in
// place is carried from step to step, so the step logs its swaps and an
// aborted step undoes them, last first, besides restoring the counts.
type Austere struct {
	base
	m     int
	eps   float64
	perm  []int32
	swaps []int32 // swaps[k]: the position swapped with k by this step's k-th draw
}

// NewAustere returns an AustereMH sampler.
func NewAustere(t Target, r *rand.Rand, o *Options) (*Austere, error) {
	b, o, err := newBaseOpts("austere", t, o, r)
	if err != nil {
		return nil, err
	}
	m, err := o.batchSize("austere")
	if err != nil {
		return nil, err
	}
	if err := b.tooBig("the initial minibatch (Options.BatchSize)", float64(min(m, b.n)), "lower Options.BatchSize"); err != nil {
		return nil, err
	}
	eps := o.Epsilon
	if eps == 0 {
		eps = 0.01
	}
	if !(eps > 0 && eps < 1) {
		return nil, fmt.Errorf("mh: austere: ε = %v must lie in (0, 1)", o.Epsilon)
	}
	s := &Austere{base: b, m: m, eps: eps, perm: make([]int32, b.n), swaps: make([]int32, b.n)}
	for i := range s.perm {
		s.perm[i] = int32(i)
	}
	return s, nil
}

// SetState implements Sampler.
func (s *Austere) SetState(theta []float64) error { return s.setState(theta) }

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *Austere) Step() int {
	c0, ok := s.start()
	if !ok {
		return chain.Any
	}
	nf := float64(s.n)
	mu0 := (math.Log(s.rng.Float64()) - c0) / nf
	n := 0
	mean, m2 := 0.0, 0.0
	for {
		end := min(n+s.m, s.n)
		if s.overGrowth(end) {
			return chain.Any
		}
		if s.interrupted(end - n) {
			s.unshuffle(n)
			return s.abort()
		}
		for ; n < end; n++ {
			// Partial Fisher–Yates: a uniform draw without replacement.
			j := n + s.rng.IntN(s.n-n)
			s.perm[n], s.perm[j] = s.perm[j], s.perm[n]
			s.swaps[n] = int32(j)
			l, _ := s.diff(int(s.perm[n]))
			dl := l - mean
			mean += dl / float64(n+1)
			m2 += dl * (l - mean)
		}
		if s.err != nil {
			return chain.Any
		}
		decide := n == s.n
		if !decide {
			k := float64(n)
			sd := math.Sqrt(m2/(k-1)) / math.Sqrt(k) * math.Sqrt(1-(k-1)/(nf-1))
			t := math.Abs(mean-mu0) / sd
			if sd == 0 || math.IsInf(t, 1) {
				decide = true
			} else if !math.IsNaN(t) {
				p := 1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: k - 1}.CDF(t)
				decide = p < s.eps
			}
		}
		if decide {
			s.st.Batch += float64(n)
			if n == s.n {
				s.st.FullSteps++
			}
			if mean > mu0 {
				s.move()
			}
			return chain.Any
		}
	}
}

// unshuffle undoes the first n swaps of the current step, last first.
func (s *Austere) unshuffle(n int) {
	for k := n - 1; k >= 0; k-- {
		j := s.swaps[k]
		s.perm[k], s.perm[j] = s.perm[j], s.perm[k]
	}
}
