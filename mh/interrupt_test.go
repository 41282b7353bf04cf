package mh_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
)

// huge is a cheap one-dimensional target with many data and no storage
// per datum, for the interruption tests:
//
//	ℓ_i(θ) = −½w(θ − y_i)² + v s_i θ on the support [−1, 1],
//
// y_i = (i mod 1024)/1024 − ½, s_i = ±1 alternating (Σ_i s_i = 0 for even
// N). It declares every interface the samplers need, with the bounds
// loosened by the factor loose ≥ 1 (a sampler's batch grows with it).
type huge struct {
	n     int
	w, v  float64
	loose float64
}

func (h huge) y(i int) float64 { return float64(i&1023)/1024 - 0.5 }
func (h huge) s(i int) float64 { return float64(1 - 2*(i&1)) }
func (h huge) ll(i int, x float64) float64 {
	d := x - h.y(i)
	return -0.5*h.w*d*d + h.v*h.s(i)*x
}

func (h huge) Dim() int { return 1 }
func (h huge) N() int   { return h.n }
func (h huge) LogPrior(theta []float64) float64 {
	if math.Abs(theta[0]) > 1 {
		return math.Inf(-1)
	}
	return 0
}
func (h huge) LogLik(i int, theta []float64) float64 { return h.ll(i, theta[0]) }

// LocalBounder: |∂ℓ_i/∂θ| ≤ 1.5w + v on the support.
func (h huge) LocalBound(i int) float64                 { return h.loose * (1.5*h.w + h.v) }
func (h huge) Distance(theta, thetaP []float64) float64 { return math.Abs(theta[0] - thetaP[0]) }

// Ranger.
func (h huge) LogLikRange(i int) (lo, hi float64) { return -1.125*h.w - h.v, h.v }

// ControlVariates: the first-order remainder is −½w(a'² − a²), a = θ − θ̂;
// the second-order one is 0.
func (h huge) GradLogLik(dst []float64, i int, theta []float64) {
	dst[0] = -h.w*(theta[0]-h.y(i)) + h.v*h.s(i)
}
func (h huge) HessLogLik(dst []float64, i int, theta []float64) { dst[0] = -h.w }
func (h huge) CVOrder() int                                     { return 2 }
func (h huge) RemainderBound(order, i int) float64              { return h.loose * h.w }
func (h huge) RemainderScale(order int, ref, theta, thetaP []float64) float64 {
	return mh.L1PowScale(order, ref, theta, thetaP)
}

// hugeFast adds the batched fast paths.
type hugeFast struct{ huge }

func (h hugeFast) LogLikBatch(dst []float64, idx []int32, theta []float64) {
	for j, i := range idx {
		dst[j] = h.ll(int(i), theta[0])
	}
}

func (h hugeFast) SumLogLik(theta []float64) float64 {
	s := 0.0
	for i := range h.n {
		s += h.ll(i, theta[0])
	}
	return s
}

// watched is a sampler as a chain kernel that records when a step was
// aborted and, from the second step on, cancels the run half way through
// a step (the first step's duration tells how long a step takes).
type watched struct {
	mh.Sampler
	cancel    func()
	steps     int
	first     time.Duration
	cancelled atomic.Int64 // UnixNano of the cancellation
	aborted   time.Time
	frac      float64 // the point of the step at which to cancel
}

func (w *watched) Step() int {
	start := time.Now()
	if w.steps == 1 && w.cancel != nil {
		time.AfterFunc(time.Duration(w.frac*float64(w.first)), func() {
			w.cancelled.Store(time.Now().UnixNano())
			w.cancel()
		})
	}
	i := w.Sampler.Step()
	if i == chain.Aborted {
		w.aborted = time.Now()
		return i
	}
	if w.steps == 0 {
		w.first = time.Since(start)
	}
	w.steps++
	return i
}

func (w *watched) Snapshot() ([]byte, error) { return w.Sampler.(chain.Snapshotter).Snapshot() }
func (w *watched) Restore(b []byte) error    { return w.Sampler.(chain.Snapshotter).Restore(b) }

var _ chain.Interrupter = mh.Sampler(nil)

type interruptCase struct {
	name string
	t    mh.Target
	o    mh.Options
}

