//go:build cgo

package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestPartsOnEveryDevice runs the apps (LCC, whose Sum arrays the parts
// add up, and CDLP, a multiset program, among them) split into parts on every device the driver lists
// (--devices all: one part a device; on one device, several parts on it)
// and compares each with the CPU's whole-graph run: the exchange between
// parts on one device, and between devices by peer copies.
func TestPartsOnEveryDevice(t *testing.T) {
	needGPU(t)
	oldDevs, oldOpt := registered.Devices(), registered.Options()
	t.Cleanup(func() { _ = Configure(oldDevs, oldOpt) })
	if err := Configure(DeviceList{All: true}, oldOpt); err != nil {
		t.Fatal(err)
	}
	devs := registered.PartDevices()
	t.Logf("%d devices", devs)
	for _, directed := range []bool{false, true} {
		// (short graphs have empty parts: see shortGraph)
		for _, g := range []*vertexprog.Graph{testGraph(t, directed), shortGraph(t, directed, 40), shortGraph(t, directed, 20), treesGraph(t, directed)} {
			for _, parts := range []int{0, 3} {
				if parts == 0 && devs < 2 {
					continue
				}
				cpu := vertexprog.Options{Backend: "cpu"}
				gpu := vertexprog.Options{Backend: "cuda", Parts: parts}
				check := func(name string, f func(vertexprog.Options) ([]float64, error)) {
					t.Helper()
					want, err := f(cpu)
					if err != nil {
						t.Fatalf("%s cpu: %v", name, err)
					}
					got, err := f(gpu)
					if err != nil {
						t.Fatalf("%s (directed %v, parts %d): %v", name, directed, parts, err)
					}
					for v := range want {
						if got[v] != want[v] && math.Abs(got[v]-want[v]) > 1e-9*math.Abs(want[v]) {
							t.Fatalf("%s (directed %v, parts %d): vertex %d is %v, the CPU's %v", name, directed, parts, v, got[v], want[v])
						}
					}
				}
				// (the parts a split run reports: one per part)
				reported := func(name string, got int) {
					if parts > 1 && got != parts {
						t.Errorf("%s: %d parts reported, want %d", name, got, parts)
					}
				}
				check("bfs", func(o vertexprog.Options) ([]float64, error) {
					r, err := bfs.Run(g, 7, o)
					if err != nil {
						return nil, err
					}
					if o.Backend == "cuda" {
						reported("bfs", len(r.Run.Parts))
					}
					return append(floats(r.Depth), floats(r.Parent)...), nil
				})
				check("sssp", func(o vertexprog.Options) ([]float64, error) {
					r, err := sssp.Run(g, 7, o)
					if err != nil {
						return nil, err
					}
					return floats(r.Dist), nil
				})
				check("pagerank-ldbc", func(o vertexprog.Options) ([]float64, error) {
					r, err := pagerank.LDBC(g, 0.85, 15, o)
					if err != nil {
						return nil, err
					}
					return r.Rank, nil
				})
				check("cc", func(o vertexprog.Options) ([]float64, error) {
					r, err := cc.Run(g, o)
					if err != nil {
						return nil, err
					}
					return floats(r.Label), nil
				})
				check("tc", func(o vertexprog.Options) ([]float64, error) {
					r, err := tc.Run(g, true, o)
					if err != nil {
						return nil, err
					}
					return append([]float64{float64(r.Total)}, floats(r.PerVertex)...), nil
				})
				// (a total counts over the ranked orientation, which each
				// part's device builds from the whole graph's matrix; its
				// size, reported, is the CPU's host arrays')
				check("tc total", func(o vertexprog.Options) ([]float64, error) {
					r, err := tc.Run(g, false, o)
					if err != nil {
						return nil, err
					}
					if o.Backend == "cuda" && parts != 1 {
						c, err := tc.Run(g, false, vertexprog.Options{Backend: "cpu", Parts: 3})
						if err != nil {
							return nil, err
						}
						if r.Run.Whole != c.Run.Whole || c.Run.Whole == 0 {
							t.Errorf("tc total (directed %v, parts %d): whole orientation %d bytes, the CPU's %d", directed, parts, r.Run.Whole, c.Run.Whole)
						}
					}
					return []float64{float64(r.Total)}, nil
				})
				// (its gathers add to other vertices' credits: the parts add
				// them up before APPLY, parts_sums.go)
				check("lcc", func(o vertexprog.Options) ([]float64, error) {
					r, err := lcc.Run(g, o)
					if err != nil {
						return nil, err
					}
					if o.Backend == "cuda" {
						reported("lcc", len(r.Run.Parts))
					}
					return r.LCC, nil
				})
				// (a multiset program: each part sorts its own rows' labels)
				check("cdlp", func(o vertexprog.Options) ([]float64, error) {
					r, err := cdlp.Run(g, 10, o)
					if err != nil {
						return nil, err
					}
					if o.Backend == "cuda" {
						reported("cdlp", len(r.Run.Parts))
					}
					return floats(r.Label), nil
				})
			}
		}
	}
}

// shortGraph is a ring of n vertices with chords, weighted. In 3 parts
// of whole frontier words, 40 vertices split into [0, 32), an empty part
// at 32 and [32, 40); 20 into [0, 20) and two empty parts at 20.
func shortGraph(t *testing.T, directed bool, n int32) *vertexprog.Graph {
	t.Helper()
	el := &datasets.EdgeList{N: int(n), Directed: directed}
	for v := range n {
		el.Src, el.Dst = append(el.Src, v, v), append(el.Dst, (v+1)%n, (v*7+3)%n)
	}
	return vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}))
}

