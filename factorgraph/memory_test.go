package factorgraph

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// heapBytes returns the live heap after a collection.
func heapBytes() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}

// gaussPairs returns the pairs of a width×width Gaussian-kernel lattice
// (as package potts builds them, the kernel cut at distance 22).
func gaussPairs(width int) (a, b []int32, w []float64) {
	for i := range width * width {
		for j := i + 1; j < width*width; j++ {
			dr, dc := i/width-j/width, i%width-j%width
			if d2 := dr*dr + dc*dc; d2 <= 22*22 {
				a, b, w = append(a, int32(i)), append(b, int32(j)), append(w, 4.6*math.Exp(-1.5*float64(d2)))
			}
		}
	}
	return a, b, w
}

// TestBytes compares Graph.Bytes with the heap a graph takes and
// PairGraphBytes with Graph.Bytes, on Gaussian-kernel lattices and a
// nearest-neighbour torus.
func TestBytes(t *testing.T) {
	for _, width := range []int{10, 30, 50} {
		n := width * width
		before := heapBytes()
		a, b, w := gaussPairs(width)
		a, b, w = slices.Clone(a), slices.Clone(b), slices.Clone(w) // without append's slack
		bl := NewBuilder()
		bl.AddVariables(n, Discrete(10))
		bl.AddPottsPairs(a, b, w)
		g, err := bl.Build()
		if err != nil {
			t.Fatal(err)
		}
		heap := heapBytes() - before
		got, est := float64(g.Bytes()), float64(PairGraphBytes(n, len(w)))
		t.Logf("width %d: %d pairs, heap %.0f, Bytes %.0f (%.1f a pair), PairGraphBytes %.0f", width, len(w), heap, got, got/float64(len(w)), est)
		if math.Abs(got-heap) > 0.03*heap && heap > 1e6 { // small heaps move by tens of kB

			t.Errorf("width %d: Bytes %.0f, heap %.0f", width, got, heap)
		}
		if math.Abs(est-got) > 0.05*got {
			t.Errorf("width %d: PairGraphBytes %.0f, Bytes %.0f", width, est, got)
		}
		runtime.KeepAlive(g)
	}
}

// totalAlloc returns the bytes allocated so far (runtime.MemStats.TotalAlloc).
func totalAlloc() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}

// randomPairs returns m pairs of weight w over n variables (seeded).
func randomPairs(n, m int, w float64) (a, b []int32, ws []float64) {
	r := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	a, b, ws = make([]int32, m), make([]int32, m), make([]float64, m)
	for k := range m {
		i, j := r.IntN(n), r.IntN(n-1)
		if j >= i {
			j++
		}
		a[k], b[k], ws[k] = int32(i), int32(j), w
	}
	return a, b, ws
}

