//go:build cgo

package run

import (
	"fmt"
	"math"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The built-in apps with their vp_init hidden: the host runs Init and
// sends the state, as before vp_init existed.
type (
	hostInitBFS  struct{ *bfs.Program }
	hostInitSSSP struct{ *sssp.Program }
	hostInitPR   struct {
		*pagerank.LDBCProgram[float64]
	}
)

func hostInit(c vertexprog.DeviceCode) vertexprog.DeviceCode {
	c.Init = false
	return c
}

func (p hostInitBFS) Device() vertexprog.DeviceCode  { return hostInit(p.Program.Device()) }
func (p hostInitSSSP) Device() vertexprog.DeviceCode { return hostInit(p.Program.Device()) }
func (p hostInitPR) Device() vertexprog.DeviceCode {
	return hostInit(p.LDBCProgram.Device())
}

// TestDeviceInitMatchesHostInit runs BFS, SSSP and LDBC PageRank on the
// GPU with their initial state made by vp_init and by the host's Init,
// single and resident (runs parked and adopted, from one source after
// another), and compares every vertex's result, the supersteps'
// frontiers and the aggregators: exactly, but the aggregators, whose
// sums the device and the host's workers add in another order.
func TestDeviceInitMatchesHostInit(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	for _, tg := range testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 9}) {
		g := vertexprog.NewGraph(tg.g)
		if g.N() == 0 {
			continue
		}
		for _, resident := range []bool{false, true} {
			opt := vertexprog.Options{Backend: "cuda", Resident: resident}
			t.Run(fmt.Sprintf("%s/resident=%v", tg.name, resident), func(t *testing.T) {
				for _, src := range append(sourcesOf(g), 0, sourcesOf(g)[0]) {
					a := &bfs.Program{Source: src}
					ra, err := vertexprog.Run(g, vertexprog.Program[struct{}, int32](a), opt)
					if err != nil {
						t.Fatal(err)
					}
					b := &bfs.Program{Source: src}
					rb, err := vertexprog.Run(g, vertexprog.Program[struct{}, int32](hostInitBFS{b}), opt)
					if err != nil {
						t.Fatal(err)
					}
					sameRuns(t, fmt.Sprintf("bfs from %d", src), ra.Active, rb.Active, ra.Aggregates, rb.Aggregates)
					sameInts(t, "bfs depth", a.Depth, b.Depth)
					sameInts(t, "bfs parent", a.Parent, b.Parent)

					s := &sssp.Program{Source: src, Delta: sssp.DefaultDelta(g)}
					rs, err := vertexprog.Run(g, vertexprog.Program[float32, float32](s), opt)
					if err != nil {
						t.Fatal(err)
					}
					rh, err := vertexprog.Run(g, vertexprog.Program[float32, float32](hostInitSSSP{&sssp.Program{Source: src, Delta: s.Delta}}), opt)
					if err != nil {
						t.Fatal(err)
					}
					for v := range rs.X {
						if math.Float32bits(rs.X[v]) != math.Float32bits(rh.X[v]) {
							t.Fatalf("sssp from %d: vertex %d: %v with vp_init, %v with the host's Init", src, v, rs.X[v], rh.X[v])
						}
					}
				}
				p := &pagerank.LDBCProgram[float64]{Damping: 0.85, Iterations: 7}
				rp, err := vertexprog.Run(g, vertexprog.Program[float64, float64](p), opt)
				if err != nil {
					t.Fatal(err)
				}
				q := &pagerank.LDBCProgram[float64]{Damping: 0.85, Iterations: 7}
				rq, err := vertexprog.Run(g, vertexprog.Program[float64, float64](hostInitPR{q}), opt)
				if err != nil {
					t.Fatal(err)
				}
				sameRuns(t, "pagerank-ldbc", rp.Active, rq.Active, rp.Aggregates, rq.Aggregates)
				for v := range p.Rank {
					if !same(p.Rank[v], q.Rank[v], 1e-12) {
						t.Fatalf("pagerank-ldbc: vertex %d: %v with vp_init, %v with the host's Init", v, p.Rank[v], q.Rank[v])
					}
				}
			})
		}
	}
}

func sameRuns(t *testing.T, what string, a, b []int, aggA, aggB []float64) {
	t.Helper()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("%s: frontiers %v with vp_init, %v with the host's Init", what, a, b)
	}
	if len(aggA) != len(aggB) {
		t.Fatalf("%s: %d aggregators with vp_init, %d with the host's Init", what, len(aggA), len(aggB))
	}
	for i := range aggA {
		if !same(aggA[i], aggB[i], 1e-12) {
			t.Fatalf("%s: aggregator %d is %v with vp_init, %v with the host's Init", what, i, aggA[i], aggB[i])
		}
	}
}

func sameInts(t *testing.T, what string, a, b []int32) {
	t.Helper()
	for v := range a {
		if a[v] != b[v] {
			t.Fatalf("%s: vertex %d: %d with vp_init, %d with the host's Init", what, v, a[v], b[v])
		}
	}
}
