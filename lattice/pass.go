package lattice

import (
	"errors"
	"math"
	"sync"

	"github.com/pgibbs/pgibbs/internal/compiled"
)

// pass is a Measurer's measurement of a state: one pass over the sites, line
// by line along the last axis, with the neighbour arithmetic inline (no call
// or interface per pair), that accumulates
//
//   - the spins' sum per coordinate along every axis (2-state and
//     continuous spins: Σ x; q > 2 Potts spins: the count of each state),
//     from which the order parameter, M2 and the Fourier sums of SK at
//     k_min = 2π/N follow in O(N) (the sums over the sites with one
//     coordinate c share the phase e^{i k c}, so a sum over n sites becomes
//     one over N coordinates);
//   - on nearest-neighbour lattices the pairs (i, i + e_a), each once, in
//     the same loop; on other lattices whose energy is exact, one sum a
//     coupled offset over every site (O(n·K)), the pair function's values
//     summed per offset (integers for discrete spins) before they are
//     weighted by J_k.
//
// The values are those of Energy, Magnetisation and structure to within
// floating-point rounding (the sums are taken in another order). A pass
// does not check the state: the Measurer checks what a user gives it.
//
// With w workers (setWorkers) the lines are cut into w ranges, each summed
// into a part of its own by a goroutine (the first by the caller's), and
// the parts are added in order: the same state gives the same values for a
// given w (and for any w on discrete spins, whose sums are integers).
type pass struct {
	l      *Lattice
	n0, n1 int // planes and rows of lines (1 for the axes a lattice of lower dimension lacks)
	comps  int // components of a spin's vector form: q for Potts spins with q > 2, else 1
	counts bool
	nn     bool // nearest-neighbour pairs in the line loop

	parts    []*part
	pool     *passPool // the goroutines of parts 1, 2, …, or nil
	cos, sin []float64 // e^{2πic/N}
	cnt      []int64   // the state counts, for order

	// What the parts share during a pass.
	x      []float64
	energy bool
}

// part is what one worker of a pass sums over its lines.
type part struct {
	_       [64]byte // parts written by different goroutines share no cache line
	tot, ab float64  // Σ of the sum form; pair sum (products, or agreements)
	bad     int      // values that are not states (q > 2 Potts spins)
	// axis[p][c·comps + comp]: the sum of component comp (a state count,
	// or Σ x) over the sites whose coordinate along padded axis p
	// (compiled.Geometry) is c.
	axis [3][]float64
	line []float64 // a line's state counts (q > 2)
	off  []float64 // per-offset pair sums (exact energy, not nearest-neighbour)
	_    [64]byte
}

// newPass returns the pass of l, with one worker.
func newPass(l *Lattice) *pass {
	p := &pass{l: l, n0: 1, n1: 1, comps: 1}
	if l.dim == 3 {
		p.n0 = l.size
	}
	if l.dim >= 2 {
		p.n1 = l.size
	}
	if l.kind == PottsSpins && l.q > 2 {
		p.comps, p.counts = l.q, true
	}
	if l.kind != ContinuousSpins {
		p.cnt = make([]int64, l.q)
	}
	_, p.nn = l.p.Coupling.(NearestNeighbour)
	p.nn = p.nn && len(l.ents) == 2*l.dim
	p.cos, p.sin = make([]float64, l.size), make([]float64, l.size)
	for c := range l.size {
		p.cos[c], p.sin[c] = math.Cos(2*math.Pi*float64(c)/float64(l.size)), math.Sin(2*math.Pi*float64(c)/float64(l.size))
	}
	p.parts = []*part{p.newPart()}
	return p
}

// newPart returns a part's scratch.
func (p *pass) newPart() *part {
	l := p.l
	pt := &part{}
	for a := 3 - l.dim; a < 3; a++ {
		pt.axis[a] = make([]float64, l.size*p.comps)
	}
	if p.counts {
		pt.line = make([]float64, l.q)
	}
	return pt
}

// setWorkers makes the pass run on w goroutines (at most one a line).
func (p *pass) setWorkers(w int) {
	w = max(1, min(w, p.n0*p.n1))
	if w == len(p.parts) {
		return
	}
	if p.pool != nil {
		p.pool.stop()
		p.pool = nil
	}
	for len(p.parts) < w {
		p.parts = append(p.parts, p.newPart())
	}
	p.parts = p.parts[:w]
	if w > 1 {
		p.pool = startPassPool(p)
	}
}

