package vertexprog_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
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

// TestOrientation checks Graph.Orientation's lists against their
// definition, computed plainly per vertex: directed and undirected random
// graphs with self loops, parallel arcs and a hub, oriented and All.
func TestOrientation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, directed := range []bool{false, true} {
		for _, dups := range []bool{false, true} {
			n := 300
			el := &datasets.EdgeList{N: n, Directed: directed}
			for range 3000 {
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				if rng.IntN(3) == 0 {
					u = 7 // a hub
				}
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			}
			el.Src, el.Dst = append(el.Src, 5, 5), append(el.Dst, 5, 5) // loops
			d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: dups})
			if err != nil {
				t.Fatal(err)
			}
			g := vertexprog.NewGraph(d)
			for _, all := range []bool{false, true} {
				t.Run(fmt.Sprintf("directed=%v/dups=%v/all=%v", directed, dups, all), func(t *testing.T) {
					o := g.Orientation(all)
					if o != g.Orientation(all) {
						t.Fatal("Orientation is not one per graph")
					}
					o.Build()
					deg := make([]int32, n)
					for v := range int32(n) {
						for _, u := range g.Neighbors(v) {
							if u != v {
								deg[v]++
							}
						}
					}
					if !slices.Equal(deg, o.Deg) {
						t.Fatalf("Deg %v, want %v", o.Deg, deg)
					}
					if o.Off[0] != 0 || len(o.Off) != n+1 || int64(len(o.Adj)) != o.Off[n] {
						t.Fatalf("Off[0] %d, %d offsets, Adj %d long, Off[N] %d", o.Off[0], len(o.Off), len(o.Adj), o.Off[n])
					}
					for v := range int32(n) {
						var want []int32
						for _, u := range g.Neighbors(v) {
							if u != v && (all || deg[v] < deg[u] || deg[v] == deg[u] && v < u) {
								want = append(want, u)
							}
						}
						if !slices.Equal(o.List(v), want) {
							t.Fatalf("vertex %d: list %v, want %v", v, o.List(v), want)
						}
						if o.Off[v]%vertexprog.OrientationBlock != 0 {
							t.Fatalf("vertex %d: list at %d", v, o.Off[v])
						}
						span := o.Off[v+1] - o.Off[v]
						if span != (int64(len(want))+vertexprog.OrientationBlock-1)/vertexprog.OrientationBlock*vertexprog.OrientationBlock {
							t.Fatalf("vertex %d: %d entries for a list of %d", v, span, len(want))
						}
						for _, x := range o.Adj[o.Off[v]+int64(len(want)) : o.Off[v+1]] {
							if x != vertexprog.OrientationPad {
								t.Fatalf("vertex %d: padding %d", v, x)
							}
						}
					}
				})
			}
		}
	}
}

// plainRanked is the ranked orientation of g built plainly, from its
// definition (a sort of the vertices, one sort per list, serial offsets):
// the reference the fast build (buildRanked) must match byte for byte,
// since device code reads the arrays.
func plainRanked(g *vertexprog.Graph) *vertexprog.Orientation {
	n := g.N()
	o := &vertexprog.Orientation{Ranked: true}
	o.Deg = make([]int32, n)
	for v := range int32(n) {
		for _, u := range g.Neighbors(v) {
			if u != v {
				o.Deg[v]++
			}
		}
	}
	order := make([]int32, n)
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(o.Deg[b], o.Deg[a]), cmp.Compare(b, a))
	})
	o.Rank = make([]int32, n)
	for r, v := range order {
		o.Rank[v] = int32(r)
	}
	o.Cnt = make([]int32, n)
	for v := range n {
		r := o.Rank[v]
		for _, u := range g.Neighbors(int32(v)) {
			if o.Rank[u] < r {
				o.Cnt[r]++
			}
		}
	}
	o.Off = make([]int64, n+1)
	for r := range n {
		o.Off[r+1] = o.Off[r] + int64(o.Cnt[r]+vertexprog.OrientationBlock-1)/vertexprog.OrientationBlock*vertexprog.OrientationBlock
	}
	o.Adj = make([]int32, o.Off[n])
	o.Both = make([]uint32, 1)
	if g.Directed() {
		o.Both = make([]uint32, max(1, (len(o.Adj)+31)/32))
	}
	g.ForVertices(func(lo, hi int32) {
		var keys []uint64
		for v := lo; v < hi; v++ {
			r := o.Rank[v]
			// Each entry with its bit, sorted together: ρ(u)·2 + m(v, u) - 1.
			keys = keys[:0]
			for _, u := range g.Neighbors(v) {
				if o.Rank[u] >= r {
					continue
				}
				key := uint64(o.Rank[u]) << 1
				if g.Directed() {
					_, out := slices.BinarySearch(g.OutNeighbors(v), u)
					_, in := slices.BinarySearch(g.OutNeighbors(u), v)
					if out && in {
						key |= 1
					}
				}
				keys = append(keys, key)
			}
			slices.Sort(keys)
			start := o.Off[r]
			for i, key := range keys {
				o.Adj[start+int64(i)] = int32(key >> 1)
				if key&1 != 0 {
					s := start + int64(i)
					atomic.OrUint32(&o.Both[s>>5], 1<<(s&31))
				}
			}
			for s := start + int64(len(keys)); s < o.Off[r+1]; s++ {
				o.Adj[s] = vertexprog.OrientationPad
			}
		}
	})
	return o
}

