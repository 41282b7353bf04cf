package diag

import (
	"fmt"
	"math"
)

// Hist1D is a histogram with equal-width bins on a closed interval [lo, hi]:
// bin k covers [lo + k·w, lo + (k+1)·w) with w = (hi − lo)/bins, and the last
// bin also holds hi itself. Samples outside [lo, hi] and NaN samples are not
// dropped silently: they are counted apart and reported by [Hist1D.Outside],
// and they stay in the normalisation of [Hist1D.Probs].
//
// Add allocates nothing. A Hist1D is not safe for concurrent use; give each
// goroutine its own and merge the counts.
type Hist1D struct {
	lo, hi, scale float64
	counts        []float64
	n             int64 // samples added, inside and outside
	below, above  int64
	nan           int64
}

// NewHist1D returns an empty histogram with the given number of bins on
// [lo, hi]. It returns an error if lo or hi is not finite, lo ≥ hi, or
// bins < 1.
func NewHist1D(lo, hi float64, bins int) (*Hist1D, error) {
	scale, err := checkAxis("", lo, hi, bins)
	if err != nil {
		return nil, err
	}
	return &Hist1D{lo: lo, hi: hi, scale: scale, counts: make([]float64, bins)}, nil
}

// checkAxis validates one histogram axis and returns bins/(hi−lo).
func checkAxis(axis string, lo, hi float64, bins int) (float64, error) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo >= hi {
		return 0, fmt.Errorf("diag: histogram %srange [%v, %v]; it must be finite with lo < hi", axis, lo, hi)
	}
	if bins < 1 {
		return 0, fmt.Errorf("diag: histogram %swith %d bins; it needs at least 1", axis, bins)
	}
	scale := float64(bins) / (hi - lo)
	if math.IsInf(scale, 0) || scale == 0 || math.IsInf(hi-lo, 0) {
		return 0, fmt.Errorf("diag: histogram %srange [%v, %v] with %d bins has no representable bin width", axis, lo, hi, bins)
	}
	return scale, nil
}

// bin returns the bin of x on an axis [lo, hi] with n bins, or −1 if x is
// below lo, n if x is above hi, and −2 if x is NaN.
func bin(x, lo, hi, scale float64, n int) int {
	switch {
	case x >= lo && x <= hi:
		k := int((x - lo) * scale)
		if k >= n { // x == hi, or rounding just below hi
			k = n - 1
		}
		return k
	case x < lo:
		return -1
	case x > hi:
		return n
	}
	return -2
}

// Add counts the sample x. It allocates nothing.
func (h *Hist1D) Add(x float64) {
	h.n++
	switch k := bin(x, h.lo, h.hi, h.scale, len(h.counts)); {
	case k == -2:
		h.nan++
	case k < 0:
		h.below++
	case k >= len(h.counts):
		h.above++
	default:
		h.counts[k]++
	}
}

// Reset empties the histogram, keeping its bins.
func (h *Hist1D) Reset() {
	clear(h.counts)
	h.n, h.below, h.above, h.nan = 0, 0, 0, 0
}

// Bins returns the number of bins.
func (h *Hist1D) Bins() int { return len(h.counts) }

// Range returns the interval [lo, hi] the bins cover.
func (h *Hist1D) Range() (lo, hi float64) { return h.lo, h.hi }

// Width returns the bin width (hi − lo)/bins.
func (h *Hist1D) Width() float64 { return (h.hi - h.lo) / float64(len(h.counts)) }

// Center returns the midpoint of bin k, 0 ≤ k < Bins().
func (h *Hist1D) Center(k int) float64 { return h.lo + (float64(k)+0.5)*h.Width() }

// N returns the number of samples added, inside and outside [lo, hi].
func (h *Hist1D) N() int64 { return h.n }

// Outside returns how many of the samples added fell below lo, above hi, or
// were NaN. None of them is in a bin.
func (h *Hist1D) Outside() (below, above, nan int64) { return h.below, h.above, h.nan }

// Counts returns the bin counts. The slice is the histogram's own storage:
// read it, do not modify it; it changes with later calls to Add.
func (h *Hist1D) Counts() []float64 { return h.counts }

// Probs fills dst with the fraction of all samples added that fell in each
// bin, count_k / N(), and returns it. The fractions sum to 1 minus the
// fraction of samples outside the range, so lost mass stays visible. If dst
// has too little capacity a new slice is allocated. With no samples added the
// fractions are all zero.
func (h *Hist1D) Probs(dst []float64) []float64 {
	return fractions(dst, h.counts, h.n, 1)
}

