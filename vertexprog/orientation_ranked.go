package vertexprog

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
)

// buildRanked makes a ranked orientation's arrays on all cores. Every pass
// is parallel and none sorts the graph as a whole:
//
//  1. Deg from each row (degrees);
//  2. Rank, a counting sort on the degree whose histograms are kept per
//     block of ids (rankByDegree);
//  3. Cnt, each row's neighbours ranked above it, a pass in id order that
//     reads Rank alone;
//  4. Off, a parallel prefix sum of Cnt rounded up to OrientationBlock
//     (paddedOffsets);
//  5. Adj (and Both), each row's higher neighbours' ranks gathered into a
//     scratch buffer without branches, sorted there by sortKeys (a radix
//     sort for the long lists, which hold most entries) and copied to the
//     list with its padding.
//
// This build was first an app's own, before the ranked Orientation:
// kron21's (63.5M arcs) took 290 ms on 16 cores when ranks and offsets
// were serial passes and every list was sorted with slices.Sort. The
// arrays are those of the plain definition, byte for byte
// (orientation_test.go keeps that build as the reference).
func buildRanked(g *Graph, o *Orientation) {
	n := g.N()
	directed := g.Directed()
	o.Deg = degrees(g)
	o.Rank = rankByDegree(o.Deg)
	rank := o.Rank
	// Cnt[ρ(v)]: v's neighbours ranked above it (a loop ranks neither
	// above nor below; parallel arcs count each). Counted without a
	// branch: which way each comparison goes is a coin toss.
	cnt := huge.Make[int32](n)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			r, c := rank[v], int32(0)
			for _, u := range g.Neighbors(v) {
				c += less01(rank[u], r)
			}
			cnt[r] = c
		}
	})
	off := paddedOffsets(cnt)
	adj := huge.Make[int32](int(off[n]))
	both := make([]uint32, 1)
	if directed {
		both = make([]uint32, max(1, (len(adj)+31)/32))
	}
	// The lists, each made in a scratch buffer: the keys ρ(u), or on a
	// directed graph ρ(u)·2 + m(v, u) - 1 (m: the arcs between v and u,
	// 1 or 2), are written for every neighbour and kept where ρ(u) < ρ(v)
	// (again no branch on an undirected graph), sorted, and copied out
	// with their padding.
	shift := uint(0)
	if directed {
		shift = 1
	}
	// A directed graph's in-rows, for Both: the graph's transpose where a
	// run made it, else one made here and dropped (a binary search of v in
	// u's out-row for every entry took twice the rest of the build).
	inRows := g.g
	if directed {
		if inRows = g.in.Load(); inRows == nil {
			inRows = g.g.Transpose()
		}
	}
	g.ForVertices(func(lo, hi int32) {
		var keys, tmp []uint32
		for v := lo; v < hi; v++ {
			// (An empty list has no padding either: such vertices, 40%
			// of kron20's, cost no read of Off, which lies far apart.)
			nb := g.Neighbors(v)
			if len(nb) == 0 {
				continue
			}
			r := rank[v]
			c := int(cnt[r])
			if c == 0 {
				continue
			}
			start, end := off[r], off[r+1]
			list := adj[start:end]
			if cap(keys) < len(nb) {
				keys, tmp = make([]uint32, len(nb)), make([]uint32, len(nb))
			}
			keys = keys[:len(nb)]
			k := 0
			if !directed {
				for _, u := range nb {
					q := rank[u]
					keys[k] = uint32(q)
					k += int(less01(q, r))
				}
			} else {
				// m(v, u) = 2 where u is in both v's out-row and its
				// in-row: walked beside the neighbours, all three sorted.
				out, in := g.OutNeighbors(v), inRows.Neighbors(v)
				j, i := 0, 0
				for _, u := range nb {
					for j < len(out) && out[j] < u {
						j++
					}
					for i < len(in) && in[i] < u {
						i++
					}
					q := rank[u]
					if q >= r {
						continue
					}
					key := uint32(q) << 1
					if j < len(out) && out[j] == u && i < len(in) && in[i] == u {
						key |= 1
					}
					keys[k] = key
					k++
				}
			}
			sortKeys(keys[:c], tmp, uint32(r)<<shift)
			for i, key := range keys[:c] {
				list[i] = int32(key >> shift)
			}
			if directed {
				setBothBits(both, start, keys[:c])
			}
			for i := c; i < len(list); i++ {
				list[i] = OrientationPad
			}
		}
	})
	o.Cnt, o.Off, o.Adj, o.Both = cnt, off, adj, both
}

// less01 is 1 where a < b, else 0 (a SETcc, not a branch).
func less01(a, b int32) int32 {
	var x int32
	if a < b {
		x = 1
	}
	return x
}

// setBothBits sets the Both bits of the list that starts at slot start,
// whose sorted keys are keys (bit 0: m = 2): a word at a time, an atomic
// OR where the word has a bit (a word's 32 slots may hold other rows'
// lists, which other goroutines fill).
func setBothBits(both []uint32, start int64, keys []uint32) {
	var word uint32
	w := start >> 5
	for i, key := range keys {
		s := start + int64(i)
		if s>>5 != w {
			if word != 0 {
				atomic.OrUint32(&both[w], word)
			}
			w, word = s>>5, 0
		}
		word |= (key & 1) << (s & 31)
	}
	if word != 0 {
		atomic.OrUint32(&both[w], word)
	}
}

// rankCap bounds the degrees rankByDegree counts in its histograms: the
// vertices of higher degree (at most arcs/rankCap of them) are sorted
// apart, so the per-block histograms stay small whatever the top degree.
const rankCap = 1 << 14