// TestSizeBytes compares Size.GraphBytes with Graph.Bytes and
// Size.BuildBytes with what building the graph allocates in all (the
// builder's arrays, Build's scratch, and the caller's pairs, which the
// graph keeps): on variables without factors (an edge list's header
// declaring many), sparse random Potts pairs, and a grid of table factors
// added as package uai adds them (unary and pair tables, in runs).
func TestSizeBytes(t *testing.T) {
	const n = 1 << 16
	for _, c := range []struct {
		name        string
		build       func(b *Builder) Size
		allocWithin float64 // BuildBytes within this share of the allocation (0: not compared)
	}{
		{"variables", func(b *Builder) Size {
			a, c, w := randomPairs(n, 200, 1)
			b.AddVariables(n, Discrete(3))
			b.AddPottsPairs(a, c, w)
			return Size{Vars: n, DomainSize: 3, Pairs: 200, OneWeight: true}
		}, 0.05},
		{"pairs", func(b *Builder) Size {
			a, c, w := randomPairs(n, 2*n, 0.5)
			b.AddVariables(n, Discrete(3))
			b.AddPottsPairs(a, c, w)
			return Size{Vars: n, DomainSize: 3, Pairs: 2 * n, OneWeight: true}
		}, 0.05},
		{"weighted pairs", func(b *Builder) Size {
			a, c, w := randomPairs(n, 2*n, 0.5)
			r := rand.New(rand.NewPCG(3, 4))
			for k := range w {
				w[k] = 0.1 + r.Float64()
			}
			b.AddVariables(n, Discrete(3))
			b.AddPottsPairs(a, c, w)
			return Size{Vars: n, DomainSize: 3, Pairs: 2 * n}
		}, 0.05},
		{"tables", func(b *Builder) Size {
			const width = 256 // n variables
			r := rand.New(rand.NewPCG(1, 2))
			b.AddVariables(n, Discrete(2))
			unary := make([]float64, 2*n)
			for k := range unary {
				unary[k] = r.Float64()
			}
			scopes := make([]int32, n)
			for k := range scopes {
				scopes[k] = int32(k)
			}
			b.AddTables(scopes, []int{2}, unary)
			var edges []int32
			for i := range n {
				if i%width < width-1 {
					edges = append(edges, int32(i), int32(i+1))
				}
				if i+width < n {
					edges = append(edges, int32(i), int32(i+width))
				}
			}
			nf := len(edges) / 2
			for f := 0; f < nf; f += 1 << 14 { // runs of 2^16 entries
				e := min(nf, f+1<<14)
				vals := make([]float64, 4*(e-f))
				for k := range vals {
					vals[k] = r.Float64()
				}
				b.AddTables(edges[2*f:2*e], []int{2, 2}, vals)
			}
			return Size{Vars: n, DomainSize: 2, Tables: n + nf, TableVars: n + 2*nf, Potentials: n + nf, Entries: 2*n + 4*nf, PairEntries: 4 * nf}
		}, 0},
	} {
		runtime.GC()
		before := totalAlloc()
		b := NewBuilder()
		sz := c.build(b)
		if got := b.size(); got != sz {
			t.Errorf("%s: the builder's size %+v, want %+v", c.name, got, sz)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		alloc := totalAlloc() - before
		got, est := float64(g.Bytes()), sz.GraphBytes()
		t.Logf("%s: Bytes %.0f, GraphBytes %.0f; allocated %.0f, BuildBytes %.0f", c.name, got, est, alloc, sz.BuildBytes())
		if math.Abs(est-got) > 0.05*got {
			t.Errorf("%s: GraphBytes %.0f, Bytes %.0f", c.name, est, got)
		}
		if w := c.allocWithin; w > 0 && math.Abs(sz.BuildBytes()-alloc) > w*alloc {
			t.Errorf("%s: BuildBytes %.0f, allocated %.0f", c.name, sz.BuildBytes(), alloc)
		}
	}
}

// TestGrow: after Grow, the AddTables and AddFactor calls it made room for
// copy none of the builder's arrays, and build the graph they build
// without it.
func TestGrow(t *testing.T) {
	const n, nf = 100, 1000
	add := func(b *Builder) {
		for k := range nf / 10 {
			scopes := make([]int32, 20)
			for j := range scopes {
				scopes[j] = int32((k + j) % n)
			}
			b.AddTables(scopes, []int{2, 2}, []float64{0, 1, 1, 0.5}) // ten factors sharing a table
		}
		b.AddFactor(NewPotts(0, 1, 1))
	}
	b := NewBuilder()
	b.AddVariables(n, Discrete(2))
	b.Grow(Size{Tables: nf, TableVars: 2 * nf, Potentials: nf / 10, Factors: 1})
	s := &b.fs
	before := []any{&s.tab.Off[:1][0], &s.tab.Pot[:1][0], &s.tab.Vars[:1][0], &s.tab.Pots[:1][0], &s.pots[:1][0], &s.obj[:1][0]}
	add(b)
	after := []any{&s.tab.Off[0], &s.tab.Pot[0], &s.tab.Vars[0], &s.tab.Pots[0], &s.pots[0], &s.obj[0]}
	for k := range before {
		if before[k] != after[k] {
			t.Errorf("array %d was copied after Grow", k)
		}
	}
	g1, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	b2 := NewBuilder()
	b2.AddVariables(n, Discrete(2))
	add(b2)
	g2, err := b2.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g1.kern.Nbr, g2.kern.Nbr) || g1.NumFactors() != g2.NumFactors() || g1.String() != g2.String() {
		t.Error("Grow changed the graph")
	}
}
