// Package enumcheck is the ground truth of the exactness tests of the
// packages that answer discrete models exactly (elim, infer, the command
// line): small random UAI models of every kind that has broken exact
// inference before — variables of one value, duplicate factors, hard
// zeros, evidence, potentials from 10⁻³⁰⁰ to 10³⁰⁰, subnormal entries,
// factors whose variables are all observed, infeasible models, several
// components — written as UAI text, and their marginals and log Z by
// brute-force enumeration in exact arithmetic (math/big), from the text
// alone: it shares no code with the library's readers or solvers.
package enumcheck

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Case is one model: its kind, the seed that generated it, the UAI model
// and evidence texts (Evidence "" for none), and its answer by
// enumeration (Enumerate of the texts).
type Case struct {
	Kind     string
	Seed     uint64
	Model    string
	Evidence string
	Truth    *Truth
}

// String names the case and prints its texts, for test failures.
func (c Case) String() string {
	s := fmt.Sprintf("%s #%d:\n%s", c.Kind, c.Seed, c.Model)
	if c.Evidence != "" {
		s += "evidence: " + c.Evidence + "\n"
	}
	return s
}

// Kinds lists the kinds of model Cases generates, in its order:
//
//   - domain-1: several variables of one value, in scopes with others;
//   - duplicates: factors over the same scope more than once (in the same
//     or another variable order), variables read by many factors;
//   - hard: zeros in the tables (hard factors);
//   - evidence: observed variables;
//   - wide: potentials from 10⁻³⁰⁰ to 10³⁰⁰ (log weights spanning ±690);
//   - subnormal: subnormal entries (1e-310, 1e-320, 5e-324) beside 1e-300
//     and ordinary ones;
//   - clamped: factors whose variables are all observed, positive at the
//     evidence;
//   - constant: factors of empty scope (a constant potential);
//   - components: several connected components, evidence cutting some;
//   - zero-clamped: a factor whose variables are all observed is zero at
//     the evidence (infeasible);
//   - zero-free: no assignment of positive probability, through the free
//     variables (with or without evidence, no clamped factor zero);
//   - mixed: all of the above at random.
var Kinds = []string{"domain-1", "duplicates", "hard", "evidence", "wide", "subnormal", "clamped",
	"constant", "components", "zero-clamped", "zero-free", "mixed"}

// Cases returns perKind models of each kind of Kinds, from fixed seeds.
func Cases(perKind int) []Case {
	var out []Case
	for k, kind := range Kinds {
		seed := uint64(k) << 32
		for n := 0; n < perKind; seed++ {
			if c, ok := generate(kind, seed); ok {
				out = append(out, c)
				n++
			}
		}
	}
	return out
}

// params are the knobs of a random model.
type params struct {
	nMin, nMax int     // variables
	maxDom     int     // largest domain
	dom1       float64 // probability a variable has one value
	facMin     int     // factors (beyond one a variable)
	facMax     int
	maxArity   int
	hard       float64 // probability a table is hard (has zeros)
	zero       float64 // probability an entry of a hard table is zero
	evid       float64 // probability a variable is observed
	dup        float64 // probability a factor repeats an earlier scope
	constant   float64 // probability a factor has an empty scope
	groups     int     // disjoint groups of variables (components)
	entry      func(r *rand.Rand) string
}

// model is a generated model before it is written.
type model struct {
	cards  []int
	scopes [][]int
	tables [][]string
	evid   map[int]int
}

// ordinary returns an ordinary positive potential, in (0.05, 20).
func ordinary(r *rand.Rand) string {
	return strconv.FormatFloat(math.Exp(3*(r.Float64()-0.5)*2), 'g', -1, 64)
}

// wide returns a potential 10^u, u uniform on [−300, 300], or, a third of
// the time, on the extremes [−300, −290] and [290, 300].
func wide(r *rand.Rand) string {
	u := 600*r.Float64() - 300
	if r.IntN(3) == 0 {
		u = math.Copysign(290+10*r.Float64(), u)
	}
	return strconv.FormatFloat(math.Pow(10, u), 'g', -1, 64)
}

// tinyEntries are the subnormal and tiny entries of the subnormal kind.
var tinyEntries = []string{"1e-310", "1e-320", "5e-324", "4.9406564584124654e-324", "2.5e-315", "1e-300", "3e-308", "2.2250738585072014e-308"}

