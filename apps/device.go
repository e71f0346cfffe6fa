package apps

import (
	_ "embed"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Device code of the built-in apps: CUDA C versions of each program's
// Gather, Reduce, Update (and Wants, Done, Priority, and Init as
// vp_init), computing exactly what the Go methods compute (same types,
// same operation order; the backend compiles without FMA contraction).
// The contract is vertexprog.DeviceCode's.
//
// BFS, CC, SSSP and both PageRanks (LDBC's in float32 and float64) are
// generated from their Go methods by devgen (zz_device_gen.go;
// docs/devgen.md). Triangle counting's remains hand-written: its Gather
// intersects two adjacency lists of the graph's orientation with loops
// bounded by the data, binary searches and 16-byte vector loads, where
// devgen's subset has state slices indexed only by a vertex and loops
// with constant bounds. (LCC's and CDLP's device code is in
// lcc_device.go and cdlp_device.go.)
//
//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen -type BFSProgram,CCProgram,PageRankProgram,SSSPProgram,PageRankLDBCProgram[float32],PageRankLDBCProgram[float64]

//go:embed tc.cu
var triangleDevice string

// Device implements vertexprog.DeviceProgram.
func (p *TriangleProgram) Device() vertexprog.DeviceCode {
	pv := int32(0)
	if p.PerVertex {
		pv = 1
	}
	return vertexprog.DeviceCode{
		Source: triangleDevice,
		Init:   true,
		Arrays: []vertexprog.DeviceArray{
			{Name: "count", Data: p.Count},
			{Name: "deg", Orientation: p.o, Part: vertexprog.OrientationDeg, ReadOnly: true},
			{Name: "off", Orientation: p.o, Part: vertexprog.OrientationOff, ReadOnly: true},
			{Name: "cnt", Orientation: p.o, Part: vertexprog.OrientationCnt, ReadOnly: true},
			{Name: "adj", Orientation: p.o, Part: vertexprog.OrientationAdj, ReadOnly: true},
		},
		Scalars:     []vertexprog.DeviceScalar{{Name: "perVertex", Value: pv}},
		HeavyGather: true,
	}
}
