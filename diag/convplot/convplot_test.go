package convplot

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chains returns k chains of n draws f(chain, draw).
func chains(k, n int, f func(c, i int) float64) [][]float64 {
	out := make([][]float64, k)
	for c := range out {
		out[c] = make([]float64, n)
		for i := range out[c] {
			out[c][i] = f(c, i)
		}
	}
	return out
}

// iid returns k chains of n standard normal draws.
func iid(rng *rand.Rand, k, n int) [][]float64 {
	return chains(k, n, func(int, int) float64 { return rng.NormFloat64() })
}

// stuck returns k chains of n normal draws, chain c centred at 3c: chains
// that never visit each other's region.
func stuck(rng *rand.Rand, k, n int) [][]float64 {
	return chains(k, n, func(c, _ int) float64 { return 3*float64(c) + rng.NormFloat64() })
}

// listDir returns the sorted names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// small keeps the pictures small, so that the tests stay fast.
var small = &Options{Width: 3 * 72, Height: 2 * 72}

func TestWriteErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	good := iid(rng, 2, 10)
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string // "" → a fresh temp dir
		qs   []Quantity
		opt  *Options
		want string
	}{
		{"no quantities", "", nil, nil, "no quantities"},
		{"no chains", "", []Quantity{{Name: "a", Chains: good}, {Name: "b"}}, nil, `quantity 1 ("b"): no chains`},
		{"unequal", "", []Quantity{{Name: "x", Chains: [][]float64{good[0], good[1][:9]}}}, nil,
			`quantity 0 ("x"): chain 1 has 9 draws, chain 0 has 10`},
		{"too few", "", []Quantity{{Name: "x", Chains: [][]float64{{1, 2, 3}}}}, nil, "3 draws per chain, need at least 4"},
		{"NaN", "", []Quantity{{Name: "x", Chains: [][]float64{good[0], {1, 2, math.NaN(), 4, 5, 6, 7, 8, 9, 10}}}}, nil,
			`quantity 0 ("x"): chain 1, draw 2 is NaN`},
		{"Inf", "", []Quantity{{Chains: [][]float64{{1, 2, 3, math.Inf(-1)}}}}, nil, `quantity 0 (""): chain 0, draw 3 is -Inf`},
		{"negative Max", "", []Quantity{{Name: "x", Chains: good}}, &Options{Max: -1}, "Max = -1"},
		{"negative width", "", []Quantity{{Name: "x", Chains: good}}, &Options{Width: -1}, "Width"},
		{"huge height", "", []Quantity{{Name: "x", Chains: good}}, &Options{Height: 1e6}, "Height"},
		{"prefix with a slash", "", []Quantity{{Name: "x", Chains: good}}, &Options{Prefix: "../x"}, "Prefix"},
		{"empty dir", "-", []Quantity{{Name: "x", Chains: good}}, nil, "no directory"},
		{"missing dir", filepath.Join(t.TempDir(), "nope"), []Quantity{{Name: "x", Chains: good}}, nil, "no such file"},
		{"dir is a file", file, []Quantity{{Name: "x", Chains: good}}, nil, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			switch dir {
			case "":
				dir = t.TempDir()
			case "-":
				dir = ""
			}
			files, err := Write(dir, tt.qs, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write: err = %v, want one containing %q", err, tt.want)
			}
			if files != nil {
				t.Errorf("Write returned files %v with an error", files)
			}
			if tt.dir == "" {
				if got := listDir(t, dir); len(got) != 0 {
					t.Errorf("Write left %v after an error", got)
				}
			}
		})
	}
}

func TestWriteFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	parent := t.TempDir()
	dir := filepath.Join(parent, "plots")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, parent)
	qs := []Quantity{
		{Name: "x[1]", Chains: iid(rng, 3, 300)},
		{Name: "energy", Chains: stuck(rng, 3, 300)},
		{Name: "", Chains: iid(rng, 3, 300)},
	}
	files, err := Write(dir, qs, &Options{Width: small.Width, Height: small.Height, Prefix: "run1-"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, stem := range []string{"energy", "x_1_", "q2"} {
		for _, kind := range []string{"trace-", "rank-"} {
			want = append(want, "run1-"+kind+stem+".png", "run1-"+kind+stem+".svg")
		}
	}
	want = append(want, "run1-rhat.png", "run1-rhat.svg")
	var got []string
	for _, f := range files {
		if filepath.Dir(f) != dir {
			t.Errorf("file %s is not in %s", f, dir)
		}
		got = append(got, filepath.Base(f))
		checkImage(t, f)
	}
	if !slices.Equal(got, want) {
		t.Errorf("files\n%v, want\n%v", got, want)
	}
	slices.Sort(got)
	if on := listDir(t, dir); !slices.Equal(on, got) {
		t.Errorf("directory holds %v, Write reported %v", on, got)
	}
	if after := listDir(t, parent); !slices.Equal(after, before) {
		t.Errorf("parent directory changed from %v to %v", before, after)
	}
}

// checkImage checks that path is a non-empty valid PNG or SVG file.
func checkImage(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		t.Fatalf("%s is empty", path)
	}
	switch filepath.Ext(path) {
	case ".png":
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	case ".svg":
		if !bytes.HasPrefix(b, []byte("<?xml")) && !bytes.HasPrefix(b, []byte("<svg")) {
			t.Errorf("%s does not start like an SVG file: %.20q", path, b)
		}
		if !bytes.Contains(b, []byte("</svg>")) {
			t.Errorf("%s has no closing </svg>", path)
		}
	default:
		t.Errorf("unexpected file %s", path)
	}
}

