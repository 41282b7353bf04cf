package blocked

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
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
}

// compileBlock compiles the update of block b of m, the variables given
// (distinct), in the elimination order of elim.BestOrder (the order given is
// one of those it considers); it is refused if every order needs a table
// of more than maxTable entries. local is scratch: −1 for every variable,
// and left so.
func compileBlock(m blockModel, b int, given []int32, local []int32, maxTable int) (*blockPlan, error) {
	vars := slices.Sorted(slices.Values(given))
	p := &blockPlan{vars: vars, size: make([]int, len(vars))}
	for l, v := range vars {
		local[v] = int32(l)
		p.size[l] = m.Domain(int(v)).Size
	}
	defer func() {
		for _, v := range vars {
			local[v] = -1
		}
	}()
	p.collect(m, local)
	adj := make([][]int32, len(vars))
	for _, pt := range p.pots {
		for _, a := range pt.scope {
			for _, b := range pt.scope {
				if a != b && !slices.Contains(adj[a], b) {
					adj[a] = append(adj[a], b)
				}
			}
		}
	}
	size32 := make([]int32, len(vars))
	for l, d := range p.size {
		size32[l] = int32(d)
	}
	order := make([]int32, len(given))
	for k, v := range given {
		order[k] = local[v]
	}
	order, st, ok := elim.BestOrder(adj, size32, order, float64(maxTable))
	if !ok {
		return nil, fmt.Errorf("block %d (%d variables): its elimination needs a table of more than MaxTable = %d entries (in the min-fill and min-weight orders and the order given)",
			b, len(vars), maxTable)
	}
	p.stats = st
	p.lay(order)
	p.ivars = int32sToInts(vars)
	return p, nil
}

// collect lists the factors touching the block (each once), grouped into
// potentials by the block variables they read.
func (p *blockPlan) collect(m blockModel, local []int32) {
	seen := map[int]bool{}
	group := map[string]int{}
	for _, v := range p.vars {
		i := int(v)
		soft, hard := m.Degree(i)
		for k := range soft + hard {
			f := m.FactorIndex(i, k)
			if seen[f] {
				continue
			}
			seen[f] = true
			fac := m.Factor(f)
			var scope []int32
			cross := false
			for _, u := range fac.Vars() {
				if l := local[u]; l >= 0 && !slices.Contains(scope, l) {
					scope = append(scope, l)
				} else if _, ev := m.Observed(u); l < 0 && !ev {
					cross = true
				}
			}
			slices.Sort(scope)
			key := fmt.Sprint(scope)
			g, ok := group[key]
			if !ok {
				g = len(p.pots)
				group[key] = g
				p.pots = append(p.pots, potential{scope: scope})
			}
			_, lo, _ := m.Describe(i, k)
			flo, fhi := factorgraph.Limits(m.Bound(i, k))
			cond, _ := fac.(factorgraph.Tabulator)
			p.facs = append(p.facs, blockFactor{f: fac, cond: cond, shift: lo, lo: flo, hi: fhi, i: i, k: k, pot: g,
				m: m.Bound(i, k), cross: cross, bnd: -1})
		}
	}
	slices.SortStableFunc(p.facs, func(a, b blockFactor) int { return a.pot - b.pot })
}

// lay lays out the potentials and the buckets of elimination order order
// in the arena (bucket elimination: a table goes to the bucket of its
// variable eliminated first; Dechter 1999).
func (p *blockPlan) lay(order []int32) {
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
		p.work += float64(pt.n * p.factorsOf(k))
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
			bk.ins = append(bk.ins, bucketInput{src: sp.src, str: bk.strides(sp.scope, p.size), child: sp.child})
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

// factorsOf returns the number of factors adding into potential k.
func (p *blockPlan) factorsOf(k int) int {
	c := 0
	for _, fc := range p.facs {
		if fc.pot == k {
			c++
		}
	}
	return c
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
// if project.
func strided(t, src []float64, dims, str, cnt []int, project bool) {
	d0, s0 := dims[0], str[0]
	nd := len(dims)
	for k := 1; k < nd; k++ {
		cnt[k] = 0
	}
	idx := 0
	for e := 0; e < len(t); e += d0 {
		row := t[e : e+d0]
		switch {
		case project:
			for j, a := range row {
				src[idx+j*s0] += a
			}
		case s0 == 1:
			for j, a := range src[idx : idx+d0] {
				row[j] += a
			}
		default:
			for j := range row {
				row[j] += src[idx+j*s0]
			}
		}
		for k := 1; k < nd; k++ {
			idx += str[k]
			if cnt[k]++; cnt[k] < dims[k] {
				break
			}
			cnt[k] = 0
			idx -= str[k] * dims[k]
		}
	}
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
			e = math.Exp(mn - mx)
			lse = mx + e // log1p(e) = e − e²/2 + …: below 2⁻³⁰ the rest is under 2⁻⁶¹
			if e >= 0x1p-30 {
				lse = mx + math.Log1p(e)
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
