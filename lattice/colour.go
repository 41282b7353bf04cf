package lattice

import "fmt"

// Colouring returns the sites partitioned into colour classes of which no
// two sites are coupled, each class in increasing order: the classes of
// chromatic.New, whose sites are conditionally independent given the
// other classes and can be updated in parallel.
//
// When every axis has an even number of sites and every offset has an odd
// coordinate sum (the nearest-neighbour kernel on an even torus), the two
// classes of a checkerboard suffice. Otherwise the colouring is a product of
// one colouring per axis: with R the largest |c_a| of the offsets along axis
// a, the N positions of the axis are cut into b = ⌊N/(R+1)⌋ consecutive
// segments of ⌊N/b⌋ or ⌈N/b⌉ ≥ R+1 positions and each position is coloured by
// its index within its segment, so that positions within cyclic distance R
// differ; two coupled sites differ along an axis where their offset is
// non-zero, hence in colour. That gives Π_a ⌈N/b⌉ classes (3^Dim for the
// nearest-neighbour kernel on an odd torus).
//
// Colouring refuses, with a *ParamsError, a lattice where no two sites can
// share a class (a kernel that reaches across the torus, such as the
// full-torus power law): it has no parallel sweep.
func (l *Lattice) Colouring() ([][]int, error) {
	colour, classes := l.checkerboard()
	if colour == nil {
		var err error
		if colour, classes, err = l.product(); err != nil {
			return nil, err
		}
	}
	if classes >= l.n {
		return nil, &ParamsError{fmt.Errorf("kernel %v couples sites across the whole %d-site axis: every site needs its own colour, so a chromatic sweep has nothing to run in parallel", l.p.Coupling, l.size)}
	}
	sizes := make([]int, classes)
	for i := range l.n {
		sizes[colour(i)]++
	}
	out := make([][]int, classes)
	for c := range out {
		out[c] = make([]int, 0, sizes[c])
	}
	for i := range l.n {
		c := colour(i)
		out[c] = append(out[c], i)
	}
	return out, nil
}

// checkerboard returns the parity colouring if it is proper.
func (l *Lattice) checkerboard() (func(i int) int, int) {
	if l.size%2 != 0 {
		return nil, 0
	}
	for k := range l.ents {
		if c := l.geo.Components(&l.ents[k]); (c[0]+c[1]+c[2])%2 == 0 {
			return nil, 0
		}
	}
	var buf [3]int
	return func(i int) int {
		s := 0
		for _, c := range l.Coords(buf[:0], i) {
			s += c
		}
		return s % 2
	}, 2
}

// product returns the product of per-axis segment colourings.
func (l *Lattice) product() (func(i int) int, int, error) {
	var axes [3][]int
	strides := [3]int{}
	total := 1
	for a := range l.dim {
		r := 0
		for k := range l.ents {
			r = max(r, abs32(l.geo.Components(&l.ents[k])[a]))
		}
		col, m := axisColouring(l.size, r)
		if err := checkAxis(col, r); err != nil {
			return nil, 0, fmt.Errorf("lattice: axis %d: %w", a, err)
		}
		axes[a] = col
		strides[a] = total
		total *= m
	}
	var buf [3]int
	return func(i int) int {
		c := 0
		for a, x := range l.Coords(buf[:0], i) {
			c += axes[a][x] * strides[a]
		}
		return c
	}, total, nil
}

// axisColouring colours the n positions of a cycle so that positions within
// cyclic distance r differ: b = ⌊n/(r+1)⌋ segments of length ≥ r+1, each
// position coloured by its index within its segment. It returns the colours
// and their number.
func axisColouring(n, r int) ([]int, int) {
	col := make([]int, n)
	if r == 0 {
		return col, 1
	}
	b := max(n/(r+1), 1)
	base, extra := n/b, n%b
	x := 0
	for s := range b {
		length := base
		if s < extra {
			length++
		}
		for t := range length {
			col[x] = t
			x++
		}
	}
	m := base
	if extra > 0 {
		m++
	}
	return col, m
}

// checkAxis verifies that positions within cyclic distance r have distinct
// colours (O(n·r)).
func checkAxis(col []int, r int) error {
	n := len(col)
	for x := range n {
		for t := 1; t <= r && t < n; t++ {
			if y := (x + t) % n; col[x] == col[y] {
				return fmt.Errorf("internal error: positions %d and %d (distance %d ≤ %d) share colour %d", x, y, t, r, col[x])
			}
		}
	}
	return nil
}

func abs32(v int32) int {
	if v < 0 {
		return int(-v)
	}
	return int(v)
}