// rankByDegree ranks the vertices by decreasing degree, then decreasing id
// (0 the highest): a counting sort, parallel over blocks of ids. Block k
// counts its degrees in hist[k]; the vertex of degree d in block k with
// the most ids above it in its block (the block's last of that degree)
// gets the rank after every vertex of higher degree and every one of
// degree d in the blocks after k. Degrees of rankCap and above take the
// first ranks, in a sort of their own.
func rankByDegree(deg []int32) []int32 {
	n := len(deg)
	rank := huge.Make[int32](n)
	b := cutBlocks(n)
	p := len(b) - 1
	maxDeg := make([]int32, p)
	par.Parts(b, func(w, lo, hi int) {
		m := int32(0)
		for _, d := range deg[lo:hi] {
			m = max(m, d)
		}
		maxDeg[w] = m
	})
	h := int(min(slices.Max(maxDeg)+1, rankCap))
	hist := make([][]int32, p)
	big := make([][]int32, p)
	par.Parts(b, func(w, lo, hi int) {
		c := make([]int32, h)
		for v, d := range deg[lo:hi] {
			if int(d) < h {
				c[d]++
			} else {
				big[w] = append(big[w], int32(lo+v))
			}
		}
		hist[w] = c
	})
	// The vertices of degree h and more, highest first.
	top := slices.Concat(big...)
	slices.SortFunc(top, func(a, b int32) int {
		if deg[a] != deg[b] {
			return int(deg[b] - deg[a])
		}
		return int(b - a)
	})
	for i, v := range top {
		rank[v] = int32(i)
	}
	// hist[k][d] becomes the rank of block k's last vertex of degree d:
	// the totals per degree, their prefix from the top degree down (after
	// top), then each degree's blocks from the last down.
	total := make([]int32, h)
	par.Blocks(h, func(_, lo, hi int) {
		for d := lo; d < hi; d++ {
			for k := range p {
				total[d] += hist[k][d]
			}
		}
	})
	at := int32(len(top))
	for d := h - 1; d >= 0; d-- {
		at, total[d] = at+total[d], at
	}
	par.Blocks(h, func(_, lo, hi int) {
		for d := lo; d < hi; d++ {
			at := total[d]
			for k := p - 1; k >= 0; k-- {
				at, hist[k][d] = at+hist[k][d], at
			}
		}
	})
	par.Parts(b, func(w, lo, hi int) {
		next := hist[w]
		for v := hi - 1; v >= lo; v-- {
			if d := deg[v]; int(d) < h {
				rank[v] = next[d]
				next[d]++
			}
		}
	})
	return rank
}

// paddedOffsets is Off for the list lengths cnt: each list rounded up to
// OrientationBlock entries, the prefix sums taken per block of indices,
// then the blocks' totals, then each block's sums shifted by the blocks
// before it.
func paddedOffsets(cnt []int32) []int64 {
	n := len(cnt)
	off := huge.Make[int64](n + 1)
	b := cutBlocks(n)
	p := len(b) - 1
	sums := make([]int64, p+1)
	round := func(c int32) int64 {
		return int64(c+OrientationBlock-1) / OrientationBlock * OrientationBlock
	}
	par.Parts(b, func(w, lo, hi int) {
		s := int64(0)
		for _, c := range cnt[lo:hi] {
			s += round(c)
		}
		sums[w+1] = s
	})
	for w := range p {
		sums[w+1] += sums[w]
	}
	par.Parts(b, func(w, lo, hi int) {
		s := sums[w]
		for r := lo; r < hi; r++ {
			s += round(cnt[r])
			off[r+1] = s
		}
	})
	return off
}

// cutBlocks cuts [0, n) into one block per worker (one block below 4096),
// as par.Blocks does, but hands the cut over: the passes of rankByDegree
// and paddedOffsets that keep per-block data must cut alike.
func cutBlocks(n int) []int {
	p := par.Workers()
	if n < 4096 {
		p = 1
	}
	b := make([]int, p+1)
	for w := range b {
		b[w] = n * w / p
	}
	return b
}

// sortKeys sorts keys, whose values are below limit, with tmp (at least
// as long) as scratch: insertion for the short lists (most of them), and a
// least-significant-digit radix sort for the others, which hold most of
// the entries (slices.Sort spent 20-25 ns an entry on kron20's lists, this
// about 8): as few passes of at most 8 bits as cover limit's bits, of equal
// width (3 of 7 bits below 2^21), so the counts stay small.
func sortKeys(keys, tmp []uint32, limit uint32) {
	n := len(keys)
	if n <= 24 {
		for i := 1; i < n; i++ {
			x, j := keys[i], i
			for ; j > 0 && keys[j-1] > x; j-- {
				keys[j] = keys[j-1]
			}
			keys[j] = x
		}
		return
	}
	nb := bits.Len32(limit)
	passes := (nb + 7) / 8
	w := (nb + passes - 1) / passes
	mask := uint32(1)<<w - 1
	// All digits' counts in one pass, then a stable scatter per digit
	// (skipped where every key has the same digit).
	var count [4][256]int32
	for _, x := range keys {
		for d := range passes {
			count[d][x>>(w*d)&mask]++
		}
	}
	src, dst := keys, tmp[:n]
	for d := range passes {
		c := count[d][:mask+1]
		if c[src[0]>>(w*d)&mask] == int32(n) {
			continue
		}
		at := int32(0)
		for i := range c {
			at, c[i] = at+c[i], at
		}
		for _, x := range src {
			b := x >> (w * d) & mask
			dst[c[b]] = x
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
