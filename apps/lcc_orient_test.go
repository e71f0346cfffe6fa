package apps

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// orientLCCReference is orientLCC as it was before it was made faster
// (per-list sorts, serial rank and offset passes), kept verbatim as the
// reference: the device code reads the orientation's arrays, so the new
// build must make them byte for byte the same (TestOrientLCCMatchesReference).
func orientLCCReference(g *vertexprog.Graph) *lccOrientation {
	n := g.N()
	o := lccDegrees(g) // (a pass the faster build did not change)
	if o.dup >= 0 {
		return o
	}
	// Ranks: decreasing degree, then decreasing id (a counting sort).
	maxDeg := int32(0)
	for _, d := range o.deg {
		maxDeg = max(maxDeg, d)
	}
	next := make([]int32, maxDeg+1)
	for _, d := range o.deg {
		next[d]++
	}
	at := int32(0)
	for d := maxDeg; d >= 0; d-- {
		at, next[d] = at+next[d], at
	}
	o.rank = make([]int32, n)
	for v := int32(n) - 1; v >= 0; v-- {
		o.rank[v] = next[o.deg[v]]
		next[o.deg[v]]++
	}
	o.cnt = make([]int32, n)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			r, c := o.rank[v], int32(0)
			for _, u := range g.Neighbors(v) {
				if o.rank[u] < r {
					c++
				}
			}
			o.cnt[r] = c
		}
	})
	o.off = make([]int64, n+1)
	for r := range n {
		o.off[r+1] = o.off[r] + int64(o.cnt[r]+lccBlock-1)/lccBlock*lccBlock
	}
	o.adj = make([]int32, o.off[n])
	o.both = make([]uint32, 1)
	if o.directed {
		o.both = make([]uint32, max(1, (len(o.adj)+31)/32))
	}
	g.ForVertices(func(lo, hi int32) {
		var keys []uint64
		for v := lo; v < hi; v++ {
			r := o.rank[v]
			list := o.adj[o.off[r] : o.off[r]+int64(o.cnt[r])]
			if !o.directed {
				i := 0
				for _, u := range g.Neighbors(v) {
					if o.rank[u] < r {
						list[i] = o.rank[u]
						i++
					}
				}
				slices.Sort(list)
			} else {
				// Each entry with its bit, sorted together: ρ(u)·2 + m(v, u) - 1.
				keys = keys[:0]
				out := g.OutNeighbors(v)
				k := 0
				for _, u := range g.Neighbors(v) {
					for k < len(out) && out[k] < u {
						k++
					}
					if o.rank[u] >= r {
						continue
					}
					key := uint64(o.rank[u]) << 1
					if k < len(out) && out[k] == u {
						if _, in := slices.BinarySearch(g.OutNeighbors(u), v); in {
							key |= 1
						}
					}
					keys = append(keys, key)
				}
				slices.Sort(keys)
				for i, key := range keys {
					list[i] = int32(key >> 1)
					if key&1 != 0 {
						s := o.off[r] + int64(i)
						atomic.OrUint32(&o.both[s>>5], 1<<(s&31))
					}
				}
			}
			for s := o.off[r] + int64(len(list)); s < o.off[r+1]; s++ {
				o.adj[s] = lccPad
			}
		}
	})
	return o
}

// sameOrientation reports the first difference between two orientations,
// or "" where every field the program or its device code reads is equal.
// A graph with duplicate neighbours (dup >= 0) is refused by Prepare, which
// reads nothing else: there only dup is compared.
func sameOrientation(got, want *lccOrientation) string {
	if got.dup != want.dup {
		return fmt.Sprintf("dup %d, want %d", got.dup, want.dup)
	}
	if want.dup >= 0 {
		return ""
	}
	if got.directed != want.directed || got.hubs != want.hubs {
		return fmt.Sprintf("directed %v hubs %d, want %v %d", got.directed, got.hubs, want.directed, want.hubs)
	}
	type arr struct {
		name      string
		got, want any
	}
	for _, a := range []arr{{"rank", got.rank, want.rank}, {"deg", got.deg, want.deg}, {"off", got.off, want.off},
		{"cnt", got.cnt, want.cnt}, {"adj", got.adj, want.adj}, {"both", got.both, want.both}} {
		if d := firstDiff(a.got, a.want); d != "" {
			return a.name + ": " + d
		}
	}
	return ""
}

