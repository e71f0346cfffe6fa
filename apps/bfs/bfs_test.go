package bfs_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func TestBFSMatchesReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		for _, src := range apptest.Sources(tg.G) {
			t.Run(fmt.Sprintf("%s/src%d", tg.Name, src), func(t *testing.T) {
				want, err := reference.BFS(tg.G, src)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range vptest.Configs() {
					r, err := bfs.Run(g, src, c.Options)
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
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		for _, b := range vertexprog.Backends() {
			for _, summary := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/summary=%v", tg.Name, b, summary), func(t *testing.T) {
					opt := vertexprog.Options{Backend: b, Resident: true, SummaryOnly: summary}
					var prev *bfs.Result
					for _, src := range apptest.Sources(tg.G) {
						want, err := reference.BFS(tg.G, src)
						if err != nil {
							t.Fatal(err)
						}
						r, err := bfs.Reusing(g, src, opt, prev)
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
								t.Fatalf("src %d: Reusing allocated new arrays", src)
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

// TestBFSAfterAStoppedRun: a CPU run takes a finished run's bitmasks
// (vertexprog's spareMasks); a search stopped after its first superstep
// leaves its frontier's bits set in them, and the next search, from
// another source, still matches the reference.
func TestBFSAfterAStoppedRun(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		srcs := apptest.Sources(tg.G)
		for i, src := range srcs {
			stopped := srcs[(i+1)%len(srcs)]
			for _, workers := range []int{1, 4} {
				t.Run(fmt.Sprintf("%s/src%d/after%d/workers%d", tg.Name, src, stopped, workers), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
					if _, err := bfs.Run(g, stopped, vertexprog.Options{Backend: "cpu", MaxIterations: 1}); err != nil {
						t.Fatal(err)
					}
					r, err := bfs.Run(g, src, vertexprog.Options{Backend: "cpu"})
					if err != nil {
						t.Fatal(err)
					}
					if err := reference.ValidateBFS(tg.G, src, r.Depth, r.Parent); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestBadInput: a source outside the graph and an unknown backend are
// refused.
func TestBadInput(t *testing.T) {
	el := &datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Directed: true, IDBase: 1}
	g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	for _, src := range []int32{-1, 3} {
		if _, err := bfs.Run(g, src, vertexprog.Options{}); err == nil {
			t.Errorf("bfs source %d accepted", src)
		}
	}
	if _, err := bfs.Run(g, 0, vertexprog.Options{Backend: "nonesuch"}); err == nil {
		t.Error("unknown backend accepted")
	}
}

// TestBFSPushParentsAreSmallest: top-down steps large enough to run on
// several goroutines (frontiers of 16K+ edges, so claims race) and
// bottom-up steps claimed by words on several goroutines give every
// vertex the smallest in-neighbour one level up as its parent, as
// Gather's min does, counted here from the edges themselves; and so do
// pulls with one Gather call an edge (Options.PerEdge: no claims).
func TestBFSPushParentsAreSmallest(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	// (20 arcs a vertex: hub-like frontiers, shared in 64-vertex chunks;
	// 3 a vertex: low-degree ones, one contiguous share a worker)
	for _, m := range []int{400000, 60000} {
		t.Run(fmt.Sprintf("arcs%d", m), func(t *testing.T) { pushParentsAreSmallest(t, 20000, m) })
	}
}

func pushParentsAreSmallest(t *testing.T, n, m int) {
	rng := rand.New(rand.NewPCG(7, 9))
	el := &datasets.EdgeList{N: n, Directed: true, Src: make([]int32, m), Dst: make([]int32, m)}
	for i := range m {
		el.Src[i], el.Dst[i] = rng.Int32N(int32(n)), rng.Int32N(int32(n))
	}
	dg := apptest.Build(t, el, datasets.Options{})
	g := vertexprog.NewGraph(dg)
	for _, src := range apptest.Sources(dg) {
		want, err := reference.BFS(dg, src)
		if err != nil {
			t.Fatal(err)
		}
		parent := make([]int32, n)
		for v := range parent {
			parent[v] = -1
		}
		parent[src] = src
		for u := range int32(n) {
			for _, v := range dg.Neighbors(u) {
				if want[u] >= 0 && v != src && want[v] == want[u]+1 && (parent[v] < 0 || u < parent[v]) {
					parent[v] = u
				}
			}
		}
		for _, opt := range []vertexprog.Options{{Direction: vertexprog.Push}, {Direction: vertexprog.Auto},
			{Direction: vertexprog.Pull}, {Direction: vertexprog.Pull, PerEdge: true}} {
			opt.Backend = "cpu"
			d := fmt.Sprintf("%s (per edge: %v)", opt.Direction, opt.PerEdge)
			r, err := bfs.Run(g, src, opt)
			if err != nil {
				t.Fatal(err)
			}
			for v := range want {
				if r.Depth[v] != want[v] || r.Parent[v] != parent[v] {
					t.Fatalf("src %d, %s: vertex %d: depth %d, parent %d; want %d, %d", src, d, v, r.Depth[v], r.Parent[v], want[v], parent[v])
				}
			}
		}
	}
}

// TestBFSManyClaimedRowsOfAFewWords: a top-down step that claims 20,000
// rows of a graph of 2M vertices (fewer than a 64th of the vertices, so
// APPLY goes by the workers' lists, not by words) on eight workers
// clears their want bits; the next steps (each of those rows has 40
// random neighbours) pull, where a row whose want bit stayed set would
// be claimed again, a level deeper.
func TestBFSManyClaimedRowsOfAFewWords(t *testing.T) {
	if testing.Short() {
		t.Skip("a graph of 2M vertices")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	const n, leaves, fan = 1 << 21, 20000, 40
	rng := rand.New(rand.NewPCG(5, 11))
	el := &datasets.EdgeList{N: n}
	for _, v := range rng.Perm(n - 1)[:leaves] {
		leaf := int32(v + 1)
		el.Src, el.Dst = append(el.Src, 0), append(el.Dst, leaf)
		for range fan {
			el.Src, el.Dst = append(el.Src, leaf), append(el.Dst, 1+rng.Int32N(n-1))
		}
	}
	dg := apptest.Build(t, el, datasets.Options{})
	r, err := bfs.Run(vertexprog.NewGraph(dg), 0, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if err := reference.ValidateBFS(dg, 0, r.Depth, r.Parent); err != nil {
		t.Fatal(err)
	}
}

// TestWantsWordsIsWants: WantsWords gives, for every vertex of the words
// it fills, Wants' answer (a depth below 0), for whole and partial last
// words and words starting at any word of the graph.
func TestWantsWordsIsWants(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 31, 32, 33, 95, 96, 1000} {
		p := &bfs.Program{Depth: make([]int32, n)}
		for v := range p.Depth {
			p.Depth[v] = rng.Int32N(5) - 2
		}
		nw := (n + 31) / 32
		for first := range nw {
			for count := 1; first+count <= nw; count++ {
				words := make([]uint32, count)
				for k := range words {
					words[k] = rng.Uint32() // (overwritten)
				}
				p.WantsWords(int32(32*first), words)
				for v := 32 * first; v < min(32*(first+count), n); v++ {
					k, bit := (v-32*first)/32, uint(v%32)
					if got := words[k]>>bit&1 == 1; got != p.Wants(int32(v)) {
						t.Fatalf("n %d, words from %d: vertex %d: %v, Wants %v", n, first, v, got, p.Wants(int32(v)))
					}
				}
				for v := n; v < 32*(first+count); v++ { // (past the graph: none)
					k, bit := (v-32*first)/32, uint(v%32)
					if words[k]>>bit&1 != 0 {
						t.Fatalf("n %d, words from %d: bit of vertex %d past the graph set", n, first, v)
					}
				}
			}
		}
	}
}
