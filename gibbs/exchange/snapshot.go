package exchange

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
)

// snapshotKind names an Exchange's snapshots.
const snapshotKind = "exchange"

// snapshot is an Exchange's state: the ladder (checked on Restore: the
// ladder is tuned at construction, so a chain built again with the same
// seed has the same one), each replica's snapshot, and the swaps' state and
// counters.
type snapshot struct {
	Kind    string
	Version int
	Betas   []float64
	Ladders []ladderSnapshot
	Until   int
	Pos     int
	HotPos  int
	HotR    int
	HotDone int
	Parity  int
	Swapped bool
	Rounds  int64
	LogZ    logZSnapshot
	// Tail (version 3) is the log-Z tail's snapshot (nil: none).
	Tail json.RawMessage `json:",omitempty"`
}

type ladderSnapshot struct {
	Replicas []json.RawMessage
	// Ell, Stale and Pending (version 2) are the replicas' tracked ℓ: its
	// value at the last round, whether it is stale, and the change the
	// replica's updates made since (nil: untracked).
	Ell     []float64
	Stale   []bool
	Pending []float64
	Walker  []int
	Heading []int8
	Trips   []int64
	Tries   []int64
	Accepts []int64
}

type logZSnapshot struct {
	Refs    []float64
	Set     bool
	Size    int64
	Batches []lzBatch
	Cur     lzBatch
}

// Snapshot implements chain.Snapshotter; every replica's sampler must be
// one.
func (e *Exchange) Snapshot() ([]byte, error) {
	s := snapshot{Kind: snapshotKind, Version: 3, Betas: e.betas, Until: e.until, Pos: e.pos, HotPos: e.hotPos, HotR: e.hotR, HotDone: e.hotDone, Parity: e.parity,
		Swapped: e.swapped, Rounds: e.rounds,
		LogZ: logZSnapshot{Refs: e.lz.refs, Set: e.lz.set, Size: e.lz.size, Batches: e.lz.batches, Cur: e.lz.cur}}
	for _, ld := range e.ladders {
		ls := ladderSnapshot{Walker: ld.walker, Heading: ld.heading, Trips: ld.trips, Tries: ld.tries, Accepts: ld.accepts,
			Ell: ld.ell, Stale: slices.Clone(ld.stale), Pending: make([]float64, len(ld.reps))}
		for k, t := range ld.trk {
			if t != nil {
				if ls.Pending[k] = t.LogPotentialChange(); math.IsNaN(ls.Pending[k]) {
					ls.Pending[k], ls.Stale[k] = 0, true // JSON has no NaN; the next round sums ℓ
				}
			}
		}
		for k, r := range ld.reps {
			sn, ok := r.(chain.Snapshotter)
			if !ok {
				return nil, fmt.Errorf("exchange: replica %d: %T cannot be checkpointed", k, r)
			}
			data, err := sn.Snapshot()
			if err != nil {
				return nil, fmt.Errorf("exchange: replica %d: %w", k, err)
			}
			ls.Replicas = append(ls.Replicas, data)
		}
		s.Ladders = append(s.Ladders, ls)
	}
	if e.tail != nil {
		data, err := e.tail.Snapshot()
		if err != nil {
			return nil, fmt.Errorf("exchange: the log-Z tail: %w", err)
		}
		s.Tail = data
	}
	return json.Marshal(s)
}

// Restore implements chain.Snapshotter: data must be the snapshot of an
// Exchange on the same model with the same ladder.
func (e *Exchange) Restore(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("exchange: snapshot: %w", err)
	}
	if s.Kind != snapshotKind || s.Version < 1 || s.Version > 3 {
		return fmt.Errorf("exchange: snapshot of kind %q version %d, want %q version 1 to 3", s.Kind, s.Version, snapshotKind)
	}
	K := len(e.betas)
	if !slices.Equal(s.Betas, e.betas) {
		return fmt.Errorf("exchange: snapshot's ladder %v differs from this chain's %v (another model, seed or options)", s.Betas, e.betas)
	}
	if (len(s.Tail) > 0) != (e.tail != nil) {
		return fmt.Errorf("exchange: snapshot with a log-Z tail %v, this chain %v (another version, model or options)", len(s.Tail) > 0, e.tail != nil)
	}
	if len(s.Ladders) != len(e.ladders) || len(s.LogZ.Refs) != K-1 || !batchOK(s.LogZ.Cur, K) {
		return fmt.Errorf("exchange: snapshot of %d ladders, this chain has %d (Houdayer moves on in one only?)", len(s.Ladders), len(e.ladders))
	}
	for _, b := range s.LogZ.Batches {
		if !batchOK(b, K) {
			return fmt.Errorf("exchange: snapshot's log Z batches do not fit a ladder of %d", K)
		}
	}
	for l, ls := range s.Ladders {
		if len(ls.Replicas) != K || len(ls.Walker) != K || len(ls.Heading) != K || len(ls.Trips) != K || len(ls.Tries) != K || len(ls.Accepts) != K {
			return fmt.Errorf("exchange: snapshot has the wrong number of replicas for a ladder of %d", K)
		}
		if s.Version >= 2 && (len(ls.Ell) != K || len(ls.Stale) != K || len(ls.Pending) != K) {
			return fmt.Errorf("exchange: snapshot's energies do not fit a ladder of %d", K)
		}
		for k, r := range e.ladders[l].reps {
			sn, ok := r.(chain.Snapshotter)
			if !ok {
				return fmt.Errorf("exchange: replica %d: %T cannot be restored", k, r)
			}
			if err := sn.Restore(ls.Replicas[k]); err != nil {
				return fmt.Errorf("exchange: replica %d: %w", k, err)
			}
		}
	}
	if e.tail != nil {
		if err := e.tail.Restore(s.Tail); err != nil {
			return fmt.Errorf("exchange: the log-Z tail: %w", err)
		}
	}
	for l, ls := range s.Ladders {
		ld := e.ladders[l]
		ld.walker, ld.heading, ld.trips, ld.tries, ld.accepts = ls.Walker, ls.Heading, ls.Trips, ls.Tries, ls.Accepts
		for k, t := range ld.trk {
			switch {
			case s.Version >= 2:
				ld.ell[k], ld.stale[k] = ls.Ell[k], ls.Stale[k]
				if t != nil {
					t.SetLogPotentialChange(ls.Pending[k])
				}
			default: // version 1 kept no energies: the next round sums them
				ld.stale[k] = true
				if t != nil {
					t.SetLogPotentialChange(0)
				}
			}
		}
	}
	if s.Pos < 0 || s.Pos >= max(1, len(e.scan)) || s.HotPos < 0 || s.HotPos >= max(1, len(e.scan)) ||
		s.HotR < 0 || s.HotR > len(e.hot) || s.HotDone < 0 || s.HotDone >= max(1, e.swapEvery) {
		return fmt.Errorf("exchange: snapshot's scan positions (%d, %d, replica %d, %d done) do not fit this chain", s.Pos, s.HotPos, s.HotR, s.HotDone)
	}
	e.until, e.pos, e.hotPos, e.hotR, e.hotDone = s.Until, s.Pos, s.HotPos, s.HotR, s.HotDone
	e.parity, e.swapped, e.rounds = s.Parity, s.Swapped, s.Rounds
	e.lz = logZ{refs: s.LogZ.Refs, set: s.LogZ.Set, size: s.LogZ.Size, batches: s.LogZ.Batches, cur: s.LogZ.Cur}
	return nil
}

func batchOK(b lzBatch, K int) bool { return len(b.A) == K-1 && len(b.B) == K-1 }
