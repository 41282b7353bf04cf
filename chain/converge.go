package chain

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pgibbs/pgibbs/diag"
)

// Counter is a Kernel that counts its work in coordinate updates: a
// single-site step counts one, a block update the block's size, a cluster
// move its members, a sweep every coordinate it samples. Updates returns the
// updates made so far and per, the updates of one sweep (the coordinates the
// kernel samples: the free variables). done/per is the chain's length in
// sweep-equivalents, the unit in which samplers whose steps update
// different numbers of coordinates can be budgeted, traced and compared:
// a million steps are a million site updates for plain Gibbs, and a
// million block updates for blocked Gibbs.
type Counter interface {
	Kernel
	Updates() (done int64, per int)
}

// Sweeps returns k's length in sweep-equivalents, and false if k does not
// count its updates.
func Sweeps(k Kernel) (float64, bool) {
	c, ok := k.(Counter)
	if !ok {
		return 0, false
	}
	done, per := c.Updates()
	return float64(done) / float64(max(per, 1)), true
}

// Criteria are the thresholds of a convergence verdict: every tracked
// quantity must have rank-normalised split-R̂ (diag.RHat) below RHat and
// bulk and tail ESS of at least MinESS (Vehtari et al. 2021 ask R̂ < 1.01
// and ESS > 400 over four chains, about 100 a chain).
type Criteria struct {
	RHat   float64 // zero: 1.01
	MinESS float64 // zero: 100
}

// Defaults returns c with its zero fields set to the defaults.
func (c Criteria) Defaults() Criteria {
	if c.RHat == 0 {
		c.RHat = 1.01
	}
	if c.MinESS == 0 {
		c.MinESS = 100
	}
	return c
}

// Monitor watches the convergence of a run's chains on discrete
// coordinates. Each chain gets a trace (Monitor.Trace: one draw a
// sweep-equivalent when its kernel is a Counter, one a step otherwise) and
// the tracked quantities are the coordinates' values (a continuous
// coordinate, or a discrete one of two values) or the indicators 1[x_j = v]
// of each value v (more values).
// Verdict judges them by rank-normalised split-R̂ and bulk and tail ESS
// (package diag): R̂ compares the halves of each chain as well as the
// chains, so one chain gets a verdict too. Until is the same judgement as
// a Runner's stopping rule.
type Monitor struct {
	vars   []int
	sizes  []int // sizes[j]: the values of coordinate vars[j]
	max    int
	traces []*Trace
	margs  []*Marginals // the chains' marginals, for the frozen rule (UseMarginals)
	// degenerate, if set, says which coordinates need not move
	// (UseDegenerate).
	degenerate func(i int) bool
	// names, if set, is the index coordinate i has in the names the
	// verdict and Quantities give (UseNames).
	names []int
	memo  *judgement // the last judgement of the traces (Verdict)
}

// judgement is a Judge verdict on the traces as they stood (key:
// traceKey) under criteria c.
type judgement struct {
	c   Criteria
	key []int64
	v   Verdict
}

// Tracked returns at most k of vars, evenly spaced (all of them if there
// are k or fewer): the variables a Monitor of a large model traces. A
// verdict's cost and its traces' memory grow with the quantities tracked
// (a few hundred microseconds and 16 kB a quantity a chain); a thousand
// variables spread over the model judge it as well as all of them unless
// a few variables alone mix badly, which the verdict then does not see
// (it says how many it tracked).
func Tracked(vars []int, k int) []int {
	if len(vars) <= k {
		return vars
	}
	out := make([]int, k)
	for j := range out {
		out[j] = vars[j*len(vars)/k]
	}
	return out
}

// DefaultTracked is the number of variables the command line and package
// infer track (Tracked).
const DefaultTracked = 1000

// MinVerdictDraws is the fewest draws a chain must have for a verdict.
const MinVerdictDraws = 20