func firstDiff(got, want any) string {
	diff := func(lg, lw int, at func(i int) (any, any, bool)) string {
		if lg != lw {
			return fmt.Sprintf("length %d, want %d", lg, lw)
		}
		for i := range lg {
			if a, b, eq := at(i); !eq {
				return fmt.Sprintf("[%d] = %v, want %v", i, a, b)
			}
		}
		return ""
	}
	switch g := got.(type) {
	case []int32:
		w := want.([]int32)
		if (g == nil) != (w == nil) {
			return fmt.Sprintf("nil %v, want nil %v", g == nil, w == nil)
		}
		return diff(len(g), len(w), func(i int) (any, any, bool) { return g[i], w[i], g[i] == w[i] })
	case []int64:
		w := want.([]int64)
		if (g == nil) != (w == nil) {
			return fmt.Sprintf("nil %v, want nil %v", g == nil, w == nil)
		}
		return diff(len(g), len(w), func(i int) (any, any, bool) { return g[i], w[i], g[i] == w[i] })
	case []uint32:
		w := want.([]uint32)
		if (g == nil) != (w == nil) {
			return fmt.Sprintf("nil %v, want nil %v", g == nil, w == nil)
		}
		return diff(len(g), len(w), func(i int) (any, any, bool) { return g[i], w[i], g[i] == w[i] })
	}
	panic(fmt.Sprintf("firstDiff: %T", got))
}

// orientTestLists: generated graphs of every shape LCC meets, beside
// vptest's: Kronecker and uniform at a few scales (larger than vptest's, so
// the parallel passes split into many parts), hubs, a grid, many isolated
// vertices, tiny and empty graphs, and random lists with self loops and
// repeated entries (built below with and without KeepSelfLoops and
// KeepDuplicates).
func orientTestLists(t testing.TB) map[string]*datasets.EdgeList {
	t.Helper()
	must := func(el *datasets.EdgeList, err error) *datasets.EdgeList {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return el
	}
	random := func(n, m int, seed uint64, loops, dups bool) *datasets.EdgeList {
		rng := rand.New(rand.NewPCG(seed, 3))
		el := &datasets.EdgeList{N: n}
		for len(el.Src) < m {
			u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
			if u == v && !loops {
				continue
			}
			el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			if dups && rng.IntN(8) == 0 {
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			}
			if loops && rng.IntN(16) == 0 {
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, u)
			}
		}
		return el
	}
	// A few hubs joined to most vertices: long lists, which the hubs' own
	// short oriented lists and the leaves' long ones test.
	hubs := func(n, k int, seed uint64) *datasets.EdgeList {
		rng := rand.New(rand.NewPCG(seed, 5))
		el := &datasets.EdgeList{N: n}
		for h := range k {
			for v := range n {
				if v != h && rng.IntN(3) != 0 {
					el.Src, el.Dst = append(el.Src, int32(h)), append(el.Dst, int32(v))
				}
			}
		}
		for range 4 * n {
			el.Src, el.Dst = append(el.Src, int32(rng.IntN(n))), append(el.Dst, int32(rng.IntN(n)))
		}
		return el
	}
	// Hubs of one degree above lccRankCap, which rank by id among
	// themselves, joined to the same leaves.
	twins := &datasets.EdgeList{N: 17005}
	for h := int32(0); h < 3; h++ {
		for v := int32(3); v < 17005; v++ {
			twins.Src, twins.Dst = append(twins.Src, h), append(twins.Dst, v)
		}
	}
	return map[string]*datasets.EdgeList{
		"twin-hubs":    twins,
		"kron12":       must(gen.Kronecker(12, 16, gen.GAPSeed)),
		"kron14":       must(gen.Kronecker(14, 8, 11)),
		"urand13":      must(gen.Uniform(13, 12, 7)),
		"grid60x70":    must(gen.Grid(60, 70)),
		"road40x50":    must(gen.Road(40, 50, 3, 0.2, true)),
		"random":       random(3000, 40000, 1, true, true),
		"random-big":   random(20000, 300000, 2, true, true),
		"hubs":         hubs(6000, 5, 9),
		"sparse":       random(50000, 2000, 4, true, true),
		"empty":        {N: 0},
		"isolated":     {N: 5},
		"one-loop":     {N: 1, Src: []int32{0}, Dst: []int32{0}},
		"one-edge":     {N: 2, Src: []int32{0}, Dst: []int32{1}},
		"triangle":     {N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}},
		"dup-triangle": {N: 4, Src: []int32{0, 0, 1, 1, 2, 0, 3, 2}, Dst: []int32{1, 1, 2, 2, 0, 2, 3, 1}},
	}
}

