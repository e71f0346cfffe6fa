package lcc

import (
	_ "embed"
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// lccDevice is Program's device code: the Go methods' computation in
// CUDA C (see Program, and vertexprog.DeviceCode for the contract),
// for a directed graph where LCC_DIRECTED is 1 and an undirected one where
// it is 0 (Device defines it: two builds, so that neither carries the
// other's code and registers). Vertex v's gathers list the triangles in
// which v is the lowest vertex, as triangle counting's do, crediting v in
// the accumulator and the two other vertices with atomic adds; Update,
// which runs after every gather of the superstep (vp_apply_pull, a later
// kernel), adds up v's credits. What differs from the Go code is how, not
// what: the lists are merged LCC_BLOCK entries at a time (Go: one), a
// list 16 times shorter than the other is searched for in it (Go: where
// that takes fewer steps than a merge), and a hub's credits go to the
// copy its thread picks (Go: the one the gathering vertex picks).
//
// It relies on the pull kernels gathering each entry of the matrix once
// per superstep (a gather's atomic adds are not undone): the program
// never pushes (it is not Sparse), and with HeavyGather it is pulled by
// rows, not tiles.
//
//go:embed lcc.cu
var lccDevice string

// Device implements vertexprog.DeviceProgram. The ranked orientation's
// arrays name their part of it (vertexprog.DeviceArray.Orientation): a
// device backend builds them on the device from the gather matrix, so a
// GPU run never builds them on the host.
func (p *Program) Device() vertexprog.DeviceCode {
	part := func(name string, pt vertexprog.OrientationPart, empty any) vertexprog.DeviceArray {
		if p.o == nil {
			// (before Prepare: the source and the layout, no data)
			return vertexprog.DeviceArray{Name: name, Data: empty, ReadOnly: true}
		}
		return vertexprog.DeviceArray{Name: name, Orientation: p.o, Part: pt, ReadOnly: true}
	}
	return vertexprog.DeviceCode{
		Source: lccSource(p.directed, p.agg),
		Arrays: []vertexprog.DeviceArray{
			{Name: "lcc", Data: p.LCC},
			{Name: "credit", Data: p.credit, Scratch: true, Sum: true},
			{Name: "hub", Data: p.hub, Scratch: true, Sum: true},
			part("rank", vertexprog.OrientationRank, []int32(nil)),
			part("deg", vertexprog.OrientationDeg, []int32(nil)),
			part("off", vertexprog.OrientationOff, []int64(nil)),
			part("cnt", vertexprog.OrientationCnt, []int32(nil)),
			part("adj", vertexprog.OrientationAdj, []int32(nil)),
			part("both", vertexprog.OrientationBoth, []uint32(nil)),
		},
		Scalars:     []vertexprog.DeviceScalar{{Name: "hubs", Value: p.hubs}},
		Init:        true,
		HeavyGather: true,
	}
}

// lccSource is lccDevice for a directed or an undirected graph, with or
// without the hub credits' sums.
func lccSource(directed, agg bool) string {
	return fmt.Sprintf("#define LCC_DIRECTED %d\n#define LCC_AGG %d\n", b2i(directed), b2i(agg)) + lccDevice
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
