package sssp_test

import (
	"fmt"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Shortest distances from id 700 over weighted edges.
func ExampleFrom() {
	g := apptest.LoadWithIDs("700 12 4\n12 5000 4\n700 31 1\n31 5000 2\n5000 64 1\n", datasets.Options{})
	r, err := sssp.From(g, 700, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	dist, _ := r.Dists()
	fmt.Println(dist)
	// Output: map[12:4 31:1 64:4 700:0 5000:3]
}