// treesGraph is a dense block in each third of 4,000 vertices (each
// part's largest component, whose vertices skip their edges in a
// components run in parts) and 500 small trees of random vertices of
// the first 2,800 (the rest have no arcs): a tree's vertices lie in
// several parts, and its links in one part's forest reach vertices of
// the others' rows.
func treesGraph(t *testing.T, directed bool) *vertexprog.Graph {
	t.Helper()
	const n = 4000
	rng := rand.New(rand.NewPCG(11, 29))
	el := &datasets.EdgeList{N: n, Directed: directed}
	add := func(u, v int32) { el.Src, el.Dst = append(el.Src, u), append(el.Dst, v) }
	for b := range int32(3) {
		for range 600 {
			add(b*900+rng.Int32N(300), b*900+rng.Int32N(300))
		}
	}
	for range 500 {
		k := 2 + rng.IntN(5)
		vs := make([]int32, k)
		for i := range vs {
			vs[i] = rng.Int32N(2800)
			if i > 0 {
				add(vs[rng.IntN(i)], vs[i])
			}
		}
	}
	return vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}))
}

// floats is s as float64s, for comparing any app's values.
func floats[T int32 | int64 | float32 | float64](s []T) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = float64(x)
	}
	return out
}

// TestPartsOnHeldRows runs the apps that run on a graph of held rows
// (vertexprog.GatherRows, NewGraphRows: what a process of a run over
// several holds, here every row, with no other process) in parts on the
// device, and compares each with the CPU's whole-graph run: the parts'
// matrices built from held rows, and their push from their own columns.
func TestPartsOnHeldRows(t *testing.T) {
	needGPU(t)
	whole := testGraph(t, false)
	d := whole.Dataset()
	rows, err := vertexprog.GatherRows(d, 0, int32(d.N), nil)
	if err != nil {
		t.Fatal(err)
	}
	apps := map[string]func(*vertexprog.Graph, vertexprog.Options) ([]float64, error){
		"bfs": func(g *vertexprog.Graph, o vertexprog.Options) ([]float64, error) {
			r, err := bfs.Run(g, 7, o)
			if err != nil {
				return nil, err
			}
			return append(floats(r.Depth), floats(r.Parent)...), nil
		},
		"sssp": func(g *vertexprog.Graph, o vertexprog.Options) ([]float64, error) {
			r, err := sssp.Run(g, 7, o)
			if err != nil {
				return nil, err
			}
			return floats(r.Dist), nil
		},
		"pagerank-ldbc": func(g *vertexprog.Graph, o vertexprog.Options) ([]float64, error) {
			r, err := pagerank.LDBC(g, 0.85, 15, o)
			if err != nil {
				return nil, err
			}
			return r.Rank, nil
		},
		"cc": func(g *vertexprog.Graph, o vertexprog.Options) ([]float64, error) {
			r, err := cc.Run(g, o)
			if err != nil {
				return nil, err
			}
			return floats(r.Label), nil
		},
		"cdlp": func(g *vertexprog.Graph, o vertexprog.Options) ([]float64, error) {
			r, err := cdlp.Run(g, 10, o)
			if err != nil {
				return nil, err
			}
			return floats(r.Label), nil
		},
	}
	for name, run := range apps {
		want, err := run(whole, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatalf("%s cpu: %v", name, err)
		}
		for _, parts := range []int{2, 3} {
			g, err := vertexprog.NewGraphRows(rows, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(g, vertexprog.Options{Backend: "cuda", Parts: parts})
			if err != nil {
				t.Fatalf("%s in %d parts on held rows: %v", name, parts, err)
			}
			for v := range want {
				if got[v] != want[v] && math.Abs(got[v]-want[v]) > 1e-9*math.Abs(want[v]) {
					t.Fatalf("%s in %d parts on held rows: value %d is %v, the CPU's %v", name, parts, v, got[v], want[v])
				}
			}
		}
	}
}
