package apps_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func build(t testing.TB, el *datasets.EdgeList, opt datasets.Options) *datasets.Graph {
	t.Helper()
	g, err := datasets.Build(el, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// shapes are the random graphs every app is checked on against the
// reference.
func shapes(t testing.TB, opt datasets.Options) []vptest.Graph { return vptest.Graphs(t, opt) }

var weighted = datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}

// sources picks a hub, a low-id vertex and a vertex with no in-arcs where
// there is one.
func sources(g *datasets.Graph) []int32 {
	hub := int32(0)
	for v := int32(0); v < int32(g.N); v++ {
		if g.Degree(v) > g.Degree(hub) {
			hub = v
		}
	}
	return []int32{hub, 1, int32(g.N - 1)}
}

func TestBFSMatchesReference(t *testing.T) {
	for _, tg := range shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		for _, src := range sources(tg.G) {
			t.Run(fmt.Sprintf("%s/src%d", tg.Name, src), func(t *testing.T) {
				want, err := reference.BFS(tg.G, src)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range vptest.Configs() {
					r, err := apps.BFS(g, src, c.Options)
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					if err := reference.ValidateBFS(tg.G, src, r.Depth, r.Parent); err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					for v := range want {
						if r.Depth[v] != want[v] {
							t.Fatalf("%s: depth[%d] = %d, want %d", c.Name, v, r.Depth[v], want[v])
						}
					}
				}
			})
		}
	}
}

// TestBFSReusingMatchesReference runs BFS from every source in turn,
// each into the arrays of the one before, on every backend, resident and
// summary-only: the arrays are reused, every answer matches the
// reference, and Reached counts what the reference reaches.
func TestBFSReusingMatchesReference(t *testing.T) {
	for _, tg := range shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		for _, b := range vertexprog.Backends() {
			for _, summary := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/summary=%v", tg.Name, b, summary), func(t *testing.T) {
					opt := vertexprog.Options{Backend: b, Resident: true, SummaryOnly: summary}
					var prev *apps.BFSResult
					for _, src := range sources(tg.G) {
						want, err := reference.BFS(tg.G, src)
						if err != nil {
							t.Fatal(err)
						}
						r, err := apps.BFSReusing(g, src, opt, prev)
						if err != nil {
							t.Fatal(err)
						}
						reached, depth := 0, int32(0)
						for _, d := range want {
							if d >= 0 {
								reached++
								depth = max(depth, d)
							}
						}
						if gr, gd := r.Reached(); gr != reached || gd != int(depth) {
							t.Fatalf("src %d: Reached() = %d, %d; the reference reaches %d vertices, depth %d", src, gr, gd, reached, depth)
						}
						if summary && b != "cpu" {
							if r.Depth != nil || r.Parent != nil {
								t.Fatalf("src %d: a summary-only run on %s returned its arrays", src, b)
							}
						} else {
							if prev != nil && prev.Depth != nil && &r.Depth[0] != &prev.Depth[0] {
								t.Fatalf("src %d: BFSReusing allocated new arrays", src)
							}
							if err := reference.ValidateBFS(tg.G, src, r.Depth, r.Parent); err != nil {
								t.Fatalf("src %d: %v", src, err)
							}
							for v := range want {
								if r.Depth[v] != want[v] {
									t.Fatalf("src %d: depth[%d] = %d, want %d", src, v, r.Depth[v], want[v])
								}
							}
						}
						prev = r
					}
				})
			}
		}
	}
}

func TestSSSPMatchesReference(t *testing.T) {
	for _, tg := range shapes(t, weighted) {
		g := vertexprog.NewGraph(tg.G)
		for _, src := range sources(tg.G) {
			t.Run(fmt.Sprintf("%s/src%d", tg.Name, src), func(t *testing.T) {
				want, err := reference.SSSP(tg.G, src)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range vptest.Configs() {
					r, err := apps.SSSP(g, src, c.Options)
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					// Integer weights: float32 sums are exact, so equality.
					for v := range want {
						if float64(r.Dist[v]) != want[v] {
							t.Fatalf("%s: dist[%d] = %v, want %v", c.Name, v, r.Dist[v], want[v])
						}
					}
				}
			})
		}
	}
}

