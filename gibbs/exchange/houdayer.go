package exchange

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// houdayer runs Houdayer's cluster moves (J. Houdayer, "A cluster Monte
// Carlo algorithm for 2-dimensional spin glasses", Eur. Phys. J. B 22:479,
// 2001; with the restriction to low temperatures of Zhu, Ochoa &
// Katzgraber, Phys. Rev. Lett. 115:077201, 2015) between the two replicas
// a, b of each rung: pick a free variable where they differ uniformly, grow
// its connected component C among the variables where they differ
// (variables are adjacent when a factor reads both), and exchange a and b
// on C. Every factor then keeps its pair of values, swapped between the
// replicas — a factor reading C reads no other variable where they differ
// (it would be adjacent to C), so its other variables hold one common value
// y, and φ(a_C, y), φ(b_C, y) trade places — so π_β(a)π_β(b) is unchanged,
// at any β, for any factors, hard ones included; the set where a and b
// differ is unchanged too, so the reverse move picks C with the same
// probability |C|/|D|: the move is always accepted. Where the differing set
// percolates (high temperatures), C is most of it and the move merely
// swaps the replicas: the moves run only at the rungs where the tuning
// measured clusters of at most half the free variables.
type houdayer struct {
	free       []int32 // the free variables
	start, adj []int32 // adjacency of the variables in CSR form (by variable index)
	on         []bool  // per rung: moves run there
	share      []float64
	sum        []float64 // the tuning's cluster shares, summed per rung
	count      []int64
	stamp      []uint32 // stamp[i] == cur: i joined the cluster of this move
	cur        uint32
	diff       []int32 // scratch: the variables where a and b differ
	queue      []int32 // scratch: the cluster, in the order it grew
}

// assigner is a replica that sets a variable of its state for another
// kernel and counts the change of its log-potential as its updates do
// (site.Gibbs.Assign, with TrackLogPotential).
type assigner interface {
	Assign(i int, v float64)
}

// seedTries is the free variables a move draws looking for one where the
// twins differ before it scans for them all.
const seedTries = 8

// maxClusterShare is the largest mean share of the free variables in a
// Houdayer cluster with which a rung keeps its moves.
const maxClusterShare = 0.5

func newHoudayer(g *factorgraph.Graph, K int) *houdayer {
	n := g.NumVars()
	h := &houdayer{start: make([]int32, n+1), stamp: make([]uint32, n)}
	for _, i := range g.Free() {
		h.free = append(h.free, int32(i))
	}
	var nb []int
	for i := range n {
		nb = g.Neighbours(nb[:0], i)
		for _, j := range nb {
			if _, obs := g.Observed(j); !obs {
				h.adj = append(h.adj, int32(j))
			}
		}
		h.start[i+1] = int32(len(h.adj))
	}
	h.resize(K)
	return h
}

// resize sets the moves on at every one of K rungs, with fresh tuning
// counts.
func (h *houdayer) resize(K int) {
	h.on = make([]bool, K)
	for k := range h.on {
		h.on[k] = true
	}
	h.share = make([]float64, K)
	h.sum = make([]float64, K)
	h.count = make([]int64, K)
}

// settle turns the moves off at the rungs (of the ladder measured, then
// interpolated to betas by nearest rung) whose clusters held more than
// maxClusterShare of the free variables on average during the tuning.
func (h *houdayer) settle(measured, betas []float64) {
	share := make([]float64, len(measured))
	for k := range measured {
		if h.count[k] > 0 {
			share[k] = h.sum[k] / float64(h.count[k])
		}
	}
	h.resize(len(betas))
	for k, b := range betas {
		h.share[k] = share[nearest(measured, b)]
		h.on[k] = h.share[k] <= maxClusterShare
	}
}

// round runs one move at every rung where moves are on. The replicas
// that track their energies make the move's assignments themselves
// (assigner), so that their tracked ℓ includes the move's change, as it
// would an update's; the others' ℓ is summed over the model at every round.
func (h *houdayer) round(e *Exchange) {
	a, b := e.ladders[0], e.ladders[1]
	for k, on := range h.on {
		if !on {
			continue
		}
		var sa assigner
		if e.broken != brokenTrack && e.broken != brokenCluster && a.trk[k] != nil && b.trk[k] != nil {
			sa, _ = a.reps[k].(assigner)
		}
		var c int
		switch {
		case sa != nil:
			// The move changes ℓ(b) by minus what it changes ℓ(a) (every
			// factor keeps its pair of values), at the same β.
			ta, tb := a.trk[k], b.trk[k]
			before := ta.LogPotentialChange()
			c = h.move(a.states[k], b.states[k], sa, core.Of(a.reps[k]), e.r, false)
			tb.SetLogPotentialChange(tb.LogPotentialChange() - (ta.LogPotentialChange() - before))
		default:
			c = h.move(a.states[k], b.states[k], nil, nil, e.r, e.broken == brokenCluster)
			if e.broken != brokenTrack {
				a.stale[k], b.stale[k] = true, true // written directly: summed afresh
			}
		}
		h.sum[k] += float64(c) / float64(len(h.free))
		h.count[k]++
	}
}

// move makes one Houdayer move between states a and b, a's assignments
// through sa if not nil (the replica that owns it: see round) — by ca,
// sa's Core, in one walk of the cluster's rows where it can
// (core.Core.ExchangeCluster: binary pairs and fields) —, and returns
// the size of its cluster (0: a = b on every free variable). broken grows
// the cluster through variables where a and b agree too (a wrong move, for
// the tests, whose changes of ℓ(a) and ℓ(b) differ: its replicas are
// never given an assigner).
func (h *houdayer) move(a, b []float64, sa assigner, ca *core.Core, r *rand.Rand, broken bool) int {
	// The seed, uniform among the variables where a and b differ: a few
	// free variables drawn until one differs, else a scan for them all
	// (either way uniform on them, so the mixture is too).
	seed := int32(-1)
	for range seedTries {
		if i := h.free[r.IntN(len(h.free))]; a[i] != b[i] {
			seed = i
			break
		}
	}
	if seed < 0 {
		h.diff = h.diff[:0]
		for _, i := range h.free {
			if a[i] != b[i] {
				h.diff = append(h.diff, i)
			}
		}
		if len(h.diff) == 0 {
			return 0
		}
		seed = h.diff[r.IntN(len(h.diff))]
	}
	h.cur++
	if h.cur == 0 { // the stamps wrapped: clear them
		clear(h.stamp)
		h.cur = 1
	}
	if sa != nil && ca != nil && ca.CanExchangeCluster() {
		h.queue = ca.ExchangeCluster(b, seed, h.stamp, h.cur, h.queue)
		return len(h.queue)
	}
	h.queue = append(h.queue[:0], seed)
	h.stamp[seed] = h.cur
	for q := 0; q < len(h.queue); q++ {
		i := h.queue[q]
		for _, j := range h.adj[h.start[i]:h.start[i+1]] {
			if h.stamp[j] != h.cur && (a[j] != b[j] || broken) {
				h.stamp[j] = h.cur
				h.queue = append(h.queue, j)
			}
		}
	}
	if sa == nil {
		for _, i := range h.queue {
			a[i], b[i] = b[i], a[i]
		}
		return len(h.queue)
	}
	for _, i := range h.queue {
		ai := a[i]
		sa.Assign(int(i), b[i])
		b[i] = ai
	}
	return len(h.queue)
}
