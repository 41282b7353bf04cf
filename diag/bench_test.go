package diag

import (
	"fmt"
	"testing"
)

var benchSink float64

func BenchmarkDiagnostics(b *testing.B) {
	chains := ar1(newRand(1), 4, 10000, 0.9)
	for _, bm := range []struct {
		name string
		f    func([][]float64) (float64, error)
	}{
		{"ESS", ESS},
		{"BulkESS", BulkESS},
		{"TailESS", TailESS},
		{"RHat", RHat},
		{"SplitRHat", SplitRHat},
		{"MCSE", MCSE},
		{"Summarize", func(c [][]float64) (float64, error) { s, err := Summarize(c); return s.RHat, err }},
	} {
		b.Run(fmt.Sprintf("stat=%s/chains=4/draws=10000", bm.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := bm.f(chains)
				if err != nil {
					b.Fatal(err)
				}
				benchSink = v
			}
		})
	}
}

func BenchmarkAutocorrelation(b *testing.B) {
	x := ar1(newRand(2), 1, 10000, 0.9)[0]
	dst := make([]float64, len(x))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = Autocorrelation(dst, x)
	}
}

func BenchmarkBinningError(b *testing.B) {
	x := ar1(newRand(3), 1, 1<<16, 0.9)[0]
	b.ReportAllocs()
	for b.Loop() {
		r, _ := BinningError(x)
		benchSink = r.SE
	}
}

func BenchmarkHist1DAdd(b *testing.B) {
	h, _ := NewHist1D(-4, 4, 64)
	x := ar1(newRand(4), 1, 1024, 0.5)[0]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.Add(x[i&1023])
		i++
	}
}

func BenchmarkHist2DAdd(b *testing.B) {
	h, _ := NewHist2D(-4, 4, 64, -4, 4, 64)
	x := ar1(newRand(5), 2, 1024, 0.5)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.Add(x[0][i&1023], x[1][i&1023])
		i++
	}
}