// NewMonitor returns a monitor of the coordinates vars, coordinate j
// taking sizes[j] values 0, …, sizes[j]−1, or continuous values where
// sizes[j] is 0 (sizes indexed by coordinate, as factorgraph.Sizes gives
// them), each chain's trace keeping at most maxDraws (≥ MinVerdictDraws)
// draws.
func NewMonitor(vars []int, sizes []int, maxDraws int) (*Monitor, error) {
	if maxDraws < MinVerdictDraws {
		return nil, fmt.Errorf("chain: monitor keeping %d draws a chain: need at least %d", maxDraws, MinVerdictDraws)
	}
	m := &Monitor{vars: vars, sizes: make([]int, len(vars)), max: maxDraws}
	for j, v := range vars {
		if v < 0 || v >= len(sizes) || sizes[v] < 0 {
			return nil, fmt.Errorf("chain: monitor of coordinate %d: not a coordinate of the sizes given", v)
		}
		m.sizes[j] = sizes[v]
	}
	return m, nil
}

// NumQuantities returns the number of tracked quantities: one a
// coordinate of two values or fewer (or continuous), one a value
// otherwise.
func (m *Monitor) NumQuantities() int {
	q := 0
	for _, s := range m.sizes {
		if s <= 2 {
			q++
		} else {
			q += s
		}
	}
	return q
}

// Budget caps the draws each chain's trace keeps so that a verdict on
// chains chains costs about d on one core: a verdict costs about
// VerdictCost a quantity, chain and draw (rank normalisation, and the FFTs
// of the bulk and tail ESS), so that 4000 quantities of 2000 draws take
// about a second. The cap is never below MinBudgetDraws nor above the
// monitor's maximum. A run with a wall-clock budget calls it before Trace,
// and keeps d of its budget for the verdict.
func (m *Monitor) Budget(d time.Duration, chains int) {
	n := int(float64(d) / (float64(VerdictCost) * float64(m.NumQuantities()*max(chains, 1))))
	n &^= 1 // even: a full trace halves
	m.max = min(m.max, max(n, MinBudgetDraws))
}

// VerdictCost is the time of a verdict a quantity, chain and draw, on one
// core of the machine it was measured on (Monitor.Budget).
const VerdictCost = 150 * time.Nanosecond

// MinBudgetDraws is the fewest draws Monitor.Budget leaves a trace: a
// verdict on fewer says little.
const MinBudgetDraws = 400

// Trace returns the observer that records the chain of kernel k for the
// monitor (add it to the chain's Observers; one a chain, in the chains'
// order).
func (m *Monitor) Trace(k Kernel) (*Trace, error) {
	var t *Trace
	var err error
	if c, ok := k.(Counter); ok {
		t, err = NewSweepTrace(m.vars, c, m.max)
	} else {
		t, err = NewTrace(m.vars, 1, m.max)
	}
	if err != nil {
		return nil, err
	}
	m.traces = append(m.traces, t)
	return t, nil
}

// Traces returns the chains' traces.
func (m *Monitor) Traces() []*Trace { return m.traces }

// Quantities returns the tracked quantities now, [quantity][chain][draw]
// (chains cut to the shortest), and a function naming quantity q ("x12",
// or "P(x12 = 3)").
func (m *Monitor) Quantities() ([][][]float64, func(q int) string) {
	if len(m.traces) == 0 {
		return nil, func(int) string { return "" }
	}
	shortest := math.MaxInt
	for _, t := range m.traces {
		shortest = min(shortest, len(t.Draws()[0]))
	}
	var qs [][][]float64
	var names []string
	for j, v := range m.vars {
		d := m.sizes[j]
		if d <= 2 {
			q := make([][]float64, len(m.traces))
			for k, t := range m.traces {
				q[k] = t.Draws()[j][:shortest]
			}
			qs, names = append(qs, q), append(names, fmt.Sprintf("x%d", m.name(v)))
			continue
		}
		for val := range d {
			q := make([][]float64, len(m.traces))
			for k, t := range m.traces {
				q[k] = make([]float64, shortest)
				for n, x := range t.Draws()[j][:shortest] {
					if int(x) == val {
						q[k][n] = 1
					}
				}
			}
			qs, names = append(qs, q), append(names, fmt.Sprintf("P(x%d = %d)", m.name(v), val))
		}
	}
	return qs, func(q int) string { return names[q] }
}

