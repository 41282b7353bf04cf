package flip

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Sampler is a sampler of the Gibbs family with phase flips: after every
// sweep's worth of the base sampler's steps, a step proposes the flip of
// every group in turn (Group: swap its pairs' values, flip its binary
// variables, an involution T) and accepts it with the Metropolis
// probability min(1, π(Tx)/π(x)), the ratio over the factors the flip
// may change (those it provably keeps cancel). A deterministic involution as proposal is its own reverse, so
// the move keeps π whatever the groups (Green 1995; Tierney 1998); where
// the model is symmetric under T (a founder's phase in a pedigree, the
// allele frequencies equal) every flip is accepted, and the chain crosses
// in one step a barrier that no block holding part of the group can.
// Marginals stay Rao–Blackwellised over the base's conditionals: a round
// of flips reports none and returns chain.Any whatever it accepted.
type Sampler struct {
	base    gibbs.Sharer
	g       *factorgraph.Graph
	r       *rand.Rand
	groups  []Group
	factors [][]factorgraph.Factor // per group, the factors whose value its flip may change
	x       []float64
	every   int // base steps between two rounds of flips
	until   int
	flipped bool // the last step was a round of flips

	tries, accepted int64
	groupAccepted   []int64 // per group
	cond            chain.Conditioner
	block           chain.BlockConditioner
	broken          bool // tests: flips accepted without the test
}

// New returns base with phase flips of groups on g (Find's), drawing from
// r (the stream base draws from, or another). base's state becomes a slice
// the Sampler owns.
func New(g *factorgraph.Graph, base gibbs.Sharer, r *rand.Rand, groups []Group) (*Sampler, error) {
	if g == nil || base == nil || r == nil {
		return nil, fmt.Errorf("flip: nil model, sampler or *rand.Rand")
	}
	s := &Sampler{base: base, g: g, r: r, groups: groups, x: slices.Clone(base.State()), groupAccepted: make([]int64, len(groups))}
	base.Share(s.x)
	s.every = max(1, int(math.Ceil(gibbs.StepsPerSweep(base))))
	s.until = s.every
	s.cond, _ = base.(chain.Conditioner)
	s.block, _ = base.(chain.BlockConditioner)
	reads := make([][]int, g.NumVars()) // factors reading each variable
	var vs []int
	for f := range g.NumFactors() {
		vs = g.FactorVars(vs[:0], f)
		for _, v := range vs {
			reads[v] = append(reads[v], f)
		}
	}
	for k, gr := range groups {
		var fs []int
		add := func(v int) error {
			if v < 0 || v >= g.NumVars() {
				return fmt.Errorf("flip: group %d: variable %d out of range", k, v)
			}
			if _, obs := g.Observed(v); obs {
				return fmt.Errorf("flip: group %d: variable %d has evidence", k, v)
			}
			fs = append(fs, reads[v]...)
			return nil
		}
		for _, p := range gr.Pairs {
			if err := add(p[0]); err != nil {
				return nil, err
			}
			if err := add(p[1]); err != nil {
				return nil, err
			}
			if g.Domain(p[0]).Size != g.Domain(p[1]).Size {
				return nil, fmt.Errorf("flip: group %d: pair %v of different domains", k, p)
			}
		}
		for _, v := range gr.Flips {
			if err := add(v); err != nil {
				return nil, err
			}
			if g.Domain(v).Size != 2 {
				return nil, fmt.Errorf("flip: group %d: variable %d flipped is not binary", k, v)
			}
		}
		slices.Sort(fs)
		var ch []factorgraph.Factor // built once: Graph.Factor makes a value
		for _, f := range s.changed(k, slices.Compact(fs)) {
			ch = append(ch, g.Factor(f))
		}
		s.factors = append(s.factors, ch)
	}
	return s, nil
}

// maxCheck bounds the joint values of a factor's scope that changed
// enumerates.
const maxCheck = 1 << 12

// changed returns the factors of fs whose value group k's involution may
// change: all but those it provably keeps — every joint value of the
// scope, which holds both variables of each pair it touches, gives the
// same value after the involution (transmission and recombination
// factors). Their terms cancel in the acceptance ratio.
func (s *Sampler) changed(k int, fs []int) []int {
	gr := s.groups[k]
	swap := map[int]int{}
	flip := map[int]bool{}
	for _, p := range gr.Pairs {
		swap[p[0]], swap[p[1]] = p[1], p[0]
	}
	for _, v := range gr.Flips {
		flip[v] = true
	}
	x := make([]float64, s.g.NumVars())
	var out []int
	for _, f := range fs {
		if !s.keeps(f, x, swap, flip) {
			out = append(out, f)
		}
	}
	return out
}

// keeps reports whether factor f provably keeps its value under the
// involution swap, flip.
func (s *Sampler) keeps(f int, x []float64, swap map[int]int, flip map[int]bool) bool {
	fc := s.g.Factor(f)
	vs := fc.Vars()
	in := map[int]bool{}
	size := 1
	for _, v := range vs {
		in[v] = true
		size *= s.g.Domain(v).Size
	}
	if size > maxCheck {
		return false
	}
	for _, v := range vs {
		if w, ok := swap[v]; ok && !in[w] {
			return false // the swap brings a value from outside the scope
		}
	}
	y := make([]float64, len(vs))
	for j := range size {
		r := j
		for i, v := range vs {
			y[i] = float64(r % s.g.Domain(v).Size)
			r /= s.g.Domain(v).Size
		}
		for i, v := range vs {
			x[v] = y[i]
		}
		before := fc.Value(x)
		for i, v := range vs {
			switch w, ok := swap[v]; {
			case ok:
				x[v] = y[slices.Index(vs, w)]
			case flip[v]:
				x[v] = 1 - y[i]
			}
		}
		if fc.Value(x) != before {
			return false
		}
	}
	return true
}

