package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/internal/baseline"
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
//	go test -run '^$' -bench 'LatticeCLI$' ./cmd/pgibbs
func BenchmarkLatticeCLI(b *testing.B) {
	for _, tc := range []struct{ name, args string }{
		{"sampler=chromatic/workers=1", "-beta 0.4 -sampler chromatic -workers 1 -sweeps 40"},
		{"sampler=chromatic/workers=2", "-beta 0.4 -sampler chromatic -workers 2 -sweeps 40"},
		{"sampler=chromatic-gibbs/workers=1", "-beta 0.4 -sampler chromatic -workers 1 -update gibbs -sweeps 40"},
		{"sampler=sw", "-beta 0.4406868 -sampler sw -sweeps 20"},
	} {
		b.Run("model=ising-nn1000/"+tc.name, func(b *testing.B) {
			args := latticeArgs(tc.args)
			var nsSite, setup float64
			b.ReportAllocs()
			for b.Loop() {
				ns, s := runLatticeCLI(b, args)
				nsSite += ns
				setup += s
			}
			b.ReportMetric(nsSite/float64(b.N), "ns/site")
			b.ReportMetric(setup/float64(b.N), "setup-s")
		})
	}
}

// latticeArgs returns the arguments of BenchmarkLatticeCLI's command with
// the flags extra.
func latticeArgs(extra string) []string {
	return append([]string{"lattice", "-dim", "2", "-size", "1000", "-kernel", "nn", "-spin", "ising", "-json"},
		strings.Fields(extra)...)
}

// runLatticeCLI runs `pgibbs` with args in-process and returns its ns a
// site update (1/steps_per_second of its JSON) and its setup_seconds.
func runLatticeCLI(b *testing.B, args []string) (nsSite, setup float64) {
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
	return 1e9 / o.StepsPerSecond, o.SetupSeconds
}

// BenchmarkLatticeCLIPaired times the one-worker chromatic command of
// BenchmarkLatticeCLI (4 + 40 sweeps, measured after each) and the
// hand-written checkerboard loop (44 sweeps of the same torus) in turn
// inside each iteration, so that a shared machine's changes of speed fall
// on both alike, and reports their ratio a site update:
//
//	GOMAXPROCS=1 go test -run '^$' -bench LatticeCLIPaired -benchtime 10x ./cmd/pgibbs
func BenchmarkLatticeCLIPaired(b *testing.B) {
	const side, beta, sweeps = 1000, 0.4, 44
	args := latticeArgs("-beta 0.4 -sampler chromatic -workers 1 -sweeps 40")
	h, err := baseline.NewIsingCheckerboard(side, beta, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	h.Sweep()
	var cmd, hand float64
	b.ReportAllocs()
	for b.Loop() {
		ns, _ := runLatticeCLI(b, args)
		cmd += ns
		start := time.Now()
		for range sweeps {
			h.Sweep()
		}
		hand += float64(time.Since(start).Nanoseconds()) / (sweeps * side * side)
	}
	b.ReportMetric(cmd/float64(b.N), "command-ns/site")
	b.ReportMetric(hand/float64(b.N), "handwritten-ns/site")
	b.ReportMetric(cmd/hand, "command/handwritten")
}
