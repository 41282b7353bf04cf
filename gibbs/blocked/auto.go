package blocked

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// autoWidths are the widths a Blocked sampler tries, widest first, when
// Config.MaxWidth is 0 on a model with deterministic links, and
// autoBlockCost bounds the work of a block update per variable it updates,
// in units of a single-site Gibbs update's (the mean over the free
// variables of |A[i]|·D_i factor values): the widest width within it is
// chosen. A block narrower than a cluster of deterministically linked
// variables cannot move it at all, so there the widest affordable blocks
// pay (the pedigree and diagnosis networks of docs/uai.md); strong soft
// couplings are relaxed by blocks of softWidth, whose cheap updates buy
// many more sweeps in the same time (the grids), and so is a model with
// neither. A chain that updates each variable 80 times less often must
// gain that much in mixing: the bound rules out the large-domain
// object-detection models.
var autoWidths = []int{12, 8, 4}

const (
	autoBlockCost = 80
	softWidth     = 4
)

// chooseBlocks builds and compiles blocks of the widest width whose update
// costs at most autoBlockCost single-site updates per variable, among
// autoWidths on a model with deterministic links (hard, the share of
// deterministic links, at least stickyShare; softWidth otherwise), or of
// the narrowest if none does, and returns them with that cost. A width
// whose blocks exceed Options.MaxDraws is passed over (the error is
// returned if every width's does). It returns opt.Context's error, wrapped,
// once it is done.
func chooseBlocks(m blockModel, cfg Config, opt *gibbs.Options, hard float64) (sets [][]int, plans []*blockPlan, cost float64, err error) {
	ctx := core.Context(opt)
	single := singleSiteWork(m)
	widths := []int{softWidth}
	if hard >= stickyShare {
		widths = autoWidths
	}
	for k, w := range widths {
		c := cfg
		c.MaxWidth = w
		if c, err = c.withDefaults(); err != nil {
			return nil, nil, 0, fmt.Errorf("gibbs: block: %w", err)
		}
		b, err := buildBlocks(ctx, m, c)
		if err != nil {
			return nil, nil, 0, err
		}
		p, err := compilePlans(m, b, c, opt)
		if err != nil {
			if ctx.Err() != nil || k == len(widths)-1 && plans == nil {
				return nil, nil, 0, err
			}
			continue
		}
		sets, plans, cost = b, p, planWork(p)/single
		if cost <= autoBlockCost {
			break
		}
	}
	return sets, plans, cost, nil
}

// singleSiteWork returns the mean over the free variables of |A[i]|·D_i,
// the factor values a single-site Gibbs update evaluates (at least 1).
func singleSiteWork(m factorgraph.Model) float64 {
	free := m.Free()
	w := 0.0
	for _, i := range free {
		soft, hard := m.Degree(i)
		w += float64(soft+hard) * float64(max(m.Domain(i).Size, 1))
	}
	return max(w/float64(max(len(free), 1)), 1)
}

// planWork returns the work of the updates of plans per variable updated.
func planWork(plans []*blockPlan) float64 {
	work, vars := 0.0, 0
	for _, p := range plans {
		work += p.work
		vars += len(p.vars)
	}
	return work / float64(max(vars, 1))
}

// stickyShare is the share of the links between free variables that must
// be deterministic or strong for samplers.NewAuto to consider blocks, and
// stickyRange the range (summed over the soft factors linking a pair) of a
// strong link: odds of e ≈ 2.7 to 1 between two values of one variable
// given the other. Chains of such links already make single-site chains
// slow: on Segmentation_11 (ranges 1.2–1.5) plain Gibbs's error varies
// 5-fold between seeds at 10 s and blocks of width 4 are 5.9 times better
// on average, on Alchemy_11 (1.1) 2.4 times (docs/uai.md).
const (
	stickyShare = 0.1
	stickyRange = 1
)

// NewIfSticky returns the Blocked sampler the registry's auto runs on m
// (see samplers.NewAuto), or nil where single-site updates are the choice.
// Once opt.Context is done it returns the context's error, wrapped, never
// nil: the caller stops rather than build single-site updates.
func NewIfSticky(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Blocked, error) {
	ctx := core.Context(opt)
	if bm, ok := m.(blockModel); ok {
		// Single-site updates that cannot move a hard link are no choice.
		// (blocks of the widths for deterministic links, whatever they cost).
		err := core.CheckSiteMoves(ctx, "auto", m)
		if cerr := ctx.Err(); cerr != nil {
			if !errors.Is(err, cerr) {
				err = fmt.Errorf("gibbs: auto: %w", cerr)
			}
			return nil, err
		}
		frozen := err != nil
		hard, soft, err := blocks.Stickiness(ctx, bm, stickyRange)
		if err != nil {
			return nil, fmt.Errorf("gibbs: auto: %w", err)
		}
		if frozen {
			hard = max(hard, stickyShare)
		}
		if hard+soft >= stickyShare {
			if opt == nil {
				opt = &gibbs.Options{}
			}
			sets, plans, cost, err := chooseBlocks(bm, Config{}, opt, hard)
			if (frozen || ctx.Err() != nil) && err != nil {
				return nil, err
			}
			if err == nil && (frozen || cost <= autoBlockCost) {
				s, err := newBlocked(bm, r, opt, sets, plans)
				if err != nil {
					return nil, err
				}
				return s, nil
			}
		}
	}
	return nil, nil
}
