package vertexprog

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// buildRanked makes a ranked orientation's arrays, plainly.
func (o *Orientation) buildRanked() {
	g := o.g
	n := g.N()
	o.Deg = degrees(g)
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
		o.Off[r+1] = o.Off[r] + int64(o.Cnt[r]+OrientationBlock-1)/OrientationBlock*OrientationBlock
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
				o.Adj[s] = OrientationPad
			}
		}
	})
}
