package blocked

import (
	"context"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

func BuildBlocks(g *factorgraph.Graph, cfg Config) ([][]int, error) {
	return blocks.Build(context.Background(), g, cfg.bounds())
}

func BuildForests(g *factorgraph.Graph, cfg Config) ([][]int, error) {
	return blocks.Forests(context.Background(), g, cfg.bounds())
}

const maxTotalFactor = blocks.TotalFactor