func interruptCases() []interruptCase {
	flat := huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 1}
	return []interruptCase{
		// A full pass over 10⁷ data, batched and one LogLik at a time.
		{"mh", hugeFast{huge{n: 10_000_000, w: 1e-6, v: 1e-6, loose: 1}}, mh.Options{Step: 0.1, Init: []float64{0.3}}},
		{"mh", huge{n: 3_000_000, w: 1e-6, v: 1e-6, loose: 1}, mh.Options{Step: 0.1, Init: []float64{0.3}}},
		// About 2·10⁵ picks a step.
		{"poissonmh", hugeFast{flat}, mh.Options{Step: 0.1, Lambda: 2e5, Init: []float64{0.3}}},
		// χC²M² ≈ 2·10⁵ picks; a fallback step (CM > N) over 10⁶ data.
		{"tunamh", flat, mh.Options{Step: 0.1, Chi: 5e6, Init: []float64{0.3}}},
		{"tunamh", hugeFast{huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 1e7}}, mh.Options{Step: 0.1, Chi: 1e-9, Fallback: true, Init: []float64{0.3}}},
		// CM ≈ 4·10⁵ picks and almost no rejection event; a fallback step.
		{"tfmh", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 2e6}, mh.Options{Step: 0.1, Init: []float64{0.3}}},
		{"tfmh", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 4e7}, mh.Options{Step: 0.1, Fallback: true, Init: []float64{0.3}}},
		// Cφ of some 10⁵ picks (θ̂ far from θ); for MH-SS-1 also a fallback step.
		{"smh1", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 1.5e5}, mh.Options{Step: 0.1, Init: []float64{0.9}, Ref: []float64{-0.9}}},
		{"smh2", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 3e5}, mh.Options{Step: 0.1, Init: []float64{0.9}, Ref: []float64{-0.9}}},
		{"mhss1", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 8e4}, mh.Options{Step: 0.1, Init: []float64{0.9}, Ref: []float64{-0.9}}},
		{"mhss1", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 6e6}, mh.Options{Step: 0.1, Fallback: true, Init: []float64{0.9}, Ref: []float64{-0.9}}},
		{"mhss2", huge{n: 1_000_000, w: 1e-6, v: 1e-6, loose: 1.5e5}, mh.Options{Step: 0.1, Init: []float64{0.9}, Ref: []float64{-0.9}}},
		// About half the points bright, every dark point proposed.
		{"flymc", hugeFast{huge{n: 500_000, w: 1e-6, v: 1e-6, loose: 1e6}}, mh.Options{Step: 0.1, QDarkToBright: 1, Init: []float64{0.5}, Ref: []float64{-0.7}}},
		// Tokens so spread that the minibatch grows to N.
		{"barker", hugeFast{huge{n: 1_000_000, w: 1e-6, v: 0.1, loose: 1}}, mh.Options{Step: 0.1, Init: []float64{0.3}}},
		{"austere", huge{n: 1_000_000, w: 1e-6, v: 0.1, loose: 1}, mh.Options{Step: 0.1, Init: []float64{0.3}}},
	}
}

// TestInterruptWithinStep: for every sampler, a run through chain.Runner
// whose context is cancelled in the middle of a long step stops within
// milliseconds, stands exactly where an uninterrupted chain stands after
// the steps it finished (snapshots equal byte for byte, so FlyMC's bright
// set and AustereMH's permutation are restored), and resumed from its
// checkpoint ends exactly as the uninterrupted chain (run without an
// interrupt channel, so also through the unpolled fast paths).
func TestInterruptWithinStep(t *testing.T) {
	skipShort(t)
	const steps = 4
	for _, c := range interruptCases() {
		build := func() (mh.Sampler, *rand.PCG) {
			src := rand.NewPCG(11, 12)
			s, err := mh.New(c.name, c.t, rand.New(src), &c.o)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return s, src
		}
		ref, _ := build()
		start := time.Now()
		for range steps {
			if ref.Step() == chain.Aborted || ref.Err() != nil {
				t.Fatalf("%s: reference step: %v", c.name, ref.Err())
			}
		}
		perStep := time.Since(start) / steps
		var got string
		for _, frac := range []float64{0.5, 0.3, 0.7} {
			if got = interruptOnce(t, c, build, steps, frac, ref); got != "" {
				break
			}
		}
		if got == "" {
			t.Errorf("%s: no step was aborted", c.name)
			continue
		}
		t.Logf("%-9s %s, mean batch %.3g, step %v: %s", c.name, batchKind(c), ref.Stats().MeanBatch(), perStep.Round(time.Millisecond), got)
	}
}

func batchKind(c interruptCase) string {
	kind := "minibatch"
	switch {
	case c.name == "mh":
		kind = "full pass"
	case c.name == "barker" || c.name == "austere":
		kind = "growing minibatch"
	case c.o.Fallback:
		kind = "fallback"
	}
	if _, ok := c.t.(hugeFast); ok {
		kind += ", batched"
	}
	return kind
}

