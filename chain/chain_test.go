package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
)

// walk is a lazy random walk on the cycle {0, …, k−1}^d: a step moves one
// uniformly chosen coordinate (single) or every coordinate (!single) by −1,
// 0 or +1 with equal probability. Its stationary law is uniform.
type walk struct {
	k, d   int
	single bool
	x      []float64
	r      *rand.Rand
	failAt int64 // step at which Err turns non-nil (0: never)
	panics bool
	steps  int64
	err    error
}

func newWalk(k, d int, single bool, src *rand.PCG) *walk {
	return &walk{k: k, d: d, single: single, x: make([]float64, d), r: rand.New(src)}
}

func (w *walk) move(j int) {
	w.x[j] = float64((int(w.x[j]) + w.r.IntN(3) - 1 + w.k) % w.k)
}

func (w *walk) Step() int {
	if w.err != nil {
		return chain.Any
	}
	w.steps++
	if w.panics && w.steps == 50 {
		panic("user factor exploded")
	}
	if w.failAt > 0 && w.steps == w.failAt {
		w.err = fmt.Errorf("step %d: factor out of range", w.steps)
		return chain.Any
	}
	if w.single {
		j := w.r.IntN(w.d)
		w.move(j)
		return j
	}
	for j := range w.x {
		w.move(j)
	}
	return chain.Any
}

func (w *walk) State() []float64 { return w.x }
func (w *walk) Err() error       { return w.err }

func (w *walk) Snapshot() ([]byte, error) {
	return json.Marshal(struct {
		X     []float64
		Steps int64
	}{w.x, w.steps})
}

func (w *walk) Restore(data []byte) error {
	var st struct {
		X     []float64
		Steps int64
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	if len(st.X) != w.d {
		return errors.New("walk: wrong dimension")
	}
	copy(w.x, st.X)
	w.steps = st.Steps
	return nil
}

// brute counts every state it sees: the reference for Marginals.
type brute struct{ counts [][]float64 }

func (b *brute) Observe(_ int64, _ int, x []float64) {
	for j, v := range x {
		b.counts[j][int(v)]++
	}
}

func TestMarginalsMatchBruteForce(t *testing.T) {
	for _, single := range []bool{true, false} {
		const k, d = 5, 3
		w := newWalk(k, d, single, chain.Source(1, 0))
		sizes := []int{k, k, k}
		mg := chain.NewMarginals(sizes)
		b := &brute{counts: [][]float64{make([]float64, k), make([]float64, k), make([]float64, k)}}
		c := &chain.Chain{Kernel: w, Observers: []chain.Observer{mg, b}, Burn: 17}
		if err := c.Advance(context.Background(), 20000); err != nil {
			t.Fatal(err)
		}
		p := mg.Probs()
		for j := range d {
			for v := range k {
				want := b.counts[j][v] / float64(mg.N())
				if p[j][v] != want {
					t.Fatalf("single=%v: marginal (%d, %d) = %v, brute force %v", single, j, v, p[j][v], want)
				}
				if math.Abs(p[j][v]-0.2) > 0.03 {
					t.Errorf("single=%v: marginal (%d, %d) = %v, want ≈ 0.2", single, j, v, p[j][v])
				}
			}
		}
		if mg.N() != 20000-17 {
			t.Errorf("observed %d states, want %d", mg.N(), 20000-17)
		}
	}
}

// run builds n chains of the walk with marginals, means, a trace and a CSV
// trace in dir, for resume tests.
func build(t *testing.T, dir string, n int, resume bool) ([]*chain.Chain, []*chain.Marginals, []*chain.CSV) {
	t.Helper()
	var chains []*chain.Chain
	var margs []*chain.Marginals
	var files []*chain.CSV
	for c := range n {
		src := chain.Source(7, c)
		w := newWalk(4, 3, c%2 == 0, src)
		mg := chain.NewMarginals([]int{4, 4, 4})
		tr, err := chain.NewTrace([]int{0, 2}, 3, 64)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("trace%d.csv", c))
		var f *chain.CSV
		if resume {
			f, err = chain.OpenCSV(path, 5, chain.StateRow([]int{0, 1, 2}))
		} else {
			f, err = chain.CreateCSV(path, chain.StateHeader([]int{0, 1, 2}), 5, chain.StateRow([]int{0, 1, 2}))
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		chains = append(chains, &chain.Chain{Kernel: w, Sources: []*rand.PCG{src},
			Observers: []chain.Observer{mg, chain.NewMeans(3), tr, f}, Burn: 100})
		margs = append(margs, mg)
		files = append(files, f)
	}
	return chains, margs, files
}

func TestCheckpointResumeBitIdentical(t *testing.T) {
	const steps = 30000
	whole := t.TempDir()
	ref, refMargs, refFiles := build(t, whole, 3, false)
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	for _, f := range refFiles {
		f.Flush()
	}

	// The same run in three legs: to 10000 steps, checkpoint, then rebuilt
	// from the checkpoint in a new process's way, to 20000 and to the end.
	dir := t.TempDir()
	ck := filepath.Join(dir, "run.ckpt")
	first, _, _ := build(t, dir, 3, false)
	if err := (&chain.Runner{Steps: 10000, Checkpoint: ck, Meta: map[string]string{"command": "walk"}}).Run(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	var margs []*chain.Marginals
	var files []*chain.CSV
	for _, to := range []int64{20000, steps} {
		read, err := chain.ReadCheckpoint(ck)
		if err != nil {
			t.Fatal(err)
		}
		if string(read.Meta) != `{"command":"walk"}` {
			t.Fatalf("meta %s", read.Meta)
		}
		var again []*chain.Chain
		again, margs, files = build(t, dir, 3, true)
		if err := read.Restore(again); err != nil {
			t.Fatal(err)
		}
		if err := (&chain.Runner{Steps: to, Checkpoint: ck, Meta: map[string]string{"command": "walk"}}).Run(context.Background(), again); err != nil {
			t.Fatal(err)
		}
		if to == steps {
			if got, want := chain.StateHash(chain.States(again)...), chain.StateHash(chain.States(ref)...); got != want {
				t.Fatalf("resumed state hash %s, uninterrupted %s", got, want)
			}
		}
	}
	for c := range 3 {
		files[c].Flush()
		a, b := fmt.Sprint(margs[c].Probs()), fmt.Sprint(refMargs[c].Probs())
		if a != b {
			t.Errorf("chain %d: resumed marginals %s, uninterrupted %s", c, a, b)
		}
		x, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("trace%d.csv", c)))
		y, _ := os.ReadFile(filepath.Join(whole, fmt.Sprintf("trace%d.csv", c)))
		if string(x) != string(y) || len(x) < 1000 {
			t.Errorf("chain %d: resumed trace file differs from the uninterrupted one (%d vs %d bytes)", c, len(x), len(y))
		}
	}
}

