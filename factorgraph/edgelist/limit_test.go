package edgelist_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/edgelist"
)

// TestMemoryLimit: the issue's inputs — 200 pairs whose header declares
// n = 2²⁶ or 2²⁸ variables (9 GB, and the kernel's kill at 24 GB, before),
// q = 2³¹−1 states — are refused from the header, by Read, ReadPairs and
// ReadFile, on inputs of known and of unknown length, allocating under
// 16 MB; what they need is named with the limit.
func TestMemoryLimit(t *testing.T) {
	const gb = 1 << 30
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		in      []byte
		opts    edgelist.Options
		want    string // the error's text
		memory  bool   // a *factorgraph.MemoryError
		skipped func() bool
	}{
		{"n = 2^26", issueFile(1<<26, 3, 200), edgelist.Options{MaxBytes: 2 * gb},
			"edgelist: header declares n = 67108864 variables of q = 3 states and m = 200 pairs: the graph needs about 5.81 GB, more than the limit of 2 GB (Options.MaxBytes)", true, nil},
		{"n = 2^28", issueFile(1<<28, 3, 200), edgelist.Options{MaxBytes: 2 * gb},
			"edgelist: header declares n = 268435456 variables of q = 3 states and m = 200 pairs: the graph needs about 23.3 GB, more than the limit of 2 GB (Options.MaxBytes)", true, nil},
		{"n = 2^28, the machine's limit", issueFile(1<<28, 3, 200), edgelist.Options{},
			"the graph needs about 23.3 GB, more than the limit of", true,
			func() bool { return factorgraph.DefaultMaxBytes() > edgelist.ReadBytes(1<<28, 3, 200, false) }},
		{"n = 2^31-1", issueFile(math.MaxInt32, 3, 200), edgelist.Options{MaxVars: math.MaxInt32},
			"header declares n = 2147483647 variables of q = 3 states and m = 200 pairs: the graph needs about 186 GB", true,
			func() bool { return factorgraph.DefaultMaxBytes() > edgelist.ReadBytes(math.MaxInt32, 3, 200, false) }},
		{"q = 2^31-1", issueFile(1000, math.MaxInt32, 200), edgelist.Options{},
			"edgelist: byte 12: 2147483647 states: want 1 to 16777216 (factorgraph.MaxDomain)", false, nil},
		{"q = MaxDomain+1", issueFile(1000, factorgraph.MaxDomain+1, 200), edgelist.Options{},
			"edgelist: byte 12: 16777217 states: want 1 to 16777216", false, nil},
		{"a small limit", issueFile(1000, 3, 200), edgelist.Options{MaxBytes: 300 << 10},
			"more than the limit of 300 KB (Options.MaxBytes)", true, nil}, // 530 KB needed, 533 of unknown length
		{"a bad limit", issueFile(1000, 3, 200), edgelist.Options{MaxBytes: -1}, "memory limit -1 (Options.MaxBytes)", false, nil},
	} {
		if c.skipped != nil && c.skipped() {
			t.Logf("%s: skipped: this machine has the memory", c.name)
			continue
		}
		name := filepath.Join(dir, "issue.pgel")
		if err := os.WriteFile(name, c.in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, read := range []struct {
			how  string
			read func() error
		}{
			{"Read", func() error { _, err := c.opts.Read(bytes.NewReader(c.in)); return err }},
			{"Read, length unknown", func() error { _, err := c.opts.Read(onlyReader{bytes.NewReader(c.in)}); return err }},
			{"ReadPairs", func() error { _, err := c.opts.ReadPairs(bytes.NewReader(c.in)); return err }},
			{"ReadFile", func() error { _, err := c.opts.ReadFile(name); return err }},
		} {
			runtime.GC()
			before, start := allocated(), time.Now()
			err := read.read()
			alloc, took := allocated()-before, time.Since(start)
			var me *factorgraph.MemoryError
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &me) != c.memory {
				t.Errorf("%s, %s: error %v, want %q", c.name, read.how, err, c.want)
			}
			if read.how == "ReadFile" && (err == nil || !strings.HasPrefix(err.Error(), name+": ")) {
				t.Errorf("%s, ReadFile: error %v does not name the file", c.name, err)
			}
			if alloc > 16<<20 {
				t.Errorf("%s, %s: %.0f bytes allocated to refuse a %d-byte input", c.name, read.how, alloc, len(c.in))
			}
			if read.how == "Read" {
				t.Logf("%s: refused in %v, %.0f bytes allocated: %v", c.name, took, alloc, err)
			}
		}
	}
}

// TestMemoryLimitEdge: a file whose graph is estimated just within a small
// limit is read, allocating no more than the limit, whether its length is
// known or not; one variable more is refused.
func TestMemoryLimitEdge(t *testing.T) {
	const limit = 8 << 20
	for _, known := range []bool{true, false} {
		n, over := 1000, 1<<30 // the largest n within the limit, by bisection
		for over-n > 1 {
			if mid := (n + over) / 2; edgelist.ReadBytes(mid, 3, 200, known) <= limit {
				n = mid
			} else {
				over = mid
			}
		}
		read := func(n int) (*factorgraph.Graph, float64, error) {
			var r io.Reader = bytes.NewReader(issueFile(uint32(n), 3, 200))
			if !known {
				r = onlyReader{r}
			}
			runtime.GC()
			before := allocated()
			g, err := edgelist.Options{MaxBytes: limit}.Read(r)
			return g, allocated() - before, err
		}
		g, alloc, err := read(n)
		if err != nil {
			t.Fatalf("length known %v, %d variables: %v", known, n, err)
		}
		t.Logf("length known %v: %d variables, 200 pairs: estimated %.0f bytes, allocated %.0f, the graph holds %d; limit %d",
			known, n, edgelist.ReadBytes(n, 3, 200, known), alloc, g.Bytes(), limit)
		if alloc > limit || g.NumVars() != n {
			t.Errorf("length known %v, %d variables: %.0f bytes allocated, %d variables", known, n, alloc, g.NumVars())
		}
		var me *factorgraph.MemoryError
		if _, _, err := read(n + 1); !errors.As(err, &me) || me.Limit != limit {
			t.Errorf("length known %v, %d variables: error %v, want a *MemoryError", known, n+1, err)
		}
	}
}
