package elim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/unionfind"
)

// Defaults of Options.
const (
	// DefaultMaxBytes is the memory budget of one component's Solve when
	// Options.MaxBytes is zero: 2 GiB, enough for every shared UAI model of
	// the Grids, Pedigree and Promedus families (at most 1.8 GB).
	DefaultMaxBytes = 2 << 30
	// DefaultRestarts bounds the randomised greedy orders Plan tries for a
	// component when Options.Restarts is zero.
	DefaultRestarts = 256
)

// Options configures Plan. The zero value gives the defaults.
type Options struct {
	// MaxBytes bounds the memory Solve may allocate for one component, in
	// bytes; a component that needs more is planned but not solvable
	// (Component.Err). Zero means DefaultMaxBytes.
	MaxBytes float64
	// MaxTime bounds the time Solve may take for one component, as
	// estimated (Component.Estimate: deterministic, from the plan); a
	// component estimated over it is planned but not solvable. Zero means
	// no bound.
	MaxTime time.Duration
	// Restarts bounds the randomised greedy orders tried for a component
	// beyond the min-fill, min-weight and weighted min-fill orders: two
	// min-fill orders to one weighted min-fill and one min-weight, ties
	// broken at random by a generator with a fixed
	// seed, so that a plan is the same on every run. The search stops
	// early once it has cost about half as much as the elimination of the
	// best order found, or after 64 orders without improvement, so a small
	// component gets few. Zero means DefaultRestarts, a negative value none.
	Restarts int
}

// Component is the plan of the exact elimination of one connected component
// of the free variables of a graph: free variables are connected when a
// factor reads both, so evidence cuts connections. Its fields describe the
// cost of Solve; Plan fills them and Solve does not change them. Where no
// order fits the budgets, Order is nil and Width, MaxTable and Entries
// describe the min-fill order as far as it went.
type Component struct {
	Vars     []int   // its free variables, ascending
	Order    []int   // the elimination order chosen
	Width    int     // the order's induced width: the largest clique size − 1
	MaxTable float64 // entries of the order's largest table
	Entries  float64 // entries of all its tables (Σ of the cliques' sizes)
	Bytes    float64 // the memory Solve allocates
	Work     float64 // estimated table-entry operations of Solve
	// Err is why Solve cannot run (a continuous variable, no order within
	// the budgets MaxBytes and MaxTime), or nil.
	Err error

	g *factorgraph.Graph
	s *schedule
}

// Plan plans the exact elimination of every connected component of the free
// variables of g (ordered by their smallest variable): the factors touching
// it, an elimination order, its memory and its work. The order is the one
// with the fewest table entries (then the smallest largest table) of the
// min-fill, min-weight and weighted min-fill orders and up to opt.Restarts randomised
// greedy orders (see Options). Plan allocates no table: memory and work are
// known before Solve runs. A component Solve cannot handle — a continuous
// variable, or no order within opt.MaxBytes and opt.MaxTime — is returned
// with Err set, the others solved or not as the caller chooses. Plan itself
// fails only for a nil graph or invalid options.
//
// Plan's own cost grows with the component, about as a fraction of the
// Solve it plans: a component far over the budgets is refused once the
// tables of the orders tried exceed them (a grid of 10⁶ binary variables in
// a few seconds, one of 40 000 in a fraction of one). Plan looks at ctx
// every 2¹⁶ factors while it gathers a component's factors and every
// millisecond or two of its search. It plans the components smallest
// first: once ctx is done, the component being planned and the larger
// ones not yet planned are returned unplanned, their Err wrapping
// ctx.Err() (a caller with a deadline samples them instead).
func Plan(ctx context.Context, g *factorgraph.Graph, opt Options) ([]*Component, error) {
	if g == nil {
		return nil, errors.New("elim: Plan: nil graph")
	}
	if opt.MaxBytes < 0 || math.IsNaN(opt.MaxBytes) {
		return nil, fmt.Errorf("elim: Plan: MaxBytes = %v: want ≥ 0 (0: the default %d)", opt.MaxBytes, int64(DefaultMaxBytes))
	}
	if opt.MaxTime < 0 {
		return nil, fmt.Errorf("elim: Plan: MaxTime = %v: want ≥ 0 (0: no bound)", opt.MaxTime)
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.Restarts == 0 {
		opt.Restarts = DefaultRestarts
	}
	comps, facs := components(g)
	out := make([]*Component, len(comps))
	local := make([]int32, g.NumVars())
	for i := range local {
		local[i] = -1
	}
	// The smallest components first: a deadline that ends the planning
	// in a large one leaves the small ones planned (on UAI 2014 pedigrees
	// at 4 s, the component of 900 variables took the whole share, and the
	// exact answers of its small neighbours were lost with it). Each
	// keeps its own stream, so the plans are those of any order.
	order := make([]int, len(comps))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(comps[a]), len(comps[b])) })
	for _, k := range order {
		vars := comps[k]
		if err := ctx.Err(); err != nil {
			out[k] = &Component{Vars: vars, g: g, Err: fmt.Errorf("elim: %s: not planned: %w", name(vars), err)}
			continue
		}
		out[k] = plan(ctx, g, vars, facs[k], opt, k, local)
	}
	return out, nil
}

