package edgelist_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/edgelist"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/potts"
)

// encode writes the pairs and fails the test on an error.
func encode(t testing.TB, n, q int, i, j []int32, w []float64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := edgelist.Write(&buf, n, q, i, j, w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mustSameGraph fails unless a and b have the same compiled arrays.
func mustSameGraph(t *testing.T, a, b *factorgraph.Graph) {
	t.Helper()
	k1, k2 := reflect.ValueOf(compiled.GraphOf(a)).Elem(), reflect.ValueOf(compiled.GraphOf(b)).Elem()
	for k := range k1.NumField() {
		if f := k1.Type().Field(k); f.IsExported() && !reflect.DeepEqual(k1.Field(k).Interface(), k2.Field(k).Interface()) {
			t.Fatalf("kernel %s differs", f.Name)
		}
	}
	if a.String() != b.String() || a.NumFactors() != b.NumFactors() || a.L() != b.L() || a.Psi() != b.Psi() {
		t.Fatalf("graphs differ:\n%s\n%s", a, b)
	}
}

// TestRoundTripPotts: the paper's Gaussian-kernel Potts model written and
// read back is potts.New's graph, array for array, and Gibbs and
// Poisson-Gibbs run the same chains on both from a seed.
func TestRoundTripPotts(t *testing.T) {
	p := potts.Paper()
	want, err := potts.New(p)
	if err != nil {
		t.Fatal(err)
	}
	a, b, w := p.Pairs()
	in := encode(t, p.Width*p.Width, p.States, a, b, w)
	if len(in) != edgelist.HeaderSize+edgelist.RecordSize*len(w)+edgelist.TrailerSize {
		t.Fatalf("%d bytes for %d pairs", len(in), len(w))
	}
	got, err := edgelist.Read(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	mustSameGraph(t, want, got)
	pr, err := edgelist.ReadPairs(onlyReader{bytes.NewReader(in)}) // length unknown: the slices grow
	if err != nil {
		t.Fatal(err)
	}
	if pr.N != p.Width*p.Width || pr.Q != p.States || !slices.Equal(pr.I, a) || !slices.Equal(pr.J, b) || !slices.Equal(pr.W, w) || cap(pr.W) != len(w) {
		t.Fatalf("pairs differ (n %d, q %d, %d pairs, capacity %d)", pr.N, pr.Q, len(pr.W), cap(pr.W))
	}
	for _, s := range []struct {
		name string
		make func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error)
	}{
		{"gibbs", func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error) { return site.NewGibbs(g, r, nil) }},
		{"pgibbs", func(g *factorgraph.Graph, r *rand.Rand) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(g, r, nil)
		}},
	} {
		s1, err := s.make(want, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		s2, err := s.make(got, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		for k := range 3000 {
			s1.Step()
			s2.Step()
			if k%101 == 0 && !slices.Equal(s1.State(), s2.State()) {
				t.Fatalf("%s: states differ after %d updates", s.name, k+1)
			}
		}
		if !slices.Equal(s1.State(), s2.State()) || s1.Stats() != s2.Stats() {
			t.Fatalf("%s: states or stats differ after 3000 updates", s.name)
		}
	}
}

// TestFile: WriteFile and ReadFile, the length checked by Stat (a file cut
// short is refused before its pairs are read), errors naming the file.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "ring.pgel")
	i, j, w := []int32{0, 1, 2}, []int32{1, 2, 0}, []float64{0.5, -1, 2}
	if err := edgelist.WriteFile(name, 3, 4, i, j, w); err != nil {
		t.Fatal(err)
	}
	g, err := edgelist.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(4))
	for k := range w {
		b.AddFactor(factorgraph.NewPotts(int(i[k]), int(j[k]), w[k]))
	}
	want, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	mustSameGraph(t, want, g)

	in, _ := os.ReadFile(name)
	cut := filepath.Join(dir, "cut.pgel")
	os.WriteFile(cut, in[:len(in)-9], 0o644)
	if _, err := edgelist.ReadFile(cut); err == nil || !strings.Contains(err.Error(), "cut.pgel: edgelist: byte 71: truncated: 3 pairs make a file of 80 bytes, the input has 71") {
		t.Errorf("cut file: %v", err)
	}
	long := filepath.Join(dir, "long.pgel")
	os.WriteFile(long, append(slices.Clone(in), 0), 0o644)
	if _, err := edgelist.ReadFile(long); err == nil || !strings.Contains(err.Error(), "byte 80: 1 bytes after the trailer") {
		t.Errorf("long file: %v", err)
	}
	// A file read from an offset: the length is counted from there.
	f, err := os.Open(long)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := edgelist.Read(f); err == nil {
		t.Error("long file read")
	}
	bad := filepath.Join(dir, "bad.pgel")
	if err := edgelist.WriteFile(bad, 3, 4, i, j, []float64{1, math.NaN(), 1}); err == nil || !strings.Contains(err.Error(), "bad.pgel: edgelist: byte 48 (pair 1): weight NaN") {
		t.Errorf("WriteFile NaN: %v", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile of an invalid model left a file: %v", err)
	}
	if _, err := edgelist.ReadFile(filepath.Join(dir, "missing.pgel")); err == nil || !strings.Contains(err.Error(), "missing.pgel") {
		t.Errorf("missing file: %v", err)
	}
}

// onlyReader hides every method but Read: an input of unknown length.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// header returns a header of the given fields.
func header(magic string, version, n, q uint32, m uint64) []byte {
	b := append([]byte(magic), make([]byte, 20)...)
	binary.LittleEndian.PutUint32(b[4:], version)
	binary.LittleEndian.PutUint32(b[8:], n)
	binary.LittleEndian.PutUint32(b[12:], q)
	binary.LittleEndian.PutUint64(b[16:], m)
	return b
}

// record returns a record.
func record(i, j int32, w float64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(i))
	b = binary.LittleEndian.AppendUint32(b, uint32(j))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(w))
}

