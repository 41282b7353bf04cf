package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Schedule is the order in which factors send their messages.
type Schedule int

const (
	// Sequential updates every factor in turn, a sweep at a time, damped
	// after half the sweeps allowed.
	Sequential Schedule = iota
	// Residual updates the factor whose messages would change most next
	// (residual belief propagation, Elidan, McGraw and Koller 2006),
	// which converges on more loopy graphs; Options.MaxIter counts its
	// updates in sweeps' worth (as many updates as factors).
	Residual
)

// Options configure Run. The zero value gives the defaults.
type Options struct {
	// Schedule is the update order (Sequential by default).
	Schedule Schedule
	// MaxIter is the most sweeps over the factors. Zero means 1000.
	MaxIter int
	// Tol ends the iteration when no message entry changed by more than
	// it in a sweep. Zero means 1e-9.
	Tol float64
	// MaxEntries refuses a factor whose table over its free variables
	// has more entries. Zero means 1<<16.
	MaxEntries int
	// Vars, if not nil, restricts the propagation to these free
	// variables and the factors that read them (a union of connected
	// components: a factor reading one of them and another free variable
	// not among them is refused).
	Vars []int
	// Deadline, if not zero, ends the iteration when passed (Result says
	// not converged).
	Deadline time.Time
	// MaxBytes, if positive, refuses a propagation whose tables and
	// messages would take more memory.
	MaxBytes float64
	// MaxWork, if positive, bounds the iterations by the table entries
	// they read in all (a sweep reads every table once): on a graph of
	// millions of factors a fixed count of sweeps could take minutes.
	MaxWork float64
}

// Result is what Run found.
type Result struct {
	// Beliefs[i] is variable i's belief (its marginal where the graph is
	// a forest), for the free variables propagated; nil for the others.
	Beliefs [][]float64
	// Iterations is the sweeps run, Residual the largest change of a
	// message entry in the last one, Converged whether it was within
	// Options.Tol.
	Iterations int
	Residual   float64
	Converged  bool
}

// brokenCavity, set by a test, makes a variable's message to a factor
// include that factor's message: the broken variant the tests must catch.
var brokenCavity bool

// ErrNoMass is returned when the messages reach a variable that no value
// can take: the evidence or the hard factors have probability zero.
var ErrNoMass = errors.New("bp: a variable has no value of positive mass")

// Run propagates beliefs on g's free discrete variables (opt.Vars of
// them). It refuses a continuous variable, and a factor whose table over
// its free variables exceeds opt.MaxEntries. If ctx is cancelled it
// returns ctx's error.
func Run(ctx context.Context, g *factorgraph.Graph, opt Options) (*Result, error) {
	if g == nil {
		return nil, errors.New("bp: nil graph")
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 1000
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-9
	}
	if opt.MaxEntries == 0 {
		opt.MaxEntries = 1 << 16
	}
	if opt.MaxIter < 0 || !(opt.Tol > 0) || opt.MaxEntries < 0 {
		return nil, fmt.Errorf("bp: MaxIter %d, Tol %v, MaxEntries %d: want MaxIter ≥ 0, Tol > 0, MaxEntries ≥ 0", opt.MaxIter, opt.Tol, opt.MaxEntries)
	}
	if opt.Schedule != Sequential && opt.Schedule != Residual {
		return nil, fmt.Errorf("bp: unknown Schedule %d (Sequential or Residual)", opt.Schedule)
	}
	n, err := build(ctx, g, opt)
	if err != nil {
		return nil, err
	}
	return n.run(ctx, g, opt)
}

// network is the flat layout of the propagation: the variables and
// factors propagated, each factor's table over its free variables (the
// first of its scope fastest), and one message a (factor, variable) edge
// each way.
type network struct {
	vars  []int   // the free variables propagated (global indices)
	local []int32 // global → local index, −1 if not propagated
	size  []int   // local variable → domain size
	voff  []int   // local variable → offset of its values (unary, belief)
	unary []float64
	// Variable v's edges: vedges[vstart[v]:vstart[v+1]].
	vstart, vedges []int
	// Factor f's edges are fstart[f]..fstart[f+1]−1 (one a free variable of
	// its scope, in order); its table tab[toff[f]:toff[f+1]].
	fstart, toff []int
	tab          []float64
	// Edge e: its variable (local), the offset of its messages in fv
	// (factor → variable) and vf (variable → factor).
	evar []int32
	eoff []int
	fv   []float64
	vf   []float64
	// bel is every variable's belief (at voff), kept up to date as the
	// messages change: a variable's message to a factor is its belief
	// divided by the factor's message (cavity), O(d) and not O(d·degree).
	bel []float64
}

