package mh

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/chain"
)

// Every sampler of this package is a chain.Snapshotter, so that long runs
// can be checkpointed and resumed bit for bit: Snapshot returns the
// sampler's state (θ, its counters, and the state a sampler carries from
// step to step: MH's Σℓ_i(θ), FlyMC's bright set and sums, AustereMH's
// permutation), Restore sets it from a snapshot of the same sampler on the
// same target. The random number generator is not included: its *rand.PCG
// source marshals itself. Snapshots are versioned JSON; float64 values
// round-trip exactly.

const snapshotVersion = 1

type samplerState struct {
	chain.SnapshotHeader
	X     []float64   `json:"x"`
	LP    float64     `json:"log_prior"`
	Stats Stats       `json:"stats"`
	LL    *float64    `json:"ll,omitempty"`
	Perm  []int32     `json:"perm,omitempty"`
	FlyMC *flymcState `json:"flymc,omitempty"`
}

type flymcState struct {
	Bright   []int32  `json:"bright"`
	Pos      []int32  `json:"pos"`
	Darkened []uint32 `json:"darkened"`
	Sweep    uint32   `json:"sweep"`
	SumB     float64  `json:"sum_b"`
	SumGap   float64  `json:"sum_gap"`
	PhiX     float64  `json:"phi_x"`
}

func (b *base) state() samplerState {
	return samplerState{SnapshotHeader: chain.SnapshotHeader{Version: snapshotVersion, Kind: b.name}, X: b.x, LP: b.lp, Stats: b.st}
}

func (b *base) snapshot(st samplerState) ([]byte, error) {
	if b.err != nil {
		return nil, fmt.Errorf("mh: snapshot of a %s chain that stopped on an error: %w", b.name, b.err)
	}
	return json.Marshal(st)
}

// restoreBase decodes data, checks it against b and sets θ and the counters.
func (b *base) restoreBase(data []byte) (*samplerState, error) {
	var st samplerState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("mh: restore %s: %w", b.name, err)
	}
	if err := st.Check("mh", b.name, snapshotVersion); err != nil {
		return nil, err
	}
	switch {
	case len(st.X) != b.d:
		return nil, fmt.Errorf("mh: restore %s: snapshot has dimension %d, the target %d", b.name, len(st.X), b.d)
	}
	for j, v := range st.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mh: restore %s: coordinate %d is %v", b.name, j, v)
		}
	}
	if lp := b.target.LogPrior(st.X); math.IsInf(lp, -1) || lp != st.LP {
		return nil, fmt.Errorf("mh: restore %s: the snapshot's θ is outside the support or its log prior differs (%v vs %v)", b.name, st.LP, lp)
	}
	if st.Stats.Proposals == 0 {
		// A snapshot from before Stats counted proposals: every step
		// makes one.
		st.Stats.Proposals = st.Stats.Steps
	}
	copy(b.x, st.X)
	b.lp, b.st, b.err = st.LP, st.Stats, nil
	return &st, nil
}

// Snapshot implements chain.Snapshotter.
func (s *MH) Snapshot() ([]byte, error) {
	st := s.state()
	st.LL = &s.ll
	return s.snapshot(st)
}

// Restore implements chain.Snapshotter.
func (s *MH) Restore(data []byte) error {
	st, err := s.restoreBase(data)
	if err != nil {
		return err
	}
	if st.LL == nil {
		return fmt.Errorf("mh: restore mh: snapshot lacks Σℓ_i(θ)")
	}
	s.ll = *st.LL
	return nil
}

// Snapshot implements chain.Snapshotter.
func (s *Austere) Snapshot() ([]byte, error) {
	st := s.state()
	st.Perm = s.perm
	return s.snapshot(st)
}

// Restore implements chain.Snapshotter.
func (s *Austere) Restore(data []byte) error {
	st, err := s.restoreBase(data)
	if err != nil {
		return err
	}
	if len(st.Perm) != s.n {
		return fmt.Errorf("mh: restore austere: snapshot permutation of %d, want %d", len(st.Perm), s.n)
	}
	seen := make([]bool, s.n)
	for _, p := range st.Perm {
		if p < 0 || int(p) >= s.n || seen[p] {
			return fmt.Errorf("mh: restore austere: snapshot permutation is not a permutation")
		}
		seen[p] = true
	}
	copy(s.perm, st.Perm)
	return nil
}

// Snapshot implements chain.Snapshotter.
func (s *FlyMC) Snapshot() ([]byte, error) {
	st := s.state()
	st.FlyMC = &flymcState{Bright: s.bright, Pos: s.pos, Darkened: s.darkened, Sweep: s.sweep,
		SumB: s.sumB, SumGap: s.sumGap, PhiX: s.phiX}
	return s.snapshot(st)
}

// Restore implements chain.Snapshotter.
func (s *FlyMC) Restore(data []byte) error {
	st, err := s.restoreBase(data)
	if err != nil {
		return err
	}
	f := st.FlyMC
	if f == nil || len(f.Pos) != s.n || len(f.Darkened) != len(s.darkened) || len(f.Bright) > s.n {
		return fmt.Errorf("mh: restore flymc: snapshot lacks a bright set for %d data points", s.n)
	}
	for k, i := range f.Bright {
		if i < 0 || int(i) >= s.n || f.Pos[i] != int32(k) {
			return fmt.Errorf("mh: restore flymc: inconsistent bright set in the snapshot")
		}
	}
	s.bright = append(s.bright[:0], f.Bright...)
	copy(s.pos, f.Pos)
	copy(s.darkened, f.Darkened)
	s.sweep, s.sumB, s.sumGap, s.phiX = f.Sweep, f.SumB, f.SumGap, f.PhiX
	return nil
}

// Snapshot implements chain.Snapshotter.
func (s *PoissonMH) Snapshot() ([]byte, error) { return s.snapshot(s.state()) }

// Restore implements chain.Snapshotter.
func (s *PoissonMH) Restore(data []byte) error { _, err := s.restoreBase(data); return err }

// Snapshot implements chain.Snapshotter.
func (s *TunaMH) Snapshot() ([]byte, error) { return s.snapshot(s.state()) }

// Restore implements chain.Snapshotter.
func (s *TunaMH) Restore(data []byte) error { _, err := s.restoreBase(data); return err }

// Snapshot implements chain.Snapshotter.
func (s *TFMH) Snapshot() ([]byte, error) { return s.snapshot(s.state()) }

// Restore implements chain.Snapshotter.
func (s *TFMH) Restore(data []byte) error { _, err := s.restoreBase(data); return err }

// Snapshot implements chain.Snapshotter.
func (s *MHSS) Snapshot() ([]byte, error) { return s.snapshot(s.state()) }

// Restore implements chain.Snapshotter.
func (s *MHSS) Restore(data []byte) error { _, err := s.restoreBase(data); return err }

// Snapshot implements chain.Snapshotter.
func (s *Barker) Snapshot() ([]byte, error) { return s.snapshot(s.state()) }

// Restore implements chain.Snapshotter.
func (s *Barker) Restore(data []byte) error { _, err := s.restoreBase(data); return err }
