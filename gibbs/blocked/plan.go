package blocked

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/meter"
	"github.com/pgibbs/pgibbs/internal/xmath"
)

// blockPlan is the compiled update of one block: the factors touching it,
// grouped by the block variables they read into potentials, and the
// buckets of its elimination in order. Every table lives in the sampler's
// arena at the offsets given here (the blocks are updated one at a time
// and share it), laid out with the first variable of its scope fastest.
type blockPlan struct {
	vars    []int32 // the block's variables, sorted: local index l is vars[l]
	size    []int   // their domain sizes
	facs    []blockFactor
	pots    []potential
	potEnd  int      // the potentials fill arena[:potEnd]
	buckets []bucket // in elimination order
	arena   int      // entries of the arena an update uses
	maxN    int      // entries of the largest bucket table
	ivars   []int    // vars as []int (what Conditionals reports)
	stats   elim.Stats
	work    float64   // factor values and bucket table entries of an update
	bnd     *boundary // the Poisson-minibatched boundary (boundary.go), or nil
	nExact  int       // the factors tabulated exactly
	// inside and crossing index the factors of facs tabulated exactly
	// (not minibatched) that read no free variable outside the block and
	// those that do (split), each in facs order: the updates of a cached
	// block walk them (Blocked.tabulate).
	inside, crossing []int32
}

// split sets p.inside and p.crossing from the factors' cross and bnd
// (after planBoundary).
func (p *blockPlan) split() {
	p.inside, p.crossing = p.inside[:0], p.crossing[:0]
	for k := range p.facs {
		fc := &p.facs[k]
		if fc.bnd >= 0 {
			continue // minibatched: tabulated by its count
		}
		if fc.cross {
			p.crossing = append(p.crossing, int32(k))
		} else {
			p.inside = append(p.inside, int32(k))
		}
	}
}

// blockFactor is a factor touching a block. Its values at every
// assignment of the block variables it reads, the others fixed, are added
// to potential pot.
type blockFactor struct {
	f      factorgraph.Factor
	cond   factorgraph.Tabulator // f's fast path over one variable, or nil
	shift  float64               // the declared lower bound: φ̃ = φ − shift
	lo, hi float64               // the accepted values of φ̃ (factorgraph.Limits)
	i, k   int                   // the factor is the k-th of A[i] (for messages)
	pot    int
	m      float64 // M_φ (+Inf: hard)
	cross  bool    // it reads a free variable outside the block
	bnd    int32   // its index in the minibatched boundary (−1: tabulated exactly)
}

// potential is the table of the factors reading the same block variables,
// scope (local indices, ascending; scope[0] fastest).
type potential struct {
	scope  []int32
	off, n int
}

// bucket is the elimination of local variable v: its table T_v over v and
// others (the variables of the block still live that share a table with v,
// ascending), dims their sizes (v first, fastest), the sum of its inputs
// (potentials and earlier messages); msg holds the message Σ_v exp T_v over
// others, in log space (−1 if others is empty), ostr the strides of others
// in it, which pick the row of T_v that v is drawn from. After forward,
// T_v's rows hold the distributions π(x_v | x_others) (conditionRows).
// delta holds the block conditional's marginal on others, in the
// marginals' pass (block_marginals.go; −1 if others is empty).
type bucket struct {
	v      int32
	dims   []int
	others []int32
	ostr   []int
	off, n int
	msg    int
	delta  int
	ins    []bucketInput
}

// bucketInput is a table added into a bucket's: at arena offset src, with
// stride str[d] for each dimension d of the bucket (0 where it does not
// depend on it). child is the bucket whose message it is (−1 for a
// potential).
type bucketInput struct {
	src   int
	str   []int
	child int
	// fdims and fstr are the bucket's dimensions and str with every run
	// of dimensions that str walks contiguously fused into one (fuse):
	// the same map from the bucket's entries to the input's, in fewer,
	// longer rows.
	fdims, fstr []int
}

// fuse returns dims and str (strides of a table over them, dims[0]
// fastest) with each dimension merged into the one before it where the
// strides continue it (str[k] = str[k−1]·dims[k−1], zero strides
// included): entry e of the table over dims reads the same entry either
// way, and strided then walks rows as long as the contiguous runs.
func fuse(dims, str []int) (fd, fs []int) {
	fd, fs = []int{dims[0]}, []int{str[0]}
	for k := 1; k < len(dims); k++ {
		if last := len(fd) - 1; str[k] == fs[last]*fd[last] {
			fd[last] *= dims[k]
			continue
		}
		fd, fs = append(fd, dims[k]), append(fs, str[k])
	}
	return fd, fs
}