// build tabulates the factors of g that read the variables propagated.
func build(ctx context.Context, g *factorgraph.Graph, opt Options) (*network, error) {
	n := &network{local: make([]int32, g.NumVars())}
	for i := range n.local {
		n.local[i] = -1
	}
	vars := opt.Vars
	if vars == nil {
		vars = g.Free()
	}
	for _, i := range vars {
		if i < 0 || i >= g.NumVars() {
			return nil, fmt.Errorf("bp: variable %d out of range [0, %d)", i, g.NumVars())
		}
		if _, obs := g.Observed(i); obs {
			return nil, fmt.Errorf("bp: variable %d is observed: only free variables are propagated", i)
		}
		d := g.Domain(i)
		if !d.IsDiscrete() {
			return nil, fmt.Errorf("bp: variable %d is continuous: belief propagation here is for discrete variables", i)
		}
		if n.local[i] >= 0 {
			return nil, fmt.Errorf("bp: variable %d given twice", i)
		}
		n.local[i] = int32(len(n.vars))
		n.vars = append(n.vars, i)
		n.voff = append(n.voff, len(n.unary))
		n.size = append(n.size, d.Size)
		for range d.Size {
			n.unary = append(n.unary, 1)
		}
	}
	n.voff = append(n.voff, len(n.unary))
	x := make([]float64, g.NumVars())
	for i := range x {
		if v, obs := g.Observed(i); obs {
			x[i] = v
		}
	}
	var scope, free []int
	var logs []float64
	need := 0.0 // the bytes of the tables and messages so far
	deg := make([]int, len(n.vars))
	n.fstart = append(n.fstart, 0)
	n.toff = append(n.toff, 0)
	for f := range g.NumFactors() {
		if f&1023 == 1023 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		scope = g.FactorVars(scope[:0], f)
		free = free[:0]
		in, out := false, false
		entries := 1
		for _, i := range scope {
			if _, obs := g.Observed(i); obs {
				continue
			}
			if n.local[i] < 0 {
				out = true
				continue
			}
			in = true
			if !slices.Contains(free, i) {
				free = append(free, i)
				entries *= n.size[n.local[i]]
				if entries > opt.MaxEntries {
					return nil, fmt.Errorf("bp: %s has more than %d entries over its free variables (Options.MaxEntries)", g.FactorName(f), opt.MaxEntries)
				}
			}
		}
		switch {
		case !in:
			continue
		case out:
			return nil, fmt.Errorf("bp: %s reads variables propagated and free ones not (Options.Vars must be whole components)", g.FactorName(f))
		}
		// The table over free (the first fastest): log-potentials, then
		// exp of each less their maximum.
		logs = logs[:0]
		mx := math.Inf(-1)
		for e := range entries {
			r := e
			for _, i := range free {
				d := n.size[n.local[i]]
				x[i] = float64(r % d)
				r /= d
			}
			v := g.EvalFactor(f, x)
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("bp: %s is %v at a state of its free variables", g.FactorName(f), v)
			}
			logs = append(logs, v)
			mx = max(mx, v)
		}
		if math.IsInf(mx, -1) {
			return nil, fmt.Errorf("%w: %s is zero at every state of its free variables", ErrNoMass, g.FactorName(f))
		}
		if len(free) == 1 {
			// A unary factor multiplies its variable's prior.
			l := n.local[free[0]]
			u := n.unary[n.voff[l]:n.voff[l+1]]
			for v, lv := range logs {
				u[v] *= math.Exp(lv - mx)
			}
			continue
		}
		need += 8 * float64(entries)
		for _, i := range free {
			need += 3 * 8 * float64(n.size[n.local[i]]) // its messages each way and the scratch's
		}
		if opt.MaxBytes > 0 && need > opt.MaxBytes {
			return nil, fmt.Errorf("bp: the tables and messages need more than %.4g bytes (Options.MaxBytes)", opt.MaxBytes)
		}
		for _, lv := range logs {
			n.tab = append(n.tab, math.Exp(lv-mx))
		}
		for _, i := range free {
			l := n.local[i]
			n.evar = append(n.evar, l)
			deg[l]++
		}
		n.fstart = append(n.fstart, len(n.evar))
		n.toff = append(n.toff, len(n.tab))
	}
	// Messages start uniform.
	for _, l := range n.evar {
		n.eoff = append(n.eoff, len(n.fv))
		d := n.size[l]
		for range d {
			n.fv = append(n.fv, 1/float64(d))
		}
	}
	n.vf = append([]float64(nil), n.fv...)
	n.vstart = make([]int, len(n.vars)+1)
	for l, d := range deg {
		n.vstart[l+1] = n.vstart[l] + d
	}
	n.vedges = make([]int, len(n.evar))
	fill := append([]int(nil), n.vstart[:len(n.vars)]...)
	for e, l := range n.evar {
		n.vedges[fill[l]] = e
		fill[l]++
	}
	for l := range n.vars {
		if err := normalise(n.unary[n.voff[l]:n.voff[l+1]]); err != nil {
			return nil, fmt.Errorf("%w: variable %d's unary factors are zero at every value", ErrNoMass, n.vars[l])
		}
	}
	return n, nil
}

