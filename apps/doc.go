// Package apps holds hpgraph's built-in algorithms — BFS, SSSP, PageRank
// (two variants), triangle counting and connected components — each written
// only against vertexprog's public API, as any user program would be.
//
// Each app has a Program type (usable with vertexprog.Run and
// vertexprog/vptest directly) and a function that runs it and returns typed
// results. The independent reference lives in apps/reference.
package apps

import (
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// checkSource reports a source vertex outside the graph.
func checkSource(g *vertexprog.Graph, src int32) error {
	if src < 0 || int(src) >= g.N() {
		return fmt.Errorf("source vertex %d is out of range: the graph has vertices 0..%d", src, g.N()-1)
	}
	return nil
}
