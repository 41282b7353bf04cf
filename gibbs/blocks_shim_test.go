package gibbs

import (
	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// The block-construction tests of this package (block_test.go,
// block_forest_test.go, frozen_test.go) predate package blocks and check
// the blocks together with the Blocked sampler that runs them; they reach
// the builders through these.

func BuildBlocks(g *factorgraph.Graph, cfg BlockConfig) ([][]int, error) {
	return blocks.Build(g, cfg.bounds())
}

func BuildForests(g *factorgraph.Graph, cfg BlockConfig) ([][]int, error) {
	return blocks.Forests(g, cfg.bounds())
}

const maxTotalFactor = blocks.TotalFactor