// normalise scales p to sum 1; an error if it sums to zero (or is not
// finite). Written out: floats.Sum and floats.Scale, calls on slices of
// two or three entries here, made BenchmarkRun 1.5 times slower.
func normalise(p []float64) error {
	s := 0.0
	for _, v := range p {
		s += v
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return ErrNoMass
	}
	for k := range p {
		p[k] /= s
	}
	return nil
}

// run iterates the sequential schedule and returns the beliefs.
func (n *network) run(ctx context.Context, g *factorgraph.Graph, opt Options) (*Result, error) {
	res := &Result{Beliefs: make([][]float64, g.NumVars()), Residual: math.Inf(1)}
	nf := len(n.fstart) - 1
	maxK := 0
	for f := range nf {
		maxK = max(maxK, n.fstart[f+1]-n.fstart[f])
	}
	if w := float64(len(n.tab) + len(n.fv)); opt.MaxWork > 0 && w > 0 {
		opt.MaxIter = max(1, min(opt.MaxIter, int(opt.MaxWork/w)))
	}
	s := &scratch{idx: make([]int, maxK), pre: make([]float64, maxK+1), suf: make([]float64, maxK+1), out: make([]float64, len(n.fv))}
	if opt.Schedule == Residual && nf > 0 {
		if err := n.residual(ctx, opt, s, res); err != nil {
			return nil, err
		}
	}
	damp := 0.0
	for it := 1; it <= opt.MaxIter && nf > 0 && opt.Schedule != Residual; it++ {
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			break // the beliefs so far (before ctx's error: a context of the same deadline)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if it > opt.MaxIter/2 {
			damp = 0.5
		}
		res.Residual = 0
		if err := n.beliefs(); err != nil {
			return nil, err
		}
		for f := range nf {
			r, err := n.update(f, s, damp)
			if err != nil {
				return nil, err
			}
			res.Residual = max(res.Residual, r)
		}
		res.Iterations = it
		if res.Residual <= opt.Tol {
			res.Converged = true
			break
		}
	}
	if nf == 0 {
		res.Converged, res.Residual = true, 0
	}
	if err := n.beliefs(); err != nil {
		return nil, err
	}
	for l, i := range n.vars {
		res.Beliefs[i] = append([]float64(nil), n.bel[n.voff[l]:n.voff[l+1]]...)
	}
	return res, nil
}

// beliefs sets every variable's belief: its unary factors times the
// messages of its factors, normalised after each product (a variable of
// thousands of factors would underflow otherwise).
func (n *network) beliefs() error {
	if n.bel == nil {
		n.bel = make([]float64, len(n.unary))
	}
	for l, i := range n.vars {
		b := n.bel[n.voff[l]:n.voff[l+1]]
		copy(b, n.unary[n.voff[l]:n.voff[l+1]])
		for _, e := range n.vedges[n.vstart[l]:n.vstart[l+1]] {
			m := n.fv[n.eoff[e] : n.eoff[e]+len(b)]
			for v := range b {
				b[v] *= m[v]
			}
			if err := normalise(b); err != nil {
				return fmt.Errorf("%w: variable %d", ErrNoMass, i)
			}
		}
	}
	return nil
}

