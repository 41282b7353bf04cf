package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/meter"
)

// SwendsenWang is the Swendsen–Wang cluster sampler with its bonds drawn
// by a Poisson process (Fukui & Todo 2009), in O(N + Σ_{i<j} K_ij) a sweep
// whatever the range of the couplings.
//
// Step is one Swendsen–Wang update of every free variable (plus O(Σ D_i)
// with unary terms) and returns −1 (chain.Any); Sweep is the same update.
// Update(i) is one Wolff cluster update seeded at i (see Wolff).
//
// The models are ferromagnetic Potts models with arbitrary unary terms,
//
//	π(x) ∝ exp(Σ_{i<j} K_ij δ(x_i, x_j) + Σ_i h_i(x_i)),   K_ij ≥ 0,
//
// where h_i sums the unary factors of variable i (any kind, soft or hard:
// h_i(v) = −Inf rules v out) and the factors whose other variables are all
// observed (given the evidence they are unary factors of i; a Potts pair
// to an observed variable is one, whatever the sign of its weight). The
// Fortuin–Kasteleyn / Edwards–Sokal joint measure of spins and bonds,
//
//	π(x, b) ∝ Π_i e^{h_i(x_i)} Π_{i<j} [e^{−K_ij}(1 − b_ij) + (1 − e^{−K_ij}) b_ij δ(x_i, x_j)],
//
// has π as its x-marginal (sum b_ij out: e^{−K} + (1 − e^{−K})δ = e^{K(δ−1)}).
// Given x, the bonds are independent, b_ij = 1 with probability 1 − e^{−K_ij}
// on agreeing pairs and 0 elsewhere; given b, each cluster (connected
// component of the bonds) takes one value v for all its members, with
// probability ∝ exp(Σ_{i∈C} h_i(v)) over the values every member has
// (uniform without unary terms). Alternating the two is Swendsen & Wang's
// algorithm (R. H. Swendsen and J.-S. Wang, "Nonuniversal critical dynamics
// in Monte Carlo simulations", Phys. Rev. Lett. 58:86, 1987); with fields it
// is the Edwards–Sokal form of it (R. G. Edwards and A. D. Sokal, Phys. Rev.
// D 38:2009, 1988).
//
// Testing every pair costs O(#pairs) a sweep: O(N²) on a long-range lattice.
// Fukui and Todo (K. Fukui and S. Todo, "Order-N cluster Monte Carlo method
// for spin systems with long-range interactions", J. Comput. Phys.
// 228:2629–2642, 2009) draw the bonds as a Poisson process instead: give
// each pair an independent number of events n_ij ~ Poisson(K_ij); then
// P(n_ij ≥ 1) = 1 − e^{−K_ij}, exactly the bond probability, and a bond is
// activated where n_ij ≥ 1 and the two spins agree. By Poisson splitting
// the events of all pairs are one Poisson(Σ K_ij) number of events, each on
// a pair picked with probability K_ij/Σ K: a Walker alias table makes a pick
// O(1), so the bonds of a sweep cost O(N + Σ_{i<j} K_ij) however many pairs
// there are, with no approximation. This is the mechanism of package
// internal/minibatch (a Poisson total, weighted picks, a keep test), with
// "the two spins agree" as the keep test.
//
// On a *factorgraph.Graph the pairs are the compiled Potts pairs between
// free variables (compiled.Graph's Potts ops, W = K_ij > 0), kept once per
// direction in per-variable alias tables (∝ K_ij over i's neighbours, total
// K_i = Σ_j K_ij) under a table over the variables ∝ K_i: an event picks i
// ∝ K_i, then j ∝ K_ij, so the ordered pair (i, j) has rate K_ij/2 when the
// number of events is Poisson(Σ_i K_i/2), and the pair {i, j} rate K_ij.
// On a lattice (compiled.Torus) nothing is stored per pair: each site, in
// order, draws Poisson(L/2) events, L = Σ_k K_k, each to the site at an
// offset picked ∝ K_k from the lattice's own table (the same Poisson(N·L/2)
// process as a uniform site an event, visited in order so that memory is
// read sequentially; Ising couplings J s_i s_j are Potts couplings of
// K = 2βJ: the torus stores M_k = 2β|J_k|).
//
// Clusters are the components of a union–find over the free variables
// (union by size, path halving; near-constant time an operation), reset
// each sweep. A Wolff cluster is grown instead: from the seed, every member
// i draws Poisson(K_i) events to neighbours j picked ∝ K_ij and adds each j
// not yet in the cluster that agrees with the seed's value.
//
// Cost and counters. A Swendsen–Wang sweep costs O(N + Σ_{i<j} K_ij),
// plus O(Σ_{i free} D_i) where unary terms exist (their values are
// tabulated at construction: a unary factor's value depends on x_i alone);
// a Wolff cluster C costs O(Σ_{i∈C} (1 + K_i + D_i)). Stats.Steps counts
// site updates (each member of every cluster re-drawn, so a Swendsen–Wang
// step adds the number of free variables), Stats.Picks the bond events
// drawn, and Stats.Factors the unary factors (tabulated) that entered the
// members' cluster conditionals. Nothing is allocated per step (Wolff's
// journal of an interruptible step grows during warm-up only).
//
// Models refused. A factor between two free variables must be a soft
// ferromagnetic Potts pair compiled by the graph (*factorgraph.Potts with
// W ≥ 0, or a pair table of Potts form c + W·δ, W ≥ 0, as UAI files write
// them: factorgraph.Table.PottsForm): an antiferromagnetic pair, another
// kind of pair (a general table, a user factor), a hard factor over two
// free variables, or a continuous variable
// is refused at construction with an error naming the factor; so is a
// model that is neither a *factorgraph.Graph nor a lattice of discrete
// spins. Lattices must be ferromagnetic (every β·J_k > 0).
type SwendsenWang struct {
	clusters
}

