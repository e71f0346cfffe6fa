package bfs_test

import (
	"fmt"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// A breadth-first search from a file's id 700, answered in its ids.
func ExampleFrom() {
	g := apptest.LoadWithIDs("700 12\n12 5000\n700 31\n31 5000\n5000 64\n99 98\n", datasets.Options{})
	r, err := bfs.From(g, 700, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	d, _ := r.Depth(64)
	path, _ := r.Path(64)
	fmt.Println("depth of 64:", d, "path:", path)
	d, _ = r.Depth(98)
	fmt.Println("depth of 98:", d)
	_, err = bfs.From(g, 13, vertexprog.Options{})
	fmt.Println(err)
	// Output:
	// depth of 64: 3 path: [700 12 5000 64]
	// depth of 98: -1
	// invalid input: bfs source: id 13 is not a vertex of example: no vertex has this id
}