func TestCSVRestoreRefusesForeignFile(t *testing.T) {
	dir := t.TempDir()
	chains, _, _ := build(t, dir, 1, false)
	ck := filepath.Join(dir, "run.ckpt")
	if err := (&chain.Runner{Steps: 2000, Checkpoint: ck}).Run(context.Background(), chains); err != nil {
		t.Fatal(err)
	}
	// Another file under the trace's name: resume must not truncate it.
	victim := filepath.Join(dir, "trace0.csv")
	content := strings.Repeat("precious data\n", 1000)
	if err := os.WriteFile(victim, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := build(t, dir, 1, true)
	err = read.Restore(again)
	if err == nil || !strings.Contains(err.Error(), "not the trace") {
		t.Fatalf("restore onto a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != content {
		t.Fatal("the foreign file was modified")
	}
}

func TestReadCheckpointRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ckpt")
	if err := chain.WriteCheckpoint(good, &chain.Checkpoint{Meta: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	for _, tc := range []struct{ name, content, want string }{
		{"empty", "", "no header"},
		{"other", "hello world\n{}", "not a pgibbs checkpoint"},
		{"version", strings.Replace(string(data), "checkpoint 2", "checkpoint 1", 1), "version 1"},
		{"corrupt", strings.Replace(string(data), `"a":1`, `"a":2`, 1), "checksum"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.content), 0o644)
		if _, err := chain.ReadCheckpoint(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if _, err := chain.ReadCheckpoint(good); err != nil {
		t.Errorf("good checkpoint: %v", err)
	}
}

func TestFailureCancelsOtherChains(t *testing.T) {
	var chains []*chain.Chain
	for c := range 3 {
		w := newWalk(3, 2, true, chain.Source(1, c))
		if c == 1 {
			w.failAt = 1000
		}
		chains = append(chains, &chain.Chain{Kernel: w})
	}
	start := time.Now()
	err := (&chain.Runner{Steps: 1 << 40}).Run(context.Background(), chains)
	if err == nil || !strings.Contains(err.Error(), "chain 1: step 1000: factor out of range") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the other chains ran on for %v", d)
	}
	if chains[1].Done() != 1000 {
		t.Errorf("failing chain done %d steps, want 1000 (the failing one counts)", chains[1].Done())
	}
}

func TestPanicBecomesError(t *testing.T) {
	w := newWalk(3, 2, true, chain.Source(1, 0))
	w.panics = true
	err := (&chain.Runner{Steps: 1000}).Run(context.Background(), []*chain.Chain{{Kernel: w}, {Kernel: newWalk(3, 2, true, chain.Source(1, 1))}})
	if err == nil || !strings.Contains(err.Error(), "panic: user factor exploded") {
		t.Fatalf("error %v", err)
	}
}

func TestCancellationAndInterruptedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "run.ckpt")
	chains, _, _ := build(t, dir, 2, false)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := (&chain.Runner{Steps: 1 << 40, Checkpoint: ck}).Run(ctx, chains)
	var intr *chain.Interrupted
	if !errors.As(err, &intr) || intr.Checkpoint != ck || !chain.Stopped(err) {
		t.Fatalf("error %v, want an *Interrupted naming the checkpoint", err)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range read.Chains {
		if c.Steps != chains[k].Done() || c.Steps == 0 {
			t.Errorf("chain %d: checkpoint at %d steps, chain at %d", k, c.Steps, chains[k].Done())
		}
	}
}

func TestDurationBudget(t *testing.T) {
	chains := []*chain.Chain{{Kernel: newWalk(3, 2, true, chain.Source(1, 0))}, {Kernel: newWalk(3, 2, true, chain.Source(1, 1))}}
	start := time.Now()
	if err := (&chain.Runner{Duration: 30 * time.Millisecond}).Run(context.Background(), chains); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("budget of 30 ms ran %v", d)
	}
	for k, c := range chains {
		if c.Done() == 0 {
			t.Errorf("chain %d did no step", k)
		}
	}
	if err := (&chain.Runner{Duration: time.Second, Checkpoint: "x"}).Run(context.Background(), chains); err == nil {
		t.Error("a checkpointed run with a time budget was accepted")
	}
}

// countObs counts the steps it observes.
type countObs struct{ n int64 }

func (o *countObs) Observe(int64, int, []float64) { o.n++ }

// TestBurnFor: a burn-in of more steps than the budget affords ends when
// BurnFor has passed, each chain's Burn becoming the steps it made, and
// the rest of the budget is observed; without BurnFor, the whole budget
// is burn-in and nothing is observed.
func TestBurnFor(t *testing.T) {
	for _, burnFor := range []time.Duration{20 * time.Millisecond, 0} {
		var obs []*countObs
		var chains []*chain.Chain
		for k := range 2 {
			o := &countObs{}
			obs = append(obs, o)
			chains = append(chains, &chain.Chain{Kernel: newWalk(3, 2, true, chain.Source(1, k)), Burn: 1 << 50, Observers: []chain.Observer{o}})
		}
		if err := (&chain.Runner{Duration: 100 * time.Millisecond, BurnFor: burnFor}).Run(context.Background(), chains); err != nil {
			t.Fatal(err)
		}
		for k, c := range chains {
			switch {
			case burnFor > 0 && (c.Burn == 1<<50 || c.Burn == 0 || obs[k].n == 0 || c.Burn+obs[k].n != c.Done()):
				t.Errorf("BurnFor %v: chain %d: burn %d, %d observed, %d done: want the burn-in cut, the rest observed", burnFor, k, c.Burn, obs[k].n, c.Done())
			case burnFor == 0 && (c.Burn != 1<<50 || obs[k].n != 0):
				t.Errorf("no BurnFor: chain %d: burn %d, %d observed: want all burn-in", k, c.Burn, obs[k].n)
			}
		}
	}
}

func TestTraceThinning(t *testing.T) {
	tr, err := chain.NewTrace([]int{0}, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0}
	for n := int64(1); n <= 20; n++ {
		x[0] = float64(n)
		tr.Observe(n, 0, x)
	}
	// Every 1, 2, 4, 8 as the trace fills: the kept draws are equally
	// spaced and end at the last multiple of the interval.
	if got := fmt.Sprint(tr.Draws()[0], tr.Every()); got != "[8 16] 8" {
		t.Errorf("draws %s", got)
	}
	for _, bad := range [][2]int64{{0, 4}, {1, 1}} {
		if _, err := chain.NewTrace([]int{0}, bad[0], int(bad[1])); err == nil {
			t.Errorf("NewTrace(every %d, max %d) accepted", bad[0], bad[1])
		}
	}
}

func TestHistogramsAndMeans(t *testing.T) {
	h, err := chain.NewHistograms([]float64{0, 0}, []float64{4, 0}, 4)
	if err != nil {
		t.Fatal(err)
	}
	m := chain.NewMeans(2)
	x := []float64{0, 0}
	for n, v := range []float64{0.5, 1.5, 1.5, 3.5} {
		x[0] = v
		h.Observe(int64(n+1), chain.Any, x)
		m.Observe(int64(n+1), chain.Any, x)
	}
	if got := fmt.Sprint(h.Var(0), h.Var(1), h.Mean(0), m.Mean()); got != "[0.25 0.5 0 0.25] [] 1.75 [1.75 0]" {
		t.Errorf("histogram, mean: %s", got)
	}
	if _, err := chain.NewHistograms([]float64{0}, []float64{1}, 0); err == nil {
		t.Error("0 bins accepted")
	}
}

// slow is a walk whose steps each draw many numbers (a long step), checking
// its interrupt channel as an Interrupter must.
type slow struct {
	*walk
	draws int
	done  <-chan struct{}
}

func (s *slow) SetInterrupt(done <-chan struct{}) { s.done = done }

func (s *slow) Step() int {
	for k := range s.draws {
		if k&1023 == 0 {
			select {
			case <-s.done:
				return chain.Aborted // nothing of the walk touched yet
			default:
			}
		}
		s.r.Uint64()
	}
	return s.walk.Step()
}

// TestInterruptWithinStep: a cancelled run stops inside a long step, and
// the checkpoint written then resumes to exactly the uninterrupted chain.
func TestInterruptWithinStep(t *testing.T) {
	const draws, steps = 1 << 20, 60 // a step takes milliseconds
	build := func() *chain.Chain {
		src := chain.Source(5, 0)
		return &chain.Chain{Kernel: &slow{walk: newWalk(4, 2, true, src), draws: draws}, Sources: []*rand.PCG{src}}
	}
	ref := build()
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{ref}); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	c := build()
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	var mu sync.Mutex
	// Cancel a little after the third step, inside the fourth (a step
	// takes milliseconds, more under the race detector).
	c.Observers = []chain.Observer{observerFunc(func(t int64, _ int, _ []float64) {
		if t == 3 {
			time.AfterFunc(time.Millisecond, func() { mu.Lock(); cancelled = time.Now(); mu.Unlock(); cancel() })
		}
	})}
	err := (&chain.Runner{Steps: steps, Checkpoint: ck}).Run(ctx, []*chain.Chain{c})
	mu.Lock()
	defer mu.Unlock()
	if !chain.Stopped(err) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if d := time.Since(cancelled); d > 500*time.Millisecond {
		t.Errorf("the run stopped %v after its cancellation", d)
	}
	if n := c.Done(); n == 0 || n >= steps {
		t.Fatalf("stopped after %d steps; the test wants an interruption mid-run", n)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	again := build()
	again.Observers = []chain.Observer{observerFunc(func(int64, int, []float64) {})}
	if err := read.Restore([]*chain.Chain{again}); err != nil {
		t.Fatal(err)
	}
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{again}); err != nil {
		t.Fatal(err)
	}
	if a, b := chain.StateHash(again.Kernel.State()), chain.StateHash(ref.Kernel.State()); a != b {
		t.Errorf("resumed after an aborted step: state hash %s, uninterrupted %s", a, b)
	}
}

