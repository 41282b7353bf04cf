package uai_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// BenchmarkRead reads shared model files (throughput in MB/s).
func BenchmarkRead(b *testing.B) {
	dir := dataDir(b)
	for _, name := range []string{"CSP_11", "ObjectDetection_11", "dv-rel_3"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".uai"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("model="+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := uai.Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStep measures one variable update of the samplers on the factor
// graphs of shared models (evidence clamped); steady state allocates
// nothing.
func BenchmarkStep(b *testing.B) {
	dir := dataDir(b)
	for _, tc := range []struct{ model, sampler string }{
		{"CSP_11", "gibbs"},
		{"Alchemy_11", "gibbs"},
		{"Alchemy_11", "pgibbs"},
		{"ObjectDetection_11", "gibbs"},
		{"Promedus_11", "gibbs"},
		{"Promedus_11", "pgibbs"},
	} {
		path := filepath.Join(dir, tc.model+".uai")
		m, err := uai.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		ev, err := uai.ReadEvidenceFile(path + ".evid")
		if err != nil {
			b.Fatal(err)
		}
		g, err := m.Graph(ev)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("model="+tc.model+"/sampler="+tc.sampler, func(b *testing.B) {
			s, err := samplers.New(tc.sampler, g, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				b.Fatal(err)
			}
			for range 10_000 { // warm up
				s.Step()
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Step()
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