// compiler is the state shared by the compilation of a sampler's blocks:
// the meter that looks at the construction's context, each variable's
// local index in the block being compiled (−1 outside it), the evidence,
// and what the blocks read of each factor, read once (the blocks of a
// dense model touch each factor several times): the factors of each
// variable's A[i], and each factor's scope, lower bound and value.
type compiler struct {
	m       blockModel
	mt      *meter.Meter
	local   []int32
	clamped []bool
	incs    [][]int32  // incs[i][k]: the factor index of the k-th of A[i] (nil: not read yet)
	info    []factInfo // by factor index (nil if the model does not count its factors)
	pool    []int32    // the scopes of info
	vars    []int
	found   []foundFactor // scratch of collect
}

// factInfo is what a compiler read of a factor: its scope (pool[off :
// off+n]; n < 0: not read yet), declared lower bound and value.
type factInfo struct {
	off, n int32
	lo     float64
	fac    factorgraph.Factor
}

// factorCounter is a model that counts its factors (a *factorgraph.Graph).
type factorCounter interface{ NumFactors() int }

// ranger is a model that gives a factor's declared range without naming
// it (a *factorgraph.Graph: Describe formats the name).
type ranger interface {
	FactorRange(f int) (lo, hi float64)
}

func newCompiler(m blockModel, mt *meter.Meter) *compiler {
	n := m.NumVars()
	c := &compiler{m: m, mt: mt, local: make([]int32, n), clamped: make([]bool, n), incs: make([][]int32, n)}
	for i := range n {
		c.local[i] = -1
		_, c.clamped[i] = m.Observed(i)
	}
	if fc, ok := m.(factorCounter); ok {
		c.info = make([]factInfo, fc.NumFactors())
		for f := range c.info {
			c.info[f].n = -1
		}
	}
	return c
}

// factorOf returns the index, scope, declared lower bound and value of the
// k-th factor of A[i] (the scope valid until the next call).
func (c *compiler) factorOf(i, k int) (f int, scope []int32, lo float64, fac factorgraph.Factor) {
	if c.incs[i] == nil {
		soft, hard := c.m.Degree(i)
		c.incs[i] = make([]int32, soft+hard)
		for k := range c.incs[i] {
			c.incs[i][k] = int32(c.m.FactorIndex(i, k))
		}
	}
	f = int(c.incs[i][k])
	if c.info != nil && c.info[f].n >= 0 {
		fi := &c.info[f]
		return f, c.pool[fi.off : fi.off+fi.n], fi.lo, fi.fac
	}
	c.vars = blocks.FactorVars(c.m, c.vars[:0], f)
	if rg, ok := c.m.(ranger); ok {
		lo, _ = rg.FactorRange(f)
	} else {
		_, lo, _ = c.m.Describe(i, k)
	}
	fac = c.m.Factor(f)
	off := len(c.pool)
	for _, u := range c.vars {
		c.pool = append(c.pool, int32(u))
	}
	if c.info != nil {
		c.info[f] = factInfo{off: int32(off), n: int32(len(c.vars)), lo: lo, fac: fac}
	} else {
		defer func() { c.pool = c.pool[:off] }()
	}
	return f, c.pool[off:len(c.pool):len(c.pool)], lo, fac
}

// Work units of a block's compilation (internal/meter's: about a
// nanosecond each): reading a factor incidence of a block variable (its
// index, scope and bound) and laying out a factor of the block.
const (
	unitsPerIncidence = 20
	unitsPerFactor    = 40
)

// The work bounds of the greedy orders a block's compilation tries, in
// adjacency entries read (elim.BestOrderWithin): orderWork per vertex and
// edge of the block's graph plus orderWorkMin, and orderWorkMax when no
// order fits within that (about 0.3 s: an order's search does not look at
// the context).
const (
	orderWork    = 64
	orderWorkMin = 1 << 20
	orderWorkMax = 1 << 27
)