// Wolff is Wolff's single-cluster sampler (U. Wolff, "Collective Monte
// Carlo updating for spin systems", Phys. Rev. Lett. 62:361, 1989) with
// Poisson-process bonds (Fukui & Todo 2009; see SwendsenWang for the
// bond process, the models served and the counters).
//
// Update(i) grows the cluster of seed i: with a the seed's value, each
// member j draws Poisson(K_j) bond events, each to a neighbour k picked
// with probability K_jk/K_j, and adds k if x_k = a and k is not yet a
// member (so a free pair {j, k} of agreeing spins is bonded with
// probability 1 − e^{−K_jk}, tested once, from the first member). The
// cluster C then takes a new value b, drawn from Q_C(a → b):
//
//   - without unary terms on C: uniformly among the values other than a
//     that every member has (always accepted, Wolff's flip), except for a
//     lone variable without bonds (no Potts pair to a free variable: its
//     cluster is always itself), drawn uniformly among all its values, a
//     included;
//   - with unary terms: b ∝ exp(Σ_{j∈C} h_j(b)) over those values, a
//     included (a heat bath on the cluster's common value).
//
// Detailed balance. The growth looks at each pair of agreeing spins at
// most once, from the end that joins first while the other is outside
// (events from a member to a member are ignored), with a fresh Poisson
// count; so C has the law of the seed's component in the random graph that
// bonds each agreeing pair independently with probability 1 − e^{−K}. For
// any seed in C, P(C|x) = I_C·Π_{∂_a} e^{−K_jk}, where I_C is the
// probability that the bonds among the members connect them and ∂_a are
// the pairs j ∈ C, k ∉ C with x_k = a. Let b ≠ a and x' be x with C set to
// b (C is then the set of changed sites, so no other cluster leads from x
// to x'). From x' the same C is built with probability I_C·Π_{∂_b} e^{−K_jk}
// (inside C the spins agree in both states). The target gives π(x)/π(x') =
// exp(Σ_{∂_a} K − Σ_{∂_b} K)·H_C(a)/H_C(b), with H_C(v) = exp(Σ_{j∈C} h_j(v)),
// the pairs inside C and outside it being unchanged. The seed is uniform
// over the free variables, |C|/n of them in C, in both directions, so
//
//	π(x)P(x→x') / π(x')P(x'→x) = [H_C(a)/H_C(b)]·[Q_C(a→b)/Q_C(b→a)],
//
// the boundary factors cancelling, and every choice of Q_C makes it 1: the
// uniform flip and the lone variable's uniform draw are symmetric and used
// only where H_C ≡ 1; the heat bath has Q_C(a→b)/Q_C(b→a) = H_C(b)/H_C(a).
// Q_C depends on C alone, the same cluster from both sides, so each update
// is reversible with respect to π, hard zeros included (a value some
// member rules out has H_C = 0 and is never drawn; the current value never
// has H_C = 0).
//
// Irreducible and aperiodic, whatever the number of clusters a step. Let P
// be one update from a uniformly drawn seed. The seed's cluster is the
// seed alone with probability e^{−K_i} > 0 or more, and a lone seed can
// take every value its rule allows, so P can change any one free variable
// to any of its allowed values: it is irreducible. It is aperiodic: a
// variable with unary terms, with one value or without bonds keeps its
// value with positive probability; failing those, every free variable has
// two values or more and a bond, and for a bonded pair i–j a state with
// x_i = x_j comes back in 2 updates ({i}, {i}) and in 3 ({i}, {j}, then
// {i, j} bonded — or {i} three times if i has three values), and gcd(2, 3)
// = 1. A step of k clusters is P^k, irreducible and aperiodic since P is.
// The lone-variable rule is what makes this hold: flipped at every update,
// a variable without bonds or fields would alternate with period 2 under
// one cluster a step and never move under two, and two such variables
// would keep their xor forever.
//
// Step is Clusters() single-cluster updates from seeds drawn uniformly
// among the free variables (default 1) and returns −1 (chain.Any); Sweep
// is the same. The number of clusters a step makes is fixed, not "until
// the clusters' sizes sum to the number of free variables": a step that
// stops when a state-dependent count is reached is observed at a stopping
// time, and a chain observed at stopping times does not keep π. On two
// sites, stopping once the sizes reach 2 makes the agreeing states
// absorbing (from 00 either the pair flips whole, size 2, or one site
// flips and the next cluster, of size 1, flips the other back to
// agreement). TuneClusters sets a fixed number that makes a step about one
// sweep's worth of site updates; it runs before anything else (tune, then
// burn in, then measure: see TuneClusters).
type Wolff struct {
	clusters
	perStep   int     // single-cluster updates a Step
	moved     bool    // a Step, Sweep, Update or Restore has run: no more tuning
	tunedSize float64 // the mean cluster size of the last tuning round (0: not tuned)
}

