package samplers

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// slowFunc returns a factor over vars with range [0, w] whose every
// evaluation costs about two microseconds: a user factor of real work.
func slowFunc(vars []int, w float64) factorgraph.Factor {
	return factorgraph.NewFunc(vars, 0, w, func(x []float64) float64 {
		s := 1.0
		for _, v := range vars {
			s += x[v]
		}
		for range 200 {
			s = math.Sqrt(s*s + 1e-3)
		}
		return w * (1 + math.Sin(s)) / 2
	})
}

// slowPair is two variables of 3 values with n slow factors between them.
func slowPair(t testing.TB, n int) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(3))
	for range n {
		b.AddFactor(slowFunc([]int{0, 1}, 0.01))
	}
	return gibbstest.Build(t, b)
}

// slowCont is one continuous variable on [0, 1] with n slow factors.
func slowCont(t testing.TB, n int) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	for range n {
		b.AddFactor(slowFunc([]int{0}, 1e-3))
	}
	return gibbstest.Build(t, b)
}

// flatSlow is one continuous variable with one slow factor declared on
// [0, 12.2] and worth 0 (up to 1e−300) everywhere: a uniform conditional
// under the envelope e^12.2, about 2·10⁵ rejection tries a draw.
func flatSlow(t testing.TB) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	f := slowFunc([]int{0}, 1e-300)
	b.AddFactor(factorgraph.NewFunc([]int{0}, 0, 12.2, f.Value))
	return gibbstest.Build(t, b)
}

// interruptKind is a chain whose steps each take more than 100 ms.
type interruptKind struct {
	name  string
	build func(t testing.TB) *chain.Chain
}

// single returns the kind running sampler name on m with opt, one step a
// variable update (a sweep if sweep is set).
func single(name string, m func(t testing.TB) factorgraph.Model, opt gibbs.Options, sweep bool) func(t testing.TB) *chain.Chain {
	return func(t testing.TB) *chain.Chain {
		src := chain.Source(21, 0)
		s, err := New(name, m(t), rand.New(src), &opt)
		if err != nil {
			t.Fatal(err)
		}
		var k chain.Kernel = s
		if sweep {
			k = gibbs.Sweeper{Sampler: s}
		}
		return &chain.Chain{Kernel: k, Sources: []*rand.PCG{src}}
	}
}

func interruptKinds() []interruptKind {
	unlimited := math.Inf(1)
	potts := func(t testing.TB) factorgraph.Model { return pairModel(t, 200, "potts") }
	slow := func(t testing.TB) factorgraph.Model { return slowPair(t, 30_000) }
	cont := func(t testing.TB) factorgraph.Model { return slowCont(t, 16_000) }
	cheap := func(t testing.TB) factorgraph.Model { return contModel(t, 1000) }
	flat := func(t testing.TB) factorgraph.Model { return flatSlow(t) }
	lop := func(t testing.TB) factorgraph.Model { return lopsided(t, 200) }
	return []interruptKind{
		{"gibbs", single("gibbs", slow, gibbs.Options{}, false)},
		{"pgibbs", single("pgibbs", potts, gibbs.Options{Lambda: 2e7, MaxDraws: unlimited}, false)},
		{"auto", single("auto", slow, gibbs.Options{}, false)},
		{"mingibbs", single("mingibbs", potts, gibbs.Options{Lambda: 3.5e6, MaxDraws: unlimited}, false)},
		{"mgpmh", single("mgpmh", potts, gibbs.Options{Lambda: 1e7, MaxDraws: unlimited}, false)},
		{"doublemin", single("doublemin", potts, gibbs.Options{Lambda: 10, Lambda2: 7e6, MaxDraws: unlimited}, false)},
		{"gibbs-its", single("gibbs-its", cont, gibbs.Options{}, false)},
		{"gibbs-da", single("gibbs-da", cont, gibbs.Options{}, false)},
		{"pgits", single("pgits", cheap, gibbs.Options{Lambda: 8e6, MaxDraws: unlimited}, false)},
		{"pgda", single("pgda", cheap, gibbs.Options{Lambda: 8e6, MaxDraws: unlimited}, false)},
		{"gibbs-rejection", single("gibbs-rejection", flat, gibbs.Options{}, false)},
		{"pg-rejection", single("pg-rejection", flat, gibbs.Options{Lambda: 100}, false)},
		{"sweeper", single("pgibbs", lop, gibbs.Options{Lambda: 1.2e7, MaxDraws: unlimited}, true)},
		{"chromatic", func(t testing.TB) *chain.Chain {
			srcs := []*rand.PCG{chain.Source(21, 0), chain.Source(21, 1)}
			c, err := chromatic.New(factoryOf(t, "pgibbs"), lop(t), [][]int{{0, 2}, {1}}, []*rand.Rand{rand.New(srcs[0]), rand.New(srcs[1])},
				&gibbs.Options{Lambda: 1.2e7, MaxDraws: unlimited})
			if err != nil {
				t.Fatal(err)
			}
			return &chain.Chain{Kernel: gibbs.Sweeper{Sampler: c}, Sources: srcs}
		}},
	}
}

// TestInterruptThroughChain: for every kind of sampler, a run of steps of
// more than 100 ms cancelled after 20 ms stops within its step, promptly,
// and the checkpoint written then resumes to exactly the state, counters
// and estimates of an uninterrupted run.
func TestInterruptThroughChain(t *testing.T) {
	gibbstest.SkipShort(t)
	for _, kind := range interruptKinds() {
		t.Run(kind.name, func(t *testing.T) { interruptThroughChain(t, kind) })
	}
}

func interruptThroughChain(t *testing.T, kind interruptKind) {
	const steps, cancelAfter = 2, 20 * time.Millisecond
	ref := kind.build(t)
	start := time.Now()
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{ref}); err != nil {
		t.Fatal(err)
	}
	perStep := time.Since(start) / steps
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	c := kind.build(t)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(cancelAfter, func() { cancelled = time.Now(); cancel() })
	err := (&chain.Runner{Steps: steps, Checkpoint: ck}).Run(ctx, []*chain.Chain{c})
	latency := time.Since(cancelled)
	if !chain.Stopped(err) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if n := c.Done(); n >= steps {
		t.Fatalf("stopped after %d steps; want an interruption mid-run", n)
	}
	t.Logf("%v a step; stopped %v after the cancellation, after %d steps", perStep.Round(time.Millisecond), latency.Round(10*time.Microsecond), c.Done())
	if latency > 50*time.Millisecond && !raceEnabled {
		t.Errorf("the run stopped %v after its cancellation (%v a step)", latency, perStep)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	again := kind.build(t)
	if err := read.Restore([]*chain.Chain{again}); err != nil {
		t.Fatal(err)
	}
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{again}); err != nil {
		t.Fatal(err)
	}
	if a, b := chain.StateHash(again.Kernel.State()), chain.StateHash(ref.Kernel.State()); a != b {
		t.Errorf("resumed after an aborted step: state hash %s, uninterrupted %s", a, b)
	}
	sa, err := again.Kernel.(chain.Snapshotter).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := ref.Kernel.(chain.Snapshotter).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sa, sb) {
		t.Errorf("resumed after an aborted step: snapshot\n%s\nuninterrupted\n%s", sa, sb)
	}
}