// TestInputsAndCheckpointPath: a checkpoint records the run's inputs and
// Restore refuses a changed one, naming it; a checkpoint that cannot be
// written stops the run before its first step.
func TestInputsAndCheckpointPath(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "model.txt")
	if err := os.WriteFile(input, []byte("weights 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(dir, "run.ckpt")
	c := &chain.Chain{Kernel: newWalk(3, 2, true, chain.Source(1, 0))}
	if err := (&chain.Runner{Steps: 100, Checkpoint: ck, Inputs: []string{input}}).Run(context.Background(), []*chain.Chain{c}); err != nil {
		t.Fatal(err)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Inputs) != 1 || read.Inputs[0].Path != input || read.Inputs[0].Size != 14 {
		t.Fatalf("inputs %+v", read.Inputs)
	}
	if err := os.WriteFile(input, []byte("weights 1 2 4\n"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	again := &chain.Chain{Kernel: newWalk(3, 2, true, chain.Source(1, 0))}
	if err := read.Restore([]*chain.Chain{again}); err == nil || !strings.Contains(err.Error(), "input "+input+" has changed") {
		t.Errorf("restore with a changed input: %v", err)
	}
	os.Remove(input)
	if err := read.Restore([]*chain.Chain{again}); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("restore with a removed input: %v", err)
	}

	fresh := &chain.Chain{Kernel: newWalk(3, 2, true, chain.Source(1, 0))}
	err = (&chain.Runner{Steps: 100, Checkpoint: filepath.Join(dir, "missing", "x.ckpt")}).Run(context.Background(), []*chain.Chain{fresh})
	if err == nil || !strings.Contains(err.Error(), "cannot write there") || fresh.Done() != 0 {
		t.Errorf("unwritable checkpoint: %v after %d steps", err, fresh.Done())
	}
}

// observerFunc is an Observer with no state to checkpoint.
type observerFunc func(t int64, i int, x []float64)

func (f observerFunc) Observe(t int64, i int, x []float64) { f(t, i, x) }
func (f observerFunc) Snapshot() ([]byte, error)           { return []byte("{}"), nil }
func (f observerFunc) Restore([]byte) error                { return nil }
