package cc_test

import (
	"fmt"

	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Components labelled by their smallest ids, after renumbering.
func ExampleRunByID() {
	g := apptest.LoadWithIDs("700 12\n12 5000\n31 5000\n99 98\n98 310\n", datasets.Options{})
	r, err := cc.RunByID(g, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	l, _ := r.Label(5000)
	fmt.Println(r.Components, "components; 5000 is in", l)
	fmt.Println(r.Groups())
	// Output:
	// 2 components; 5000 is in 12
	// [[12 31 700 5000] [98 99 310]]
}
