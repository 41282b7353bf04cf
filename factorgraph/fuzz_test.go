package factorgraph_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// FuzzBuild builds factor graphs from arbitrary bytes — scopes out of range
// or repeated, ranges NaN or reversed, tables of any size with any values —
// and checks that Build either refuses them with an error or returns a graph
// on which Gibbs and Poisson-Gibbs run or stop with an error: never a panic,
// never a NaN L.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{2, 3, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 64})
	f.Add([]byte{1, 2, 1, 1, 0, 0xff, 0xf8, 0, 0, 0, 0, 0, 0}) // a NaN
	f.Add([]byte{3, 2, 2, 2, 3, 0, 1, 2, 0, 1, 0, 2, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{0})
	f.Add([]byte{4, 1, 1, 1, 1, 3, 0, 1, 2, 3, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{data: data}
		b := factorgraph.NewBuilder()
		n := int(r.byte() % 6)
		for range n {
			size := int(r.byte()%5) - 1 // −1 … 3: invalid sizes included
			if size == 3 && r.byte()%4 == 0 {
				b.AddVariable(factorgraph.Interval(r.float(), r.float()))
				continue
			}
			b.AddVariable(factorgraph.Discrete(size))
		}
		for range int(r.byte() % 6) {
			arity := int(r.byte() % 4)
			scope := make([]int, arity)
			sizes := make([]int, arity)
			total := 1
			for k := range scope {
				scope[k] = int(int8(r.byte())) % (n + 2) // out of range and negative too
				sizes[k] = int(r.byte() % 4)
				total *= max(sizes[k], 1)
			}
			switch r.byte() % 3 {
			case 0:
				vals := make([]float64, total+int(r.byte()%2)) // sometimes one too many
				for k := range vals {
					vals[k] = r.float()
				}
				b.AddFactor(factorgraph.NewTable(scope, sizes, vals))
			case 1:
				if arity == 2 {
					b.AddFactor(factorgraph.NewPotts(scope[0], scope[1], r.float()))
				}
			default:
				lo, hi, v := r.float(), r.float(), r.float()
				b.AddFactor(factorgraph.NewFunc(scope, lo, hi, func([]float64) float64 { return v }))
			}
		}
		if r.byte()%2 == 0 && n > 0 {
			b.Observe(int(r.byte())%(n+1), float64(r.byte()%3))
		}
		g, err := b.Build()
		if err != nil {
			return
		}
		if math.IsNaN(g.L()) || math.IsNaN(g.Psi()) {
			t.Fatalf("built a graph with L = %v, Ψ = %v", g.L(), g.Psi())
		}
		if g.L() > 100 || g.Psi() > 100 {
			// Valid, and the samplers refuse only steps beyond
			// gibbs.Options.MaxDraws (10⁷ draws or factor values); a large
			// L below that is merely slow, which a fuzzer must not wait for.
			return
		}
		for _, name := range []string{"gibbs", "pgibbs", "auto", "gibbs-its"} {
			s, err := samplers.New(name, g, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{MaxTries: 1000})
			if err != nil {
				continue
			}
			for range 20 {
				s.Step()
			}
			_ = s.Err() // an error is fine; a panic is not
		}
	})
}

// reader hands out fuzz bytes, zeros when exhausted.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) byte() byte {
	if r.pos >= len(r.data) {
		return 0
	}
	r.pos++
	return r.data[r.pos-1]
}

func (r *reader) float() float64 {
	var b [8]byte
	for k := range b {
		b[k] = r.byte()
	}
	switch b[0] % 4 {
	case 0:
		return float64(int8(b[1])) / 8 // small, ordinary values most of the time
	case 1:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])) // anything, NaN and ±Inf included
	default:
		return float64(b[1]) / 16
	}
}
