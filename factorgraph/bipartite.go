package factorgraph

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
)

// bipartite is the variable–factor graph as a github.com/dominikbraun/graph
// undirected graph: vertex i < n is variable i, vertex n+f is factor f.
type bipartite struct {
	g graph.Graph[int, int]
	n int
}

// structure assembles the bipartite graph on first use: samplers never need
// it, so graphs with millions of factors pay for it only when asked for
// components or a drawing.
func (g *Graph) structure() (*bipartite, error) {
	g.bipOnce.Do(func() {
		n := g.domains.Len()
		bg := graph.New(graph.IntHash)
		for i := range n {
			shape := "ellipse"
			if g.observed[i] {
				shape = "doublecircle"
			}
			if err := bg.AddVertex(i, graph.VertexAttribute("label", "x"+strconv.Itoa(i)), graph.VertexAttribute("shape", shape)); err != nil {
				g.bipErr = err
				return
			}
		}
		var vars []int
		for f := range g.fs.n {
			style := "filled"
			if g.FactorBound(f) == 0 {
				style = "dashed"
			}
			if err := bg.AddVertex(n+f,
				graph.VertexAttribute("label", "f"+strconv.Itoa(f)),
				graph.VertexAttribute("shape", "box"),
				graph.VertexAttribute("style", style)); err != nil {
				g.bipErr = err
				return
			}
			vars = g.fs.vars(vars[:0], f)
			for _, v := range vars {
				if err := bg.AddEdge(v, n+f); err != nil {
					g.bipErr = fmt.Errorf("edge x%d–f%d: %w", v, f, err)
					return
				}
			}
		}
		g.bip = &bipartite{g: bg, n: n}
	})
	return g.bip, g.bipErr
}

// Components returns the connected components of the graph as sets of
// variables, each sorted, ordered by their smallest variable. Two variables
// are connected when a chain of factors links them (constant factors
// included). It assembles the bipartite variable–factor graph with
// github.com/dominikbraun/graph on first use.
func (g *Graph) Components() ([][]int, error) {
	b, err := g.structure()
	if err != nil {
		return nil, fmt.Errorf("factorgraph: components: %w", err)
	}
	adj, err := b.g.AdjacencyMap()
	if err != nil {
		return nil, fmt.Errorf("factorgraph: components: %w", err)
	}
	comp := make([]int, b.n+g.fs.n)
	for i := range comp {
		comp[i] = -1
	}
	var out [][]int
	queue := make([]int, 0, 64)
	for start := range b.n {
		if comp[start] >= 0 {
			continue
		}
		c := len(out)
		vars := []int{}
		comp[start] = c
		queue = append(queue[:0], start)
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			if u < b.n {
				vars = append(vars, u)
			}
			for w := range adj[u] {
				if comp[w] < 0 {
					comp[w] = c
					queue = append(queue, w)
				}
			}
		}
		slices.Sort(vars)
		out = append(out, vars)
	}
	return out, nil
}

// WriteDOT writes the bipartite variable–factor graph in Graphviz DOT form
// (variables as ellipses x0, x1, …, evidence as double circles, factors as
// boxes f0, f1, …, constant factors dashed), through
// github.com/dominikbraun/graph/draw.
func (g *Graph) WriteDOT(w io.Writer) error {
	b, err := g.structure()
	if err != nil {
		return fmt.Errorf("factorgraph: dot: %w", err)
	}
	if err := draw.DOT(b.g, w, draw.GraphAttribute("label", "factor graph")); err != nil {
		return fmt.Errorf("factorgraph: dot: %w", err)
	}
	return nil
}
