package edgelist_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/edgelist"
)

// allocated returns the bytes allocated so far (runtime.MemStats.TotalAlloc).
func allocated() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}

// issueFile returns a file of m pairs among the first 1,000 variables (or
// n) whose header declares n variables of q states: the issue's inputs
// are 200 pairs with n = 2²⁶ or 2²⁸, or q = 2³¹−1.
func issueFile(n, q uint32, m int) []byte {
	in := header("PGEL", 1, n, q, uint64(m))
	span := int32(min(n, 1000))
	for k := range m {
		a := int32(k) % span
		in = append(in, record(a, (a+1+int32(k/int(span)))%span, 0.5+float64(k%7))...)
	}
	return append(in, trailer(uint64(m))...)
}

// fuzzLimit is the memory limit of FuzzRead's reader: no input may make it
// allocate more.
const fuzzLimit = 64 << 20

// FuzzRead: Read never panics; no input makes it allocate more than its
// memory limit (Options.MaxBytes, 64 MB here), whether the input's length
// is known or not; it refuses an input only with a *FormatError or a
// *factorgraph.MemoryError; and a graph it returns is the one its header
// declares: n variables of q states and m factors, factor k the Potts
// pair of record k.
func FuzzRead(f *testing.F) {
	good := slices.Concat(header("PGEL", 1, 4, 2, 2), record(0, 1, 1), record(2, 3, -1), trailer(2))
	f.Add(good)
	f.Add(slices.Concat(header("PGEL", 1, 1, 1, 0), trailer(0)))
	f.Add(slices.Concat(header("PGEL", 1, 3, 5, 3), record(0, 1, 1), record(0, 1, 2), record(1, 0, 0), trailer(3))) // repeats, a zero
	f.Add(issueFile(50, 3, 200))
	f.Add(issueFile(1<<26, 3, 200))
	f.Add(issueFile(1<<28, 3, 200))
	f.Add(issueFile(math.MaxInt32, 3, 200))
	f.Add(issueFile(1000, math.MaxInt32, 200))
	f.Add(issueFile(1000, factorgraph.MaxDomain, 20))
	f.Add(issueFile(400000, 2, 10)) // near the limit
	f.Add(slices.Concat(header("PGEL", 1, 4, 2, 1<<40), good[24:]))
	f.Add(slices.Concat(header("PGEL", 1, 4, 2, 1000), good[24:]))
	f.Add(good[:30])
	f.Add(slices.Concat(header("PGEL", 2, 4, 2, 2), good[24:]))
	f.Add([]byte("MARKOV 1 2 1 1 0 2 0.5 0.5"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, known := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(in)
			if !known {
				r = onlyReader{r}
			}
			before := allocated()
			g, err := edgelist.Options{MaxBytes: fuzzLimit}.Read(r)
			if alloc := allocated() - before; alloc > fuzzLimit {
				t.Fatalf("length known %v: %.0f bytes allocated, more than the limit %d (error %v)", known, alloc, fuzzLimit, err)
			}
			if err != nil {
				var fe *edgelist.FormatError
				var me *factorgraph.MemoryError
				if !errors.As(err, &fe) && !errors.As(err, &me) {
					t.Fatalf("length known %v: error %v (%T), want a *FormatError or a *MemoryError", known, err, err)
				}
				if g != nil {
					t.Fatal("a graph with an error")
				}
				continue
			}
			mustMatchHeader(t, g, in)
		}
	})
}

// mustMatchHeader fails unless g is the graph of the valid file in: its
// header's n variables of q states, and its records as factors.
func mustMatchHeader(t *testing.T, g *factorgraph.Graph, in []byte) {
	t.Helper()
	n, q := int(binary.LittleEndian.Uint32(in[8:])), int(binary.LittleEndian.Uint32(in[12:]))
	m := int(binary.LittleEndian.Uint64(in[16:]))
	if g.NumVars() != n || g.NumFactors() != m || len(in) != edgelist.HeaderSize+edgelist.RecordSize*m+edgelist.TrailerSize {
		t.Fatalf("graph of %d variables and %d factors from %d bytes whose header declares n = %d, m = %d", g.NumVars(), g.NumFactors(), len(in), n, m)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if d := g.Domain(i); d.Size != q {
			t.Fatalf("variable %d: domain %v, header q = %d", i, d, q)
		}
	}
	for k := range m {
		rec := in[edgelist.HeaderSize+edgelist.RecordSize*k:]
		a, b := int(int32(binary.LittleEndian.Uint32(rec))), int(int32(binary.LittleEndian.Uint32(rec[4:])))
		w := math.Float64frombits(binary.LittleEndian.Uint64(rec[8:]))
		p, ok := g.Factor(k).(*factorgraph.Potts)
		if !ok || !slices.Equal(p.Vars(), []int{a, b}) || p.W != w {
			t.Fatalf("factor %d is %v, record (%d, %d, %v)", k, g.Factor(k), a, b, w)
		}
	}
}
