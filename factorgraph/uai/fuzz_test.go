package uai_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// addShared adds the shared files with the given suffix and at most max
// bytes to f's seed corpus, when the data directory is present.
func addShared(f *testing.F, suffix string, max int64) {
	dir, err := findData()
	if err != nil {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !strings.HasSuffix(e.Name(), suffix) || info.Size() > max {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			f.Add(string(b))
		}
	}
}

// FuzzRead: Read never panics, and a model it returns is valid, builds a
// factor graph or returns an error, and round-trips through Write and Read
// unchanged; with a memory limit, Read and ReadGraph allocate no more
// (mustWithinLimit).
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		sampleUAI,
		"c Minimal model - single boolean variable\n\nMARKOV\n1\n2\n1\n1 0\n\n2\n 0.25 0.75\n",
		"MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n\n4\n 0.5 0.0\n 0.0 0.5\n\n4\n 0.25 0.25\n 0.25 0.25\n",
		"BAYES 2 2 2 2 1 0 2 0 1 2 0.3 0.7 4 0.9 0.1 0.2 0.8",
		"MARKOV\r\n2\r\n2 3\r\n1\r\n2 0 1\r\n6 1 2 3 4 5 6e-5\r\n",
		"MARKOV 2 3 1 2 0 1 0 1 3 0 1 2 0 1 2 3",
		"MARKOV 1 1 1 0 1 0",
		"MARKOV 1 2 1 1 0 2 0 0",
		"MARKOV 3 65536 65536 65536 1 3 0 1 2",
		"MARKOV 1 67108864 1 1 0 67108864 1",
		"MARKOV 1 67108864 1 0 1 0.5", // regression: Graph once spread a constant over a 2^26-value table
		"MARKOV 2 2 2 1 2 1 1 4 1 1 1 1",
		"MARKOV 1 2 1 1 0 2 0.5 -0.5",
		"MARKOV 1 2 1 1 0 2 0.5 0.5 junk",
		"c only a comment",
		"",
	} {
		f.Add(s)
	}
	addShared(f, ".uai", 4<<10)
	f.Fuzz(func(t *testing.T, in string) {
		mustWithinLimit(t, in)
		m, err := uai.Read(strings.NewReader(in))
		if err != nil {
			if m != nil {
				t.Fatal("Read returned a model with an error")
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Read returned an invalid model: %v", err)
		}
		var sb strings.Builder
		if err := m.Write(&sb); err != nil {
			t.Fatalf("Write: %v", err)
		}
		m2, err := uai.Read(strings.NewReader(sb.String()))
		if err != nil {
			t.Fatalf("reading what Write wrote: %v\n%s", err, sb.String())
		}
		if err := equalModels(m, m2); err != nil {
			t.Fatalf("round trip changed the model: %v", err)
		}
		if g, err := m.Graph(nil); err == nil && g.NumVars() != m.NumVars() {
			t.Fatalf("graph has %d variables, model %d", g.NumVars(), m.NumVars())
		}
	})
}

// FuzzReadEvidence: ReadEvidenceSamples never panics, returns at least one
// sample, and the first sample round-trips through WriteEvidence.
func FuzzReadEvidence(f *testing.F) {
	for _, s := range []string{"0", "0\n", "0\n0\n", "0 0", "2 5 1 3 0", "2 0 1 5 1", "1 0", "2\n1 4 1\n2 0 0 1 1\n",
		"3 1 0\n2 1", "2 4 1 4 0", "1 x 0", "", "c comment\n1 2 3"} {
		f.Add(s)
	}
	addShared(f, ".evid", 4<<10)
	f.Fuzz(func(t *testing.T, in string) {
		samples, err := uai.ReadEvidenceSamples(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(samples) == 0 {
			t.Fatal("no sample and no error")
		}
		var sb strings.Builder
		if err := uai.WriteEvidence(&sb, samples[0]); err != nil {
			t.Fatalf("WriteEvidence: %v", err)
		}
		got, err := uai.ReadEvidence(strings.NewReader(sb.String()))
		if err != nil || !slices.Equal(got, samples[0]) {
			t.Fatalf("round trip: %v, %v; want %v", got, err, samples[0])
		}
	})
}

// FuzzReadMarginals: ReadMarginals never panics, and what it returns
// round-trips through WriteMarginals.
func FuzzReadMarginals(f *testing.F) {
	for _, s := range []string{"MAR 1 2 0.25 0.75", "MAR\n3 2 0.5 0.5 2 0.5 0.5 2 0.5 0.5\n", "MAR\n2\n2 0 1 3 0.1\n0.2 0.7",
		"MAR 2 2 0.5 0.5 2 0.5", "MAR 1 0", "MAR 1 2 -0 1", "MAR 16777216 67108864", ""} {
		f.Add(s)
	}
	addShared(f, ".MAR", 4<<10)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := uai.ReadMarginals(strings.NewReader(in))
		if err != nil {
			return
		}
		var sb strings.Builder
		if err := uai.WriteMarginals(&sb, p); err != nil {
			t.Fatalf("WriteMarginals: %v", err)
		}
		got, err := uai.ReadMarginals(strings.NewReader(sb.String()))
		if err != nil || !slices.EqualFunc(got, p, slices.Equal) {
			t.Fatalf("round trip: %v, %v; want %v", got, err, p)
		}
	})
}