// Density fills dst with the histogram density estimate
// count_k / (N()·Width()), and returns it; it integrates over [lo, hi] to the
// fraction of samples inside the range. dst is handled as in Probs.
func (h *Hist1D) Density(dst []float64) []float64 {
	return fractions(dst, h.counts, h.n, h.Width())
}

// fractions writes counts[k]/(n·cell) into dst, reusing dst when it is big
// enough.
func fractions(dst, counts []float64, n int64, cell float64) []float64 {
	if cap(dst) < len(counts) {
		dst = make([]float64, len(counts))
	}
	dst = dst[:len(counts)]
	if n == 0 {
		clear(dst)
		return dst
	}
	f := 1 / (float64(n) * cell)
	for k, c := range counts {
		dst[k] = c * f
	}
	return dst
}

// Hist2D is a histogram with equal-width cells on a rectangle
// [xlo, xhi] × [ylo, yhi], nx bins along x and ny along y; each axis is
// binned as in [Hist1D]. Cell (i, j) is stored at index i·ny + j (row-major in
// x). Samples with a coordinate outside its range or NaN are counted apart
// ([Hist2D.Outside]) and stay in the normalisation of [Hist2D.Probs].
//
// Add allocates nothing. A Hist2D is not safe for concurrent use.
type Hist2D struct {
	xlo, xhi, xscale float64
	ylo, yhi, yscale float64
	nx, ny           int
	counts           []float64
	n, outside       int64
}

// NewHist2D returns an empty histogram with nx × ny cells on
// [xlo, xhi] × [ylo, yhi]. It returns an error for an axis that [NewHist1D]
// would reject.
func NewHist2D(xlo, xhi float64, nx int, ylo, yhi float64, ny int) (*Hist2D, error) {
	xs, err := checkAxis("x ", xlo, xhi, nx)
	if err != nil {
		return nil, err
	}
	ys, err := checkAxis("y ", ylo, yhi, ny)
	if err != nil {
		return nil, err
	}
	return &Hist2D{
		xlo: xlo, xhi: xhi, xscale: xs,
		ylo: ylo, yhi: yhi, yscale: ys,
		nx: nx, ny: ny, counts: make([]float64, nx*ny),
	}, nil
}

// Add counts the sample (x, y). It allocates nothing.
func (h *Hist2D) Add(x, y float64) {
	h.n++
	i := bin(x, h.xlo, h.xhi, h.xscale, h.nx)
	j := bin(y, h.ylo, h.yhi, h.yscale, h.ny)
	if i < 0 || i >= h.nx || j < 0 || j >= h.ny {
		h.outside++
		return
	}
	h.counts[i*h.ny+j]++
}

// Reset empties the histogram, keeping its cells.
func (h *Hist2D) Reset() {
	clear(h.counts)
	h.n, h.outside = 0, 0
}

// Bins returns the number of bins along x and along y.
func (h *Hist2D) Bins() (nx, ny int) { return h.nx, h.ny }

// Range returns the rectangle [xlo, xhi] × [ylo, yhi] the cells cover.
func (h *Hist2D) Range() (xlo, xhi, ylo, yhi float64) { return h.xlo, h.xhi, h.ylo, h.yhi }

// Width returns the cell widths along x and y.
func (h *Hist2D) Width() (wx, wy float64) {
	return (h.xhi - h.xlo) / float64(h.nx), (h.yhi - h.ylo) / float64(h.ny)
}

// Center returns the midpoint of cell (i, j).
func (h *Hist2D) Center(i, j int) (x, y float64) {
	wx, wy := h.Width()
	return h.xlo + (float64(i)+0.5)*wx, h.ylo + (float64(j)+0.5)*wy
}

// N returns the number of samples added, inside and outside the rectangle.
func (h *Hist2D) N() int64 { return h.n }

// Outside returns how many samples added had a coordinate outside its range
// or NaN. None of them is in a cell.
func (h *Hist2D) Outside() int64 { return h.outside }

// Counts returns the cell counts, cell (i, j) at index i·ny + j. The slice is
// the histogram's own storage: read it, do not modify it.
func (h *Hist2D) Counts() []float64 { return h.counts }

// Probs fills dst with count_ij / N() at index i·ny + j and returns it; see
// [Hist1D.Probs].
func (h *Hist2D) Probs(dst []float64) []float64 {
	return fractions(dst, h.counts, h.n, 1)
}

// Density fills dst with count_ij / (N()·wx·wy) at index i·ny + j and returns
// it; see [Hist1D.Density].
func (h *Hist2D) Density(dst []float64) []float64 {
	wx, wy := h.Width()
	return fractions(dst, h.counts, h.n, wx*wy)
}
