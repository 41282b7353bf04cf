package blocked

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFuse: adding (and projecting) an input through its fused dimensions
// gives the same table as through the bucket's, on tables whose inputs
// skip dimensions (zero strides), run contiguously over some and are
// permuted over others; and fusing does merge the contiguous runs. A fuse
// that merged a dimension whose stride does not continue the run fails.
func TestFuse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		dims, use []int // use[k]: the input's dimension order position of bucket dimension k (−1: absent)
		fused     int   // the fused dimensions expected
	}{
		{[]int{2, 3, 4}, []int{0, 1, 2}, 1},        // the input is the table itself
		{[]int{2, 3, 4}, []int{-1, 0, 1}, 2},       // broadcast over the first, then contiguous
		{[]int{2, 2, 2, 2}, []int{1, 0, 2, 3}, 3},  // the first two swapped, the rest continuing
		{[]int{3, 2, 2}, []int{-1, -1, 0}, 2},      // broadcast over a run
		{[]int{2, 3, 2, 3}, []int{0, -1, 1, 2}, 3}, // a hole in the middle
		{[]int{4, 2, 3}, []int{2, 0, 1}, 2},        // a rotation
	} {
		// The input's strides: dimensions in the order use gives.
		str := make([]int, len(tc.dims))
		size, order := 1, make([]int, 0)
		for pos := 0; ; pos++ {
			k := slices.Index(tc.use, pos)
			if k < 0 {
				break
			}
			order = append(order, k)
		}
		for _, k := range order {
			str[k] = size
			size *= tc.dims[k]
		}
		src := make([]float64, size)
		for i := range src {
			src[i] = r.NormFloat64()
		}
		n := 1
		for _, d := range tc.dims {
			n *= d
		}
		fd, fs := fuse(tc.dims, str)
		if len(fd) != tc.fused {
			t.Errorf("dims %v, strides %v: fused into %v, %v; want %d dimensions", tc.dims, str, fd, fs, tc.fused)
		}
		cnt := make([]int, len(tc.dims))
		want, got := make([]float64, n), make([]float64, n)
		addInto(want, src, tc.dims, str, cnt)
		addInto(got, src, fd, fs, cnt)
		if !slices.Equal(got, want) {
			t.Errorf("dims %v, strides %v: addInto fused %v, want %v", tc.dims, str, got, want)
		}
		pw, pg := make([]float64, size), make([]float64, size)
		projectInto(pw, want, tc.dims, str, cnt)
		projectInto(pg, want, fd, fs, cnt)
		if !slices.Equal(pg, pw) {
			t.Errorf("dims %v, strides %v: projectInto fused %v, want %v", tc.dims, str, pg, pw)
		}
	}
}

// TestStrided: addInto and projectInto against the map from each entry's
// multi-index to the input's entry computed afresh, on random dimensions
// and strides (zero strides, one dimension, rows of one, two and more).
func TestStrided(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		nd := 1 + r.IntN(5)
		dims, str := make([]int, nd), make([]int, nd)
		n, size := 1, 1
		for k := range dims {
			dims[k] = 1 + r.IntN(4)
			n *= dims[k]
		}
		for _, k := range r.Perm(nd) {
			if r.IntN(4) == 0 {
				continue // the input does not depend on dimension k
			}
			str[k] = size
			size *= dims[k]
		}
		src := make([]float64, size)
		for i := range src {
			src[i] = r.NormFloat64()
		}
		base := make([]float64, n)
		for i := range base {
			base[i] = r.NormFloat64()
		}
		at := func(e int) int { // src's entry of t's entry e
			i := 0
			for k, d := range dims {
				i += (e % d) * str[k]
				e /= d
			}
			return i
		}
		want := slices.Clone(base)
		for e := range want {
			want[e] += src[at(e)]
		}
		cnt := make([]int, nd)
		for _, f := range []struct {
			name      string
			dims, str []int
		}{{"as is", dims, str}, {"fused", nil, nil}} {
			if f.dims == nil {
				f.dims, f.str = fuse(dims, str)
			}
			got := slices.Clone(base)
			addInto(got, src, f.dims, f.str, cnt)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d, %s: dims %v, strides %v: addInto wrong", trial, f.name, f.dims, f.str)
			}
			pw, pg := make([]float64, size), make([]float64, size)
			for e, v := range base {
				pw[at(e)] += v
			}
			projectInto(pg, base, f.dims, f.str, cnt)
			for i := range pw {
				if d := pg[i] - pw[i]; d > 1e-12 || d < -1e-12 {
					t.Fatalf("trial %d, %s: dims %v, strides %v: projectInto entry %d = %v, want %v", trial, f.name, f.dims, f.str, i, pg[i], pw[i])
				}
			}
		}
	}
}