// apply applies group k's involution to the state.
func (s *Sampler) apply(k int) {
	gr := s.groups[k]
	for _, p := range gr.Pairs {
		s.x[p[0]], s.x[p[1]] = s.x[p[1]], s.x[p[0]]
	}
	for _, v := range gr.Flips {
		s.x[v] = 1 - s.x[v]
	}
}

// logPotential sums the factors of group k at the state.
func (s *Sampler) logPotential(k int) float64 {
	l := 0.0
	for _, f := range s.factors[k] {
		l += f.Value(s.x)
	}
	return l
}

// round proposes the flip of every group in turn.
func (s *Sampler) round() {
	for k := range s.groups {
		before := s.logPotential(k)
		s.apply(k)
		after := s.logPotential(k)
		s.tries++
		if d := after - before; s.broken || d >= 0 || s.r.Float64() < math.Exp(d) {
			s.accepted++
			s.groupAccepted[k]++
			continue
		}
		s.apply(k) // rejected: back
	}
}

// Step implements chain.Kernel: a step of the base sampler, or once every
// sweep's worth of them a round of flips (chain.Any).
func (s *Sampler) Step() int {
	if s.until == 0 {
		s.until = s.every
		s.round()
		s.flipped = true
		return chain.Any
	}
	s.until--
	s.flipped = false
	return s.base.Step()
}

// State returns the state, a view the caller must not modify.
func (s *Sampler) State() []float64 { return s.x }

// Err returns the base sampler's error.
func (s *Sampler) Err() error { return s.base.Err() }

// Sweep sweeps the base sampler, then runs a round of flips.
func (s *Sampler) Sweep() {
	s.base.Sweep()
	s.round()
	s.flipped = true
}

// Update updates variable i with the base sampler.
func (s *Sampler) Update(i int) { s.base.Update(i); s.flipped = false }

// Stats returns the base sampler's counters, the flips among the
// proposals.
func (s *Sampler) Stats() gibbs.Stats {
	st := s.base.Stats()
	st.Proposals += s.tries
	st.Accepted += s.accepted
	return st
}

// Updates implements chain.Counter with the base sampler's updates.
func (s *Sampler) Updates() (done int64, per int) { return s.base.Updates() }

// StepsPerSweep implements gibbs.StepsPerSweeper: the base's, with their
// round of flips.
func (s *Sampler) StepsPerSweep() float64 {
	return gibbs.StepsPerSweep(s.base) * float64(s.every+1) / float64(s.every)
}

// Base returns the sampler the flips are added to.
func (s *Sampler) Base() gibbs.Sharer { return s.base }

// Flips returns the flips proposed and accepted so far.
func (s *Sampler) Flips() (tries, accepted int64) { return s.tries, s.accepted }

// Accepted returns the flips of group k accepted so far (each group's
// are proposed once a round: Flips's tries over the groups).
func (s *Sampler) Accepted(k int) int64 { return s.groupAccepted[k] }

// Groups returns the groups the sampler flips.
func (s *Sampler) Groups() []Group { return s.groups }

// RecordConditionals implements chain.Conditioner.
func (s *Sampler) RecordConditionals(on bool) {
	if s.cond != nil {
		s.cond.RecordConditionals(on)
	}
}

// Conditional implements chain.Conditioner: the base's last draw, none
// after a round of flips.
func (s *Sampler) Conditional() (i int, w []float64, total float64) {
	if s.flipped || s.cond == nil {
		return -1, nil, 0
	}
	return s.cond.Conditional()
}

// Conditionals implements chain.BlockConditioner (see Conditional).
func (s *Sampler) Conditionals() (vars []int, p [][]float64) {
	if s.flipped || s.block == nil {
		return nil, nil
	}
	return s.block.Conditionals()
}

type snapshot struct {
	Kind            string
	Base            json.RawMessage
	Until           int
	Flipped         bool
	Tries, Accepted int64
	GroupAccepted   []int64
}

// Snapshot implements chain.Snapshotter; the base sampler must be one.
func (s *Sampler) Snapshot() ([]byte, error) {
	sn, ok := s.base.(chain.Snapshotter)
	if !ok {
		return nil, fmt.Errorf("flip: %T cannot be checkpointed", s.base)
	}
	b, err := sn.Snapshot()
	if err != nil {
		return nil, err
	}
	return json.Marshal(snapshot{Kind: "flip", Base: b, Until: s.until, Flipped: s.flipped, Tries: s.tries, Accepted: s.accepted, GroupAccepted: s.groupAccepted})
}

// Restore implements chain.Snapshotter.
func (s *Sampler) Restore(data []byte) error {
	var sn snapshot
	if err := json.Unmarshal(data, &sn); err != nil {
		return fmt.Errorf("flip: snapshot: %w", err)
	}
	if sn.Kind != "flip" || sn.Until < 0 || sn.Until > s.every || len(sn.GroupAccepted) != len(s.groups) {
		return fmt.Errorf("flip: snapshot of kind %q, %d steps to the next flips: not this sampler's", sn.Kind, sn.Until)
	}
	b, ok := s.base.(chain.Snapshotter)
	if !ok {
		return fmt.Errorf("flip: %T cannot be restored", s.base)
	}
	if err := b.Restore(sn.Base); err != nil {
		return err
	}
	s.until, s.flipped, s.tries, s.accepted = sn.Until, sn.Flipped, sn.Tries, sn.Accepted
	copy(s.groupAccepted, sn.GroupAccepted)
	return nil
}
