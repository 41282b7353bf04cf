package infer

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/pgibbs/pgibbs/bp"
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// Shrinkage is how an answer's sampled marginals were shrunk toward the
// beliefs of loopy belief propagation (package bp) — the James–Stein
// estimator with the beliefs as its target (James and Stein 1961; Efron
// and Morris 1973) —: each sampled marginal p̂_i becomes
// p̂_i + w·(b_i − p̂_i), one weight w ∈ [0, 1] for all, estimated from the
// run itself.
//
// Each coordinate's sampling error se_q (a binary variable's P(x = 1),
// every value of a larger one; the variables the batch record tracks) is
// measured by batch means of the chains' Rao–Blackwellised marginals, and
// Ratio = Σ_q (b_q − p̂_q)²/se_q² / Coords (corrected for the batch means'
// own noise). Where the beliefs are the marginals, the sampled marginals
// scatter around them by their error and Ratio is about 1; where the
// beliefs are off by more than that error, it is larger by their squared
// bias in units of it. The weight is w = min(1, (k − 2)/(k · Ratio)), k
// the number of independent directions of the sampling error (Dims, at
// most Coords; no weight at k ≤ 2): the estimator whose weighted squared
// error, for a target chosen before the samples, is never larger than the
// sampled marginals' when the errors are Gaussian and their variances
// known (the positive-part James–Stein estimator in k dimensions), and
// close to the smaller of the two errors
// otherwise — the beliefs' where they are exact (a tree, weak couplings),
// the samples' where belief propagation is biased (frustrated or strong
// loops, where it often does not converge: a target it leaves off
// converged gets its weight all the same). As the run grows its error
// shrinks, Ratio grows with any bias, and w falls: more time never makes
// the answer worse for the target's sake.
//
// Batch means underestimate an error where the batches are not much
// longer than the chain's autocorrelation time (a chain held in one
// mode); the Ratio is then larger and the weight smaller: such a run
// keeps its own marginals.
type Shrinkage struct {
	// Weight is w (0: the sampled marginals as they were).
	Weight float64 `json:"weight"`
	// Ratio, Coords and Batches are the measurement: the mean squared
	// distance of the beliefs from the sampled marginals in units of
	// their error, over Coords coordinates, the errors by batch means over
	// Batches batches.
	Ratio   float64 `json:"ratio"`
	Coords  int     `json:"coordinates"`
	Batches int     `json:"batches"`
	// Dims is the number of independent directions of the sampling
	// error (effectiveDims): the weight is James–Stein's in as many
	// dimensions, none at 2 or fewer.
	Dims float64 `json:"effective_dimensions"`
	// Iterations, Converged and Seconds are belief propagation's.
	Iterations int     `json:"bp_iterations"`
	Converged  bool    `json:"bp_converged"`
	Seconds    float64 `json:"bp_seconds"`
	// Why says why no weight was measured, if none was (belief
	// propagation refused the model, too few batches).
	Why string `json:"why_not,omitempty"`
}

// String says what the shrinkage did, in a line.
func (s *Shrinkage) String() string {
	if s.Why != "" {
		return "not shrunk toward loopy BP: " + s.Why
	}
	conv := "converged"
	if !s.Converged {
		conv = "not converged"
	}
	return fmt.Sprintf("shrunk toward loopy BP's beliefs (%d sweeps, %s, %.3g s) by weight %.3g: their distance is %.3g times the sampling error's square (%d coordinates, %.3g independent, %d batches)",
		s.Iterations, conv, s.Seconds, s.Weight, s.Ratio, s.Coords, s.Dims, s.Batches)
}

const (
	// bpShare is the most of the time left that belief propagation may
	// take before the chains run; bpWork the most table entries it may
	// read in all (about a second).
	bpShare = 0.03
	bpWork  = 3e8
	// bpBytes is the most memory belief propagation may take (its
	// tables and messages), and at most a quarter of Run.MaxBytes.
	bpBytes = 256 << 20
	// shrinkTracked is the most variables whose batch means measure the
	// sampling error.
	shrinkTracked = 2000
	// shrinkMinBatches and shrinkMinCoords are the least evidence a
	// weight is measured on.
	shrinkMinBatches = 16
	shrinkMinCoords  = 10
)

// propagate runs belief propagation on the free variables of g that the
// exact part leaves to sampling, within bpShare of b's time left, and
// keeps its beliefs in a as the shrinkage target; a.Shrink says why
// where it could not (the answer is then not shrunk).
func (a *Answer) propagate(ctx context.Context, g *factorgraph.Graph, opt Options, b Budget) {
	if opt.NoShrink {
		return
	}
	phase.Enter("bp")
	a.Shrink = &Shrinkage{}
	var vars []int
	exact := make([]bool, g.NumVars())
	if a.ExactPart != nil {
		a.ExactPart.Overlay(make([][]float64, g.NumVars()), exact)
	}
	for _, i := range g.Free() {
		if !exact[i] {
			vars = append(vars, i)
		}
	}
	o := bp.Options{Vars: vars, MaxWork: bpWork, MaxBytes: bpBytes}
	if opt.Run != nil && opt.Run.MaxBytes > 0 {
		o.MaxBytes = min(o.MaxBytes, opt.Run.MaxBytes/4)
	}
	bctx := ctx
	if _, timed := b.Deadline(); timed && !opt.counted() {
		o.Deadline = time.Now().Add(time.Duration(bpShare * float64(b.Left())))
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(ctx, o.Deadline) // its tabulation too
		defer cancel()
	}
	start := time.Now()
	res, err := bp.Run(bctx, g, o)
	a.Shrink.Seconds = time.Since(start).Seconds()
	switch {
	case err != nil && ctx.Err() == nil && bctx.Err() != nil:
		a.Shrink.Why = fmt.Sprintf("belief propagation's tables took more than its share of the time (%.3g s)", a.Shrink.Seconds)
		return
	case err != nil:
		a.Shrink.Why = err.Error()
		return
	}
	a.Shrink.Iterations, a.Shrink.Converged = res.Iterations, res.Converged
	a.beliefs, a.shrinkVars = res.Beliefs, vars
}

