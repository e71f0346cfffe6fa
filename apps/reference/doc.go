// Package reference is the independent CPU reference that every engine run
// is checked against. It computes the algorithms of the design (§5) with
// gonum's graph algorithms (traverse.BreadthFirst, path.DijkstraFrom,
// topo.ConnectedComponents) or with plain loops over gonum node iterators,
// on read-only views of a datasets.Graph.
//
// It deliberately shares no code with the engine: it imports only datasets
// (for the CSR type), gonum and the standard library, so a bug in the
// engine's HYB, SpMV or bitmask code cannot hide in both sides of a check.
// Correctness and clarity come first; speed only has to be reasonable
// (seconds on a Kronecker scale-18 graph).
package reference
