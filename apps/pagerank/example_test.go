package pagerank_test

import (
	"fmt"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Any per-vertex result keyed by id (vertexprog.ByID): LDBC PageRank,
// and the index of a vertex for a direct read (vertexprog.Graph.Vertex).
func ExampleLDBC_byID() {
	g := apptest.LoadWithIDs("700 12\n12 5000\n31 5000\n5000 700\n5000 31\n", datasets.Options{})
	r, err := pagerank.LDBC(g, 0.85, 50, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	rank, err := vertexprog.ByID(g, r.Rank)
	if err != nil {
		panic(err)
	}
	for _, id := range []int64{12, 31, 700, 5000} {
		fmt.Printf("%d: %.4f\n", id, rank[id])
	}
	v, _ := g.Vertex(5000)
	id, _ := g.ID(v)
	fmt.Printf("vertex %d has id %d, rank %.4f\n", v, id, r.Rank[v])
	// Output:
	// 12: 0.2092
	// 31: 0.2020
	// 700: 0.2020
	// 5000: 0.3869
	// vertex 0 has id 5000, rank 0.3869
}
