package blocked

import (
	"context"
	"fmt"

	"github.com/pgibbs/pgibbs/blocks"
)

// Config configures the blocks of a Blocked sampler: their bounds,
// as package blocks builds them (blocks.Config), and how an update treats
// the factors crossing a block's boundary. The zero value gives the
// defaults.
type Config struct {
	// Config holds the blocks' bounds, MaxWidth, MaxTable, MaxVars and
	// Forests, as package blocks reads them, with one difference: a zero
	// MaxWidth lets New and NewWith (no blocks given) choose the width
	// from the model — on a model with deterministic links the widest of
	// 12, 8 and 4 whose updates cost at most 80 single-site updates a
	// variable, otherwise 4 (see samplers.NewAuto). User blocks are
	// bounded by MaxTable only, and Blocked eliminates every block in the
	// order of smallest tables, whose width may exceed MaxWidth where
	// domain sizes differ.
	blocks.Config
	// Boundary is how an update treats the soft factors crossing the
	// block's boundary: exactly, or through Poisson auxiliaries where that
	// is cheaper (the default, BoundaryAuto), or always (see Boundary).
	Boundary Boundary
	// Regions, if positive, adds blocks over the regions the chain moves
	// together, learned from windows of its sweeps from Regions/2 on
	// (see regions.go; 0: the blocks stay as built or given).
	Regions int
}

// bounds returns the blocks' bounds of cfg.
func (cfg Config) bounds() blocks.Config { return cfg.Config }

// withDefaults returns cfg with its zero bounds set to the defaults, or an
// error for a negative one or an unknown Boundary.
func (cfg Config) withDefaults() (Config, error) {
	b, err := cfg.bounds().WithDefaults()
	if err != nil {
		return cfg, err
	}
	if cfg.Boundary < BoundaryAuto || cfg.Boundary > BoundaryPoisson {
		return cfg, fmt.Errorf("block config: %v: want BoundaryAuto, BoundaryExact or BoundaryPoisson", cfg.Boundary)
	}
	cfg.MaxWidth, cfg.MaxTable, cfg.MaxVars = b.MaxWidth, b.MaxTable, b.MaxVars
	return cfg, nil
}

// blockModel is the model a Blocked sampler reads: one that hands out its
// factors (a *factorgraph.Graph).
type blockModel = blocks.Model

// buildBlocks returns the blocks package blocks builds for cfg (its
// errors as this package's), looking at ctx.
func buildBlocks(ctx context.Context, m blockModel, cfg Config) ([][]int, error) {
	b, err := blocks.Build(ctx, m, cfg.bounds())
	if err != nil {
		return nil, fmt.Errorf("gibbs: %w", err)
	}
	return b, nil
}

// toInt32 returns vars as int32 indices.
func toInt32(vars []int) []int32 {
	out := make([]int32, len(vars))
	for k, v := range vars {
		out[k] = int32(v)
	}
	return out
}
