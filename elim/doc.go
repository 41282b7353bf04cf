// Package elim is variable elimination on factor graphs: elimination
// orders and their costs (Simulate, GreedyOrder with the min-fill and
// min-weight heuristics, BestOrder).
package elim