// NewSwendsenWang returns a Swendsen–Wang sampler on m drawing from r. m
// must be a *factorgraph.Graph whose factors between free variables are
// ferromagnetic Potts pairs, or a ferromagnetic lattice of discrete spins
// (see SwendsenWang); anything else is refused with an
// error naming the factor. Only opt.Init, opt.MaxDraws (the work of a site
// update, K_i + D_i, is bounded by it) and opt.Context are used; opt may be
// nil. Construction costs O(N + Σ_i |A[i]|) — the search for a state of
// positive probability where the initial one has none aside — and looks at
// opt.Context as it goes, returning its error, wrapped, once it is done.
func NewSwendsenWang(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*SwendsenWang, error) {
	c, err := newClusters("sw", m, r, opt)
	if err != nil {
		return nil, err
	}
	s := &SwendsenWang{clusters: c}
	s.core().UpdateFn = s.Update
	return s, nil
}

// NewWolff returns a Wolff sampler on m drawing from r, one cluster a Step
// (see SetClusters, TuneClusters). Models and options as NewSwendsenWang.
func NewWolff(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Wolff, error) {
	c, err := newClusters("wolff", m, r, opt)
	if err != nil {
		return nil, err
	}
	w := &Wolff{clusters: c, perStep: 1}
	w.core().UpdateFn = w.Update
	return w, nil
}

// Update performs one Wolff cluster update seeded at i (a no-op for
// evidence).
func (s *SwendsenWang) Update(i int) { s.single(i) }

// Step performs one Swendsen–Wang update of every free variable and
// returns −1 (chain.Any), or chain.Aborted if it was interrupted (the
// sampler is then as it was before it).
func (s *SwendsenWang) Step() int {
	if !s.RunSweep() {
		return chain.Aborted
	}
	return chain.Any
}

// Sweep performs one Swendsen–Wang update of every free variable (Step).
func (s *SwendsenWang) Sweep() { s.RunSweep() }

// RunSweep is one Swendsen–Wang update; it reports false if it was
// interrupted. (It is what a Sweeper's step runs.)
func (s *SwendsenWang) RunSweep() bool {
	if s.core().Failure != nil {
		return true
	}
	if !s.swendsenWang() {
		s.core().Aborted = false
		return false
	}
	return true
}