func TestComponentsMatchReference(t *testing.T) {
	for _, tg := range shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			want := reference.Components(tg.G)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range vptest.Configs() {
				r, err := apps.ConnectedComponents(g, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for v := range want {
					if r.Label[v] != want[v] {
						t.Fatalf("%s: label[%d] = %d, want %d", c.Name, v, r.Label[v], want[v])
					}
				}
			}
		})
	}
}

// float32Rel is how close float32 LDBC PageRank's ranks come to the
// float64 reference: the contributions are rounded to float32 (2^-24
// relative) every iteration.
const float32Rel = 1e-5

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// pullConfigs are the configurations for programs that cannot push
// (forcing push on them is an error, checked in TestBadInput).
func pullConfigs() []vptest.Config {
	var cs []vptest.Config
	for _, c := range vptest.Configs() {
		if c.Options.Direction != vertexprog.Push {
			cs = append(cs, c)
		}
	}
	return cs
}

func TestPageRankMatchesReference(t *testing.T) {
	for _, tg := range shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			want, iters := reference.PageRank(tg.G, 0.85, 1e-7, 200)
			wantL := reference.PageRankLDBC(tg.G, 0.85, 20)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range pullConfigs() {
				r, err := apps.PageRank(g, 0.85, 1e-7, 200, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if r.Run.Iterations != iters {
					t.Errorf("%s: %d iterations, reference took %d", c.Name, r.Run.Iterations, iters)
				}
				l, err := apps.PageRankLDBC(g, 0.85, 20, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				l32, err := apps.PageRankLDBCIn[float32](g, 0.85, 20, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for v := range want {
					if !closeRel(r.Rank[v], want[v], 1e-9) {
						t.Fatalf("%s: rank[%d] = %v, want %v", c.Name, v, r.Rank[v], want[v])
					}
					if !closeRel(l.Rank[v], wantL[v], 1e-9) {
						t.Fatalf("%s: ldbc rank[%d] = %v, want %v", c.Name, v, l.Rank[v], wantL[v])
					}
					if !closeRel(l32.Rank[v], wantL[v], float32Rel) {
						t.Fatalf("%s: ldbc float32 rank[%d] = %v, want %v", c.Name, v, l32.Rank[v], wantL[v])
					}
				}
			}
		})
	}
}

func TestTrianglesMatchReference(t *testing.T) {
	for _, tg := range shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			total, per := reference.Triangles(tg.G)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range pullConfigs() {
				r, err := apps.Triangles(g, false, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if r.Total != total {
					t.Fatalf("%s: %d triangles, want %d", c.Name, r.Total, total)
				}
			}
			r, err := apps.Triangles(g, true, vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != total {
				t.Fatalf("per-vertex run: %d triangles, want %d", r.Total, total)
			}
			for v := range per {
				if r.PerVertex[v] != per[v] {
					t.Fatalf("vertex %d in %d triangles, want %d", v, r.PerVertex[v], per[v])
				}
			}
		})
	}
}

func TestTrianglesOfCompleteGraphs(t *testing.T) {
	for n := 3; n <= 12; n++ {
		el := &datasets.EdgeList{N: n, Directed: true}
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				if u != v {
					el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v))
				}
			}
		}
		g := vertexprog.NewGraph(build(t, el, datasets.Options{}))
		r, err := apps.Triangles(g, false, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(n * (n - 1) * (n - 2) / 6); r.Total != want {
			t.Errorf("K_%d: %d triangles, want C(%d,3) = %d", n, r.Total, n, want)
		}
	}
}