// trailer returns a trailer.
func trailer(m uint64) []byte { return binary.LittleEndian.AppendUint64(nil, m) }

// TestReadErrors: every malformed input is refused with an error naming
// the byte and the pair, never a panic, on inputs of known and of unknown
// length (the messages of a cut input differ: a known length is checked
// before the pairs are read).
func TestReadErrors(t *testing.T) {
	good := slices.Concat(header("PGEL", 1, 4, 2, 2), record(0, 1, 1), record(2, 3, -1), trailer(2))
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	for _, c := range []struct {
		name           string
		in             []byte
		opts           edgelist.Options
		known, unknown string // the error on a *bytes.Reader and on a plain reader ("" for the same)
	}{
		{"empty", nil, edgelist.Options{}, "byte 0: truncated: the input ends in the header", ""},
		{"short header", good[:10], edgelist.Options{}, "byte 10: truncated: the input ends in the header", ""},
		{"magic", cat([]byte("PGEK"), good[4:]), edgelist.Options{}, `byte 0: magic "PGEK": want "PGEL"`, ""},
		{"text", []byte("MARKOV 1 2 1 1 0 2 0.5 0.5 0.25 1"), edgelist.Options{}, `byte 0: magic "MARK"`, ""},
		{"version", cat(header("PGEL", 2, 4, 2, 2), good[24:]), edgelist.Options{}, "byte 4: version 2: want 1", ""},
		{"no variables", cat(header("PGEL", 1, 0, 2, 0), trailer(0)), edgelist.Options{}, "byte 8: 0 variables: want 1 to 268435456", ""},
		{"too many variables", cat(header("PGEL", 1, 1<<31, 2, 0), trailer(0)), edgelist.Options{}, "byte 8: 2147483648 variables", ""},
		{"variables over the limit", good, edgelist.Options{MaxVars: 3}, "byte 8: 4 variables: want 1 to 3", ""},
		{"no states", cat(header("PGEL", 1, 4, 0, 0), trailer(0)), edgelist.Options{}, "byte 12: 0 states", ""},
		{"absurd pairs", cat(header("PGEL", 1, 4, 2, 1<<40), trailer(0)), edgelist.Options{}, "byte 16: 1099511627776 pairs (17592186044416 bytes): more than the limit of 2147483648 pairs", ""},
		{"absurd pairs overflow", cat(header("PGEL", 1, 4, 2, math.MaxUint64), trailer(0)), edgelist.Options{MaxPairs: math.MaxInt64}, "byte 16: 18446744073709551615 pairs", ""},
		{"pairs over the limit", good, edgelist.Options{MaxPairs: 1}, "byte 16: 2 pairs (32 bytes): more than the limit of 1 pairs", ""},
		{"lying count", cat(header("PGEL", 1, 4, 2, 1000), good[24:]), edgelist.Options{},
			"byte 64: truncated: 1000 pairs make a file of 16032 bytes, the input has 64", "byte 64 (pair 2): truncated: the input ends at pair 2 of 1000"},
		{"cut in a pair", good[:30], edgelist.Options{}, "byte 30: truncated: 2 pairs make a file of 64 bytes", "byte 30 (pair 0): truncated: the input ends at pair 0 of 2"},
		{"cut at a pair", good[:40], edgelist.Options{}, "byte 40: truncated", "byte 40 (pair 1): truncated: the input ends at pair 1 of 2"},
		{"cut in the trailer", good[:60], edgelist.Options{}, "byte 60: truncated", "byte 60: truncated: the input ends in the trailer"},
		{"no trailer", good[:56], edgelist.Options{}, "byte 56: truncated", "byte 56: truncated: the input ends in the trailer"},
		{"trailer", cat(good[:56], trailer(3)), edgelist.Options{}, "byte 56: trailer 3: want 2", ""},
		{"trailing data", cat(good, []byte{0}), edgelist.Options{}, "byte 64: 1 bytes after the trailer", "byte 64: data after the trailer"},
		{"i out of range", cat(good[:24], record(4, 1, 1), good[40:]), edgelist.Options{}, "byte 24 (pair 0): variable i = 4 out of range [0, 4)", ""},
		{"j negative", cat(good[:40], record(2, -3, 1), good[56:]), edgelist.Options{}, "byte 44 (pair 1): variable j = -3 out of range [0, 4)", ""},
		{"i = j", cat(good[:40], record(2, 2, 1), good[56:]), edgelist.Options{}, "byte 44 (pair 1): i = j = 2", ""},
		{"NaN", cat(good[:40], record(2, 3, math.NaN()), good[56:]), edgelist.Options{}, "byte 48 (pair 1): weight NaN: want a finite number", ""},
		{"Inf", cat(good[:24], record(0, 1, math.Inf(-1)), good[40:]), edgelist.Options{}, "byte 32 (pair 0): weight -Inf", ""},
	} {
		for _, known := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(c.in)
			want := c.known
			if !known {
				r = onlyReader{r}
				if c.unknown != "" {
					want = c.unknown
				}
			}
			_, err := c.opts.Read(r)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s (length known %v): error %v, want %q", c.name, known, err, want)
			}
		}
	}
	if _, err := edgelist.Read(bytes.NewReader(good)); err != nil {
		t.Errorf("the good input: %v", err)
	}
	// A failing reader's error is returned with its offset.
	boom := errors.New("boom")
	if _, err := edgelist.Read(io.MultiReader(bytes.NewReader(good[:30]), errReader{boom})); !errors.Is(err, boom) || !strings.Contains(err.Error(), "byte 30") {
		t.Errorf("read error: %v", err)
	}
}

