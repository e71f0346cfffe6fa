//go:build cgo

package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceSymmetrizedMatchesHost: a directed graph's undirected view
// built on the device (SymmetrizedRows) has the host's row offsets
// (datasets.Graph.Symmetrized), and the matrix described from them and
// built on the device (from the view kept there, or, once it went, from
// the view made again) equals hyb.FromCSR of the host's view array by
// array, weights bit for bit, in every split: graphs with hubs whose
// in-rows are long, parallel arcs (their lightest weight kept), arcs both
// ways, self loops and empty rows.
func TestDeviceSymmetrizedMatchesHost(t *testing.T) {
	d := needGPU(t)
	dropAllCSRs(d) // (other tests' runs leave theirs)
	rng := rand.New(rand.NewPCG(24, 12))
	for _, c := range []struct{ n, arcs, hub int }{{1, 3, 0}, {33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}, {300001, 1_200_001, 150_000}} {
		for _, weights := range []int{0, 1, 2} {
			g := transposeTestGraph(rng, c.n, c.arcs, c.hub, weights)
			want := g.Symmetrized(nil)
			of := hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}
			rows, err := Backend{}.SymmetrizedRows(g.RowPtr, g.Col, g.W)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("n=%d arcs=%d weights=%d", c.n, c.arcs, weights)
			if !slices.Equal(rows, want.RowPtr) {
				t.Fatalf("%s: the device's row offsets differ from the host's view", what)
			}
			for i, s := range splits {
				what := what + " " + s.name
				ref, err := hyb.FromCSR(want.N, want.RowPtr, want.Col, want.W, s.opt)
				if err != nil {
					t.Fatal(err)
				}
				m, err := hyb.DescribeSymmetrized(g.N, rows, of, s.opt, func() hyb.CSR {
					t.Errorf("%s: the host's view was asked for", what)
					return hyb.CSR{RowPtr: want.RowPtr, Col: want.Col, Val: want.W}
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, again := range []bool{false, true} {
					if again || i > 0 {
						// (the view the first build borrowed went: made again)
						dropAllCSRs(d)
					}
					err = d.do("building a symmetrized matrix on the device", func() error {
						md := &matDev{m: m}
						defer func() { freeAll(md.bufs) }()
						buildOnDevice(md, m, phase.New("cuda", "test"))
						slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
						if got := download[int32](md.ellCol, slots); !slices.Equal(got, ref.EllCol) && slots > 0 {
							t.Errorf("%s (again %v): ELL columns differ", what, again)
						}
						if got := download[float32](md.ellVal, slots); !sameBits(got, ref.EllVal) && slots > 0 && ref.EllVal != nil {
							t.Errorf("%s (again %v): ELL values differ", what, again)
						}
						if got := download[int32](md.cooCol, coo); !slices.Equal(got, ref.CooCol) && coo > 0 {
							t.Errorf("%s (again %v): COO columns differ", what, again)
						}
						if got := download[float32](md.cooVal, coo); !sameBits(got, ref.CooVal) && coo > 0 && ref.CooVal != nil {
							t.Errorf("%s (again %v): COO values differ", what, again)
						}
						if got := download[int64](md.cooPtr, int64(g.N+1)); !slices.Equal(got, ref.CooPtr) {
							t.Errorf("%s (again %v): COO row offsets differ", what, again)
						}
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
				}
			}
			dropAllCSRs(d)
		}
	}
}

// TestSymmetrizedOnDeviceRuns: triangle counting, LCC and connected
// components of directed graphs on the GPU equal the CPU engine's, and
// the host built no undirected view for the GPU's runs (the device did).
func TestSymmetrizedOnDeviceRuns(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	rng := rand.New(rand.NewPCG(24, 13))
	for _, c := range []struct{ n, arcs, hub int }{{33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}} {
		d := transposeTestGraph(rng, c.n, c.arcs, c.hub, 0)
		gpu, cpu := vertexprog.NewGraph(d), vertexprog.NewGraph(d)
		what := fmt.Sprintf("n=%d arcs=%d", c.n, c.arcs)
		tcG, err := apps.Triangles(gpu, false, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		if gpu.UndirectedViewBuilt() {
			t.Fatalf("%s: the host built the undirected view for a GPU run", what)
		}
		tcC, err := apps.Triangles(cpu, false, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if tcG.Total != tcC.Total {
			t.Errorf("%s: triangles %d on the GPU, %d on the CPU", what, tcG.Total, tcC.Total)
		}
		lccG, err := apps.LCC(gpu, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		lccC, err := apps.LCC(cpu, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lccG.LCC, lccC.LCC) {
			t.Errorf("%s: LCC differs between the GPU and the CPU", what)
		}
		ccG, err := apps.ConnectedComponents(gpu, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		ccC, err := apps.ConnectedComponents(cpu, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ccG.Label, ccC.Label) {
			t.Errorf("%s: component labels differ between the GPU and the CPU", what)
		}
		if gpu.UndirectedViewBuilt() {
			t.Fatalf("%s: the host built the undirected view for the GPU's runs", what)
		}
	}
}