// Update performs one cluster update seeded at i (a no-op for evidence).
func (w *Wolff) Update(i int) {
	w.moved = true
	w.single(i)
}

// Step performs Clusters() cluster updates from uniformly drawn free seeds
// and returns −1 (chain.Any), or chain.Aborted if it was interrupted (the
// sampler is then as it was before it: the clusters already updated are
// put back).
func (w *Wolff) Step() int {
	if !w.RunSweep() {
		return chain.Aborted
	}
	return chain.Any
}

// Sweep is Step.
func (w *Wolff) Sweep() { w.RunSweep() }

// RunSweep is Step; it reports false if the step was interrupted.
func (w *Wolff) RunSweep() bool {
	w.moved = true
	if w.core().Failure != nil {
		return true
	}
	if w.core().Done == nil {
		for range w.perStep {
			w.grow(w.core().Pick(), false)
		}
		return true
	}
	st := w.core().Stat
	w.journal, w.journalV = w.journal[:0], w.journalV[:0]
	if w.jEpoch++; w.jEpoch == 0 {
		clear(w.jStamp)
		w.jEpoch = 1
	}
	w.work = 0
	for range w.perStep {
		if !w.grow(w.core().Pick(), true) {
			for k := len(w.journal) - 1; k >= 0; k-- {
				w.core().X[w.journal[k]] = w.journalV[k]
			}
			w.core().Stat = st
			w.core().Aborted = false
			return false
		}
	}
	return true
}

// Clusters returns the number of single-cluster updates a Step makes.
func (w *Wolff) Clusters() int { return w.perStep }

// SetClusters sets the number of single-cluster updates a Step makes
// (k ≥ 1). Any fixed k leaves π invariant.
func (w *Wolff) SetClusters(k int) error {
	if k < 1 {
		return fmt.Errorf("gibbs: wolff: %d clusters a step: need at least 1", k)
	}
	w.perStep = k
	return nil
}

// TuneClusters sets Clusters so that a Step updates about one sweep's
// worth of sites (n, the free variables), and returns it. It runs rounds of
// single-cluster updates from the current state, each until their sizes
// sum to sweeps·n (sweeps > 0), setting the count to n/s̄ rounded (at least
// 1, at most n; s̄ the round's mean cluster size), until a round lowers the
// count by a tenth or less, for at most tuneRounds rounds: from a
// disordered start the clusters are small and grow as the state orders
// (1000² Ising sites at β_c take about ten rounds of 5 sweeps).
//
// Tuning comes first: a chain whose Step, Sweep or Update has run, or
// that was restored, is refused. The rounds are part of the chain (they
// change the state and the counters) and end at a stopping time — when
// the counts settle, which depends on the states they pass through — so
// the state they leave is not distributed as π even from a state that was:
// burn in after tuning, then measure. Once chosen the count stays fixed
// (SetClusters may still change it), and the chain keeps π.
//
// The rounds look at ctx between clusters, about every millisecond of
// work (the chain's interrupt channel is not theirs: see
// chain.Interrupter), and once it is done TuneClusters returns its error,
// wrapped (errors.Is sees context.Canceled or context.DeadlineExceeded),
// with the chain moved part of a round: a sampler whose tuning was stopped
// is for discarding, not for sampling.
func (w *Wolff) TuneClusters(ctx context.Context, sweeps float64) (int, error) {
	switch {
	case !(sweeps > 0) || sweeps > 1e6:
		return w.perStep, fmt.Errorf("gibbs: wolff: tune over %v sweeps: need 0 < sweeps ≤ 10⁶", sweeps)
	case w.moved:
		return w.perStep, errors.New("gibbs: wolff: TuneClusters after the chain has moved: tuning ends at a stopping time and leaves a state not distributed as π, so it must come first — tune, then burn in, then measure")
	case w.core().Failure != nil:
		return w.perStep, w.core().Failure
	}
	done := w.core().Done
	w.core().Done = nil
	defer func() { w.core().Done = done }()
	n := float64(len(w.core().Free))
	prev := math.Inf(1)
	mt := meter.New(ctx, "gibbs: wolff: TuneClusters")
	if err := mt.Check(); err != nil {
		return w.perStep, err
	}
	for range tuneRounds {
		start, count := w.core().Stat.Steps, 0
		for w.core().Failure == nil && float64(w.core().Stat.Steps-start) < sweeps*n {
			steps, picks := w.core().Stat.Steps, w.core().Stat.Picks
			w.grow(w.core().Pick(), false)
			count++
			// A site update costs about 36 ns, a bond event 16 (package
			// infer's cost model): about a unit of the meter each.
			if err := mt.Add(int(32*(w.core().Stat.Steps-steps) + 16*(w.core().Stat.Picks-picks) + 16)); err != nil {
				return w.perStep, err
			}
		}
		if w.core().Failure != nil {
			return w.perStep, w.core().Failure
		}
		mean := float64(w.core().Stat.Steps-start) / float64(count)
		w.perStep, w.tunedSize = max(1, int(math.Round(min(n/mean, n)))), mean
		if float64(w.perStep) > 0.9*prev {
			break
		}
		prev = float64(w.perStep)
	}
	return w.perStep, nil
}

