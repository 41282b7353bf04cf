package gibbstest

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// NoKernel hides a graph's compiled form: the samplers take their generic
// paths through the model interface.
type NoKernel struct{ factorgraph.GlobalModel }

// ClosedChannel returns a closed channel: an interrupt already requested.
func ClosedChannel() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// SnapshotOf returns s's snapshot, failing t if s is not a
// chain.Snapshotter or the snapshot fails.
func SnapshotOf(t testing.TB, s gibbs.Sampler) []byte {
	t.Helper()
	b, err := s.(chain.Snapshotter).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// AbortOnce runs a step of a fresh sampler with a closed interrupt channel:
// the step must return chain.Aborted and leave the sampler's snapshot (its
// state, counters and cached estimate) and error as they were. Then, its
// generator put back and the channel removed, as chain.Chain does, the
// step must be the step of a sampler never interrupted.
func AbortOnce(t *testing.T, label string, mk func(r *rand.Rand) (gibbs.Sampler, error), step func(gibbs.Sampler) int) {
	t.Helper()
	AbortOnceWith(t, label, func(seed uint64) (gibbs.Sampler, []*rand.PCG, error) {
		src := rand.NewPCG(seed, 4)
		s, err := mk(rand.New(src))
		return s, []*rand.PCG{src}, err
	}, step)
}

// AbortOnceWith is abortOnce for a sampler drawing from several sources.
func AbortOnceWith(t *testing.T, label string, mk func(seed uint64) (gibbs.Sampler, []*rand.PCG, error), step func(gibbs.Sampler) int) {
	t.Helper()
	s, srcs, err := mk(5)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	before := SnapshotOf(t, s)
	saved := make([]rand.PCG, len(srcs))
	for k, src := range srcs {
		saved[k] = *src
	}
	s.(chain.Interrupter).SetInterrupt(ClosedChannel())
	if got := step(s); got != chain.Aborted {
		t.Errorf("%s: step returned %d with the channel closed, want chain.Aborted", label, got)
	}
	if after := SnapshotOf(t, s); !bytes.Equal(before, after) || s.Err() != nil {
		t.Errorf("%s: an aborted step changed the sampler (error %v):\n%s\n%s", label, s.Err(), before, after)
	}
	for k, src := range srcs {
		*src = saved[k]
	}
	s.(chain.Interrupter).SetInterrupt(nil)
	got := step(s)
	ref, _, err := mk(5)
	if err != nil {
		t.Fatal(err)
	}
	if want := step(ref); got != want || !bytes.Equal(SnapshotOf(t, s), SnapshotOf(t, ref)) || !slices.Equal(s.State(), ref.State()) {
		t.Errorf("%s: the step after an aborted one differs from an uninterrupted step", label)
	}
}

// Step runs one step of s.
func Step(s gibbs.Sampler) int { return s.Step() }

// Sweep runs one sweep of s.
func Sweep(s gibbs.Sampler) int { return gibbs.Sweeper{Sampler: s}.Step() }
