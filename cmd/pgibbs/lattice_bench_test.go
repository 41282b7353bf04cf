package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// BenchmarkLatticeCLI runs `pgibbs lattice` end to end in-process, op = one
// whole command (flags, setup, 4 + 40 sweeps or 2 + 20 Swendsen–Wang
// sweeps of the 1000×1000 nearest-neighbour Ising torus with a measurement
// after each measured sweep, the report): ns/site is the command's own
// figure, 1/steps_per_second of its JSON (the run, burn-in included, setup
// excluded), setup-s its setup_seconds. Compare with the kernel alone and
// the hand-written loops, in one run:
//
//	go test -run '^$' -bench 'IsingSweep/model=ising-nn1000' ./bench
//	go test -run '^$' -bench LatticeCLI ./cmd/pgibbs
func BenchmarkLatticeCLI(b *testing.B) {
	for _, tc := range []struct{ name, args string }{
		{"sampler=chromatic/workers=1", "-beta 0.4 -sampler chromatic -workers 1 -sweeps 40"},
		{"sampler=chromatic/workers=2", "-beta 0.4 -sampler chromatic -workers 2 -sweeps 40"},
		{"sampler=chromatic-gibbs/workers=1", "-beta 0.4 -sampler chromatic -workers 1 -update gibbs -sweeps 40"},
		{"sampler=sw", "-beta 0.4406868 -sampler sw -sweeps 20"},
	} {
		b.Run("model=ising-nn1000/"+tc.name, func(b *testing.B) {
			args := append([]string{"lattice", "-dim", "2", "-size", "1000", "-kernel", "nn", "-spin", "ising", "-json"},
				strings.Fields(tc.args)...)
			var nsSite, setup float64
			b.ReportAllocs()
			for b.Loop() {
				var out bytes.Buffer
				if code := run(context.Background(), &env{stdout: &out, stderr: io.Discard}, args); code != 0 {
					b.Fatalf("%v: exit %d", args, code)
				}
				var o struct {
					StepsPerSecond float64 `json:"steps_per_second"`
					SetupSeconds   float64 `json:"setup_seconds"`
				}
				if err := json.Unmarshal(out.Bytes(), &o); err != nil {
					b.Fatal(err)
				}
				nsSite += 1e9 / o.StepsPerSecond
				setup += o.SetupSeconds
			}
			b.ReportMetric(nsSite/float64(b.N), "ns/site")
			b.ReportMetric(setup/float64(b.N), "setup-s")
		})
	}
}
