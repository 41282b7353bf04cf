package main

import (
	"encoding/json"
	"testing"
)

// TestScan: -scan systematic changes the chain (the same seed, another
// state) and gives the same chain twice; an unknown scan, a sampler with
// its own order and a subcommand without single-site samplers are usage
// errors.
func TestScan(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	sha := func(args ...string) string {
		t.Helper()
		code, out, stderr := runCLI(t, append(args, "-json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var o struct {
			SHA string `json:"state_sha256"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		return o.SHA
	}
	for _, args := range [][]string{
		{"potts", "-width", "4", "-states", "3", "-iters", "20000", "-sampler", "gibbs"},
		{"potts", "-width", "4", "-states", "3", "-iters", "20000", "-sampler", "pgibbs"},
		{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-iters", "20000", "-sampler", "gibbs"},
	} {
		random := sha(args...)
		sys := sha(append(args, "-scan", "systematic")...)
		if sys == random {
			t.Errorf("%v: -scan systematic left the chain as it was", args)
		}
		if again := sha(append(args, "-scan", "systematic")...); again != sys {
			t.Errorf("%v -scan systematic: two runs differ", args)
		}
		if r := sha(append(args, "-scan", "random")...); r != random {
			t.Errorf("%v -scan random: not the default chain", args)
		}
	}
	for _, args := range [][]string{
		{"potts", "-width", "4", "-iters", "100", "-scan", "diagonal"},
		{"potts", "-width", "4", "-iters", "100", "-scan", ""},
		{"potts", "-width", "4", "-iters", "100", "-scan", "Systematic"},
		{"potts", "-width", "4", "-iters", "100", "-sampler", "sw", "-scan", "systematic"},
		{"uai", "-model", model, "-iters", "100", "-scan", "systematic"},
		{"lattice", "-size", "4", "-scan", "systematic"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d (stderr %q), want a usage error", args, code, stderr)
		}
	}
}