// subnormal returns a subnormal or tiny entry half of the time, an
// ordinary one otherwise.
func subnormal(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return tinyEntries[r.IntN(len(tinyEntries))]
	}
	return ordinary(r)
}

// mixedEntry draws from every entry generator.
func mixedEntry(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return wide(r)
	case 1:
		return subnormal(r)
	default:
		return ordinary(r)
	}
}

// generate returns the model of kind from seed, and false if the seed
// does not give one of the kind (a zero-free draw that is feasible).
func generate(kind string, seed uint64) (Case, bool) {
	r := rand.New(rand.NewPCG(seed, 0x656e756d))
	p := params{nMin: 2, nMax: 5, maxDom: 3, facMin: 1, facMax: 6, maxArity: 3, entry: ordinary}
	switch kind {
	case "domain-1":
		p.dom1 = 0.45
	case "duplicates":
		p.dup, p.facMax = 0.5, 9
	case "hard":
		p.hard, p.zero = 0.6, 0.3
	case "evidence":
		p.evid, p.hard, p.zero = 0.3, 0.3, 0.25
	case "wide":
		p.entry = wide
	case "subnormal":
		p.entry = subnormal
	case "clamped", "zero-clamped":
		p.evid, p.nMin = 0.3, 3
	case "constant":
		p.constant, p.dom1, p.evid = 0.3, 0.15, 0.15
	case "components":
		p.groups, p.nMin, p.nMax, p.evid = 2+r.IntN(2), 4, 7, 0.15
	case "zero-free":
		p.hard, p.zero, p.evid, p.dom1 = 0.8, 0.55, 0.2, 0.1
	case "mixed":
		p = params{nMin: 1, nMax: 6, maxDom: 3, dom1: 0.2, facMin: 0, facMax: 8, maxArity: 3,
			hard: 0.3, zero: 0.3, evid: 0.2, dup: 0.2, constant: 0.1, groups: 1 + r.IntN(3), entry: mixedEntry}
	default:
		panic("enumcheck: unknown kind " + kind)
	}
	m := randomModel(r, p)
	switch kind {
	case "clamped", "zero-clamped":
		clamp(r, m, p, kind == "zero-clamped")
	}
	c := Case{Kind: kind, Seed: seed, Model: m.uai(), Evidence: m.evidence()}
	t, err := Enumerate(c)
	if err != nil {
		panic(fmt.Sprintf("enumcheck: %v\n%s", err, c))
	}
	c.Truth = t
	ft := t.Features
	switch kind {
	case "domain-1":
		return c, t.Feasible && ft.Domain1 >= 2
	case "duplicates":
		return c, t.Feasible && ft.Duplicates > 0
	case "hard":
		return c, ft.Zeros > 0
	case "evidence":
		return c, ft.Observed > 0
	case "wide":
		return c, t.Feasible && ft.Tiny > 0 && ft.Huge > 0
	case "subnormal":
		return c, t.Feasible && ft.Subnormal > 0
	case "clamped":
		return c, t.Feasible && ft.Clamped > 0
	case "constant":
		return c, t.Feasible && ft.Constants > 0
	case "components":
		return c, ft.Components >= 2
	case "zero-clamped":
		return c, t.ClampedZero
	case "zero-free":
		return c, !t.Feasible && !t.ClampedZero
	}
	return c, true
}