func TestWriteDeterministic(t *testing.T) {
	mk := func() []Quantity {
		rng := rand.New(rand.NewPCG(3, 3))
		return []Quantity{{Name: "a", Chains: iid(rng, 2, 100)}, {Name: "b", Chains: stuck(rng, 2, 100)}}
	}
	d1, d2 := t.TempDir(), t.TempDir()
	f1, err := Write(d1, mk(), small)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := Write(d2, mk(), small)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f1 {
		b1, _ := os.ReadFile(f1[i])
		b2, _ := os.ReadFile(f2[i])
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two runs on the same input", filepath.Base(f1[i]))
		}
	}
}

func TestWriteEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	qs := []Quantity{
		{Name: "one chain", Chains: iid(rng, 1, 50)},
		{Name: "four draws", Chains: iid(rng, 3, 4)},
		{Name: "constant", Chains: chains(2, 30, func(int, int) float64 { return 7 })},
		{Name: "frozen", Chains: chains(2, 30, func(c, _ int) float64 { return float64(c) })}, // R̂ = +Inf
		{Name: "spin", Chains: chains(2, 5000, func(int, int) float64 { return float64(2*rng.IntN(2) - 1) })},
		{Name: "nine chains", Chains: iid(rng, 9, 40)},
		{Name: "huge", Chains: chains(2, 20, func(c, i int) float64 { return math.MaxFloat64 * float64(1-2*((c+i)%2)) })},
		{Name: "tiny", Chains: chains(2, 20, func(c, i int) float64 { return 1 + float64(i%3)*0x1p-52 })},
	}
	dir := t.TempDir()
	files, err := Write(dir, qs, &Options{Max: len(qs), Width: small.Width, Height: small.Height})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*(2*len(qs)+1) {
		t.Errorf("%d files, want %d", len(files), 2*(2*len(qs)+1))
	}
	if !strings.HasSuffix(files[0], "trace-frozen.png") {
		t.Errorf("first file %s, want the trace of the frozen quantity (R̂ = ∞)", files[0])
	}
	// R̂ is NaN for a constant quantity and for one whose variance
	// overflows; they come last, by name.
	if !strings.HasSuffix(files[len(files)-7], "rank-constant.svg") || !strings.HasSuffix(files[len(files)-3], "rank-huge.svg") {
		t.Errorf("last quantity files %s, %s, want the constant then the huge quantity (R̂ undefined)",
			files[len(files)-7], files[len(files)-3])
	}
}

func TestWriteRefusesLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "victim")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "rhat.svg")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	_, err := Write(dir, []Quantity{{Name: "x", Chains: iid(rng, 2, 20)}}, small)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v, want a refusal to write through a link", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was overwritten")
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"rhat.svg"}) {
		t.Errorf("Write wrote %v before refusing", got)
	}
}

func TestSelectWorst(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var qs []Quantity
	for i := range 10 {
		qs = append(qs, Quantity{Name: string(rune('a' + i)), Chains: iid(rng, 4, 200)})
	}
	qs[7].Chains = stuck(rng, 4, 200)
	qs[2].Chains = chains(4, 200, func(int, int) float64 { return 1 }) // constant: R̂ NaN, never worst
	infos, err := summarize(qs)
	if err != nil {
		t.Fatal(err)
	}
	sel := selectWorst(qs, infos, 3)
	if len(sel) != 3 || sel[0] != 7 {
		t.Fatalf("selected %v, want 3 quantities starting with the stuck one, 7", sel)
	}
	for j := 1; j < len(sel); j++ {
		if infos[sel[j]].rhat > infos[sel[j-1]].rhat {
			t.Errorf("selection %v not in decreasing split-R̂", sel)
		}
	}
	all := selectWorst(qs, infos, 100)
	if len(all) != len(qs) || all[len(all)-1] != 2 {
		t.Errorf("full order %v, want all quantities with the constant one, 2, last", all)
	}

	// Equal R̂ and ESS: by name, then by index.
	same := iid(rng, 2, 50)
	ties := []Quantity{{Name: "b", Chains: same}, {Name: "a", Chains: same}, {Name: "a", Chains: same}}
	infos, err = summarize(ties)
	if err != nil {
		t.Fatal(err)
	}
	if got := selectWorst(ties, infos, 3); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("ties ordered %v, want [1 2 0]", got)
	}
}