// compileBlock compiles the update of block b, the variables given
// (distinct), in the elimination order of elim.BestOrder (the order given is
// one of those it considers; the others are searched within a bound); it
// is refused if every order needs a table of more than maxTable entries.
// It costs O(the factor incidences of the block's variables) and the
// orders' search, which is not interrupted but bounded (orderWork); it
// returns the meter's error once its context is done.
func (c *compiler) compileBlock(b int, given []int32, maxTable int) (*blockPlan, error) {
	vars := slices.Sorted(slices.Values(given))
	p := &blockPlan{vars: vars, size: make([]int, len(vars))}
	for l, v := range vars {
		c.local[v] = int32(l)
		p.size[l] = c.m.Domain(int(v)).Size
	}
	defer func() {
		for _, v := range vars {
			c.local[v] = -1
		}
	}()
	counts, err := p.collect(c)
	if err != nil {
		return nil, err
	}
	adj := make([][]int32, len(vars))
	for _, pt := range p.pots {
		for _, a := range pt.scope {
			for _, b := range pt.scope {
				if a != b {
					adj[a] = append(adj[a], b)
				}
			}
		}
	}
	seen := make([]int32, len(vars)) // a pair in several potentials, once
	for a := range adj {
		kept := adj[a][:0]
		for _, b := range adj[a] {
			if seen[b] != int32(a)+1 {
				seen[b] = int32(a) + 1
				kept = append(kept, b)
			}
		}
		adj[a] = kept
	}
	size32 := make([]int32, len(vars))
	for l, d := range p.size {
		size32[l] = int32(d)
	}
	order := make([]int32, len(given))
	for k, v := range given {
		order[k] = c.local[v]
	}
	// The greedy orders within a work bound linear in the block's graph
	// (the order given is as good on the star-like blocks of dense graphs,
	// where they cost far more); failing every order, within a larger one.
	edges := 0
	for _, a := range adj {
		edges += len(a)
	}
	best, st, ok := elim.BestOrderWithin(adj, size32, order, float64(maxTable), orderWork*float64(len(vars)+edges)+orderWorkMin)
	if !ok {
		best, st, ok = elim.BestOrderWithin(adj, size32, order, float64(maxTable), orderWorkMax)
	}
	if !ok {
		return nil, fmt.Errorf("block %d (%d variables): its elimination needs a table of more than MaxTable = %d entries (in the min-fill and min-weight orders, each searched within %.0g steps, and the order given)",
			b, len(vars), maxTable, float64(orderWorkMax))
	}
	order = best
	p.stats = st
	p.lay(order, counts)
	p.ivars = int32sToInts(vars)
	return p, c.mt.Add(len(vars) + int(st.Entries))
}