// Verdict is the judgement of a run's convergence.
type Verdict struct {
	// Converged is true when every tracked quantity meets the criteria.
	Converged bool `json:"converged"`
	// Chains and Draws: the chains judged and the draws of each.
	Chains int `json:"chains"`
	Draws  int `json:"draws_per_chain"`
	// RHatMax, BulkESSMin and TailESSMin are the worst values over the
	// quantities (NaN when undefined: no quantity left to judge, or a
	// diagnostic undefined for all, as the tail ESS of a discrete quantity
	// whose 5% or 95% quantile is an end of its range). RHatMax is +Inf
	// when a variable is frozen (Frozen): one that never moved has no
	// finite R̂, whatever the quantities that moved say; JSON writes it
	// null, as it does NaN.
	RHatMax    float64 `json:"rhat_max"`
	BulkESSMin float64 `json:"ess_bulk_min"`
	TailESSMin float64 `json:"ess_tail_min"`
	// Worst names the quantities that fail the criteria, worst first (at
	// most five), with the value that fails: frozen variables first.
	Worst []string `json:"worst,omitempty"`
	// Constant counts the quantities constant in every chain: they say
	// nothing of the mixing (a deterministic value, or a chain that never
	// moved them).
	Constant int `json:"constant,omitempty"`
	// Frozen counts the traced variables that never changed in any chain
	// although nothing shows that their marginals are degenerate (one
	// value of positive probability): neither the model (Monitor.UseDegenerate)
	// nor the chains' Rao–Blackwellised conditionals, which gave every
	// other value probability zero (or were not recorded: visit counts
	// cannot tell a frozen variable from a deterministic one). A chain that
	// never moves a variable says nothing of its marginal — a hard link its
	// updates cannot change, neighbours frozen with it —, so frozen
	// variables fail the verdict and make RHatMax +Inf. A variable constant
	// in each chain at different values is frozen too (R̂ +Inf already).
	Frozen int `json:"frozen,omitempty"`
	// Stuck counts those of the Frozen variables whose chains' pooled
	// Rao–Blackwellised marginals give the value they stayed in less than
	// StuckBelow (Monitor.UseMarginals): their conditionals said they
	// should move, and they did not.
	Stuck int `json:"stuck,omitempty"`
	// Reason says, in words, why the run is not converged ("" if it is).
	Reason string `json:"reason,omitempty"`
}

// LastToConverge names what keeps v from converging, as a stopping rule
// reports its last check: the worst quantity, else the reason ("" when
// converged).
func (v Verdict) LastToConverge() string {
	switch {
	case v.Converged:
		return ""
	case len(v.Worst) > 0:
		return v.Worst[0]
	}
	return v.Reason
}

// Summary says v, a verdict under criteria c on quantities quantities,
// in one line: "converged: R̂ < 1.01 and ESS ≥ 100 for all 12 tracked
// quantities (2 chain(s) × 500 draws, one a sweep-equivalent)", or "NOT
// converged: " and the reason. of, if not empty, says which variables
// were judged when not all ("1000 of 40000 variables, evenly spaced").
func (v Verdict) Summary(c Criteria, quantities int, of string) string {
	c = c.Defaults()
	switch {
	case v.Converged && of != "":
		of = " of " + of
	case of != "":
		of = " (judged on " + of + ")"
	}
	if v.Converged {
		return fmt.Sprintf("converged: R̂ < %g and ESS ≥ %g for all %d tracked quantities%s (%d chain(s) × %d draws, one a sweep-equivalent)",
			c.RHat, c.MinESS, quantities-v.Constant, of, v.Chains, v.Draws)
	}
	return "NOT converged: " + v.Reason + of
}

