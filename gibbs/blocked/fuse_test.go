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
