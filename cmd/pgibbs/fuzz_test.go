package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzNumericFlags feeds arbitrary strings to the numeric flags of every
// sampling subcommand (sizes, temperatures, λ, degrees, seeds): the CLI must
// answer with exit status 0, 1 or 2 and a message, never panic or hang.
// The seed corpus runs in the normal test suite.
func FuzzNumericFlags(f *testing.F) {
	for _, seed := range [][3]string{
		{"4", "0.5", "3"}, {"-1", "NaN", "0"}, {"1e9", "+Inf", "-7"}, {"0", "1e-300", "99999999999"},
		{"2", "1e308", "1"}, {"x", "", "2.5"}, {"3", "-0", "65536"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, size, real, count string) {
		commands := [][]string{
			{"potts", "-width", size, "-beta", real, "-states", count, "-iters", "50"},
			{"potts", "-width", "4", "-states", "3", "-lambda", real, "-chains", count, "-iters", "50"},
			{"spin", "-width", size, "-gamma", real, "-m", count, "-iters", "20"},
			{"tgm", "-n", size, "-beta", real, "-k", count, "-iters", "20", "-m", "4"},
			{"mh", "-model", "bias", "-K", size, "-step", real, "-chains", count, "-iters", "30"},
			{"mh", "-model", "tgm", "-n", size, "-chi", real, "-iters", "30"},
		}
		for k, args := range commands {
			if isHuge(size) || isHuge(count) || (k == 1 || k == 5) && bigReal(real) ||
				k == 5 && (zero(size) || bigChi(real)) { // -n 0 is the default N = 10⁶
				continue // valid sizes or λ, χ that are merely slow: not the fuzzer's business
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			var out, errb bytes.Buffer
			code := run(ctx, &env{stdout: &out, stderr: &errb}, args)
			cancel()
			if code != 0 && code != 1 && code != 2 && code != 130 {
				t.Fatalf("%v: exit %d", args, code)
			}
			if code != 0 && errb.Len() == 0 {
				t.Fatalf("%v: exit %d without a message", args, code)
			}
		}
	})
}

// bigReal reports whether a λ or χ flag would ask for huge minibatches.
func bigReal(s string) bool {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && v > 1e3
}

// bigChi reports whether a χ flag would ask for large TunaMH batches.
func bigChi(s string) bool {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && v > 1e-2
}

// zero reports whether s reads as the integer 0.
func zero(s string) bool {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	return err == nil && v == 0
}

// isHuge reports whether a flag value would ask for a large but valid run.
func isHuge(s string) bool {
	s = strings.TrimSpace(s)
	var n float64
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n = n*10 + float64(c-'0')
		} else {
			return false
		}
	}
	return n > 60
}
