// Package chain runs Markov chains: it owns everything between a sampler's
// step kernel and a result, written once for every sampler of this module.
//
// A sampler is an initial state plus a step kernel (the split BlackJAX
// makes): anything with Step, State and Err is a [Kernel] — the single-site
// samplers of package gibbs (a step resamples one variable and says which),
// their sweeps and chromatic sweeps (a step is a whole sweep), and the
// Metropolis–Hastings samplers of package mh (a step may move every
// coordinate). This package runs kernels:
//
//   - [Chain] is one chain: a kernel, the random sources it draws from, its
//     [Observer]s and its burn-in. [Chain.Advance] runs it to a number of
//     steps, watching a context between steps and publishing its progress in
//     an atomic counter ([Chain.Done]).
//   - [Runner] runs K chains in parallel (one goroutine each, the first
//     failure cancels the others) for a number of steps or a wall-time
//     budget, and checkpoints them: every Runner.Every and when its context
//     is cancelled it writes one versioned, checksummed file holding each
//     chain's step count, random-source states, kernel and observer
//     snapshots ([Snapshotter]); [ReadCheckpoint] and [Checkpoint.Restore]
//     resume a run bit for bit.
//   - A run split across processes or machines: chain k of K, built with
//     the streams of index k, ends where it ends in a K-chain run, and
//     reports a [Part] (the run's [Meta] — command, settings, trace, input
//     files — with the chain's final [ChainState]). [ReadParts] reads the
//     K parts back, refusing parts of different runs or input files, a
//     chain missing or given twice, and inputs changed since, naming the
//     file; [RestoreParts] sets freshly built chains to the parts' states,
//     so the pooled run reports what the K-chain run would. [ReadRun]
//     reads a checkpoint whose Runner.Meta was a Meta, and [TracePath]
//     names each chain's trace file.
//   - [Session] is what surrounds a Runner in a program that offers all of
//     this for chains from any source, written once rather than by each
//     caller: [Session.Build] and [Session.Add] open each chain's CSV trace
//     (created, or reopened where a checkpoint left it) as the chains are
//     built, [Session.Attach] restores them from a [Checkpoint] or loads the
//     [Part]s of a split run (then they are not run), [Session.End] says
//     from the Runner's error whether the chains have results — complete,
//     complete but with the final checkpoint unsaved ([Ending].Unsaved), or
//     interrupted after the burn-in ([Ending].Interrupted) — or why not,
//     and [Session.Flush] and [Session.Part] leave the flushed traces, the
//     final states' hash and chain k's Part; [Indices] are the chains a
//     process of a split run builds. cmd/pgibbs keeps only its flags and
//     their wording around it.
//   - [Parallel] is the bounded worker pool the Runner and the experiment
//     drivers share.
//   - Observers for both families: [Marginals] (run-average marginals of
//     discrete coordinates), [Histograms] and [Joint2D] (of continuous
//     ones), [Means], [Trace] (thinned draws for R̂ and ESS in bounded
//     memory), [ScalarTrace] (the same for a function of the state: an
//     energy, a magnetisation) and [CSV] (a trace file that survives
//     checkpoints). [ScalarChains] and [TraceChains] turn several chains'
//     traces into package diag's chains × draws layout
//     (diag.SummarizeUnequal takes chains of unequal lengths), and
//     [NewRBMarginals] makes Rao–Blackwellised Marginals in one call, or
//     says which kernel is not a [Conditioner].
//   - Convergence: a [Monitor] traces every chain (one draw a
//     sweep-equivalent for a [Counter], in bounded memory: [Monitor.Budget]
//     cuts the traces to what a verdict can judge in the time given) and
//     [Monitor.Verdict] judges them by the [Criteria] — rank-normalised
//     split-R̂ within and across chains and bulk and tail ESS of every
//     tracked quantity ([Judge] for quantities of the caller's), and no
//     variable frozen: never moved in any chain while neither the model
//     ([Monitor.UseDegenerate]) nor its Rao–Blackwellised conditionals
//     ([Monitor.UseMarginals]) show its marginal degenerate — into a
//     [Verdict] that says why not in words; [Monitor.Until] is the same judgement as a Runner's stopping
//     rule, and [Monitor.Run] a run that stops when converged.
//   - [Source] and [Streams] derive independent PCG streams from one seed,
//     so chain k of a run has the same stream whether it runs in this
//     process or on another machine; [StateHash] fingerprints final states.
//
// Observers see (t, i, x) after each step past the burn-in: t counts those
// steps from 1, i is what Step returned (the coordinate that changed, or
// [Any]) and x is the state, valid only during the call.
package chain
