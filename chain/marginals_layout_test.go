package chain

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomConditioner is a BlockConditioner whose reports the test sets
// before each Observe: a single coordinate's weights (possibly of another
// coordinate, of the wrong length or of total 0, which Marginals must
// ignore) or a block's marginals.
type randomConditioner struct {
	x     []float64
	i     int
	w     []float64
	total float64
	vars  []int
	p     [][]float64
	on    bool
}

func (c *randomConditioner) Step() int                  { return c.i }
func (c *randomConditioner) State() []float64           { return c.x }
func (c *randomConditioner) Err() error                 { return nil }
func (c *randomConditioner) RecordConditionals(on bool) { c.on = on }
func (c *randomConditioner) Conditional() (int, []float64, float64) {
	return c.i, c.w, c.total
}
func (c *randomConditioner) Conditionals() ([]int, [][]float64) { return c.vars, c.p }

// plainConditioner hides the block reports of a randomConditioner: a
// Conditioner that is not a BlockConditioner.
type plainConditioner struct{ *randomConditioner }

func (c plainConditioner) Conditionals() {}

// marginalsPair drives the reference implementation (the layout before
// the blocks) and Marginals through the same steps.
type marginalsPair struct {
	t     *testing.T
	sizes []int
	rb    bool
	src   Conditioner
	ref   *refMarginals
	mg    *Marginals
}

func newMarginalsPair(t *testing.T, sizes []int, src Conditioner) *marginalsPair {
	p := &marginalsPair{t: t, sizes: sizes, src: src, rb: src != nil}
	p.ref, p.mg = p.fresh()
	return p
}

// fresh returns new observers of the pair's kind.
func (p *marginalsPair) fresh() (*refMarginals, *Marginals) {
	ref, mg := newRefMarginals(p.sizes), NewMarginals(p.sizes)
	if p.rb {
		ref.RaoBlackwellise(p.src)
		mg.RaoBlackwellise(p.src)
	}
	return ref, mg
}

// same fails unless both observers hold the same state, bit for bit: N,
// Counts, Probs and the snapshot's bytes.
func (p *marginalsPair) same(when string) {
	t := p.t
	t.Helper()
	if p.ref.N() != p.mg.N() {
		t.Fatalf("%s: N = %d, reference %d", when, p.mg.N(), p.ref.N())
	}
	sameFloats(t, when+": Counts", p.mg.Counts(), p.ref.Counts())
	sameFloats(t, when+": Probs", p.mg.Probs(), p.ref.Probs())
	a, errA := p.ref.Snapshot()
	b, errB := p.mg.Snapshot()
	if errA != nil || errB != nil {
		t.Fatalf("%s: snapshot errors %v, reference %v", when, errB, errA)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%s: snapshot\n%s\nreference\n%s", when, b, a)
	}
}

// sameFloats fails unless got and want have the same shape (an empty
// slice is not nil) and the same bits.
func sameFloats(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d coordinates, reference %d", what, len(got), len(want))
	}
	for j := range want {
		if (got[j] == nil) != (want[j] == nil) || len(got[j]) != len(want[j]) {
			t.Fatalf("%s: coordinate %d: %#v, reference %#v", what, j, got[j], want[j])
		}
		for v := range want[j] {
			if math.Float64bits(got[j][v]) != math.Float64bits(want[j][v]) {
				t.Fatalf("%s: coordinate %d value %d: %v, reference %v", what, j, v, got[j][v], want[j][v])
			}
		}
	}
}

// checkpoint moves each observer's state into a new one through the
// other's snapshot: the new layout restores the old one's checkpoints, and
// the old one the new one's.
func (p *marginalsPair) checkpoint() {
	t := p.t
	t.Helper()
	refSnap, err := p.ref.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mgSnap, err := p.mg.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	ref, mg := p.fresh()
	ref2, _ := p.fresh()
	// The reference restoring its own snapshot: it fails only on
	// Rao–Blackwellised marginals of no coordinates (whose snapshot omits
	// the empty conditionals).
	errOwn := ref2.Restore(refSnap)
	if err := mg.Restore(refSnap); fmt.Sprint(err) != fmt.Sprint(errOwn) {
		t.Fatalf("restoring the reference's snapshot: %v, the reference %v", err, errOwn)
	}
	if err := ref.Restore(mgSnap); fmt.Sprint(err) != fmt.Sprint(errOwn) {
		t.Fatalf("the reference restoring the snapshot: %v, its own %v", err, errOwn)
	}
	if errOwn != nil {
		return
	}
	p.ref, p.mg = ref, mg
	p.same("after a checkpoint")
}