// errReader fails every read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestWriteErrors: Write checks everything and writes nothing on an error.
func TestWriteErrors(t *testing.T) {
	i, j, w := []int32{0, 1}, []int32{1, 2}, []float64{1, 2}
	for _, c := range []struct {
		name    string
		n, q    int
		i, j    []int32
		w       []float64
		wantErr string
	}{
		{"lengths", 3, 2, i, j[:1], w, "2, 1 and 2 values"},
		{"n", 0, 2, i, j, w, "byte 8: 0 variables"},
		{"q", 3, 0, i, j, w, "byte 12: 0 states"},
		{"range", 2, 2, i, j, w, "byte 44 (pair 1): variable j = 2 out of range [0, 2)"},
		{"same", 3, 2, i, []int32{0, 2}, w, "byte 28 (pair 0): i = j = 0"},
		{"inf", 3, 2, i, j, []float64{1, math.Inf(1)}, "byte 48 (pair 1): weight +Inf"},
	} {
		var buf bytes.Buffer
		err := edgelist.Write(&buf, c.n, c.q, c.i, c.j, c.w)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) || buf.Len() != 0 {
			t.Errorf("%s: error %v (%d bytes written), want %q", c.name, err, buf.Len(), c.wantErr)
		}
	}
	var buf bytes.Buffer
	if err := edgelist.Write(&buf, 1, 1, nil, nil, nil); err != nil || buf.Len() != 32 {
		t.Fatalf("no pairs: %v, %d bytes", err, buf.Len())
	}
	if g, err := edgelist.Read(&buf); err != nil || g.NumVars() != 1 || g.NumFactors() != 0 {
		t.Fatalf("no pairs read back: %v", err)
	}
}

