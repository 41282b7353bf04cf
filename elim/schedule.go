package elim

import (
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// schedule is the compiled elimination of a component: its tables and
// buckets, every table at an offset of one arena of float64s. Every table
// is laid out over its variables sorted by elimination position, the
// earliest fastest: then the variable of the bucket a table goes to (the
// earliest of its scope) is its fastest, every row of a bucket's table is
// contiguous, and a bucket's message (over the bucket's other variables)
// has the layout of its table's rows — row r of the table is entry r of
// the message.
type schedule struct {
	global  []int // local variable → variable of the graph
	size    []int // local domain sizes
	pots    []pot
	tabs    []span   // potentials, then one message per bucket
	buckets []bucket // in elimination order
	arena   int      // entries
	chunk   int      // the largest chunk of a bucket
	maxIns  int      // the most inputs of a bucket
	bytes   float64  // what Solve allocates
	work    float64  // table-entry operations of Solve
	nvars   int      // variables of the graph (Solve's state)
	maxSize int      // the largest domain of the component
	maxDims int      // the most dimensions of a table
	margs   int      // Σ of the domain sizes: the entries of the marginals
	clamped []int    // the observed variables the factors read
}

// span is a table: entries arena[off : off+n].
type span struct{ off, n int }

// pot is the potential of a group of factors reading the same free
// variables: vars (of the graph) in layout order, sizes theirs, the sum of
// the factors' values at each assignment in table tab.
type pot struct {
	vars  []int
	sizes []int
	facs  []int
	tab   int
}

// bucket is the elimination of local variable v: its table T over v and the
// others (the variables sharing an input with it, still live), dims their
// sizes (v first, then in elimination order), the product of its inputs.
// Its message Σ_v T is table msg. The table is its own span, or the
// message of the input shared (whose scope is the bucket's: the bucket is
// then computed in place in that message, which nothing reads afterwards).
type bucket struct {
	v      int32
	dims   []int
	t      span
	msg    int
	ins    []input
	shared int // the input whose table T is, or −1
	// root says the bucket has no other variable: it is the last of its
	// component's bucket tree, its message (one entry) is the component's
	// Z, and its separator marginal is 1. (Its table may also be a single
	// row when the other variables all have one value: then it is not a
	// root, and its message goes on to its parent like any other.)
	root  bool
	cdims int // dims[:cdims] make a chunk
	cn    int // entries of a chunk
	// levels[j] lists the inputs (but the shared one) whose last dimension
	// within a chunk is j, and blk[j] = Π dims[:j+1]: a chunk's product is
	// built up level by level (see solver.product).
	levels [][]int
	blk    []int
}

// input is a table multiplied into a bucket: tab, with stride str[d] in it
// for dimension d of the bucket (0 where it does not depend on it), and
// whether it is a message (of a child: the downward pass sends the child
// the bucket's marginal on its scope).
type input struct {
	tab int
	str []int
	msg bool
}

// chunkMax bounds the entries of a chunk: the bucket's table is computed a
// chunk at a time, with one index map a chunk for each input.
const chunkMax = 4096

// lay compiles the elimination in order (local indices) of the component of
// g with variables vars (domain sizes size) and the potentials pots, and
// counts its memory and work.
func lay(g *factorgraph.Graph, vars []int, size []int32, pots []potGroup, order []int32) *schedule {
	n := len(vars)
	s := &schedule{global: vars, size: make([]int, n), nvars: g.NumVars()}
	for l, d := range size {
		s.size[l] = int(d)
		s.maxSize = max(s.maxSize, int(d))
	}
	l := &layer{s: s, pos: make([]int, n), pending: make([][]int, n), at: make([]int, n)}
	for k, v := range order {
		l.pos[v] = k
	}
	tabWork := 0.0
	for _, pg := range pots {
		tabWork += l.pot(g, pg)
	}
	work := tabWork
	for _, v := range order {
		work += l.bucket(v)
	}
	s.work = work + workTouch*float64(s.arena)
	for _, d := range s.size {
		s.margs += d
	}
	s.bytes = s.solveBytes()
	return s
}

// layer is lay's state: the schedule it fills, the elimination position
// of each local variable, the scope of each table (sorted by position), the
// tables pending at each variable (those whose earliest variable it is)
// and the position of a variable in the current bucket's dims.
type layer struct {
	s       *schedule
	pos     []int
	scopes  [][]int32
	pending [][]int
	at      []int
}

func (l *layer) byPos(a, b int32) int { return l.pos[a] - l.pos[b] }

// entries returns the entries of a table over scope.
func (l *layer) entries(scope []int32) int {
	e := 1
	for _, u := range scope {
		e *= l.s.size[u]
	}
	return e
}

// alloc returns a span of e entries at the end of the arena.
func (l *layer) alloc(e int) span {
	sp := span{l.s.arena, e}
	l.s.arena += e
	return sp
}

// pot lays out the table of the potential pg, pending at the earliest
// variable of its scope, records the observed variables its factors read,
// and returns the work of tabulating it.
func (l *layer) pot(g *factorgraph.Graph, pg potGroup) float64 {
	s := l.s
	scope := slices.Clone(pg.scope)
	slices.SortFunc(scope, l.byPos)
	p := pot{facs: pg.facs, tab: len(s.tabs)}
	for _, u := range scope {
		p.vars = append(p.vars, s.global[u])
		p.sizes = append(p.sizes, s.size[u])
	}
	e := l.entries(scope)
	s.maxDims = max(s.maxDims, len(scope))
	s.tabs = append(s.tabs, l.alloc(e))
	l.scopes = append(l.scopes, scope)
	s.pots = append(s.pots, p)
	if len(scope) > 0 {
		l.pending[scope[0]] = append(l.pending[scope[0]], p.tab)
	}
	var vars []int
	for _, f := range pg.facs {
		vars = g.FactorVars(vars[:0], f)
		for _, v := range vars {
			if _, obs := g.Observed(v); obs && !slices.Contains(s.clamped, v) {
				s.clamped = append(s.clamped, v)
			}
		}
	}
	return float64(e) * (workEntry + workFactor*float64(len(pg.facs)))
}

// bucket lays out the bucket of variable v (its inputs, its table, its
// message, pending at the earliest of the bucket's other variables, and
// its chunks), appends it to the schedule and returns its work.
func (l *layer) bucket(v int32) float64 {
	s := l.s
	bk := bucket{v: v, shared: -1}
	var others []int32
	for _, t := range l.pending[v] {
		for _, u := range l.scopes[t] {
			if u != v && !slices.Contains(others, u) {
				others = append(others, u)
			}
		}
	}
	slices.SortFunc(others, l.byPos)
	bvars := append([]int32{v}, others...)
	bk.dims = make([]int, len(bvars))
	for d, u := range bvars {
		bk.dims[d] = s.size[u]
		l.at[u] = d
	}
	tn := l.entries(bvars)
	for _, t := range l.pending[v] {
		in := input{tab: t, str: make([]int, len(bvars)), msg: t >= len(s.pots)}
		st := 1
		for _, u := range l.scopes[t] {
			in.str[l.at[u]] = st
			st *= s.size[u]
		}
		if bk.shared < 0 && in.msg && len(l.scopes[t]) == len(bvars) {
			bk.shared = len(bk.ins)
		}
		bk.ins = append(bk.ins, in)
	}
	if bk.shared >= 0 {
		bk.t = s.tabs[bk.ins[bk.shared].tab]
	} else {
		bk.t = l.alloc(tn)
	}
	bk.msg = len(s.tabs)
	s.tabs = append(s.tabs, l.alloc(max(1, tn/bk.dims[0])))
	l.scopes = append(l.scopes, others)
	if len(others) > 0 {
		l.pending[others[0]] = append(l.pending[others[0]], bk.msg)
	} else {
		bk.root = true
	}
	bk.chunk()
	s.chunk = max(s.chunk, bk.cn)
	s.maxIns = max(s.maxIns, len(bk.ins))
	s.maxDims = max(s.maxDims, len(bk.dims))
	work := bk.levelWork(tn)
	s.buckets = append(s.buckets, bk)
	return work
}

// chunk sets the bucket's chunks: the leading dimensions whose entries fit
// in chunkMax (at least the first), and the block sizes of their levels.
func (bk *bucket) chunk() {
	bk.cn = bk.dims[0]
	bk.cdims = 1
	for bk.cdims < len(bk.dims) && bk.cn*bk.dims[bk.cdims] <= chunkMax {
		bk.cn *= bk.dims[bk.cdims]
		bk.cdims++
	}
	bk.levels = make([][]int, bk.cdims)
	bk.blk = make([]int, bk.cdims)
	for j := range bk.cdims {
		bk.blk[j] = bk.dims[j]
		if j > 0 {
			bk.blk[j] *= bk.blk[j-1]
		}
	}
}

// levelWork sorts the bucket's inputs (but the shared one) into the levels
// of its chunks and returns the bucket's work, tn its table's entries.
// Upward: per chunk, the gathers of each level and the broadcasts between
// levels, then the row pass; downward: the row pass and a scatter to each
// child not shared.
func (bk *bucket) levelWork(tn int) float64 {
	gathers, scatters := 0.0, 0
	for k, in := range bk.ins {
		if k == bk.shared {
			continue
		}
		j := 0
		for d := range bk.cdims {
			if in.str[d] != 0 {
				j = d
			}
		}
		bk.levels[j] = append(bk.levels[j], k)
		gathers += float64(bk.blk[j]) / float64(bk.cn)
		if in.msg {
			scatters++
		}
	}
	for j := 1; j < bk.cdims; j++ {
		gathers += float64(bk.blk[j]) / float64(bk.cn) * workCopy
	}
	return float64(tn)*(gathers+float64(scatters+2*workRow)) +
		float64(2*bk.cn*len(bk.ins))*workIndex + workBucket
}

// solveBytes returns the bytes Solve allocates: the arena, the forms of the
// tables, the index maps and the scratch of a chunk, the state and
// conditional scratch of the tabulation, and the result.
func (s *schedule) solveBytes() float64 {
	const (
		word   = 8
		header = 24 // a slice
		form   = 32
		fixed  = 96 // the result, rounding
	)
	n := len(s.size)
	return word*float64(s.arena) + form*float64(len(s.tabs)) +
		float64(s.maxIns)*(header+4*float64(s.chunk)+word) + word*float64(2*s.maxDims+s.chunk+s.nvars+s.maxSize) +
		float64(n)*(header+word) + word*float64(s.margs) + fixed
}

// Work units (see Component.Work): a gathered or scattered table entry is
// one; the other costs are relative to it.
const (
	workRow    = 1    // an entry of a row pass (normalising, or weighting and summing)
	workCopy   = 0.25 // an entry broadcast (copied) from one level of a chunk to the next
	workTouch  = 1    // an entry of the arena, first touched (the system's page faults)
	workIndex  = 1    // an entry of an index map
	workBucket = 200  // the fixed cost of a bucket in each pass
	workEntry  = 2    // an entry of a potential (converting it to linear)
	workFactor = 20   // a factor value (an interface call and its check)
)