// RHat says RHatMax for a report's R̂ line: "1.0032"; "∞ (12 variables
// never moved, their marginals not known to be degenerate)" with frozen
// variables; "∞" for quantities constant at different values in
// different chains; "" when undefined.
func (v Verdict) RHat() string {
	switch {
	case v.Frozen > 0:
		n, their := variables(v.Frozen)
		return fmt.Sprintf("∞ (%s never moved, %s not known to be degenerate)", n, their)
	case math.IsInf(v.RHatMax, 1):
		return "∞"
	case math.IsNaN(v.RHatMax):
		return ""
	}
	return fmt.Sprintf("%.4f", v.RHatMax)
}

// StuckBelow is the Rao–Blackwellised probability under which a variable
// that never left its value counts as stuck (Verdict.Stuck).
const StuckBelow = 0.99

// UseMarginals gives the monitor the chains' marginals (one a chain, in
// the chains' order). Where they are Rao–Blackwellised they tell a
// variable that never moved because its conditionals were concentrated on
// its value (positive probability elsewhere in every chain: not frozen)
// from one whose conditionals never gave another value any probability
// (frozen unless UseDegenerate says otherwise), and name those whose
// pooled marginals put more than 1 − StuckBelow of their mass elsewhere
// (Verdict.Stuck). Without them, or with visit counts, every variable
// that never moved is frozen unless UseDegenerate says it need not move.
func (m *Monitor) UseMarginals(ms ...*Marginals) { m.margs = ms }

// UseDegenerate gives the monitor what it cannot see in the chains:
// degenerate(i) reports whether coordinate i need not move — its marginal
// is degenerate (the model's hard factors and evidence leave it one value
// of positive probability) or is known without the chains (an exact
// answer). A traced variable that never moved is frozen (Verdict.Frozen)
// unless degenerate says so or its Rao–Blackwellised conditionals had mass
// elsewhere (UseMarginals). degenerate is called at each verdict for the
// variables that never moved only.
func (m *Monitor) UseDegenerate(degenerate func(i int) bool) { m.degenerate = degenerate }

// UseNames makes the monitor name coordinate i as names[i] in its
// quantities and verdicts ("x12", "P(x12 = 3)"): the caller's numbering of
// a model renumbered for locality (factorgraph.Renumber with order: names
// = order). names must cover every traced coordinate.
func (m *Monitor) UseNames(names []int) {
	m.names = names
	m.memo = nil
}

// name returns the index coordinate i is named by.
func (m *Monitor) name(i int) int {
	if m.names == nil {
		return i
	}
	return m.names[i]
}

// Verdict judges the chains' traces against c (zero fields: defaults),
// and the variables that never moved (Verdict.Frozen). A verdict on traces
// that have not changed since the last one reuses its R̂ and ESS.
func (m *Monitor) Verdict(c Criteria) Verdict {
	c = c.Defaults()
	key := m.traceKey()
	if m.memo == nil || m.memo.c != c || !slices.Equal(m.memo.key, key) {
		qs, name := m.Quantities()
		m.memo = &judgement{c: c, key: key, v: Judge(qs, name, c)}
	}
	v := m.memo.v
	v.Worst = slices.Clone(v.Worst)
	m.judgeFrozen(&v)
	return v
}

// traceKey identifies the traces' state: each one's draws, interval and
// clock of its last draw.
func (m *Monitor) traceKey() []int64 {
	key := make([]int64, 0, 3*len(m.traces))
	for _, t := range m.traces {
		n := 0
		if len(t.draws) > 0 {
			n = len(t.draws[0])
		}
		key = append(key, int64(n), t.every, t.last)
	}
	return key
}