// randomModel draws a model by p: every variable in a factor, then more
// factors; scopes within one group of variables.
func randomModel(r *rand.Rand, p params) *model {
	n := p.nMin + r.IntN(p.nMax-p.nMin+1)
	m := &model{cards: make([]int, n), evid: map[int]int{}}
	for i := range m.cards {
		m.cards[i] = 2 + r.IntN(p.maxDom-1)
		if r.Float64() < p.dom1 {
			m.cards[i] = 1
		}
	}
	groups := max(p.groups, 1)
	group := func(i int) int { return i * groups / n } // contiguous groups
	members := func(g int) []int {
		var vs []int
		for i := range n {
			if group(i) == g {
				vs = append(vs, i)
			}
		}
		return vs
	}
	addFactor := func(scope []int) {
		hard := r.Float64() < p.hard
		e := 1
		for _, v := range scope {
			e *= m.cards[v]
		}
		tab := make([]string, e)
		for k := range tab {
			tab[k] = p.entry(r)
			if hard && r.Float64() < p.zero {
				tab[k] = "0"
			}
		}
		if !slices.ContainsFunc(tab, func(s string) bool { return s != "0" }) {
			tab[r.IntN(e)] = p.entry(r) // a table of zeros is no model
		}
		m.scopes = append(m.scopes, scope)
		m.tables = append(m.tables, tab)
	}
	randomScope := func(first int) []int {
		vs := members(group(first))
		others := slices.DeleteFunc(slices.Clone(vs), func(v int) bool { return v == first })
		r.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
		a := r.IntN(min(p.maxArity, len(vs)))
		scope := append([]int{first}, others[:a]...)
		r.Shuffle(len(scope), func(a, b int) { scope[a], scope[b] = scope[b], scope[a] })
		return scope
	}
	for i := range n {
		addFactor(randomScope(i))
	}
	for range p.facMin + r.IntN(p.facMax-p.facMin+1) {
		switch {
		case r.Float64() < p.constant:
			addFactor(nil)
		case r.Float64() < p.dup && len(m.scopes) > 0:
			scope := slices.Clone(m.scopes[r.IntN(len(m.scopes))])
			if r.IntN(2) == 0 {
				r.Shuffle(len(scope), func(a, b int) { scope[a], scope[b] = scope[b], scope[a] })
			}
			addFactor(scope)
		default:
			addFactor(randomScope(r.IntN(n)))
		}
	}
	for i := range n {
		if r.Float64() < p.evid {
			m.evid[i] = r.IntN(m.cards[i])
		}
	}
	return m
}

// clamp observes every variable of a factor of m with at least one
// variable (adding one over two variables if none has), at an assignment
// where its table is zero if zero, otherwise positive; the table gets the
// other value there.
func clamp(r *rand.Rand, m *model, p params, zero bool) {
	var cands []int
	for f, s := range m.scopes {
		if len(s) > 0 {
			cands = append(cands, f)
		}
	}
	f := cands[r.IntN(len(cands))]
	idx := 0
	for _, v := range m.scopes[f] {
		x, ok := m.evid[v]
		if !ok {
			x = r.IntN(m.cards[v])
			m.evid[v] = x
		}
		idx = idx*m.cards[v] + x
	}
	t := m.tables[f]
	if zero {
		t[idx] = "0"
		if !slices.ContainsFunc(t, func(s string) bool { return s != "0" }) {
			// A table of one entry cannot be zero at the evidence alone:
			// make it a table over a second variable too.
			m.scopes = append(m.scopes, []int{m.scopes[f][0], (m.scopes[f][0] + 1) % len(m.cards)})
			v := m.scopes[len(m.scopes)-1][1]
			if _, ok := m.evid[v]; !ok {
				m.evid[v] = r.IntN(m.cards[v])
			}
			c0, c1 := m.cards[m.scopes[len(m.scopes)-1][0]], m.cards[v]
			tab := make([]string, c0*c1)
			for k := range tab {
				tab[k] = p.entry(r)
			}
			x0, x1 := m.evid[m.scopes[len(m.scopes)-1][0]], m.evid[v]
			if c0*c1 == 1 {
				tab[0] = p.entry(r) // both of one value: nothing can be zero; stays feasible
			} else {
				tab[x0*c1+x1] = "0"
			}
			m.tables = append(m.tables, tab)
			t[idx] = p.entry(r)
		}
	} else if t[idx] == "0" {
		t[idx] = p.entry(r)
	}
}

// uai writes m in the UAI format, scopes and tables in the order drawn.
func (m *model) uai() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MARKOV\n%d\n", len(m.cards))
	for i, c := range m.cards {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, c)
	}
	fmt.Fprintf(&b, "\n%d\n", len(m.scopes))
	for _, s := range m.scopes {
		fmt.Fprint(&b, len(s))
		for _, v := range s {
			fmt.Fprintf(&b, " %d", v)
		}
		b.WriteByte('\n')
	}
	for _, t := range m.tables {
		fmt.Fprintf(&b, "\n%d\n%s\n", len(t), strings.Join(t, " "))
	}
	return b.String()
}

