package build

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// rankedModel runs deviceRankedOrientation's algorithm on the host, step
// for step as its kernels do (hb_or_deg, hb_or_count, the ids' stable
// sort by degree and hb_rk_rank, hb_rk_counts and the two scans,
// hb_rk_records with its records and pads placed in whatever order the
// atomics hand out (here: the vertices from the last, each one's records
// reversed), the records' stable sort by
// row, hb_rk_adj, hb_rk_both), so its arithmetic is tested without a GPU.
func rankedModel(g *vertexprog.Graph) (deg, cnt, rank []int32, off []int64, adj []int32, both []uint32) {
	n := g.N()
	const pad = vertexprog.OrientationPad
	deg, cntID := make([]int32, n), make([]int32, n)
	for v := range int32(n) {
		for _, u := range g.Neighbors(v) {
			if u != v {
				deg[v]++
			}
		}
	}
	above := func(v, u int32) bool { return u != v && (deg[v] < deg[u] || (deg[v] == deg[u] && v < u)) }
	for v := range int32(n) {
		for _, u := range g.Neighbors(v) {
			if above(v, u) {
				cntID[v]++
			}
		}
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(deg[a], deg[b]) })
	rank = make([]int32, n)
	for p, v := range order {
		rank[v] = int32(n - 1 - p)
	}
	lower, cnt := make([]int32, n), make([]int32, n)
	for v := range n {
		lower[rank[v]], cnt[rank[v]] = deg[v]-cntID[v], cntID[v]
	}
	low, off := make([]int64, n+1), make([]int64, n+1)
	for r := range n {
		low[r+1] = low[r] + int64(lower[r])
		off[r+1] = off[r] + int64(cnt[r]+3)/4*4
	}
	key, val := make([]int32, off[n]), make([]int32, off[n])
	padAt := low[n]
	for u := int32(n) - 1; u >= 0; u-- {
		at := low[rank[u]]
		for _, v := range g.Neighbors(u) {
			if above(v, u) {
				key[at], val[at] = rank[v], rank[u]
				at++
			}
		}
		// (the warps of u's segments take their places in any order)
		slices.Reverse(key[low[rank[u]]:at])
		for range (4 - cntID[u]%4) % 4 {
			key[padAt], val[padAt] = rank[u], int32(n)
			padAt++
		}
	}
	idx := make([]int, len(key))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	adj = make([]int32, len(key))
	for s, i := range idx {
		adj[s] = val[i]
		if adj[s] == int32(n) {
			adj[s] = pad
		}
	}
	both = make([]uint32, 1)
	if g.Directed() {
		both = make([]uint32, max(1, (len(adj)+31)/32))
		for r := range n {
			v := order[n-1-r]
			for i := off[r]; i < off[r]+int64(cnt[r]); i++ {
				u := order[n-1-int(adj[i])]
				_, vu := slices.BinarySearch(g.OutNeighbors(v), u)
				_, uv := slices.BinarySearch(g.OutNeighbors(u), v)
				if vu && uv {
					both[i>>5] |= 1 << (i & 31)
				}
			}
		}
	}
	return deg, cnt, rank, off, adj, both
}

// TestRankedModelMatchesHost: the device's ranked orientation, as
// rankedModel computes it, equals the host's build, array by array, on
// directed and undirected graphs with hubs, loops, parallel arcs and arcs
// both ways.
func TestRankedModelMatchesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 2, 9, 1000, 20000} {
		for _, directed := range []bool{false, true} {
			for _, dups := range []bool{false, true} {
				el := &datasets.EdgeList{N: n, Directed: directed}
				for range 5 * n {
					u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
					if rng.IntN(8) == 0 {
						u = int32(rng.IntN(min(n, 4)))
					}
					el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
					if rng.IntN(6) == 0 {
						el.Src, el.Dst = append(el.Src, v), append(el.Dst, u)
					}
				}
				d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: dups})
				if err != nil {
					t.Fatal(err)
				}
				g := vertexprog.NewGraph(d)
				o := g.RankedOrientation()
				o.Build()
				deg, cnt, rank, off, adj, both := rankedModel(vertexprog.NewGraph(d))
				what := fmt.Sprintf("n=%d directed=%v dups=%v", n, directed, dups)
				switch {
				case !slices.Equal(deg, o.Deg):
					t.Fatalf("%s: degrees differ", what)
				case !slices.Equal(rank, o.Rank):
					t.Fatalf("%s: ranks differ", what)
				case !slices.Equal(cnt, o.Cnt):
					t.Fatalf("%s: list lengths differ", what)
				case !slices.Equal(off, o.Off):
					t.Fatalf("%s: offsets differ", what)
				case !slices.Equal(adj, o.Adj):
					t.Fatalf("%s: lists differ", what)
				case !slices.Equal(both, o.Both):
					t.Fatalf("%s: Both differs", what)
				}
			}
		}
	}
}