// judgeFrozen fails v for the traced variables that never changed in any
// chain although nothing shows their marginals degenerate (Verdict.Frozen,
// Verdict.Stuck), naming the first five.
func (m *Monitor) judgeFrozen(v *Verdict) {
	if len(m.traces) == 0 {
		return
	}
	for _, t := range m.traces {
		if len(t.draws) == 0 || len(t.draws[0]) < MinVerdictDraws {
			return // too few draws to say anything: Judge says so
		}
	}
	rb := len(m.margs) > 0 && m.margs[0].RaoBlackwellised()
	var pooled [][]float64 // the chains' marginals pooled
	var each [][][]float64 // each chain's, when there is one a trace
	var names, worst []string
	for j, i := range m.vars {
		x, same, moved := m.stayed(j)
		if moved {
			continue
		}
		if rb && pooled == nil {
			pooled = PoolMarginals(m.margs...)
			if len(m.margs) == len(m.traces) {
				for _, mg := range m.margs {
					each = append(each, mg.Probs())
				}
			}
		}
		val := int(x)
		p := -1.0 // the pooled probability of val, −1 if unknown
		if rb && val >= 0 && val < len(pooled[i]) {
			p = pooled[i][val]
		}
		name := ""
		switch {
		case m.sizes[j] == 1:
			continue // one value: nothing to move to
		case !same:
			name = fmt.Sprintf("x%d (never moved, at different values in different chains)", m.name(i))
		case p >= 0 && p < StuckBelow:
			v.Stuck++
			name = fmt.Sprintf("x%d (never left %d, whose Rao–Blackwellised probability is %.3f)", m.name(i), val, p)
		case m.degenerate != nil && m.degenerate(i):
			continue
		case rb && elsewhere(pooled, each, i, val):
			continue // concentrated conditionals: a near-degenerate marginal
		default:
			name = fmt.Sprintf("x%d (never left %d)", m.name(i), val)
		}
		v.Frozen++
		if len(names) < 5 {
			names = append(names, name)
			if same {
				worst = append(worst, name)
			}
		}
	}
	if v.Frozen > 0 {
		v.failFrozen(names, worst)
	}
}

// stayed reports about traced variable j whether it moved in some chain
// and, if not, its first value and whether every chain stayed at it.
func (m *Monitor) stayed(j int) (x float64, same, moved bool) {
	x, same = m.traces[0].draws[j][0], true
	for _, t := range m.traces {
		y := t.draws[j][0]
		same = same && y == x
		for _, z := range t.draws[j] {
			if z != y {
				return x, same, true
			}
		}
	}
	return x, same, false
}

// failFrozen fails v for its v.Frozen frozen variables, names (the first
// five) and worst (those of them at the same value in every chain) leading
// its reason and worst quantities.
func (v *Verdict) failFrozen(names, worst []string) {
	v.Converged = false
	v.RHatMax = math.Inf(1)
	for _, w := range v.Worst {
		if !strings.HasSuffix(w, constantApart) {
			worst = append(worst, w) // the quantities constant apart are frozen variables, named above
		}
	}
	v.Worst = worst[:min(5, len(worst))]
	if len(v.Worst) == 0 {
		v.Worst = nil
	}
	n, their := variables(v.Frozen)
	what := fmt.Sprintf("%s never moved in any chain, %s not known to be degenerate (R̂ ∞)", n, their)
	if v.Stuck > 0 {
		what += fmt.Sprintf(", %d of them with Rao–Blackwellised marginals that say they should move", v.Stuck)
	}
	v.Reason = strings.TrimSuffix(what+": "+strings.Join(names, ", ")+"; "+v.Reason, "; ")
}

// variables says n variables and their marginals: "1 variable", "its
// marginal"; "12 variables", "their marginals".
func variables(n int) (string, string) {
	if n == 1 {
		return "1 variable", "its marginal"
	}
	return fmt.Sprintf("%d variables", n), "their marginals"
}

