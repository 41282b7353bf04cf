package uai_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// equalMarginals reports whether a and b hold the same numbers bit for bit.
func equalMarginals(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, func(x, y []float64) bool { return slices.Equal(x, y) })
}

// writeAnytime writes the solutions to a new anytime file in a temporary
// directory and returns its path.
func writeAnytime(t *testing.T, sols ...[][]float64) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "m.uai.MAR")
	w, err := uai.CreateAnytimeMAR(name)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range sols {
		if err := w.Write(p); err != nil {
			t.Fatalf("solution %d: %v", k, err)
		}
		if w.Solutions() != k+1 {
			t.Fatalf("Solutions() = %d after %d writes", w.Solutions(), k+1)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	return name
}

func TestAnytimeMARLayout(t *testing.T) {
	sols := [][][]float64{
		{{0.5, 0.5}, {0.25, 0.25, 0.5}},
		{{0.1, 0.9}, {0, 0, 1}},
		{{0.125, 0.875}, {0.2, 0.3, 0.5}},
	}
	name := writeAnytime(t, sols...)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want := "MAR\n2 2 0.5 0.5 3 0.25 0.25 0.5\n" +
		"-BEGIN-\n2 2 0.1 0.9 3 0 0 1\n" +
		"-BEGIN-\n2 2 0.125 0.875 3 0.2 0.3 0.5\n"
	if string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	p, n, err := uai.ReadAnytimeMARFile(name)
	if err != nil || n != 3 || !equalMarginals(p, sols[2]) {
		t.Errorf("ReadAnytimeMARFile = %v, %d, %v; want %v, 3", p, n, err, sols[2])
	}
	// Nothing but the named file is left in its directory.
	if ents, err := os.ReadDir(filepath.Dir(name)); err != nil || len(ents) != 1 {
		t.Errorf("directory holds %v (%v), want only %s", ents, err, filepath.Base(name))
	}
}

func TestAnytimeMARRoundTrip(t *testing.T) {
	p := [][]float64{
		{0.1, 0.2, 0.7000000000000001},
		{1. / 3, 2. / 3},
		{math.Nextafter(1, 0), math.SmallestNonzeroFloat64},
		{1e-300, 1 - 1e-300, 0.30000000000000004},
		{1},
	}
	q := [][]float64{{1, 0, 0}, {0.5, 0.5}, {0.5, 0.5}, {0.2, 0.2, 0.6}, {1}}
	name := writeAnytime(t, q, p)
	got, n, err := uai.ReadAnytimeMARFile(name)
	if err != nil || n != 2 || !equalMarginals(got, p) {
		t.Errorf("read back %v, %d, %v; want %v, 2", got, n, err, p)
	}
	// −0 is written as 0.
	name = writeAnytime(t, [][]float64{{math.Copysign(0, -1), 1}})
	if data, _ := os.ReadFile(name); string(data) != "MAR\n1 2 0 1\n" {
		t.Errorf("−0 written as %q", data)
	}
}

// TestAnytimeMARTornTail cuts a file of three solutions at every length:
// each prefix must read as the solutions whose newline it contains.
func TestAnytimeMARTornTail(t *testing.T) {
	sols := [][][]float64{
		{{0.5, 0.5}, {0.25, 0.75}},
		{{0.125, 0.875}, {0.375, 0.625}},
		{{0.0625, 0.9375}, {1, 0}},
	}
	data, err := os.ReadFile(writeAnytime(t, sols...))
	if err != nil {
		t.Fatal(err)
	}
	// ends[k] is the length of the prefix that holds solutions 0..k.
	var ends []int
	for i, c := range data {
		if c == '\n' && i > len("MAR") && !bytes.HasSuffix(data[:i], []byte("-BEGIN-")) {
			ends = append(ends, i+1)
		}
	}
	if len(ends) != 3 {
		t.Fatalf("solution ends %v in %q", ends, data)
	}
	for l := 0; l <= len(data); l++ {
		complete := 0
		for _, e := range ends {
			if e <= l {
				complete++
			}
		}
		p, n, err := uai.ReadAnytimeMAR(bytes.NewReader(data[:l]))
		if complete == 0 {
			if !errors.Is(err, uai.ErrNoSolution) {
				t.Errorf("prefix %q: %v, %d, %v; want ErrNoSolution", data[:l], p, n, err)
			}
			continue
		}
		if err != nil || n != complete || !equalMarginals(p, sols[complete-1]) {
			t.Errorf("prefix %q: %v, %d, %v; want %v, %d", data[:l], p, n, err, sols[complete-1], complete)
		}
	}
}

func TestReadAnytimeMARForms(t *testing.T) {
	one := [][]float64{{0.5, 0.5}}
	two := [][]float64{{0.25, 0.75}}
	for _, tc := range []struct {
		name, in string
		want     [][]float64
		n        int
	}{
		{"plain .MAR", "MAR\n1 2 0.5 0.5\n", one, 1},
		{"several lines, comment, CRLF", "mar\r\nc a comment\r\n1\r\n2 0.5\r\n0.5\r\n", one, 1},
		{"leading -BEGIN-", "MAR\n-BEGIN-\n1 2 0.5 0.5\n", one, 1},
		{"two", "MAR\n1 2 0.5 0.5\n-BEGIN-\n1 2 0.25 0.75\n", two, 2},
		{"marker on a solution line", "MAR 1 2 0.5 0.5 -BEGIN- 1 2 0.25 0.75\n", two, 2},
		{"torn number", "MAR\n1 2 0.5 0.5\n-BEGIN-\n1 2 0.25 0.7", one, 1},
		{"torn line kept whole", "MAR\n1 2 0.5 0.5\n-BEGIN-\n1 2 0.25\n", one, 1},
		{"trailing marker", "MAR\n1 2 0.5 0.5\n-BEGIN-\n", one, 1},
		{"torn marker", "MAR\n1 2 0.5 0.5\n-BEG", one, 1},
		{"ends with a space", "MAR\n1 2 0.5 0.5 -BEGIN- 1 2 0.25 0.75 ", two, 2},
		{"ends with a number", "MAR\n1 2 0.5 0.5 -BEGIN- 1 2 0.25 0.75", one, 1},
		{"cut after a space", "MAR\n1 2 0.5 0.5 -BEGIN- 1 2 0.25 ", one, 1},
	} {
		p, n, err := uai.ReadAnytimeMAR(strings.NewReader(tc.in))
		if err != nil || n != tc.n || !equalMarginals(p, tc.want) {
			t.Errorf("%s: %v, %d, %v; want %v, %d", tc.name, p, n, err, tc.want, tc.n)
		}
	}
}

func TestReadAnytimeMARErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not MAR", "PR\n-0.2\n", `uai: anytime marginals: line 1: token "PR": want MAR`},
		{"bad number in an earlier solution", "MAR\n1 2 0.5 0.5\n-BEGIN-\n1 2 0.5 x\n-BEGIN-\n1 2 0.5 0.5\n",
			`line 4: token "x": want a number (p(x_0 = 1) (solution 2))`},
		{"negative", "MAR\n1 2 -0.5 1.5\n", `token "-0.5": want a non-negative number`},
		{"junk between solutions", "MAR\n1 2 0.5 0.5\nfoo\n", `line 3: token "foo": want -BEGIN- or the end of the file after solution 1`},
		{"two markers", "MAR\n1 2 0.5 0.5\n-BEGIN-\n-BEGIN-\n1 2 0.5 0.5\n", `line 4: token "-BEGIN-": want the number of variables of solution 2`},
		{"zero variables", "MAR\n0\n", `token "0": want the number of variables of solution 1 in [1, 16777216]`},
		{"zero domain", "MAR\n1 0\n", `token "0": want the domain size of variable 0 (solution 1)`},
	} {
		_, _, err := uai.ReadAnytimeMAR(strings.NewReader(tc.in))
		var pe *uai.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a *ParseError containing %q", tc.name, err, tc.want)
		}
	}
	for _, in := range []string{"", "MAR", "MAR\n", "MAR\n1 2 0.5", "MAR\n1 2 0.5 0.5"} {
		_, _, err := uai.ReadAnytimeMAR(strings.NewReader(in))
		if !errors.Is(err, uai.ErrNoSolution) || err.Error() != "uai: anytime marginals: no complete solution" {
			t.Errorf("%q: err = %v, want ErrNoSolution", in, err)
		}
	}
	name := filepath.Join(t.TempDir(), "empty.MAR")
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := uai.ReadAnytimeMARFile(name); !errors.Is(err, uai.ErrNoSolution) || !strings.HasPrefix(err.Error(), name+": ") {
		t.Errorf("empty file: err = %v, want ErrNoSolution naming the file", err)
	}
	missing := filepath.Join(t.TempDir(), "missing.MAR")
	if _, _, err := uai.ReadAnytimeMARFile(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestAnytimeMARWriteErrors(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.MAR")
	if err := os.WriteFile(name, []byte("MAR\n1 2 0.5 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := uai.CreateAnytimeMAR(name)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(name); len(data) != 0 {
		t.Errorf("CreateAnytimeMAR left %q of an older run", data)
	}
	good := [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}
	for _, tc := range []struct {
		name string
		p    [][]float64
		want string
	}{
		{"no variables", nil, "no variables"},
		{"NaN", [][]float64{{math.NaN(), 1}, {0.2, 0.3, 0.5}}, "variable 0: p(0) = NaN"},
		{"empty marginal", [][]float64{{0.5, 0.5}, {}}, "variable 1 has an empty marginal"},
	} {
		if err := w.Write(tc.p); err == nil || !strings.HasPrefix(err.Error(), name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q naming %s", tc.name, err, tc.want, name)
		}
	}
	if err := w.Write(good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		p    [][]float64
		want string
	}{
		{"fewer variables", good[:1], "1 variables, the first solution has 2"},
		{"other domain", [][]float64{{0.5, 0.5}, {0.5, 0.5}}, "variable 1 has 2 values, in the first solution 3"},
		{"Inf", [][]float64{{0.5, 0.5}, {0.2, 0.3, math.Inf(1)}}, "variable 1: p(2) = +Inf"},
		{"negative", [][]float64{{1.5, -0.5}, {0.2, 0.3, 0.5}}, "variable 0: p(1) = -0.5"},
	} {
		if err := w.Write(tc.p); err == nil || !strings.HasPrefix(err.Error(), name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q naming %s", tc.name, err, tc.want, name)
		}
	}
	if w.Solutions() != 1 {
		t.Errorf("Solutions() = %d after one good write", w.Solutions())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(good); err == nil || !strings.Contains(err.Error(), "Write after Close") || !strings.HasPrefix(err.Error(), name) {
		t.Errorf("Write after Close: err = %v", err)
	}
	if p, n, err := uai.ReadAnytimeMARFile(name); err != nil || n != 1 || !equalMarginals(p, good) {
		t.Errorf("after failed writes: %v, %d, %v; want the one good solution", p, n, err)
	}
	bad := filepath.Join(t.TempDir(), "no", "such", "dir.MAR")
	if _, err := uai.CreateAnytimeMAR(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("CreateAnytimeMAR in a missing directory: err = %v", err)
	}
}

// TestAnytimeMARFailedWrite writes to /dev/full, where every write fails
// with ENOSPC and a device cannot be truncated: the error names the path
// and sticks.
func TestAnytimeMARFailedWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/full")
	}
	w, err := uai.CreateAnytimeMAR("/dev/full")
	if err != nil {
		t.Skipf("cannot open /dev/full: %v", err)
	}
	defer w.Close()
	p := [][]float64{{0.5, 0.5}}
	err1 := w.Write(p)
	if err1 == nil || !strings.Contains(err1.Error(), "/dev/full") {
		t.Fatalf("Write to /dev/full: err = %v", err1)
	}
	if err2 := w.Write(p); err2 == nil || err2.Error() != err1.Error() || w.Solutions() != 0 {
		t.Errorf("second Write: err = %v (first %v), %d solutions", err2, err1, w.Solutions())
	}
}

// TestAnytimeMARConcurrentReader reads the file over and over while
// solutions are appended: every read must return one of the solutions
// written, complete, and the count must never go down.
func TestAnytimeMARConcurrentReader(t *testing.T) {
	const vars, sols = 3000, 60
	solution := func(k int) [][]float64 {
		p := make([][]float64, vars)
		for i := range p {
			a := float64((k*vars+i)%997) / 997
			p[i] = []float64{a, 1 - a}
		}
		return p
	}
	name := filepath.Join(t.TempDir(), "m.MAR")
	w, err := uai.CreateAnytimeMAR(name)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := 0
		for {
			select {
			case <-done:
				return
			default:
			}
			p, n, err := uai.ReadAnytimeMARFile(name)
			if errors.Is(err, uai.ErrNoSolution) && last == 0 {
				continue
			}
			if err != nil {
				t.Errorf("read after %d solutions: %v", last, err)
				return
			}
			if n < last || !equalMarginals(p, solution(n-1)) {
				t.Errorf("read %d solutions after %d, last one wrong: %t", n, last, !equalMarginals(p, solution(n-1)))
				return
			}
			last = n
		}
	}()
	for k := range sols {
		if err := w.Write(solution(k)); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if p, n, err := uai.ReadAnytimeMARFile(name); err != nil || n != sols || !equalMarginals(p, solution(sols-1)) {
		t.Errorf("final read: %d solutions, %v", n, err)
	}
}

// TestReadAnytimeMARSharedFiles reads every shared .MAR file as an anytime
// file of one solution.
func TestReadAnytimeMARSharedFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dataDir(t), "*.MAR"))
	if err != nil || len(files) == 0 {
		t.Skipf("no .MAR files (%v)", err)
	}
	for _, f := range files {
		want, err := uai.ReadMarginalsFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, n, err := uai.ReadAnytimeMARFile(f)
		if err != nil || n != 1 || !equalMarginals(p, want) {
			t.Errorf("%s: %d solutions, %v", filepath.Base(f), n, err)
		}
	}
}