// passPool runs parts 1, 2, … of a pass: start[k−1] receives a signal for
// part k, which sums its lines and calls wg.Done. It holds the pass, not
// the Measurer, whose cleanup stops it.
type passPool struct {
	start []chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func startPassPool(p *pass) *passPool {
	pp := &passPool{start: make([]chan struct{}, len(p.parts)-1)}
	for k := range pp.start {
		ch := make(chan struct{}, 1)
		pp.start[k] = ch
		go func() {
			for range ch {
				p.sumPart(k + 1)
				pp.wg.Done()
			}
		}()
	}
	return pp
}

func (pp *passPool) stop() {
	pp.once.Do(func() {
		for _, ch := range pp.start {
			close(ch)
		}
	})
}

// errBadValue reports a value a pass cannot count (the Measurer then names
// the site with CheckState).
var errBadValue = errors.New("lattice: a site holds a value outside its domain")

// measurement is one entry of each Series.
type measurement struct{ e, m, m2, sk float64 }

// run measures x. With energy false it leaves e NaN (the caller's
// Monte Carlo estimate). It returns errBadValue if a q > 2 Potts site's
// value is not a state (other values are not checked).
func (p *pass) run(x []float64, energy bool) (measurement, error) {
	sum := p.sumParts(x, energy)
	if sum.bad > 0 {
		return measurement{}, errBadValue
	}
	var m measurement
	scale := p.order(sum, &m)
	m.sk = p.structureFactor(sum, scale)
	m.e = math.NaN()
	if energy {
		m.e = p.energyPerSite(sum)
	}
	return m, nil
}

// sumParts sums x's lines on the parts (part 0 on this goroutine, the
// others on the pool) and returns part 0 holding the parts' sums, added in
// order.
func (p *pass) sumParts(x []float64, energy bool) *part {
	p.x, p.energy = x, energy
	if pp := p.pool; pp != nil {
		pp.wg.Add(len(pp.start))
		for _, ch := range pp.start {
			ch <- struct{}{}
		}
		p.sumPart(0)
		pp.wg.Wait()
	} else {
		p.sumPart(0)
	}
	p.x = nil
	sum := p.parts[0]
	for _, pt := range p.parts[1:] {
		sum.tot += pt.tot
		sum.ab += pt.ab
		sum.bad += pt.bad
		for a := range pt.axis {
			for c, v := range pt.axis[a] {
				sum.axis[a][c] += v
			}
		}
		for k, v := range pt.off {
			sum.off[k] += v
		}
	}
	return sum
}

// order sets m's order parameter and M2 from the sums, and returns the
// scale of the Potts components, √(q/(q − 1)) (1 for other spins).
func (p *pass) order(sum *part, m *measurement) (scale float64) {
	l := p.l
	n := l.size
	tot, ax2 := sum.tot, sum.axis[2]
	nf := float64(l.n)
	scale = 1.0
	if p.counts {
		scale = math.Sqrt(float64(l.q) / float64(l.q-1))
		clear(p.cnt)
		for c := range n {
			for v := range l.q {
				p.cnt[v] += int64(ax2[c*p.comps+v])
			}
		}
	}
	switch {
	case l.kind == ContinuousSpins:
		m.m = math.Abs(tot) / nf
		m.m2 = (tot / nf) * (tot / nf)
	case p.counts:
		m.m = l.order(p.cnt)
		for v := range l.q {
			s := scale * (float64(p.cnt[v]) - nf/float64(l.q))
			m.m2 += (s / nf) * (s / nf)
		}
	default:
		ones := int64(tot)
		p.cnt[0], p.cnt[1] = int64(l.n)-ones, ones
		m.m = l.order(p.cnt)
		s := 2*tot - nf
		m.m2 = (s / nf) * (s / nf)
	}
	return scale
}

// structureFactor returns SK from the per-coordinate sums of σ (see
// Series).
func (p *pass) structureFactor(sum *part, scale float64) float64 {
	l := p.l
	n := l.size
	nf := float64(l.n)
	per := float64(l.n / n) // sites sharing a coordinate
	sk := 0.0
	for a := 3 - l.dim; a < 3; a++ {
		ax := sum.axis[a]
		for comp := range p.comps {
			var re, im float64
			for c := range n {
				v := ax[c*p.comps+comp]
				var s float64
				switch {
				case l.kind == ContinuousSpins:
					s = v
				case p.counts:
					s = scale * (v - per/float64(l.q))
				default:
					s = 2*v - per
				}
				re += s * p.cos[c]
				im += s * p.sin[c]
			}
			sk += (re*re + im*im) / nf
		}
	}
	return sk / float64(l.dim)
}

// energyPerSite returns H/n from the sums of the pairs.
func (p *pass) energyPerSite(sum *part) float64 {
	l := p.l
	nf := float64(l.n)
	if p.nn {
		return -l.Coupling(0) * p.pairSum(sum.ab, sum.tot, 2*l.dim) / nf
	}
	e := 0.0
	for k, s := range sum.off {
		e += l.Coupling(k) * p.pairSum(s, sum.tot, 2)
	}
	return -e / (2 * nf) // each pair is counted from both ends
}

// sumPart sums the lines of part k: lines ⌊k·L/w⌋ to ⌊(k+1)·L/w⌋ − 1 of
// the L = n0·n1 lines (line c0·n1 + c1).
func (p *pass) sumPart(k int) {
	pt := p.parts[k]
	lines, w := p.n0*p.n1, len(p.parts)
	lo, hi := k*lines/w, (k+1)*lines/w
	p.sumLines(pt, lo, hi)
	if p.energy && !p.nn {
		p.offsetSums(pt, lo, hi)
	}
}

// sumLines sets pt's sums to those of lines lo to hi − 1 of p.x.
func (p *pass) sumLines(pt *part, lo, hi int) {
	l, x := p.l, p.x
	n := l.size
	for a := range pt.axis {
		clear(pt.axis[a])
	}
	ax0, ax1, ax2 := pt.axis[0], pt.axis[1], pt.axis[2]
	pairs := p.energy && p.nn
	pt.tot, pt.ab, pt.bad = 0, 0, 0
	for li := lo; li < hi; li++ {
		c0, c1 := li/p.n1, li%p.n1
		plane := c0 * p.n1 * n
		base := plane + c1*n
		row := x[base : base+n]
		var nb0, nb1 []float64
		if pairs && l.dim >= 2 {
			r1 := plane + ((c1+1)%p.n1)*n
			nb1 = x[r1 : r1+n]
		}
		if pairs && l.dim == 3 {
			next0 := ((c0 + 1) % p.n0) * p.n1 * n // the next plane
			nb0 = x[next0+c1*n : next0+c1*n+n]
		}
		if p.counts {
			e, b := countLine(row, nb1, nb0, ax2, pt.line, pairs)
			pt.ab += e
			pt.bad += b
			for v, c := range pt.line {
				if ax1 != nil {
					ax1[c1*p.comps+v] += c
				}
				if ax0 != nil {
					ax0[c0*p.comps+v] += c
				}
			}
			continue
		}
		s, e := sumLine(row, nb1, nb0, ax2, pairs)
		pt.tot += s
		pt.ab += e
		if ax1 != nil {
			ax1[c1] += s
		}
		if ax0 != nil {
			ax0[c0] += s
		}
	}
}

// pairSum returns Σ f(x_i, x_j) over a set of pairs from what the loops
// sum: ab (Σ x_i·x_j for 2-state and continuous spins, the agreements for
// q > 2 Potts spins) and tot = Σ_i x_i, the pairs being n·deg/2 in which
// every site appears deg times. With s = 2x − 1,
// Σ s_i s_j = 4·Σ x_i x_j − 2·deg·Σ x_i + n·deg/2, and
// Σ δ(x_i, x_j) = Σ (1 − x_i − x_j + 2 x_i x_j) for two states.
func (p *pass) pairSum(ab, tot float64, deg int) float64 {
	l := p.l
	half := float64(l.n) * float64(deg) / 2
	switch {
	case l.kind == ContinuousSpins || p.counts:
		return ab
	case l.kind == IsingSpins:
		return 4*ab - 2*float64(deg)*tot + half
	}
	return half - float64(deg)*tot + 2*ab
}

// sumLine adds a line of 2-state or continuous values to col (col[c] +=
// x_c) and returns their sum and, if pairs, Σ_c x_c·(x_{c+1} + nb1[c] +
// nb0[c]) (the next site along the line, wrapping, and the same site of
// the next row and plane where nb1, nb0 are not nil). The sums run in two
// interleaved halves (even and odd c), so that the additions of one site
// need not wait for the previous site's.
func sumLine(row, nb1, nb0, col []float64, pairs bool) (s, ab float64) {
	n := len(row)
	col = col[:n]
	if !pairs {
		return sumOnly(row, col), 0
	}
	var s0, s1, ab0, ab1 float64
	// The last site pairs with the first along the line; sites 0, …,
	// n−2 pair with c+1 within it.
	last := row[n-1]
	s1 = last
	ab1 = last * row[0]
	col[n-1] += last
	m := n - 1
	cur, nxt, cl := row[:m], row[1:n], col[:m]
	nxt = nxt[:len(cur)]
	cl = cl[:len(cur)]
	c := 1
	switch {
	case nb1 == nil:
		for ; c < len(cur); c += 2 {
			a, b := cur[c-1], cur[c]
			s0 += a
			s1 += b
			cl[c-1] += a
			cl[c] += b
			ab0 += a * nxt[c-1]
			ab1 += b * nxt[c]
		}
	case nb0 == nil:
		ab1 += last * nb1[n-1]
		u := nb1[:len(cur)]
		for ; c < len(cur); c += 2 {
			a, b := cur[c-1], cur[c]
			s0 += a
			s1 += b
			cl[c-1] += a
			cl[c] += b
			ab0 += a * (nxt[c-1] + u[c-1])
			ab1 += b * (nxt[c] + u[c])
		}
	default:
		ab1 += last * (nb1[n-1] + nb0[n-1])
		u, v := nb1[:len(cur)], nb0[:len(cur)]
		for ; c < len(cur); c += 2 {
			a, b := cur[c-1], cur[c]
			s0 += a
			s1 += b
			cl[c-1] += a
			cl[c] += b
			ab0 += a * (nxt[c-1] + u[c-1] + v[c-1])
			ab1 += b * (nxt[c] + u[c] + v[c])
		}
	}
	if c == len(cur) { // one site left before the last
		c--
		a := cur[c]
		s0 += a
		cl[c] += a
		e := nxt[c]
		if nb1 != nil {
			e += nb1[c]
		}
		if nb0 != nil {
			e += nb0[c]
		}
		ab0 += a * e
	}
	return s0 + s1, ab0 + ab1
}

// sumOnly adds row to col (col[c] += x_c) and returns the sum of row, in
// sumLine's two interleaved halves.
func sumOnly(row, col []float64) float64 {
	n := len(row)
	col = col[:n]
	var s0, s1 float64
	c := 0
	for ; c+1 < n; c += 2 {
		a, b := row[c], row[c+1]
		s0 += a
		s1 += b
		col[c] += a
		col[c+1] += b
	}
	if c < n {
		s0 += row[c]
		col[c] += row[c]
	}
	return s0 + s1
}

// countLine counts a line of q > 2 Potts values into cnt (set, per state)
// and col (col[c·q + v] += 1) and returns, if pairs, the agreements of
// each site with the next along the line (wrapping) and the same site of
// the next row and plane where nb1, nb0 are not nil; and the number of
// values that are not states (not counted).
func countLine(row, nb1, nb0, col, cnt []float64, pairs bool) (eq float64, bad int) {
	q := len(cnt)
	n := len(row)
	clear(cnt)
	for c, a := range row {
		v := int(a)
		if uint(v) >= uint(q) {
			bad++
			continue
		}
		cnt[v]++
		col[c*q+v]++
		if !pairs {
			continue
		}
		right := row[0]
		if c+1 < n {
			right = row[c+1]
		}
		if a == right {
			eq++
		}
		if nb1 != nil && a == nb1[c] {
			eq++
		}
		if nb0 != nil && a == nb0[c] {
			eq++
		}
	}
	return eq, bad
}

// offsetSums sets pt.off[k] to Σ_i x_i·x_{i+k} (2-state and continuous
// spins) or Σ_i δ(x_i, x_{i+k}) (q > 2 Potts spins) over the sites i of
// lines lo to hi − 1, for every offset k: row by row, the neighbours of a
// row at offset k are one row of the state shifted along the line, so the
// sum is two runs of a dot product (or an agreement count) over contiguous
// memory, with no wrap arithmetic a pair (the row runs of the hand-written
// stencil loop, internal/baseline).
func (p *pass) offsetSums(pt *part, lo, hi int) {
	l, x := p.l, p.x
	if pt.off == nil {
		pt.off = make([]float64, len(l.ents))
	}
	off := pt.off
	clear(off)
	g := &l.geo
	m0, m1 := g.Mod[0], g.Mod[1]
	n := l.size
	for li := lo; li < hi; li++ {
		b0, b1 := (li/p.n1)*p.n1*n, (li%p.n1)*n
		row := x[b0+b1 : b0+b1+n]
		for k := range l.ents {
			d := &l.ents[k].D
			nb := compiled.Wrap(b0+int(d[0]), m0) + compiled.Wrap(b1+int(d[1]), m1)
			nrow := x[nb : nb+n]
			s := int(d[2])
			if s < 0 {
				s += n
			}
			// Σ_c f(row[c], nrow[(c + s) mod n]) in two runs.
			if p.counts {
				off[k] += float64(agreements(row[:n-s], nrow[s:]) + agreements(row[n-s:], nrow[:s]))
			} else {
				off[k] += dot(row[:n-s], nrow[s:]) + dot(row[n-s:], nrow[:s])
			}
		}
	}
}

// dot returns Σ a[i]·b[i] (len(b) ≥ len(a)), in two running sums.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// agreements returns the number of i with a[i] = b[i] (len(b) ≥ len(a))
// for integer values below 2³¹, without a branch: (a − b)² is 0 or at
// least 1.
func agreements(a, b []float64) int {
	b = b[:len(a)]
	c := 0
	for i, v := range a {
		d := v - b[i]
		c += int((int64(d*d) - 1) >> 63) // −1 where they agree
	}
	return -c
}