func TestStems(t *testing.T) {
	used := map[string]bool{}
	long := strings.Repeat("v", 100)
	for _, tt := range []struct {
		i          int
		name, want string
	}{
		{0, "x[1,2]", "x_1_2_"},
		{1, "x(1,2)", "x_1_2_-2"},
		{2, "x_1_2_", "x_1_2_-3"},
		{3, "X[1,2]", "X_1_2_-4"}, // file systems may ignore case
		{4, "", "q4"},
		{5, "../../etc/passwd", ".._.._etc_passwd"},
		{6, "β·E", "__E"},
		{7, long, long[:maxStem]},
		{8, "rhat", "rhat"},
	} {
		if got := uniqueStem(stem(tt.i, tt.name), used); got != tt.want {
			t.Errorf("stem of %q = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := label(3, ""); got != "q3" {
		t.Errorf("label of an empty name = %q", got)
	}
	if got := []rune(label(0, long)); len(got) != maxLabel || got[maxLabel-1] != '…' {
		t.Errorf("long label = %q", string(got))
	}
}

func TestRunningRHat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ns, r, err := runningRHat(stuck(rng, 2, 1000), runningPoints)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != runningPoints || ns[0] != runningStart || ns[len(ns)-1] != 1000 {
		t.Errorf("lengths %d…%d (%d points), want %d…1000 (%d)", ns[0], ns[len(ns)-1], len(ns), runningStart, runningPoints)
	}
	for j, v := range r {
		if !(v > 1.5) {
			t.Errorf("stuck chains: split-R̂ of the first %d draws = %v, want > 1.5", ns[j], v)
		}
	}
	_, r, err = runningRHat(iid(rng, 4, 2000), runningPoints)
	if err != nil {
		t.Fatal(err)
	}
	if last := r[len(r)-1]; !(math.Abs(last-1) < 0.01) {
		t.Errorf("iid chains: split-R̂ of all draws = %v, want ≈ 1", last)
	}
	ns, _, err = runningRHat(iid(rng, 1, 7), runningPoints)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns, []int{7}) {
		t.Errorf("7 draws: lengths %v, want [7]", ns)
	}
}

func TestRankCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, bins = 1000, 20
	for _, tt := range []struct {
		name   string
		chains [][]float64
		flat   bool
	}{
		{"iid", iid(rng, 4, n), true},
		{"ties", chains(3, n, func(int, int) float64 { return float64(rng.IntN(3)) }), true},
		{"all equal", chains(2, n, func(int, int) float64 { return 5 }), true},
		{"stuck", stuck(rng, 2, n), false},
	} {
		counts := rankCounts(tt.chains, bins)
		flat := true
		for k, c := range counts {
			sum := 0.0
			for _, v := range c {
				sum += v
				// Independent draws: a bin's count is about binomial with
				// mean 50 and sd 7; 35 is > 5 sd away from any flat count.
				if math.Abs(v-n/bins) > 35 {
					flat = false
				}
			}
			if math.Abs(sum-n) > 1e-9 {
				t.Errorf("%s: chain %d's counts sum to %v, want %d", tt.name, k, sum, n)
			}
		}
		if flat != tt.flat {
			t.Errorf("%s: flat = %v, want %v: %v", tt.name, flat, tt.flat, counts)
		}
	}
}

func TestThin(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, 100_003)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	x[12345], x[67890] = 100, -100
	xy := thin(x, maxTracePoints)
	if len(xy) > maxTracePoints {
		t.Errorf("%d points, want at most %d", len(xy), maxTracePoints)
	}
	hi, lo := false, false
	for j, p := range xy {
		if j > 0 && !(p.X > xy[j-1].X) {
			t.Fatalf("points not in order at %d", j)
		}
		if p.Y != x[int(p.X)-1] {
			t.Fatalf("point %d is not a draw", j)
		}
		hi, lo = hi || p.Y == 100, lo || p.Y == -100
	}
	if !hi || !lo {
		t.Errorf("thinning lost a spike")
	}
	if got := thin(x[:10], maxTracePoints); len(got) != 10 || got[9].X != 10 {
		t.Errorf("short chain thinned to %v", got)
	}
}