// TestCorrupt: inputs cut or changed at random bytes (fixed seed) are read
// or refused, never a panic, and what is read is a valid graph. (The format
// has no checksum: a changed weight, variable or header count within its
// limits reads as another valid model.)
func TestCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	n := 50
	i, j, w := make([]int32, 200), make([]int32, 200), make([]float64, 200)
	for k := range w {
		i[k], j[k], w[k] = int32(r.IntN(n)), int32(r.IntN(n-1)), r.NormFloat64()
		if j[k] >= i[k] {
			j[k]++
		}
	}
	good := encode(t, n, 3, i, j, w)
	for k := range 2000 {
		in := slices.Clone(good)
		switch k % 3 {
		case 0:
			in = in[:r.IntN(len(in))]
		case 1:
			in[r.IntN(len(in))] ^= byte(1 << r.IntN(8))
		default:
			in[r.IntN(len(in))] = byte(r.IntN(256))
		}
		for _, rd := range []io.Reader{bytes.NewReader(in), onlyReader{bytes.NewReader(in)}} {
			// A changed n is a valid header: MaxVars keeps the graph small.
			g, err := edgelist.Options{MaxVars: 1 << 12}.Read(rd)
			if err == nil && (g.NumVars() < 1 || g.NumFactors() > 200) {
				t.Fatalf("corrupt input %d read as %d variables, %d factors", k, g.NumVars(), g.NumFactors())
			}
		}
	}
}

// BenchmarkRead reads the Gaussian-kernel Potts model of width 80
// (3.9·10⁶ pairs, 62 MB): the pairs alone (ReadPairs) and the graph built
// (Read). It reports pairs/s.
func BenchmarkRead(b *testing.B) {
	p := potts.Paper()
	p.Width = 80
	a, c, w := p.Pairs()
	in := encode(b, p.Width*p.Width, p.States, a, c, w)
	for _, bc := range []struct {
		name string
		read func(r io.Reader) error
	}{
		{"pairs", func(r io.Reader) error { _, err := edgelist.ReadPairs(r); return err }},
		{"graph", func(r io.Reader) error { _, err := edgelist.Read(r); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for range b.N {
				if err := bc.read(bytes.NewReader(in)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
