package blocked

import (
	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

func BuildBlocks(g *factorgraph.Graph, cfg Config) ([][]int, error) {
	return blocks.Build(g, cfg.bounds())
}

func BuildForests(g *factorgraph.Graph, cfg Config) ([][]int, error) {
	return blocks.Forests(g, cfg.bounds())
}

const maxTotalFactor = blocks.TotalFactor
