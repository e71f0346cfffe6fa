package registry_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestConstantArraysAreShared: an array marked Constant (its device copy
// reused between resident runs without a comparison) is the graph's
// memo, the same memory for every program prepared on the graph, so
// nothing a run writes can reach it.
func TestConstantArraysAreShared(t *testing.T) {
	el := &datasets.EdgeList{N: 5, Src: []int32{0, 0, 1, 2, 3}, Dst: []int32{1, 2, 2, 3, 4}}
	g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	progs := func() []vertexprog.DeviceProgram {
		return []vertexprog.DeviceProgram{&pagerank.Program{Damping: 0.85}, &pagerank.LDBCProgram[float32]{Damping: 0.85, Iterations: 1},
			&bfs.Program{}, &sssp.Program{}, &lcc.Program{}}
	}
	a, b := progs(), progs()
	constants := 0
	for i := range a {
		for _, p := range []vertexprog.DeviceProgram{a[i], b[i]} {
			apptest.Prepare(t, g, p)
		}
		ca, cb := a[i].Device(), b[i].Device()
		for k, arr := range ca.Arrays {
			if !arr.Constant {
				continue
			}
			constants++
			if !arr.ReadOnly {
				t.Errorf("%T: array %s is Constant but not ReadOnly", a[i], arr.Name)
			}
			if !apptest.SameSlice(arr.Data, cb.Arrays[k].Data) {
				t.Errorf("%T: Constant array %s is not shared by two programs on one graph", a[i], arr.Name)
			}
		}
	}
	if constants == 0 {
		t.Fatal("no Constant arrays found")
	}
}