// evidence writes m's evidence in the UAI format ("" for none).
func (m *model) evidence() string {
	if len(m.evid) == 0 {
		return ""
	}
	vs := make([]int, 0, len(m.evid))
	for v := range m.evid {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	s := strconv.Itoa(len(vs))
	for _, v := range vs {
		s += fmt.Sprintf(" %d %d", v, m.evid[v])
	}
	return s
}

// Truth is a model's answer by enumeration.
type Truth struct {
	// Feasible says some assignment of the free variables has positive
	// probability given the evidence; ClampedZero says a factor whose
	// variables are all observed is zero at the evidence.
	Feasible    bool
	ClampedZero bool
	// Marginals[i][a] = π(x_i = a | evidence), a point mass for observed
	// variables (nil if not Feasible).
	Marginals [][]float64
	// LogZ is log Σ over the assignments of the free variables of the
	// product of every table at them, observed variables at their values
	// (−Inf if not Feasible).
	LogZ float64
	// States is the number of assignments enumerated.
	States int
	// Features counts what the model holds, for the tests' checks that
	// each kind is what it says.
	Features Features
}

// Features counts the features of a model that have broken exact
// inference.
type Features struct {
	Domain1    int // variables of one value in a scope with a variable of more
	Duplicates int // factors over the scope (as a set) of an earlier one
	Zeros      int // tables with a zero entry
	Observed   int // observed variables
	Clamped    int // factors of at least one variable, all observed
	Constants  int // factors of empty scope
	Subnormal  int // subnormal entries (below 2⁻¹⁰²²)
	Tiny, Huge int // normal entries of at most 10⁻²⁹⁰, entries of at least 10²⁹⁰
	Components int // connected components of the free variables
}

// prec is the precision of the sums (the products of a few 53-bit
// entries are exact at it; a sum's rounding is far below any tolerance).
const prec = 512

// Enumerate parses the case's texts (MARKOV models; each table entry is
// read as math/big's exact decimal, then rounded to the nearest float64,
// the number a reader of doubles holds — checked against
// strconv.ParseFloat) and returns its answer by visiting every assignment
// of the free variables, in big.Float arithmetic.
func Enumerate(c Case) (*Truth, error) {
	tok := strings.Fields(c.Model)
	at := 0
	next := func() (string, error) {
		if at >= len(tok) {
			return "", fmt.Errorf("enumcheck: model text ends early")
		}
		at++
		return tok[at-1], nil
	}
	nextInt := func() (int, error) {
		s, err := next()
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(s)
	}
	if s, err := next(); err != nil || s != "MARKOV" {
		return nil, fmt.Errorf("enumcheck: want a MARKOV model, have %q", s)
	}
	n, err := nextInt()
	if err != nil {
		return nil, err
	}
	cards := make([]int, n)
	for i := range cards {
		if cards[i], err = nextInt(); err != nil {
			return nil, err
		}
	}
	nf, err := nextInt()
	if err != nil {
		return nil, err
	}
	scopes := make([][]int, nf)
	for f := range scopes {
		a, err := nextInt()
		if err != nil {
			return nil, err
		}
		scopes[f] = make([]int, a)
		for k := range scopes[f] {
			if scopes[f][k], err = nextInt(); err != nil {
				return nil, err
			}
		}
	}
	tables := make([][]*big.Float, nf)
	for f := range tables {
		e, err := nextInt()
		if err != nil {
			return nil, err
		}
		tables[f] = make([]*big.Float, e)
		for k := range tables[f] {
			s, err := next()
			if err != nil {
				return nil, err
			}
			tables[f][k], err = double(s)
			if err != nil {
				return nil, fmt.Errorf("enumcheck: factor %d entry %d: %w", f, k, err)
			}
		}
	}
	evid, err := parseEvidence(c.Evidence)
	if err != nil {
		return nil, err
	}
	t := enumerate(cards, scopes, tables, evid)
	t.Features = features(cards, scopes, tables, evid)
	return t, nil
}

// parseEvidence reads an evidence text ("k v₁ x₁ … v_k x_k") as a map
// from variable to value.
func parseEvidence(text string) (map[int]int, error) {
	evid := map[int]int{}
	ev := strings.Fields(text)
	if len(ev) == 0 {
		return evid, nil
	}
	k, err := strconv.Atoi(ev[0])
	if err != nil || len(ev) != 1+2*k {
		return nil, fmt.Errorf("enumcheck: evidence %q", text)
	}
	for j := range k {
		v, err1 := strconv.Atoi(ev[1+2*j])
		x, err2 := strconv.Atoi(ev[2+2*j])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("enumcheck: evidence %q", text)
		}
		evid[v] = x
	}
	return evid, nil
}