// interruptOnce runs one interrupted and resumed chain; it returns the
// latencies measured, or "" when the cancellation did not land inside a
// step (the caller tries another point of the step).
func interruptOnce(t *testing.T, c interruptCase, build func() (mh.Sampler, *rand.PCG), steps int64, frac float64, ref mh.Sampler) string {
	t.Helper()
	s, src := build()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &watched{Sampler: s, cancel: cancel, frac: frac}
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	ch := &chain.Chain{Kernel: w, Sources: []*rand.PCG{src}}
	err := (&chain.Runner{Steps: steps, Checkpoint: ck}).Run(ctx, []*chain.Chain{ch})
	returned := time.Now()
	if err == nil {
		return "" // the timer fired after the last step (a loaded machine): try another point
	}
	if !chain.Stopped(err) {
		t.Fatalf("%s: error %v, want a cancellation", c.name, err)
	}
	if w.aborted.IsZero() {
		return ""
	}
	cancelled := time.Unix(0, w.cancelled.Load())
	abortLatency, runLatency := w.aborted.Sub(cancelled), returned.Sub(cancelled)
	limit := 50 * time.Millisecond
	if raceEnabled {
		limit *= 10
	}
	if abortLatency > limit {
		t.Errorf("%s: the step stopped %v after the cancellation", c.name, abortLatency)
	}
	done := ch.Done()
	// The aborted chain stands where a chain of `done` steps stands.
	again, _ := build()
	for range done {
		again.Step()
	}
	a, err := again.(chain.Snapshotter).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s: after the aborted step the sampler's state differs from the chain's after %d steps:\n%.300s\n%.300s", c.name, done, b, a)
	}
	// Resumed from the checkpoint, it ends as the uninterrupted chain.
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	s2, src2 := build()
	resumed := &chain.Chain{Kernel: &watched{Sampler: s2}, Sources: []*rand.PCG{src2}}
	if err := read.Restore([]*chain.Chain{resumed}); err != nil {
		t.Fatal(err)
	}
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{resumed}); err != nil {
		t.Fatalf("%s: resumed run: %v", c.name, err)
	}
	if !slices.Equal(s2.State(), ref.State()) || s2.Stats() != ref.Stats() {
		t.Errorf("%s: resumed chain ends at %v %+v, the uninterrupted one at %v %+v", c.name, s2.State(), s2.Stats(), ref.State(), ref.Stats())
	}
	return fmt.Sprintf("step %d aborted %v after the cancel, Run returned after %v (checkpoint written)",
		done+1, abortLatency.Round(10*time.Microsecond), runLatency.Round(100*time.Microsecond))
}

// TestInterruptNoAllocs: with an interrupt channel set, a step still
// allocates nothing in steady state.
func TestInterruptNoAllocs(t *testing.T) {
	target := hugeFast{huge{n: 20_000, w: 1e-3, v: 1e-3, loose: 2}}
	done := make(chan struct{})
	o := mh.Options{Step: 0.2, Init: []float64{0.3}, Ref: []float64{0.1}, Chi: 1e-3, Lambda: 50, QDarkToBright: 0.1}
	for _, name := range mh.Names() {
		s, err := mh.New(name, target, rng(9, 9), &o)
		if err != nil {
			t.Fatal(err)
		}
		s.SetInterrupt(done)
		for range 200 {
			s.Step()
		}
		if a := testing.AllocsPerRun(100, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations per step with an interrupt channel", name, a)
		}
		if err := s.Err(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestInterruptClosedChannel: a step that finds its channel closed returns
// chain.Aborted and changes nothing (a closed channel is seen at the first
// look, after at most 4096 data), for every sampler, on a target large
// enough that every step looks.
func TestInterruptClosedChannel(t *testing.T) {
	target := hugeFast{huge{n: 50_000, w: 1e-6, v: 0.1, loose: 1e5}}
	closed := make(chan struct{})
	close(closed)
	for _, name := range mh.Names() {
		o := mh.Options{Step: 0.1, Init: []float64{0.5}, Ref: []float64{-0.7}, Chi: 1e-3, Lambda: 2e4, QDarkToBright: 1, Fallback: true}
		s, err := mh.New(name, target, rng(3, 4), &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 3 {
			s.Step()
		}
		before, err := s.(chain.Snapshotter).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s.SetInterrupt(closed)
		aborted := 0
		for range 20 {
			if s.Step() == chain.Aborted {
				aborted++
				after, err := s.(chain.Snapshotter).Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(before, after) {
					t.Fatalf("%s: an aborted step changed the sampler:\n%.300s\n%.300s", name, before, after)
				}
			} else if before, err = s.(chain.Snapshotter).Snapshot(); err != nil {
				t.Fatal(err)
			}
		}
		if aborted == 0 {
			t.Errorf("%s: no step aborted with a closed channel", name)
		}
		s.SetInterrupt(nil)
		if s.Step() == chain.Aborted {
			t.Errorf("%s: aborted without a channel", name)
		}
	}
}