// components returns the connected components of g's free variables
// (ascending, ordered by their smallest variable) and the factors whose
// scope meets each.
func components(g *factorgraph.Graph) ([][]int, [][]int) {
	n := g.NumVars()
	parent := make([]int32, n)
	unionfind.Init(parent)
	find := func(v int32) int32 { return unionfind.Find(parent, v) }
	free := func(v int) bool { _, obs := g.Observed(v); return !obs }
	var scope []int // a factor's scope, without making its value (a heap object a factor)
	for f := range g.NumFactors() {
		first := int32(-1)
		scope = g.FactorVars(scope[:0], f)
		for _, v := range scope {
			if !free(v) {
				continue
			}
			if first < 0 {
				first = int32(v)
			} else if a, b := find(first), find(int32(v)); a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	id := make([]int, n)
	var comps [][]int
	for _, v := range g.Free() {
		r := find(int32(v))
		if r == int32(v) {
			id[v] = len(comps)
			comps = append(comps, nil)
		} else {
			id[v] = id[r] // the root is the smallest variable: seen first
		}
		comps[id[v]] = append(comps[id[v]], v)
	}
	facs := make([][]int, len(comps))
	for f := range g.NumFactors() {
		scope = g.FactorVars(scope[:0], f)
		for _, v := range scope {
			if free(v) {
				facs[id[v]] = append(facs[id[v]], f)
				break
			}
		}
	}
	return comps, facs
}

// name names a component by its variables in errors.
func name(vars []int) string {
	var b strings.Builder
	b.WriteString("component of variables [")
	for k, v := range vars {
		if k == 8 && len(vars) > 10 {
			fmt.Fprintf(&b, " … (%d in all)", len(vars))
			break
		}
		if k > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(']')
	return b.String()
}

// plan plans component k of g, the variables vars read by the factors facs.
// local is scratch: −1 for every variable, and left so.
func plan(ctx context.Context, g *factorgraph.Graph, vars, facs []int, opt Options, k int, local []int32) *Component {
	c := &Component{Vars: vars, g: g}
	for _, v := range vars {
		if d := g.Domain(v); !d.IsDiscrete() {
			c.Err = fmt.Errorf("elim: %s: variable %d is continuous on %v; elimination needs discrete variables", name(vars), v, d)
			return c
		} else if d.Size > math.MaxInt32 {
			c.Err = fmt.Errorf("elim: %s: variable %d has %d values, more than %d", name(vars), v, d.Size, math.MaxInt32)
			return c
		}
	}
	size := make([]int32, len(vars))
	for l, v := range vars {
		local[v] = int32(l)
		size[l] = int32(g.Domain(v).Size)
	}
	pots, err := groupFactors(ctx, g, facs, local, len(vars))
	for _, v := range vars {
		local[v] = -1
	}
	if err != nil {
		c.Err = fmt.Errorf("elim: %s: not planned: %w", name(vars), err)
		return c
	}
	adj := make([][]int32, len(vars))
	for k, p := range pots {
		if k&ctxEvery == ctxEvery && ctx.Err() != nil {
			c.Err = fmt.Errorf("elim: %s: not planned: %w", name(vars), ctx.Err())
			return c
		}
		for _, a := range p.scope {
			for _, b := range p.scope {
				if a != b && !slices.Contains(adj[a], b) {
					adj[a] = append(adj[a], b)
				}
			}
		}
	}
	// Solve allocates a table for each clique (or shares a message of its
	// size), so an order fits MaxBytes only if its entries in all do, and
	// its work is at least three an entry (a row pass each way and the
	// first touch): a component far over the budget is refused after the
	// few picks that show it, and the search stops once it has read as
	// many adjacency entries as the budget allows table entries.
	budget := fmt.Sprintf("MaxBytes = %.4g", opt.MaxBytes)
	limit := Stats{Width: math.MaxInt, MaxTable: min(opt.MaxBytes/8, maxEntries), Entries: opt.MaxBytes / 8}
	if opt.MaxTime > 0 {
		limit.Entries = min(limit.Entries, float64(opt.MaxTime)/nsPerWork/3)
		budget += fmt.Sprintf(", MaxTime = %v", opt.MaxTime)
	}
	order, st, ok := search(ctx, adj, size, limit, opt.Restarts, uint64(k))
	c.Width, c.MaxTable, c.Entries = st.Width, st.MaxTable, st.Entries
	if err := ctx.Err(); err != nil && order == nil {
		c.Err = fmt.Errorf("elim: %s: not planned: %w", name(vars), err)
		return c
	}
	if !ok {
		var why string
		switch {
		case st.MaxTable > limit.MaxTable:
			why = fmt.Sprintf("every order tried needs a table of more than %.4g entries", limit.MaxTable)
		case st.Entries > limit.Entries:
			why = fmt.Sprintf("every order tried needs more than %.4g table entries in all", limit.Entries)
		default:
			why = fmt.Sprintf("no order found within the search's budget (%.4g adjacency entries read)", limit.Entries)
		}
		c.Err = fmt.Errorf("elim: %s: %s, over the budget %s", name(vars), why, budget)
		return c
	}
	c.Order = make([]int, len(order))
	for i, l := range order {
		c.Order[i] = vars[l]
	}
	c.s = lay(g, vars, size, pots, order)
	c.Bytes, c.Work = c.s.bytes, c.s.work
	switch {
	case c.Bytes > opt.MaxBytes:
		c.Err = fmt.Errorf("elim: %s: elimination needs %.4g bytes (width %d, largest table %.4g entries, %.4g in all), over the budget %s",
			name(vars), c.Bytes, c.Width, c.MaxTable, c.Entries, budget)
	case opt.MaxTime > 0 && c.estimate() > opt.MaxTime:
		c.Err = fmt.Errorf("elim: %s: elimination estimated at %v (width %d, largest table %.4g entries, %.4g in all), over the budget %s",
			name(vars), c.estimate(), c.Width, c.MaxTable, c.Entries, budget)
	}
	return c
}

// maxEntries bounds every table: indices within a table's chunk are int32.
const maxEntries = 1 << 31

// searchSeed seeds the randomised orders (a component's index is the
// stream).
const searchSeed = 0x656c696d // "elim"

// patience is the number of randomised orders search tries after the last
// that improved on the best.
const patience = 64

// restartHeuristic is the heuristic of the k-th randomised order, k modulo
// its length.
var restartHeuristic = [...]Heuristic{MinFill, WeightedMinFill, MinFill, MinWeight}

// firstHeuristics are the heuristics of the deterministic orders search
// tries before the randomised ones.
var firstHeuristics = [...]Heuristic{MinFill, MinWeight, WeightedMinFill}

// search returns the order of the fewest entries (then the smallest largest
// table) of min-fill, min-weight, weighted min-fill and up to restarts
// randomised greedy orders (ties broken at random; two min-fill orders to
// one weighted min-fill and one min-weight), within limit. The search stops once it has read as many adjacency entries as the
// best order has table entries (a search costing about half as much as the
// elimination; limit.Entries while no order fits), or after patience
// restarts without improvement. ok is false if no order fits; bs then holds
// the statistics of the min-fill order as far as it went.
//
// On the shared UAI models the restarts cut the entries of the better of
// min-fill and min-weight by 2.6–5× on the Pedigree and Promedus networks
// and the grids; randomised min-fill does best on the first, min-weight on
// the grids, hence the mix. Weighted min-fill (issue 34) finds orders with
// 3× fewer entries on CSP_11 (7.4·10⁷ against 2.2·10⁸) and the first order
// within reach of linkage_16 of UAI 2014 (6.5·10⁸ entries, where every
// order of the other two needed a table of more than 2³¹), and changes no
// other shared model's plan. Where every domain has the same size (the
// grids) it is min-fill, and the search is the one before it. Picking the second best vertex now and then
// (the stochastic greedy orders of Kask, Gelfand, Otten and Dechter, AAAI
// 2011) did no better there than random tie-breaking.
//
// Once ctx is done, search returns the best order found so far (nil if
// none).
func search(ctx context.Context, adj [][]int32, size []int32, limit Stats, restarts int, stream uint64) (best []int32, bs Stats, ok bool) {
	consider := func(o []int32, s Stats) bool {
		if o != nil && (best == nil || s.Entries < bs.Entries || s.Entries == bs.Entries && s.MaxTable < bs.MaxTable) {
			best, bs = o, s
			return true
		}
		return false
	}
	var first Stats
	work := 0.0
	// Where every domain has the same size, weighted min-fill is min-fill
	// (every edge weighs the same): its orders would repeat min-fill's.
	uniform := !slices.ContainsFunc(size, func(d int32) bool { return d != size[0] })
	heuristic := func(h Heuristic) Heuristic {
		if uniform && h == WeightedMinFill {
			return MinFill
		}
		return h
	}
	for k, h := range firstHeuristics {
		if uniform && h == WeightedMinFill {
			continue
		}
		o, s, w := greedy(ctx, adj, size, h, nil, limit, limit.Entries-work)
		if k == 0 {
			first = s
		}
		work += w
		consider(o, s)
	}
	r := rand.New(rand.NewPCG(searchSeed, stream))
	last := 0 // the restart that last improved the order
	for k := 0; k < restarts && k-last < patience; k++ {
		lim := limit
		if best != nil {
			lim.Entries = bs.Entries
		}
		if work >= lim.Entries || ctx.Err() != nil {
			break
		}
		o, s, w := greedy(ctx, adj, size, heuristic(restartHeuristic[k%len(restartHeuristic)]), r, lim, lim.Entries-work)
		work += w
		if consider(o, s) {
			last = k
		}
	}
	if best == nil {
		return nil, first, false
	}
	return best, bs, true
}

// potGroup is a group of factors reading the same free variables (scope:
// local indices, ascending).
type potGroup struct {
	scope []int32
	facs  []int
	n     int
}

// groupFactors groups the factors facs of g by the free variables they
// read (local indices by local, n of them), in the order of their first
// factor. A group is found among those whose first variable is the
// factor's: a scan of a short list, no map.
//
// It looks at ctx every ctxEvery+1 factors (a model of 5·10⁶ factors takes
// seconds here, before the search) and returns its error once it is done.
func groupFactors(ctx context.Context, g *factorgraph.Graph, facs []int, local []int32, n int) ([]potGroup, error) {
	var pots []potGroup
	head := make([]int32, n) // the last group of each first variable, +1
	var next []int32         // the previous group of the same first variable, +1
	of := make([]int32, len(facs))
	var scope, buf []int32 // buf backs the groups' scopes
	var vars []int
	for k, f := range facs {
		if k&ctxEvery == ctxEvery && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		scope = scope[:0]
		vars = g.FactorVars(vars[:0], f)
		for _, v := range vars {
			if l := local[v]; l >= 0 {
				scope = append(scope, l)
			}
		}
		slices.Sort(scope)
		p := head[scope[0]] - 1
		for p >= 0 && !slices.Equal(pots[p].scope, scope) {
			p = next[p] - 1
		}
		if p < 0 {
			p = int32(len(pots))
			buf = append(buf, scope...)
			pots = append(pots, potGroup{scope: buf[len(buf)-len(scope) : len(buf) : len(buf)]})
			next = append(next, head[scope[0]])
			head[scope[0]] = p + 1
		}
		of[k] = p
		pots[p].n++
	}
	// The factors of each group, in one array.
	all := make([]int, len(facs))
	at := 0
	for p := range pots {
		pots[p].facs = all[at : at : at+pots[p].n]
		at += pots[p].n
	}
	for k, f := range facs {
		pots[of[k]].facs = append(pots[of[k]].facs, f)
	}
	return pots, nil
}

// ctxEvery+1 is the factors (or groups) between two looks at the context
// in groupFactors and plan's adjacency.
const ctxEvery = 1<<16 - 1

// Estimate returns the time Solve is expected to take on one core: Work
// times a constant calibrated on the shared UAI models (a deterministic
// figure, measured once, not at run time; within a factor of about two of
// the time on the machine it was measured on, more where buckets fall back
// to log space). Zero for a component Solve cannot run.
func (c *Component) Estimate() time.Duration {
	if c.Err != nil {
		return 0
	}
	return c.estimate()
}

func (c *Component) estimate() time.Duration { return time.Duration(c.Work * nsPerWork) }

// nsPerWork is the time of one unit of Work, in nanoseconds (see
// Estimate).
const nsPerWork = 1.4