// scratch is the per-update working memory: a table index's digits, the
// prefix and suffix products of the incoming messages at an entry, and
// the new messages.
type scratch struct {
	idx      []int
	pre, suf []float64
	out      []float64
}

// update recomputes factor f's messages to its variables from their
// messages to it, themselves recomputed first from the variables' other
// factors, and returns the largest change of an entry.
func (n *network) update(f int, s *scratch, damp float64) (float64, error) {
	if _, err := n.candidate(f, s); err != nil {
		return 0, err
	}
	return n.commit(f, s, damp)
}

// candidate computes factor f's new messages to its variables (in s.out,
// normalised) from their messages to it, themselves recomputed first
// from the variables' other factors, and returns the largest change an
// entry would see; nothing of the messages to the variables changes.
func (n *network) candidate(f int, s *scratch) (float64, error) {
	e0, e1 := n.fstart[f], n.fstart[f+1]
	k := e1 - e0
	// The variables' messages to f: unary × the other factors' messages.
	for e := e0; e < e1; e++ {
		l := n.evar[e]
		d := n.size[l]
		m := n.vf[n.eoff[e] : n.eoff[e]+d]
		if brokenCavity {
			copy(m, n.bel[n.voff[l]:n.voff[l+1]]) // the factor's own message included
		} else if !n.cavity(l, e, m) {
			copy(m, n.unary[n.voff[l]:n.voff[l+1]])
			for _, o := range n.vedges[n.vstart[l]:n.vstart[l+1]] {
				if o == e {
					continue
				}
				in := n.fv[n.eoff[o] : n.eoff[o]+d]
				for v := range m {
					m[v] *= in[v]
				}
				normalise(m) // a zero sum is caught below
			}
		}
		if err := normalise(m); err != nil {
			return 0, fmt.Errorf("%w: variable %d", ErrNoMass, n.vars[l])
		}
		out := s.out[n.eoff[e] : n.eoff[e]+d]
		clear(out)
	}
	tab := n.tab[n.toff[f]:n.toff[f+1]]
	idx := s.idx[:k]
	clear(idx)
	pre, suf := s.pre[:k+1], s.suf[:k+1]
	for _, t := range tab {
		if t != 0 {
			pre[0] = t
			for j := range k {
				e := e0 + j
				pre[j+1] = pre[j] * n.vf[n.eoff[e]+idx[j]]
			}
			suf[k] = 1
			for j := k - 1; j >= 0; j-- {
				e := e0 + j
				suf[j] = suf[j+1] * n.vf[n.eoff[e]+idx[j]]
			}
			for j := range k {
				s.out[n.eoff[e0+j]+idx[j]] += pre[j] * suf[j+1]
			}
		}
		// The next entry: the first variable fastest.
		for j := range k {
			idx[j]++
			if idx[j] < n.size[n.evar[e0+j]] {
				break
			}
			idx[j] = 0
		}
	}
	res := 0.0
	for e := e0; e < e1; e++ {
		l := n.evar[e]
		d := n.size[l]
		out := s.out[n.eoff[e] : n.eoff[e]+d]
		if err := normalise(out); err != nil {
			return 0, fmt.Errorf("%w: the messages of a factor to variable %d", ErrNoMass, n.vars[l])
		}
		old := n.fv[n.eoff[e] : n.eoff[e]+d]
		for v := range out {
			res = max(res, math.Abs(out[v]-old[v]))
		}
	}
	return res, nil
}

