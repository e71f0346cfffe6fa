package vertexprog

import "github.com/hpgraph/hpgraph/hyb"

// FreshOrientation is an Orientation of g, outside g's memo, its arrays
// not yet built: tests and benchmarks build one again with it (Build).
func FreshOrientation(g *Graph, all, ranked bool) *Orientation {
	return newOrientation(g, all, ranked)
}

// RankCap is rankCap: the degrees above it are ranked by a sort of their
// own, the ones below by a counting sort.
const RankCap = rankCap

// SetFuseApply turns fused pulls (Spec.FuseApply) on or off and returns
// what it was.
func SetFuseApply(on bool) bool {
	was := fuseApply
	fuseApply = on
	return was
}

// FusedSuperstep prepares p on g for the CPU, runs its first superstep
// as a pull and reports whether the pull was fused: whether the values
// then lie in the other array.
func FusedSuperstep[X, A any](g *Graph, p Program[X, A]) (bool, error) {
	h, err := prepare(g, p, Options{Backend: "cpu", HYB: hyb.CPUOptions()}, false, nil)
	if err != nil {
		return false, err
	}
	h.materialize()
	c := newCPUStepper(h, Options{}, false)
	before := &c.x[0]
	c.step(0, Pull)
	return &c.x[0] != before, nil
}