// features counts the features of a parsed model.
func features(cards []int, scopes [][]int, tables [][]*big.Float, evid map[int]int) Features {
	var ft Features
	ft.Observed = len(evid)
	observed := func(v int) bool { _, ok := evid[v]; return ok }
	one := map[int]bool{}
	for f, s := range scopes {
		if len(s) == 0 {
			ft.Constants++
		} else if !slices.ContainsFunc(s, func(v int) bool { return !observed(v) }) {
			ft.Clamped++
		}
		if slices.ContainsFunc(s, func(v int) bool { return cards[v] > 1 }) {
			for _, v := range s {
				if cards[v] == 1 {
					one[v] = true
				}
			}
		}
		for g := range f {
			if len(scopes[g]) == len(s) && !slices.ContainsFunc(s, func(v int) bool { return !slices.Contains(scopes[g], v) }) {
				ft.Duplicates++
				break
			}
		}
		zero := false
		for _, e := range tables[f] {
			x, _ := e.Float64()
			switch {
			case x == 0:
				zero = true
			case x < 0x1p-1022:
				ft.Subnormal++
			case x <= 1e-290:
				ft.Tiny++
			case x >= 1e290:
				ft.Huge++
			}
		}
		if zero {
			ft.Zeros++
		}
	}
	ft.Domain1 = len(one)
	// Components: union-find over the free variables of each scope.
	parent := make([]int, len(cards))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(a int) int {
		if parent[a] != a {
			parent[a] = find(parent[a])
		}
		return parent[a]
	}
	for _, s := range scopes {
		first := -1
		for _, v := range s {
			if observed(v) {
				continue
			}
			if first < 0 {
				first = v
			} else {
				parent[find(v)] = find(first)
			}
		}
	}
	for i := range cards {
		if !observed(i) && find(i) == i {
			ft.Components++
		}
	}
	return ft
}

// double returns the float64 nearest the decimal s, as an exact big.Float.
func double(s string) (*big.Float, error) {
	d, _, err := big.ParseFloat(s, 10, 1000, big.ToNearestEven)
	if err != nil {
		return nil, err
	}
	x, _ := d.Float64()
	if p, err := strconv.ParseFloat(s, 64); err != nil || p != x {
		return nil, fmt.Errorf("%q: math/big rounds it to %v, strconv to %v (%v)", s, x, p, err)
	}
	return new(big.Float).SetPrec(prec).SetFloat64(x), nil
}

// enumerate answers the model by visiting every assignment of its free
// variables.
func enumerate(cards []int, scopes [][]int, tables [][]*big.Float, evid map[int]int) *Truth {
	n := len(cards)
	t := &Truth{}
	x := make([]int, n)
	var free []int
	for i := range n {
		if v, ok := evid[i]; ok {
			x[i] = v
		} else {
			free = append(free, i)
		}
	}
	index := func(f int) int {
		idx := 0
		for _, v := range scopes[f] {
			idx = idx*cards[v] + x[v]
		}
		return idx
	}
	for f, s := range scopes {
		if !slices.ContainsFunc(s, func(v int) bool { _, ok := evid[v]; return !ok }) && tables[f][index(f)].Sign() == 0 {
			t.ClampedZero = true
		}
	}
	z := new(big.Float).SetPrec(prec)
	marg := make([][]*big.Float, n)
	for i := range marg {
		marg[i] = make([]*big.Float, cards[i])
		for a := range marg[i] {
			marg[i][a] = new(big.Float).SetPrec(prec)
		}
	}
	w := new(big.Float).SetPrec(prec)
	for {
		t.States++
		w.SetInt64(1)
		for f := range scopes {
			w.Mul(w, tables[f][index(f)])
		}
		if w.Sign() > 0 {
			z.Add(z, w)
			for _, i := range free {
				marg[i][x[i]].Add(marg[i][x[i]], w)
			}
		}
		k := 0
		for ; k < len(free); k++ {
			if x[free[k]]++; x[free[k]] < cards[free[k]] {
				break
			}
			x[free[k]] = 0
		}
		if k == len(free) {
			break
		}
	}
	if z.Sign() == 0 {
		t.LogZ = math.Inf(-1)
		return t
	}
	t.Feasible = true
	mant := new(big.Float)
	e := z.MantExp(mant)
	m, _ := mant.Float64()
	t.LogZ = math.Log(m) + float64(e)*math.Ln2
	t.Marginals = make([][]float64, n)
	q := new(big.Float).SetPrec(prec)
	for i := range n {
		t.Marginals[i] = make([]float64, cards[i])
		if v, ok := evid[i]; ok {
			t.Marginals[i][v] = 1
			continue
		}
		for a := range cards[i] {
			t.Marginals[i][a], _ = q.Quo(marg[i][a], z).Float64()
		}
	}
	return t
}