// commit makes factor f's candidate messages (s.out, as candidate left
// them, the messages to f unchanged since) its messages, damped by damp,
// updates its variables' beliefs, and returns the largest change of an
// entry.
func (n *network) commit(f int, s *scratch, damp float64) (float64, error) {
	e0, e1 := n.fstart[f], n.fstart[f+1]
	res := 0.0
	for e := e0; e < e1; e++ {
		l := n.evar[e]
		d := n.size[l]
		out := s.out[n.eoff[e] : n.eoff[e]+d]
		old := n.fv[n.eoff[e] : n.eoff[e]+d]
		for v := range out {
			nv := (1-damp)*out[v] + damp*old[v]
			res = max(res, math.Abs(nv-old[v]))
			old[v] = nv
		}
		// The variable's belief with the new message: its message to f
		// times it.
		b, m := n.bel[n.voff[l]:n.voff[l+1]], n.vf[n.eoff[e]:n.eoff[e]+d]
		for v := range b {
			b[v] = m[v] * old[v]
		}
		if normalise(b) != nil {
			return 0, fmt.Errorf("%w: variable %d", ErrNoMass, n.vars[l])
		}
	}
	return res, nil
}

// cavity sets m to variable l's belief without the message of edge e
// (its message to e's factor, unnormalised) by division, in O(d), and
// reports whether it could: not where the message or the belief has a
// zero entry, whose quotient the product over the other edges must give.
func (n *network) cavity(l int32, e int, m []float64) bool {
	b, in := n.bel[n.voff[l]:n.voff[l+1]], n.fv[n.eoff[e]:n.eoff[e]+len(m)]
	for v := range m {
		if in[v] == 0 || b[v] == 0 {
			return false
		}
		m[v] = b[v] / in[v]
	}
	return true
}

// residual runs the residual schedule: a max-heap of every factor's
// largest pending change; the top factor's messages are committed, and
// the factors that read its variables get their candidates and changes
// recomputed.
func (n *network) residual(ctx context.Context, opt Options, s *scratch, res *Result) error {
	nf := len(n.fstart) - 1
	if err := n.beliefs(); err != nil {
		return err
	}
	h := &resHeap{pos: make([]int, nf), r: make([]float64, nf)}
	for f := range nf {
		r, err := n.candidate(f, s)
		if err != nil {
			return err
		}
		h.r[f] = r
		h.pos[f] = len(h.f)
		h.f = append(h.f, f)
	}
	for k := len(h.f)/2 - 1; k >= 0; k-- {
		h.down(k)
	}
	budget := opt.MaxIter * nf
	updates := 0
	for ; updates < budget; updates++ {
		top := h.f[0]
		if h.r[top] <= opt.Tol {
			res.Converged = true
			break
		}
		if updates%nf == 0 {
			if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if _, err := n.candidate(top, s); err != nil {
			return err
		}
		if _, err := n.commit(top, s, 0); err != nil {
			return err
		}
		h.set(top, 0)
		for e := n.fstart[top]; e < n.fstart[top+1]; e++ {
			l := n.evar[e]
			for _, o := range n.vedges[n.vstart[l]:n.vstart[l+1]] {
				g := n.factorOf(o)
				if g == top {
					continue
				}
				r, err := n.candidate(g, s)
				if err != nil {
					return err
				}
				h.set(g, r)
			}
		}
	}
	res.Iterations = (updates + nf - 1) / nf
	res.Residual = h.r[h.f[0]]
	return nil
}

// factorOf returns the factor of edge e (a binary search of fstart).
func (n *network) factorOf(e int) int {
	lo, hi := 0, len(n.fstart)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if n.fstart[mid] <= e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// resHeap is an indexed max-heap of factors by pending change.
type resHeap struct {
	f   []int     // the heap
	pos []int     // factor → its index in f
	r   []float64 // factor → its pending change
}

func (h *resHeap) swap(a, b int) {
	h.f[a], h.f[b] = h.f[b], h.f[a]
	h.pos[h.f[a]], h.pos[h.f[b]] = a, b
}

func (h *resHeap) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if h.r[h.f[p]] >= h.r[h.f[k]] {
			return
		}
		h.swap(p, k)
		k = p
	}
}

func (h *resHeap) down(k int) {
	for {
		c := 2*k + 1
		if c >= len(h.f) {
			return
		}
		if c+1 < len(h.f) && h.r[h.f[c+1]] > h.r[h.f[c]] {
			c++
		}
		if h.r[h.f[k]] >= h.r[h.f[c]] {
			return
		}
		h.swap(k, c)
		k = c
	}
}

// set sets factor f's pending change to r.
func (h *resHeap) set(f int, r float64) {
	old := h.r[f]
	h.r[f] = r
	if r > old {
		h.up(h.pos[f])
	} else {
		h.down(h.pos[f])
	}
}