// shrink shrinks a's sampled marginals toward its beliefs (Shrinkage), by
// the errors the chains' batch records measure.
func (a *Answer) shrink() {
	sh, s := a.Shrink, a.Run
	if sh == nil || a.beliefs == nil || s == nil {
		return
	}
	defer func() { a.beliefs = nil }()
	if sh.Why == "" && a.Incomplete != "" {
		sh.Why = "the run is incomplete"
	}
	// The variance of the pooled marginals: Σ_k (n_k/N)² se_k², N the
	// states of every marginals pooled (a race's included).
	pooled := s.pooled()
	total := 0.0
	for _, mg := range pooled {
		total += float64(mg.N())
	}
	vars := s.batchVars
	var vari [][]float64
	batches := 0
	dims := 0.0
	for k, mg := range s.Marginals {
		means := mg.BatchMeans()
		nb := 0
		for _, mk := range means {
			if len(mk) > 0 {
				nb = len(mk[0])
				break
			}
		}
		if k == 0 || nb < batches {
			batches = nb
		}
		if nb < shrinkMinBatches {
			break
		}
		if k == 0 {
			vari = make([][]float64, len(means))
			dims = effectiveDims(means)
		}
		w := float64(mg.N()) / total
		for q, mk := range means {
			if vari[q] == nil {
				vari[q] = make([]float64, len(mk))
			}
			for v, m := range mk {
				e := chain.BatchError(m)
				vari[q][v] += w * w * e * e
			}
		}
	}
	sh.Batches, sh.Dims = batches, dims
	if sh.Why == "" && batches < shrinkMinBatches {
		sh.Why = fmt.Sprintf("%d batches of the run, fewer than %d", batches, shrinkMinBatches)
	}
	if sh.Why != "" {
		return
	}
	q, n := 0.0, 0
	for k, i := range vars {
		p, bel := a.Marginals[i], a.beliefs[i]
		if bel == nil || vari[k] == nil {
			continue
		}
		for v := range p {
			if len(p) == 2 && v == 0 {
				continue // a binary variable is one coordinate
			}
			if vari[k][v] > 0 {
				d := bel[v] - p[v]
				q += d * d / vari[k][v]
				n++
			}
		}
	}
	sh.Coords = n
	if n < shrinkMinCoords {
		sh.Why = fmt.Sprintf("%d coordinates with a sampling error, fewer than %d", n, shrinkMinCoords)
		return
	}
	// E[1/se²_batch] = (ν/(ν−2))/se², ν = batches − 1 degrees of freedom.
	nu := float64(batches - 1)
	sh.Ratio = q / float64(n) * (nu - 2) / nu
	if k := min(dims, float64(n)); k > 2 {
		sh.Weight = min(1, (k-2)/k/sh.Ratio)
	}
	if brokenShrink {
		sh.Weight = 1
	}
	w := sh.Weight
	for _, i := range a.shrinkVars {
		p, bel := a.Marginals[i], a.beliefs[i]
		if bel == nil || len(bel) != len(p) {
			continue
		}
		for v := range p {
			p[v] += w * (bel[v] - p[v])
		}
	}
}

// brokenShrink, set by a test, gives the beliefs all the weight whatever
// the samples say: the broken variant the tests must catch.
var brokenShrink bool

// effectiveDims returns the number of independent directions of the
// sampling error that batch means means[k][v][b] show: the degrees of
// freedom k of the χ²_k/k that the batches' own squared standardised
// distances from their mean, Q_b = Σ_q (m_qb − m̄_q)²/s_q², divided by
// their mean, match in variance (2/k). Errors independent across n
// coordinates give about n; a run whose error is one shift of every
// marginal together (a chain moving between two modes) gives about 1,
// where a weighted squared distance says little about a target's bias.
func effectiveDims(means [][][]float64) float64 {
	var qs []float64
	for _, mk := range means {
		for v, m := range mk {
			if len(mk) == 2 && v == 0 {
				continue
			}
			sd := stat.StdDev(m, nil)
			if !(sd > 0) {
				continue
			}
			mean := stat.Mean(m, nil)
			if qs == nil {
				qs = make([]float64, len(m))
			}
			for b, x := range m {
				z := (x - mean) / sd
				qs[b] += z * z
			}
		}
	}
	if len(qs) < 2 {
		return 0
	}
	mean, sd := stat.MeanStdDev(qs, nil)
	if !(sd > 0) {
		return math.Inf(1)
	}
	r := sd / mean
	return 2 / (r * r)
}