// Tolerances of Check: marginals within MarginalTol absolute, log Z
// within LogZTol relative (absolute where |log Z| < 1).
const (
	MarginalTol = 1e-9
	LogZTol     = 1e-9
)

// Check compares an answer — every variable's marginal and log Z — with
// the truth, which must be Feasible; it returns "" if they agree within
// the tolerances, otherwise what differs.
func (t *Truth) Check(marg [][]float64, logZ float64) string {
	if len(marg) != len(t.Marginals) {
		return fmt.Sprintf("%d marginals for %d variables", len(marg), len(t.Marginals))
	}
	for i, want := range t.Marginals {
		if len(marg[i]) != len(want) {
			return fmt.Sprintf("variable %d: marginal %v, enumeration %v", i, marg[i], want)
		}
		for a := range want {
			if !(math.Abs(marg[i][a]-want[a]) <= MarginalTol) {
				return fmt.Sprintf("variable %d: marginal %v, enumeration %v", i, marg[i], want)
			}
		}
	}
	if !(math.Abs(logZ-t.LogZ) <= LogZTol*max(1, math.Abs(t.LogZ))) {
		return fmt.Sprintf("log Z %v, enumeration %v", logZ, t.LogZ)
	}
	return ""
}

// Summary returns a table of cases by kind: the models, how many have no
// assignment of positive probability, the assignments enumerated, and the
// totals of their Features.
func Summary(cases []Case) string {
	type row struct {
		models, infeasible, states int
		ft                         Features
	}
	rows := map[string]*row{}
	for _, c := range cases {
		t := c.Truth
		r := rows[c.Kind]
		if r == nil {
			r = &row{}
			rows[c.Kind] = r
		}
		r.models++
		r.states += t.States
		if !t.Feasible {
			r.infeasible++
		}
		f := t.Features
		r.ft.Domain1 += f.Domain1
		r.ft.Duplicates += f.Duplicates
		r.ft.Zeros += f.Zeros
		r.ft.Observed += f.Observed
		r.ft.Clamped += f.Clamped
		r.ft.Constants += f.Constants
		r.ft.Subnormal += f.Subnormal
		r.ft.Tiny += f.Tiny
		r.ft.Huge += f.Huge
		r.ft.Components += f.Components
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %6s %10s %7s %7s %6s %5s %8s %7s %9s %9s %5s %5s %10s\n", "kind", "models", "infeasible", "states",
		"domain1", "dups", "zeros", "observed", "clamped", "constants", "subnormal", "tiny", "huge", "components")
	for _, k := range Kinds {
		r := rows[k]
		if r == nil {
			continue
		}
		f := r.ft
		fmt.Fprintf(&b, "%-12s %6d %10d %7d %7d %6d %5d %8d %7d %9d %9d %5d %5d %10d\n", k, r.models, r.infeasible, r.states,
			f.Domain1, f.Duplicates, f.Zeros, f.Observed, f.Clamped, f.Constants, f.Subnormal, f.Tiny, f.Huge, f.Components)
	}
	return b.String()
}