// elsewhere reports whether the Rao–Blackwellised marginals of variable i
// give a value other than val positive probability in every chain (each,
// one a chain), or pooled if each is nil: conditionals that could have
// moved it.
func elsewhere(pooled [][]float64, each [][][]float64, i, val int) bool {
	other := func(p []float64) bool {
		for v, q := range p {
			if v != val && q > 0 {
				return true
			}
		}
		return false
	}
	if each == nil {
		return other(pooled[i])
	}
	for _, p := range each {
		if !other(p[i]) {
			return false
		}
	}
	return true
}

// constantApart ends the name of a quantity constant in each chain at
// different values (Judge).
const constantApart = " (stuck: constant in each chain at different values)"

// Until returns a stopping rule for Runner.Until: true once the traces
// meet c (zero fields: defaults) and no variable is frozen
// (Verdict.Frozen). Each call judges the traces as Verdict does; last, if
// not nil, receives the verdict of every check.
func (m *Monitor) Until(c Criteria, last *Verdict) func([]*Chain) (bool, error) {
	c = c.Defaults()
	return func([]*Chain) (bool, error) {
		v := m.Verdict(c)
		if last != nil {
			*last = v
		}
		return v.Converged, nil
	}
}

// Run is the one call of a run that stops when converged: it adds a trace
// of m to each chain, runs them with r (r.Steps or r.Duration the
// ceiling; r.Until, if set, is kept and asked first, an error ending the
// run), stopping at the first check point where the traces meet c, and
// returns the final verdict. A check point comes every r.CheckEvery steps
// at first (zero: every sixty-fourth of r.Steps, or 1000 steps with a
// Duration), then growing by an eighth (Runner.Until). The verdict is the
// last thing to read before trusting the chains' estimates: Converged
// false names the quantities that fail.
func (m *Monitor) Run(ctx context.Context, r *Runner, chains []*Chain, c Criteria) (Verdict, error) {
	for _, ch := range chains {
		tr, err := m.Trace(ch.Kernel)
		if err != nil {
			return Verdict{}, err
		}
		ch.Observers = append(ch.Observers, tr)
	}
	if r.CheckEvery == 0 {
		r.CheckEvery = 1000
		if r.Steps > 0 {
			r.CheckEvery = max(1, r.Steps/64)
		}
	}
	rule, mine := r.Until, m.Until(c, nil)
	r.Until = func(cs []*Chain) (bool, error) {
		if rule != nil {
			if stop, err := rule(cs); stop || err != nil {
				return stop, err
			}
		}
		return mine(cs)
	}
	defer func() { r.Until = rule }()
	if err := r.Run(ctx, chains); err != nil {
		return m.Verdict(c), err
	}
	return m.Verdict(c), nil
}