func TestOrientLCCMatchesReference(t *testing.T) {
	lists := orientTestLists(t)
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	slices.Sort(names)
	opts := []struct {
		name string
		opt  datasets.Options
	}{
		{"simple", datasets.Options{}},
		{"loops", datasets.Options{KeepSelfLoops: true}},
		{"dups", datasets.Options{KeepDuplicates: true}},
		{"loops+dups", datasets.Options{KeepSelfLoops: true, KeepDuplicates: true}},
	}
	check := func(t *testing.T, d *datasets.Graph) {
		t.Helper()
		want := orientLCCReference(vertexprog.NewGraph(d))
		got := orientLCC(vertexprog.NewGraph(d))
		if diff := sameOrientation(got, want); diff != "" {
			t.Fatalf("n %d, directed %v: %s", d.N, d.Directed, diff)
		}
		if want.dup >= 0 {
			t.Logf("duplicates at %d", want.dup)
		}
	}
	for _, name := range names {
		for _, directed := range []bool{false, true} {
			for _, o := range opts {
				el := *lists[name]
				el.Directed = directed
				t.Run(fmt.Sprintf("%s/directed=%v/%s", name, directed, o.name), func(t *testing.T) {
					d, err := datasets.Build(&el, o.opt)
					if el.N == 0 {
						// (Build refuses an empty graph; a CSR of none
						// can still be made by hand.)
						d, err = &datasets.Graph{Name: name, RowPtr: []int64{0}, Directed: directed}, nil
					}
					if err != nil {
						t.Fatal(err)
					}
					check(t, d)
				})
			}
		}
	}
	// vptest's graphs, as the LCC tests load them, and at one core and at
	// more workers than cores (the passes split differently).
	for _, o := range opts {
		for _, tg := range vptest.Graphs(t, o.opt) {
			t.Run("vptest/"+tg.Name+"/"+o.name, func(t *testing.T) { check(t, tg.G) })
		}
	}
}

// BenchmarkOrientLCC times orientLCC alone (not memoized), and the
// reference build it replaced, on GAP's Kronecker graph, undirected as GAP
// builds it and directed from the same list. The scale is 18, or
// $HPGRAPH_LCC_BENCH_SCALE.
func BenchmarkOrientLCC(b *testing.B) {
	scale := 18
	if s, err := strconv.Atoi(os.Getenv("HPGRAPH_LCC_BENCH_SCALE")); err == nil {
		scale = s
	}
	for _, directed := range []bool{false, true} {
		for _, build := range []struct {
			name string
			fn   func(*vertexprog.Graph) *lccOrientation
		}{{"new", orientLCC}, {"reference", orientLCCReference}} {
			b.Run(fmt.Sprintf("kron%d/directed=%v/%s", scale, directed, build.name), func(b *testing.B) {
				g := orientBenchGraph(b, scale, directed)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					build.fn(g)
				}
			})
		}
	}
}

var orientBench sync.Map // "scale/directed" → *vertexprog.Graph

func orientBenchGraph(b *testing.B, scale int, directed bool) *vertexprog.Graph {
	key := fmt.Sprint(scale, directed)
	if g, ok := orientBench.Load(key); ok {
		return g.(*vertexprog.Graph)
	}
	el, err := gen.Kronecker(scale, gen.GAPDegree, gen.GAPSeed)
	if err != nil {
		b.Fatal(err)
	}
	el.Directed = directed
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	g.Neighbors(0) // (a directed graph's undirected view: built once, not timed)
	orientBench.Store(key, g)
	return g
}