// TestSSSPNonNegativeWeights: the weights SSSP's Prepare accepts, -0 and
// subnormals among them, keep every distance a number >= 0 (the promise
// its Gather's //devgen:nonnegative makes for the device's integer
// atomicMin fold; sums that overflow give +Inf), with the same bits on
// every backend, by Bellman-Ford and by delta-stepping; a negative
// weight is rejected.
func TestSSSPNonNegativeWeights(t *testing.T) {
	negZero, inf := float32(math.Copysign(0, -1)), float32(math.Inf(1))
	el := &datasets.EdgeList{N: 7, Directed: true,
		Src: []int32{0, 1, 0, 2, 3, 0, 1, 4},
		Dst: []int32{1, 2, 2, 3, 4, 4, 3, 5},
		W:   []float32{negZero, 1.5, 3e38, 1e-45, 3e38, 3e38, 7, 3e38}}
	g := vertexprog.NewGraph(build(t, el, datasets.Options{}))
	// (0 + -0 is +0; 1.5 + 1e-45 rounds to 1.5; 3e38 + 3e38 overflows;
	// 6 is unreachable)
	want := []float32{0, 0, 1.5, 1.5, 3e38, inf, inf}
	for _, b := range vertexprog.Backends() {
		for _, delta := range []float64{0, 1, 1e30} {
			r, err := apps.SSSPDelta(g, 0, delta, vertexprog.Options{Backend: b})
			if err != nil {
				t.Fatalf("%s, delta %v: %v", b, delta, err)
			}
			for v, d := range r.Dist {
				if math.Float32bits(d) != math.Float32bits(want[v]) {
					t.Errorf("%s, delta %v: dist[%d] = %v (%#x), want %v", b, delta, v, d, math.Float32bits(d), want[v])
				}
			}
		}
	}
	el.W[1] = -1e-45 // (NaN and infinite weights: datasets.Build rejects them)
	if _, err := apps.SSSP(vertexprog.NewGraph(build(t, el, datasets.Options{})), 0, vertexprog.Options{}); err == nil {
		t.Error("weight -1e-45 accepted")
	}
}

func TestBadInput(t *testing.T) {
	el := &datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, W: []float32{2, -1}, Directed: true, IDBase: 1}
	g := vertexprog.NewGraph(build(t, el, datasets.Options{}))
	if _, err := apps.SSSP(g, 0, vertexprog.Options{}); err == nil {
		t.Error("negative weight accepted")
	} else {
		t.Log(err)
	}
	for _, src := range []int32{-1, 3} {
		if _, err := apps.SSSP(g, src, vertexprog.Options{}); err == nil {
			t.Errorf("sssp source %d accepted", src)
		}
		if _, err := apps.BFS(g, src, vertexprog.Options{}); err == nil {
			t.Errorf("bfs source %d accepted", src)
		}
	}
	if _, err := apps.PageRank(g, 1.5, 0, 10, vertexprog.Options{}); err == nil {
		t.Error("damping 1.5 accepted")
	}
	if _, err := apps.PageRank(g, 0.85, 0, 10, vertexprog.Options{Direction: vertexprog.Push}); err == nil {
		t.Error("forced push of PageRank accepted")
	}
	if _, err := apps.BFS(g, 0, vertexprog.Options{Backend: "nonesuch"}); err == nil {
		t.Error("unknown backend accepted")
	}
}

// TestDefaultSourceIgnoresRelabelling: the default source has the
// highest degree, and is the same vertex (by original id) in the file's
// order and renumbered by degree, on graphs whose top degree ties (a
// cycle, a grid) and does not.
func TestDefaultSourceIgnoresRelabelling(t *testing.T) {
	for _, tg := range vptest.Graphs(t, datasets.Options{}) {
		g := tg.G
		if g.N == 0 {
			continue
		}
		s := apps.DefaultSource(g)
		for v := range int32(g.N) {
			if g.Degree(v) > g.Degree(s) || g.Degree(v) == g.Degree(s) && g.OriginalID(v) < g.OriginalID(s) {
				t.Fatalf("%s: vertex %d (id %d) comes before the default source %d (id %d)", tg.Name, v, g.OriginalID(v), s, g.OriginalID(s))
			}
		}
		r := g.Permute(datasets.DegreeOrder(g))
		if got, want := r.OriginalID(apps.DefaultSource(r)), g.OriginalID(s); got != want {
			t.Errorf("%s: default source %d renumbered by degree, %d in the file's order", tg.Name, got, want)
		}
	}
}