// Judge returns the verdict of criteria c (zero fields: defaults) on
// quantities qs[quantity][chain][draw] (equal lengths) named by name: the
// judgement of Monitor.Verdict, for quantities a caller tracks itself (a
// lattice's energy and magnetisation series).
func Judge(qs [][][]float64, name func(int) string, c Criteria) Verdict {
	c = c.Defaults()
	v := Verdict{RHatMax: math.NaN(), BulkESSMin: math.NaN(), TailESSMin: math.NaN()}
	if len(qs) == 0 || len(qs[0]) == 0 {
		v.Reason = "nothing traced"
		return v
	}
	v.Chains, v.Draws = len(qs[0]), len(qs[0][0])
	if v.Draws < MinVerdictDraws {
		v.Reason = fmt.Sprintf("too few draws (%d a chain, one a sweep-equivalent) for R̂ and ESS: run at least %d sweeps", v.Draws, MinVerdictDraws)
		return v
	}
	sums := summarize(qs)
	var fails []failure
	for q, s := range sums {
		if s.constant {
			v.Constant++
			continue
		}
		if s.err != nil {
			v.Reason = fmt.Sprintf("%s: %v", name(q), s.err)
			return v
		}
		r, bulk, tail := s.RHat, s.BulkESS, s.TailESS
		if math.IsNaN(bulk) {
			bulk = 0
		}
		v.RHatMax = nanMerge(math.Max, v.RHatMax, r)
		v.BulkESSMin = nanMerge(math.Min, v.BulkESSMin, bulk)
		v.TailESSMin = nanMerge(math.Min, v.TailESSMin, tail)
		switch {
		case math.IsInf(r, 1):
			fails = append(fails, failure{name(q) + constantApart, math.Inf(1)})
		case !(r < c.RHat) && !math.IsNaN(r):
			fails = append(fails, failure{fmt.Sprintf("%s (R̂ %.3g)", name(q), r), r - 1})
		case bulk < c.MinESS:
			fails = append(fails, failure{fmt.Sprintf("%s (bulk ESS %.0f)", name(q), bulk), 1 / max(bulk, 1e-9)})
		case !math.IsNaN(tail) && tail < c.MinESS:
			fails = append(fails, failure{fmt.Sprintf("%s (tail ESS %.0f)", name(q), tail), 1 / max(tail, 1e-9)})
		}
	}
	if v.Constant == len(qs) {
		v.Reason = "every tracked quantity was constant in every chain: no sign of mixing to judge"
		return v
	}
	if len(fails) == 0 {
		v.Converged = true
		return v
	}
	slices.SortStableFunc(fails, func(a, b failure) int { return cmp.Compare(b.by, a.by) })
	for _, f := range fails[:min(5, len(fails))] {
		v.Worst = append(v.Worst, f.what)
	}
	v.Reason = fmt.Sprintf("%d of %d tracked quantities fail R̂ < %g, ESS ≥ %g; worst: %s", len(fails), len(qs)-v.Constant, c.RHat, c.MinESS, strings.Join(v.Worst, ", "))
	return v
}

// summary is one quantity's diagnostics for Judge: constant in every
// chain, or its Summary, or Summarize's error.
type summary struct {
	diag.Summary
	constant bool
	err      error
}

// summarize returns the summaries of the quantities qs, computed by up to
// GOMAXPROCS goroutines over contiguous runs of quantities (the verdict
// follows the chains' end, when the cores are idle; each summary is the
// same whichever goroutine computes it).
func summarize(qs [][][]float64) []summary {
	out := make([]summary, len(qs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(qs)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := w * len(qs) / workers; q < (w+1)*len(qs)/workers; q++ {
				if allEqual(qs[q]) {
					out[q].constant = true
					continue
				}
				out[q].Summary, out[q].err = diag.Summarize(qs[q])
			}
		}()
	}
	wg.Wait()
	return out
}

// MarshalJSON writes the undefined (NaN) and infinite diagnostics as
// null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	return json.Marshal(struct {
		plain
		RHatMax    *float64 `json:"rhat_max"`
		BulkESSMin *float64 `json:"ess_bulk_min"`
		TailESSMin *float64 `json:"ess_tail_min"`
	}{plain(v), defined(v.RHatMax), defined(v.BulkESSMin), defined(v.TailESSMin)})
}

// defined returns &x, or nil for NaN and ±Inf (JSON has no infinity: an
// infinite R̂ is named in the reason).
func defined(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// failure is a quantity that fails the criteria and how badly.
type failure struct {
	what string
	by   float64
}

// allEqual reports whether every draw of every chain is the same.
func allEqual(chains [][]float64) bool {
	x := chains[0][0]
	for _, c := range chains {
		for _, y := range c {
			if y != x {
				return false
			}
		}
	}
	return true
}

// nanMerge returns f(a, b), or whichever of a and b is not NaN.
func nanMerge(f func(a, b float64) float64, a, b float64) float64 {
	switch {
	case math.IsNaN(b):
		return a
	case math.IsNaN(a):
		return b
	}
	return f(a, b)
}
