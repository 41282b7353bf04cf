package exchange

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
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

	// The factors of each variable (CSR, by variable index), for the
	// change of ℓ a move makes (clusterSum).
	g           *factorgraph.Graph
	fstart, fac []int32
	fstamp      []uint32 // fstamp[f] == fcur: f summed in this clusterSum
	fcur        uint32
}

// maxClusterShare is the largest mean share of the free variables in a
// Houdayer cluster with which a rung keeps its moves.
const maxClusterShare = 0.5

func newHoudayer(g *factorgraph.Graph, K int) *houdayer {
	n := g.NumVars()
	h := &houdayer{start: make([]int32, n+1), stamp: make([]uint32, n), g: g, fstart: make([]int32, n+1), fstamp: make([]uint32, g.NumFactors())}
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
		soft, hard := g.Degree(i)
		for k := range soft + hard {
			h.fac = append(h.fac, int32(g.FactorIndex(i, k)))
		}
		h.fstart[i+1] = int32(len(h.fac))
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

// round runs one move at every rung where moves are on, and keeps the
// replicas' ℓ up to date: a move changes ℓ(a) by Δ, the change of the sum
// of the factors that read its cluster, and ℓ(b) by −Δ (each factor keeps
// its pair of values). The broken move keeps no such pair: its replicas'
// ℓ are summed afresh at the next round.
func (h *houdayer) round(e *Exchange) {
	a, b := e.ladders[0], e.ladders[1]
	broken := e.broken == brokenCluster
	for k, on := range h.on {
		if !on {
			continue
		}
		c, d := h.move(a.states[k], b.states[k], e.r, broken)
		if e.broken != brokenTrack {
			a.ell[k] += d
			b.ell[k] -= d
		}
		if broken {
			a.stale[k], b.stale[k] = true, true
		}
		h.sum[k] += float64(c) / float64(len(h.free))
		h.count[k]++
	}
}

// clusterSum returns the sum over the factors that read a variable of the
// cluster (h.queue) of their values at x, each factor once.
func (h *houdayer) clusterSum(x []float64) float64 {
	if h.fcur++; h.fcur == 0 { // the stamps wrapped: clear them
		clear(h.fstamp)
		h.fcur = 1
	}
	sum := 0.0
	for _, i := range h.queue {
		for _, f := range h.fac[h.fstart[i]:h.fstart[i+1]] {
			if h.fstamp[f] != h.fcur {
				h.fstamp[f] = h.fcur
				sum += h.g.EvalFactor(int(f), x)
			}
		}
	}
	return sum
}

// move makes one Houdayer move between states a and b and returns the
// size of its cluster (0: a = b on every free variable) and the change of
// ℓ(a) it made. broken grows the cluster through variables where a and b
// agree too (a wrong move, for the tests).
func (h *houdayer) move(a, b []float64, r *rand.Rand, broken bool) (int, float64) {
	h.diff = h.diff[:0]
	for _, i := range h.free {
		if a[i] != b[i] {
			h.diff = append(h.diff, i)
		}
	}
	if len(h.diff) == 0 {
		return 0, 0
	}
	h.cur++
	if h.cur == 0 { // the stamps wrapped: clear them
		clear(h.stamp)
		h.cur = 1
	}
	seed := h.diff[r.IntN(len(h.diff))]
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
	before := h.clusterSum(a)
	for _, i := range h.queue {
		a[i], b[i] = b[i], a[i]
	}
	return len(h.queue), h.clusterSum(a) - before
}