// tuneRounds is the most rounds TuneClusters runs.
const tuneRounds = 20

// single is one Wolff cluster update seeded at i, outside a Step: when it
// is interrupted, x and the counters are left as they were.
func (c *clusters) single(i int) {
	if c.core().Failure != nil || c.core().Clamped[i] {
		return
	}
	c.work = 0
	if !c.grow(i, false) {
		c.core().Aborted = false // grow changed nothing
	}
}

// StepsPerSweep returns 1: a Swendsen–Wang step is a sweep (see
// gibbs.StepsPerSweep).
func (*SwendsenWang) StepsPerSweep() float64 { return 1 }

// StepsPerSweep returns the free variables over the clusters a step makes
// times the mean cluster size of the last TuneClusters round, at least 1
// (1 if it was not tuned: the clusters' sizes are not known in advance).
func (w *Wolff) StepsPerSweep() float64 {
	if w.tunedSize > 0 {
		return max(1, float64(len(w.core().Free))/(float64(w.perStep)*w.tunedSize))
	}
	return 1
}

// LocalUpdates reports false (see gibbs.Worker): a Swendsen–Wang update
// changes variables far from i, so chromatic.New refuses it as a worker.
func (*SwendsenWang) LocalUpdates() bool { return false }

// LocalUpdates reports false (see gibbs.Worker): a Wolff update changes
// variables far from i, so chromatic.New refuses it as a worker.
func (*Wolff) LocalUpdates() bool { return false }

// SnapshotKind returns "sw", the kind of a SwendsenWang's snapshots.
func (*SwendsenWang) SnapshotKind() string { return "sw" }

// SnapshotKind returns "wolff", the kind of a Wolff's snapshots.
func (*Wolff) SnapshotKind() string { return "wolff" }

// Snapshot implements chain.Snapshotter.
func (s *SwendsenWang) Snapshot() ([]byte, error) {
	return s.core().SnapshotState(s.SnapshotKind(), nil)
}

// Restore implements chain.Snapshotter.
func (s *SwendsenWang) Restore(data []byte) error {
	_, err := s.core().RestoreState(s.SnapshotKind(), data)
	return err
}

// wolffState is a Wolff snapshot: the chain's state and the clusters a
// step makes (so that a resumed chain runs the same steps).
type wolffState struct {
	core.ChainState
	Clusters int `json:"clusters"`
}

// Snapshot implements chain.Snapshotter; the state includes Clusters.
func (w *Wolff) Snapshot() ([]byte, error) {
	if w.core().Failure != nil {
		return nil, fmt.Errorf("gibbs: snapshot of a chain that stopped on an error: %w", w.core().Failure)
	}
	return json.Marshal(wolffState{
		ChainState: core.ChainState{SnapshotHeader: core.Header(w.SnapshotKind()), X: w.core().X, Stats: w.core().Stat},
		Clusters:   w.perStep,
	})
}

// Restore implements chain.Snapshotter.
func (w *Wolff) Restore(data []byte) error {
	var st wolffState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("gibbs: restore wolff: %w", err)
	}
	if st.Kind == w.SnapshotKind() && st.Clusters < 1 {
		return errors.New("gibbs: restore wolff: snapshot lacks the clusters a step makes")
	}
	if _, err := w.core().RestoreState(w.SnapshotKind(), data); err != nil {
		return err
	}
	w.perStep, w.moved = st.Clusters, true
	return nil
}