// sameRanked reports the first difference between two ranked
// orientations' arrays, or "".
func sameRanked(got, want *vertexprog.Orientation) string {
	for _, a := range []struct {
		name      string
		got, want any
	}{{"Deg", got.Deg, want.Deg}, {"Rank", got.Rank, want.Rank}, {"Cnt", got.Cnt, want.Cnt},
		{"Off", got.Off, want.Off}, {"Adj", got.Adj, want.Adj}, {"Both", got.Both, want.Both}} {
		if d := firstDiff(a.got, a.want); d != "" {
			return a.name + ": " + d
		}
	}
	return ""
}

func firstDiff(got, want any) string {
	switch g := got.(type) {
	case []int32:
		return diffSlices(g, want.([]int32))
	case []int64:
		return diffSlices(g, want.([]int64))
	case []uint32:
		return diffSlices(g, want.([]uint32))
	}
	panic(fmt.Sprintf("firstDiff: %T", got))
}

func diffSlices[T comparable](got, want []T) string {
	if (got == nil) != (want == nil) {
		return fmt.Sprintf("nil %v, want nil %v", got == nil, want == nil)
	}
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	return ""
}

// rankedTestLists: generated graphs of every shape a ranked orientation
// meets, beside vptest's: Kronecker and uniform at a few scales (larger
// than vptest's, so the parallel passes split into many parts), hubs, a
// grid, many isolated vertices, tiny and empty graphs, random lists with
// self loops and repeated entries (built below with and without
// KeepSelfLoops and KeepDuplicates), and hubs whose degrees tie just
// below, at and above RankCap, where the ranking changes method.
func rankedTestLists(t testing.TB) map[string]*datasets.EdgeList {
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
	// Hubs of one degree above RankCap, which rank by id among
	// themselves, joined to the same leaves.
	twins := &datasets.EdgeList{N: vertexprog.RankCap + 621}
	for h := int32(0); h < 3; h++ {
		for v := int32(3); v < int32(twins.N); v++ {
			twins.Src, twins.Dst = append(twins.Src, h), append(twins.Dst, v)
		}
	}
	// Hubs in pairs of one degree, RankCap-1, RankCap and RankCap+1 (the
	// first counted, the others sorted), interleaved by id, joined to the
	// first leaves, with a few reciprocated arcs among them.
	capTies := &datasets.EdgeList{N: 6 + vertexprog.RankCap + 1}
	for h, d := range []int32{vertexprog.RankCap, vertexprog.RankCap - 1, vertexprog.RankCap + 1, vertexprog.RankCap - 1, vertexprog.RankCap, vertexprog.RankCap + 1} {
		for v := int32(6); v < 6+d; v++ {
			capTies.Src, capTies.Dst = append(capTies.Src, int32(h)), append(capTies.Dst, v)
			if v%97 == 0 {
				capTies.Src, capTies.Dst = append(capTies.Src, v), append(capTies.Dst, int32(h))
			}
		}
	}
	return map[string]*datasets.EdgeList{
		"twin-hubs":    twins,
		"cap-ties":     capTies,
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

// TestRankedOrientation checks Graph.RankedOrientation's arrays, byte for
// byte, against plainRanked's, on directed and undirected graphs with and
// without self loops and parallel arcs (which stay in the lists), built at
// this machine's cores, at one and at more workers than cores (the
// parallel passes cut differently); and that its lists are Orientation's
// in rank space.
func TestRankedOrientation(t *testing.T) {
	lists := rankedTestLists(t)
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
		g := vertexprog.NewGraph(d)
		o := g.RankedOrientation()
		if o != g.RankedOrientation() || o == g.Orientation(false) || o == g.Orientation(true) || !o.Ranked || !o.Of(g) {
			t.Fatal("RankedOrientation is not one per graph, apart from Orientation's")
		}
		o.Build()
		want := plainRanked(vertexprog.NewGraph(d))
		if diff := sameRanked(o, want); diff != "" {
			t.Fatalf("n %d, directed %v: %s", d.N, d.Directed, diff)
		}
		for _, procs := range []int{1, 7} {
			prev := runtime.GOMAXPROCS(procs)
			f := vertexprog.FreshOrientation(g, false, true)
			f.Build()
			runtime.GOMAXPROCS(prev)
			if diff := sameRanked(f, want); diff != "" {
				t.Fatalf("n %d, directed %v, %d workers: %s", d.N, d.Directed, procs, diff)
			}
		}
		// The same DAG as Orientation's: v's oriented neighbours are the
		// vertices ranked above it.
		u := g.Orientation(false)
		u.Build()
		byRank := make([]int32, d.N)
		for v, r := range o.Rank {
			byRank[r] = int32(v)
		}
		for r := range int32(d.N) {
			v := byRank[r]
			var l []int32
			for _, x := range u.List(v) {
				l = append(l, o.Rank[x])
			}
			slices.Sort(l)
			if !slices.Equal(l, o.List(r)) {
				t.Fatalf("vertex %d (rank %d): ranked list %v, Orientation's in ranks %v", v, r, o.List(r), l)
			}
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
	for _, o := range opts {
		for _, tg := range vptest.Graphs(t, o.opt) {
			t.Run("vptest/"+tg.Name+"/"+o.name, func(t *testing.T) { check(t, tg.G) })
		}
	}
}

// BenchmarkRankedOrientation times the ranked orientation's build (not
// memoized: FreshOrientation) and the plain one it must match, on GAP's
// Kronecker graph, undirected as GAP builds it and directed from the same
// list. The scale is 18, or $HPGRAPH_ORIENT_BENCH_SCALE.
func BenchmarkRankedOrientation(b *testing.B) {
	scale := 18
	if s, err := strconv.Atoi(os.Getenv("HPGRAPH_ORIENT_BENCH_SCALE")); err == nil {
		scale = s
	}
	for _, directed := range []bool{false, true} {
		for _, build := range []struct {
			name string
			fn   func(*vertexprog.Graph)
		}{
			{"fast", func(g *vertexprog.Graph) { vertexprog.FreshOrientation(g, false, true).Build() }},
			{"plain", func(g *vertexprog.Graph) { plainRanked(g) }},
		} {
			b.Run(fmt.Sprintf("kron%d/directed=%v/%s", scale, directed, build.name), func(b *testing.B) {
				g := kronBenchGraph(b, scale, directed)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					build.fn(g)
				}
			})
		}
	}
}

var kronBench sync.Map // "scale directed" → *vertexprog.Graph

// kronBenchGraph is GAP's Kronecker graph at scale, made once per test
// binary, its undirected view built (not timed).
func kronBenchGraph(b *testing.B, scale int, directed bool) *vertexprog.Graph {
	key := fmt.Sprint(scale, directed)
	if g, ok := kronBench.Load(key); ok {
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
	g.Neighbors(0)
	kronBench.Store(key, g)
	return g
}

// TestCountCommon compares the merge with a count of pairs over random
// sorted lists with repeats.
func TestCountCommon(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		a, b := make([]int32, rng.IntN(20)), make([]int32, rng.IntN(20))
		for i := range a {
			a[i] = rng.Int32N(15)
		}
		for i := range b {
			b[i] = rng.Int32N(15)
		}
		slices.Sort(a)
		slices.Sort(b)
		ca, cb := map[int32]int{}, map[int32]int{}
		for _, x := range a {
			ca[x]++
		}
		for _, x := range b {
			cb[x]++
		}
		want := 0
		for x, c := range ca {
			want += min(c, cb[x])
		}
		if got := vertexprog.CountCommon(a, b); got != want {
			t.Fatalf("%v ∩ %v: %d, want %d", a, b, got, want)
		}
	}
}