// randomWeights returns d weights, some 0, summing to their total (0 at
// times: a report Marginals ignores).
func randomWeights(rng *rand.Rand, d int) ([]float64, float64) {
	w, total := make([]float64, max(d, 0)), 0.0
	for v := range w {
		switch rng.IntN(4) {
		case 0:
		case 1:
			w[v] = float64(1 + rng.IntN(3))
		default:
			w[v] = rng.Float64() * 3
		}
		total += w[v]
	}
	return w, total
}

// setValue gives coordinate j a random value: one of its d, or a real
// number for a continuous one.
func setValue(rng *rand.Rand, x []float64, sizes []int, j int) {
	if sizes[j] > 0 {
		x[j] = float64(rng.IntN(sizes[j]))
	} else {
		x[j] = rng.NormFloat64() * 5
	}
}

// run observes steps random steps: single coordinates with or without a
// (fitting or unfitting) conditional, steps returning Any with or without
// a block's marginals, comparing the observers now and then and moving
// them through checkpoints.
func (p *marginalsPair) run(rng *rand.Rand, steps int, c *randomConditioner) {
	n, x := len(p.sizes), c.x
	for tt := range steps {
		c.i, c.w, c.total, c.vars, c.p = -1, nil, 0, nil, nil
		i := Any
		if n > 0 && rng.IntN(10) < 7 {
			i = rng.IntN(n)
			setValue(rng, x, p.sizes, i)
			switch r := rng.IntN(10); {
			case r < 6: // i's conditional
				c.i = i
				c.w, c.total = randomWeights(rng, p.sizes[i])
			case r < 7: // another coordinate's
				c.i = rng.IntN(n)
				c.w, c.total = randomWeights(rng, p.sizes[c.i])
			case r < 8: // the wrong number of values
				c.i = i
				c.w, c.total = randomWeights(rng, p.sizes[i]+1)
			}
		} else if n > 0 && rng.IntN(2) == 0 {
			// A block drawn jointly (a BlockConditioner reports it).
			for _, j := range rng.Perm(n)[:1+rng.IntN(min(n, 4))] {
				setValue(rng, x, p.sizes, j)
				d := p.sizes[j]
				if rng.IntN(8) == 0 {
					d++ // unfitting: ignored
				}
				w, total := randomWeights(rng, d)
				if total > 0 {
					for v := range w {
						w[v] /= total
					}
				}
				c.vars, c.p = append(c.vars, j), append(c.p, w)
			}
		} else {
			for range rng.IntN(n + 1) {
				setValue(rng, x, p.sizes, rng.IntN(n))
			}
		}
		p.ref.Observe(int64(tt+1), i, x)
		p.mg.Observe(int64(tt+1), i, x)
		if rng.IntN(17) == 0 {
			p.same(fmt.Sprintf("step %d", tt))
		}
		if rng.IntN(61) == 0 {
			p.checkpoint()
		}
	}
	p.same("the end")
}

// TestMarginalsLayout: the blocked layout gives the same counts,
// probabilities and snapshots, bit for bit, as the arrays it replaced, on
// random runs (visit counts and Rao–Blackwellised, with a Conditioner and
// a BlockConditioner; every coordinate of one size, mixed sizes,
// continuous coordinates), and restores their checkpoints.
func TestMarginalsLayout(t *testing.T) {
	shapes := map[string][]int{
		"uniform10":  {10, 10, 10, 10, 10, 10, 10, 10},
		"uniform2":   {2, 2, 2, 2, 2},
		"uniform1":   {1, 1, 1},
		"one":        {3},
		"mixed":      {3, 10, 2, 7, 1, 4, 10},
		"continuous": {0, 3, 0, 0, 10, 2, 0},
		"negative":   {-1, 2, 3},
		"allzero":    {0, 0, 0},
		"none":       {},
	}
	for name, sizes := range shapes {
		for _, kind := range []string{"counts", "rb", "rb-block"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				for seed := range uint64(20) {
					rng := rand.New(rand.NewPCG(seed, uint64(len(sizes))))
					x := make([]float64, len(sizes))
					for j := range x {
						setValue(rng, x, sizes, j)
					}
					c := &randomConditioner{x: x}
					var src Conditioner
					switch kind {
					case "rb":
						src = plainConditioner{c}
					case "rb-block":
						src = c
					}
					p := newMarginalsPair(t, sizes, src)
					p.same("new")
					p.checkpoint() // of state 0
					p.run(rng, 400, c)
				}
			})
		}
	}
}

