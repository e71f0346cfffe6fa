// Package apps holds hpgraph's built-in algorithms — BFS, SSSP, PageRank
// (two variants), triangle counting, connected components, LDBC's local
// clustering coefficient and community detection by label propagation
// (CDLP, a vertexprog.MultisetProgram) — each written only against vertexprog's public
// API, as any user program would be.
//
// Each app has a Program type (usable with vertexprog.Run and
// vertexprog/vptest directly) and a function that runs it and returns typed
// results. The independent reference lives in apps/reference.
package apps

import (
	"errors"
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// ErrInvalidInput marks a graph or parameter the algorithm is not defined
// for (negative SSSP weights, a source outside the graph).
var ErrInvalidInput = errors.New("invalid input")

// checkSource reports a source vertex outside the graph.
func checkSource(g *vertexprog.Graph, src int32) error {
	if g == nil {
		return fmt.Errorf("%w: %w", ErrInvalidInput, vertexprog.ErrNilGraph)
	}
	if src < 0 || int(src) >= g.N() {
		return fmt.Errorf("%w: source vertex %d is out of range: the graph has vertices 0..%d", ErrInvalidInput, src, g.N()-1)
	}
	return nil
}