// collect lists the factors touching the block (each once), grouped into
// potentials by the block variables they read, and returns the number of
// factors of each potential. A first pass finds the factors and their
// potentials, a second writes them in place, by potential (a counting
// sort): a block of a dense model holds hundreds of thousands.
func (p *blockPlan) collect(c *compiler) ([]int, error) {
	m, local := c.m, c.local
	group := map[string]int{}            // potentials of two block variables or more, by scope
	single := make([]int32, len(p.vars)) // the potential of each block variable alone (−1: none yet)
	for l := range single {
		single[l] = -1
	}
	var counts []int
	var scope []int32
	var key []byte
	found := c.found[:0]
	for l, v := range p.vars {
		i := int(v)
		soft, hard := m.Degree(i)
		for k := range soft + hard {
			_, vars, _, _ := c.factorOf(i, k)
			scope = scope[:0]
			cross := false
			for _, u := range vars {
				if lu := local[u]; lu >= 0 {
					scope = append(scope, lu)
				} else if !c.clamped[u] {
					cross = true
				}
			}
			// The factor is in A[u] of each of its block variables u (a
			// scope holds a variable once): it is taken at the first.
			if slices.Min(scope) != int32(l) {
				continue
			}
			var g int
			if len(scope) == 1 {
				if single[l] < 0 {
					single[l] = int32(len(p.pots))
					p.pots = append(p.pots, potential{scope: []int32{int32(l)}})
					counts = append(counts, 0)
				}
				g = int(single[l])
			} else {
				slices.Sort(scope)
				key = key[:0]
				for _, u := range scope {
					key = append(key, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
				}
				var ok bool
				if g, ok = group[string(key)]; !ok {
					g = len(p.pots)
					group[string(key)] = g
					p.pots = append(p.pots, potential{scope: slices.Clone(scope)})
					counts = append(counts, 0)
				}
			}
			counts[g]++
			found = append(found, foundFactor{i: int32(i), k: int32(k), pot: int32(g), cross: cross})
		}
		if err := c.mt.Add(unitsPerIncidence * (1 + soft + hard)); err != nil {
			return nil, err
		}
	}
	c.found = found
	start := make([]int, len(counts)+1)
	for g, n := range counts {
		start[g+1] = start[g] + n
	}
	p.facs = make([]blockFactor, len(found))
	for _, ff := range found {
		i, k := int(ff.i), int(ff.k)
		_, _, lo, fac := c.factorOf(i, k)
		mk := m.Bound(i, k)
		flo, fhi := factorgraph.Limits(mk)
		cond, _ := fac.(factorgraph.Tabulator)
		fc := &p.facs[start[ff.pot]]
		start[ff.pot]++
		*fc = blockFactor{f: fac, cond: cond, shift: lo, lo: flo, hi: fhi, i: i, k: k, pot: int(ff.pot), m: mk, cross: ff.cross, bnd: -1}
	}
	return counts, c.mt.Add(unitsPerFactor * len(found))
}

// foundFactor is a factor collect found: the k-th of A[i], adding into
// potential pot, reading a free variable outside the block if cross.
type foundFactor struct {
	i, k, pot int32
	cross     bool
}

// lay lays out the potentials (counts[k] factors adding into potential k)
// and the buckets of elimination order order in the arena (bucket
// elimination: a table goes to the bucket of its variable eliminated
// first; Dechter 1999).
func (p *blockPlan) lay(order []int32, counts []int) {
	n := len(p.vars)
	pos := make([]int, n)
	for k, v := range order {
		pos[v] = k
	}
	first := func(scope []int32) int32 {
		return slices.MinFunc(scope, func(a, b int32) int { return pos[a] - pos[b] })
	}
	type spec struct {
		src   int
		scope []int32
		child int
	}
	pending := make([][]spec, n)
	off := 0
	for k := range p.pots {
		pt := &p.pots[k]
		pt.off, pt.n = off, p.entries(pt.scope)
		off += pt.n
		pending[first(pt.scope)] = append(pending[first(pt.scope)], spec{pt.off, pt.scope, -1})
		p.work += float64(pt.n * counts[k])
	}
	p.potEnd = off
	for _, v := range order {
		bk := bucket{v: v, msg: -1, delta: -1}
		for _, sp := range pending[v] {
			for _, u := range sp.scope {
				if u != v && !slices.Contains(bk.others, u) {
					bk.others = append(bk.others, u)
				}
			}
		}
		slices.Sort(bk.others)
		bk.dims = append([]int{p.size[v]}, make([]int, len(bk.others))...)
		for k, u := range bk.others {
			bk.dims[k+1] = p.size[u]
		}
		bk.off, bk.n = off, p.entries(append([]int32{v}, bk.others...))
		off += bk.n
		for _, sp := range pending[v] {
			in := bucketInput{src: sp.src, str: bk.strides(sp.scope, p.size), child: sp.child}
			in.fdims, in.fstr = fuse(bk.dims, in.str)
			bk.ins = append(bk.ins, in)
		}
		if len(bk.others) > 0 {
			bk.msg, bk.delta = off, off+bk.n/bk.dims[0]
			off += 2 * (bk.n / bk.dims[0])
			bk.ostr = bk.strides(bk.others, p.size)[1:]
			t := first(bk.others)
			pending[t] = append(pending[t], spec{bk.msg, bk.others, len(p.buckets)})
		}
		p.work += float64(bk.n)
		p.maxN = max(p.maxN, bk.n)
		p.buckets = append(p.buckets, bk)
	}
	p.arena = off
}

// strides returns the stride, in a table over scope laid out with
// scope[0] fastest, of each dimension of the bucket (0 for a variable not
// in scope).
func (bk *bucket) strides(scope []int32, size []int) []int {
	str := make([]int, len(bk.dims))
	st := 1
	for _, u := range scope {
		d := 0
		if u != bk.v {
			d = 1 + slices.Index(bk.others, u)
		}
		str[d] = st
		st *= size[u]
	}
	return str
}

// entries returns the number of entries of a table over scope.
func (p *blockPlan) entries(scope []int32) int {
	n := 1
	for _, u := range scope {
		n *= p.size[u]
	}
	return n
}

// maxDims returns the largest number of dimensions of a table of p.
func (p *blockPlan) maxDims() int {
	d := 1
	for _, pt := range p.pots {
		d = max(d, len(pt.scope))
	}
	for _, bk := range p.buckets {
		d = max(d, len(bk.dims))
	}
	return d
}

// addInto adds src, a table with strides str over the dimensions dims of
// t (dims[0] fastest), into t. cnt is scratch of len(dims) counters.
func addInto(t, src []float64, dims, str, cnt []int) { strided(t, src, dims, str, cnt, false) }

// projectInto is addInto's adjoint: it adds every entry of t into the entry
// of dst (a table with strides str over the dimensions dims of t) it maps
// to, summing t over the dimensions dst does not have.
func projectInto(dst, t []float64, dims, str, cnt []int) { strided(t, dst, dims, str, cnt, true) }

// strided walks t (dimensions dims, dims[0] fastest) and the entries of
// src at strides str in step: t[e] += src[idx(e)], or src[idx(e)] += t[e]
// if project. The first two dimensions are walked by two nested loops, the
// others by an odometer (cnt, scratch of len(dims) counters): on the small
// domains of pedigrees and grids a row of the first is two or three
// entries long, and the odometer then cost more than the additions.
func strided(t, src []float64, dims, str, cnt []int, project bool) {
	d0, s0 := dims[0], str[0]
	d1, s1 := 1, 0
	if len(dims) > 1 {
		d1, s1 = dims[1], str[1]
	}
	nd := len(dims)
	for k := 2; k < nd; k++ {
		cnt[k] = 0
	}
	idx := 0
	if d0 == 2 && !project { // binary variables: a plane's rows of two in one loop
		for e := 0; e < len(t); e += 2 * d1 {
			plane := t[e : e+2*d1]
			for a, i := 0, idx; a+1 < len(plane); a, i = a+2, i+s1 {
				plane[a] += src[i]
				plane[a+1] += src[i+s0]
			}
			idx = nextIndex(idx, dims, str, cnt)
		}
		return
	}
	for e := 0; e < len(t); e += d0 * d1 {
		plane := t[e : e+d0*d1]
		for a, i := 0, idx; a < d1; a, i = a+1, i+s1 {
			row := plane[a*d0 : a*d0+d0]
			switch {
			case project && d0 == 2:
				src[i] += row[0]
				src[i+s0] += row[1]
			case project:
				for j, v := range row {
					src[i+j*s0] += v
				}
			case d0 == 2: // binary variables: most rows of pedigrees and grids
				row[0] += src[i]
				row[1] += src[i+s0]
			case s0 == 1:
				for j, v := range src[i : i+d0] {
					row[j] += v
				}
			case s0 == 0:
				v := src[i]
				for j := range row {
					row[j] += v
				}
			default:
				for j := range row {
					row[j] += src[i+j*s0]
				}
			}
		}
		idx = nextIndex(idx, dims, str, cnt)
	}
}

// nextIndex advances strided's odometer over dims[2:] (counters cnt) and
// returns the source index of the next plane.
func nextIndex(idx int, dims, str, cnt []int) int {
	for k := 2; k < len(dims); k++ {
		idx += str[k]
		if cnt[k]++; cnt[k] < dims[k] {
			break
		}
		cnt[k] = 0
		idx -= str[k] * dims[k]
	}
	return idx
}

// conditionRows turns each row of d log weights of t, in place, into the
// distribution it defines and sets msg[r] to the row's log-sum (msg may be
// nil): elim.NormaliseRows, with a fast path for rows of two. The
// distributions are what backward sampling draws from and the marginals'
// pass multiplies, with no further exponential.
func conditionRows(msg, t []float64, d int) {
	if d == 2 {
		conditionPairs(msg, t)
		return
	}
	elim.NormaliseRows(msg, t, d)
}

// conditionPairs is conditionRows for rows of two: with e = exp(min − max),
// the larger entry becomes 1/(1 + e), the smaller e/(1 + e), and the
// message max + log1p(e): one exponential and one logarithm a row.
func conditionPairs(msg, t []float64) {
	for r := range len(t) / 2 {
		a, b := t[2*r], t[2*r+1]
		mx, mn := max(a, b), min(a, b)
		var e, lse float64
		switch {
		case math.IsInf(mx, -1):
			t[2*r], t[2*r+1] = 0, 0
			lse = mx
		case math.IsInf(mn, -1):
			e, lse = 0, mx
		default:
			e = xmath.ExpNeg(mn - mx)
			lse = mx + e // log1p(e) = e − e²/2 + …: below 2⁻³⁰ the rest is under 2⁻⁶¹
			if e >= 0x1p-30 {
				// log(1 + e) to an absolute 2.5·10⁻¹⁶ (1 + e rounds
				// by as much): a log-weight's rounding.
				lse = mx + xmath.LogAtLeast1(1+e)
			}
		}
		if !math.IsInf(mx, -1) {
			hi := 1 / (1 + e)
			lo := e * hi
			if a >= b {
				t[2*r], t[2*r+1] = hi, lo
			} else {
				t[2*r], t[2*r+1] = lo, hi
			}
		}
		if msg != nil {
			msg[r] = lse
		}
	}
}
