package uai_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// allocated returns the bytes allocated so far (runtime.MemStats.TotalAlloc).
func allocated() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}

// chainUAI returns a MARKOV chain of n binary variables: n−1 pair tables.
func chainUAI(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "MARKOV\n%d\n%s\n%d\n", n, strings.Repeat("2 ", n), n-1)
	for i := range n - 1 {
		fmt.Fprintf(&b, "2 %d %d\n", i, i+1)
	}
	for range n - 1 {
		b.WriteString("4 1 2 2 1\n")
	}
	return b.Bytes()
}

// TestMemoryLimit: headers declaring more than the memory limit allows —
// variables, factors, table entries — and cardinalities beyond
// factorgraph.MaxDomain are refused by every reader before the tables are
// read, allocating under 16 MB, with an error naming the line, the counts,
// the estimate and the limit.
func TestMemoryLimit(t *testing.T) {
	const mb = 1 << 20
	repeat := func(s string, k int) string { return strings.Repeat(s, k) }
	// 16 factors over a variable of 2^24 values: 2^28 entries (2 GB), none given.
	entries := "MARKOV 2 16777216 2 16 " + repeat("1 0 ", 16) + "16777216 0.5 0.5"
	for _, c := range []struct {
		name      string
		in        string
		limit     float64
		wantGraph string // ReadGraph's error (ReadGraphFile's, ReadGraphProblem's)
		wantModel string // Read's (ReadFile's, ReadProblem's)
	}{
		{"variables", "MARKOV\n16777216\n2 2 2", 1024 * mb,
			"uai: line 2: 16777216 variables: the graph needs about 2.08 GB, more than the limit of 1 GB (Options.MaxBytes)",
			"uai: line 3: unexpected end of input: want the cardinality of variable 3"},
		{"variables, the model", "MARKOV\n16777216\n2 2 2", 256 * mb,
			"uai: line 2: 16777216 variables: the graph needs about 2.08 GB, more than the limit of 256 MB",
			"uai: line 2: 16777216 variables: the model needs about 384 MB, more than the limit of 256 MB (Options.MaxBytes)"},
		{"factors", "MARKOV 3 2 2 2\n16777216\n1 0", 1024 * mb,
			"uai: line 2: 3 variables and 16777216 factors: the graph needs about 4.06 GB, more than the limit of 1 GB (Options.MaxBytes)",
			"uai: line 2: 3 variables and 16777216 factors: the model needs about 1.88 GB, more than the limit of 1 GB"},
		{"entries", entries, 1024 * mb,
			"uai: line 1: 2 variables and 16 factors of 268435456 table entries: the graph needs about 2.25 GB, more than the limit of 1 GB (Options.MaxBytes)",
			"uai: line 1: 2 variables and 16 factors of 268435456 table entries: the model needs about 2 GB, more than the limit of 1 GB"},
		{"cardinality 2^31-1", "MARKOV 2 2 2147483647 1 1 0 2 0.5 0.5", 0,
			`uai: line 1: token "2147483647": want the cardinality of variable 1 in [1, 16777216]`,
			`uai: line 1: token "2147483647": want the cardinality of variable 1 in [1, 16777216]`},
		{"cardinality MaxDomain+1", "MARKOV 1 16777217 0", 0,
			`uai: line 1: token "16777217": want the cardinality of variable 0 in [1, 16777216]`,
			`uai: line 1: token "16777217": want the cardinality of variable 0 in [1, 16777216]`},
		{"a bad limit", "MARKOV 1 2 0", -1, "factorgraph: memory limit -1 (Options.MaxBytes)", "factorgraph: memory limit -1 (Options.MaxBytes)"},
	} {
		dir := t.TempDir()
		name := filepath.Join(dir, "m.uai")
		if err := os.WriteFile(name, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		o := uai.Options{MaxBytes: c.limit}
		for _, r := range []struct {
			how  string
			want string
			read func() error
		}{
			{"ReadGraph", c.wantGraph, func() error { _, _, err := o.ReadGraph(strings.NewReader(c.in), nil); return err }},
			{"ReadGraphFile", name + ": " + c.wantGraph, func() error { _, _, err := o.ReadGraphFile(name, nil); return err }},
			{"ReadGraphProblem", name + ": " + c.wantGraph, func() error { _, err := o.ReadGraphProblem(name, "", ""); return err }},
			{"Read", c.wantModel, func() error { _, err := o.Read(strings.NewReader(c.in)); return err }},
			{"ReadFile", name + ": " + c.wantModel, func() error { _, err := o.ReadFile(name); return err }},
			{"ReadProblem", name + ": " + c.wantModel, func() error { _, err := o.ReadProblem(name, "", ""); return err }},
		} {
			runtime.GC()
			before := allocated()
			err := r.read()
			alloc := allocated() - before
			if err == nil || !strings.Contains(err.Error(), r.want) {
				t.Errorf("%s, %s: error %v, want %q", c.name, r.how, err, r.want)
			}
			var me *factorgraph.MemoryError
			if errors.As(err, &me) && me.Limit != c.limit {
				t.Errorf("%s, %s: limit %v, want %v", c.name, r.how, me.Limit, c.limit)
			}
			if alloc > 16*mb {
				t.Errorf("%s, %s: %.0f bytes allocated to refuse %d bytes", c.name, r.how, alloc, len(c.in))
			}
		}
	}
	// The package's functions apply the machine's memory: the largest
	// header within the package's limits is within it here.
	if _, _, err := uai.ReadGraph(strings.NewReader(entries), nil); err == nil || !strings.Contains(err.Error(), "want entry 2 of factor 0") {
		t.Errorf("2^28 entries declared, the machine's limit: error %v, want the end of the input", err)
	}
}

// TestMemoryLimitEdge: the longest chain whose graph is estimated within a
// small limit is read by ReadGraph, allocating no more than the limit;
// one variable more is refused.
func TestMemoryLimitEdge(t *testing.T) {
	const limit = 4 << 20
	read := func(n int) (float64, error) {
		in := chainUAI(n)
		runtime.GC()
		before := allocated()
		_, _, err := uai.Options{MaxBytes: limit}.ReadGraph(bytes.NewReader(in), nil)
		return allocated() - before, err
	}
	var me *factorgraph.MemoryError
	n, over := 2, 1<<16 // the longest chain within the limit, by bisection
	for over-n > 1 {
		mid := (n + over) / 2
		if _, err := read(mid); err == nil {
			n = mid
		} else if errors.As(err, &me) {
			over = mid
		} else {
			t.Fatal(err)
		}
	}
	alloc, err := read(n)
	t.Logf("a chain of %d variables: %.0f bytes allocated, limit %d", n, alloc, limit)
	if err != nil || alloc > limit {
		t.Errorf("a chain of %d variables: %v, %.0f bytes allocated", n, err, alloc)
	}
	if _, err := read(n + 1); !errors.As(err, &me) || !strings.Contains(err.Error(), fmt.Sprintf("%d variables and %d factors of %d table entries", n+1, n, 4*n)) {
		t.Errorf("a chain of %d variables: error %v", n+1, err)
	}
}