// TestMarginalsLateRaoBlackwellise: RaoBlackwellise after some steps
// (which its contract rules out) keeps the counts as the arrays did.
func TestMarginalsLateRaoBlackwellise(t *testing.T) {
	for _, sizes := range [][]int{{4, 4, 4, 4}, {0, 3, 5, 0, 2}} {
		rng := rand.New(rand.NewPCG(7, 7))
		c := &randomConditioner{x: make([]float64, len(sizes))}
		p := newMarginalsPair(t, sizes, nil)
		p.run(rng, 100, c)
		p.ref.RaoBlackwellise(c)
		p.mg.RaoBlackwellise(c)
		p.src, p.rb = c, true
		p.same("Rao–Blackwellised")
		p.run(rng, 300, c)
	}
}

// TestMarginalsRestoreErrors: snapshots the arrays refused are refused
// with the same error; and states they never held, which the blocks have
// no room for, are refused.
func TestMarginalsRestoreErrors(t *testing.T) {
	c := &randomConditioner{x: make([]float64, 3)}
	snap := func(sizes []int, rb bool, edit func(*refMarginals)) []byte {
		ref := newRefMarginals(sizes)
		if rb {
			ref.RaoBlackwellise(c)
		}
		ref.Observe(1, Any, c.x)
		if edit != nil {
			edit(ref)
		}
		b, err := ref.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name     string
		sizes    []int
		rb       bool
		data     []byte
		refusedB bool // refused by the blocks only
	}{
		{"counts into rb", []int{2, 3, 0}, true, snap([]int{2, 3, 0}, false, nil), false},
		{"rb into counts", []int{2, 3, 0}, false, snap([]int{2, 3, 0}, true, nil), false},
		{"fewer coordinates", []int{2, 3, 0}, false, snap([]int{2, 3}, false, nil), false},
		{"other sizes", []int{2, 3, 0}, false, snap([]int{2, 4, 0}, false, nil), false},
		{"value out of range", []int{2, 3, 0}, false, snap([]int{2, 3, 0}, false, func(r *refMarginals) { r.cur[1] = 3 }), false},
		{"bad conditional", []int{2, 3, 0}, true, snap([]int{2, 3, 0}, true, func(r *refMarginals) { r.cond[0] = []float64{2, -1} }), false},
		{"short conditional", []int{2, 3, 0}, true, snap([]int{2, 3, 0}, true, func(r *refMarginals) {
			r.cond[1], r.isCond[1] = []float64{1, 0}, true
		}), false},
		{"continuous value", []int{2, 3, 0}, false, snap([]int{2, 3, 0}, false, func(r *refMarginals) { r.cur[2] = 0 }), true},
		{"continuous holding", []int{2, 3, 0}, false, snap([]int{2, 3, 0}, false, func(r *refMarginals) { r.last[2] = 1 }), true},
		{"continuous conditional", []int{2, 3, 0}, true, snap([]int{2, 3, 0}, true, func(r *refMarginals) { r.isCond[2] = true }), true},
		{"stale short conditional", []int{2, 3, 0}, true, snap([]int{2, 3, 0}, true, func(r *refMarginals) { r.cond[1] = []float64{1, 0} }), true},
	}
	for _, tc := range cases {
		ref, mg := newRefMarginals(tc.sizes), NewMarginals(tc.sizes)
		if tc.rb {
			ref.RaoBlackwellise(c)
			mg.RaoBlackwellise(c)
		}
		before, _ := mg.Snapshot()
		errRef, errMg := ref.Restore(tc.data), mg.Restore(tc.data)
		switch {
		case errMg == nil:
			t.Errorf("%s: restored", tc.name)
		case tc.refusedB && errRef != nil:
			t.Errorf("%s: the reference refused it too: %v", tc.name, errRef)
		case !tc.refusedB && (errRef == nil || errRef.Error() != errMg.Error()):
			t.Errorf("%s: %v, reference %v", tc.name, errMg, errRef)
		}
		if after, _ := mg.Snapshot(); !bytes.Equal(before, after) {
			t.Errorf("%s: a refused restore changed the state", tc.name)
		}
	}
}

// TestMarginalsObserveAllocs: observing allocates nothing.
func TestMarginalsObserveAllocs(t *testing.T) {
	for _, sizes := range [][]int{{10, 10, 10, 10}, {0, 3, 10, 2}} {
		c := &randomConditioner{x: make([]float64, len(sizes)), w: make([]float64, 10), total: 1}
		c.w[3] = 1
		mg := NewMarginals(sizes)
		mg.RaoBlackwellise(c)
		k := 0
		allocs := testing.AllocsPerRun(1000, func() {
			k++
			i := k % len(sizes)
			c.i, c.x[i] = i, float64(k%2)
			mg.Observe(int64(k), i, c.x)
			if k%7 == 0 {
				mg.Observe(int64(k), Any, c.x)
			}
		})
		if allocs != 0 {
			t.Errorf("sizes %v: %v allocations an Observe", sizes, allocs)
		}
	}
}
