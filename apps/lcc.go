package apps

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// LCCProgram computes LDBC Graphalytics' local clustering coefficient in
// one superstep. A vertex's neighbourhood N(v) is its in- and
// out-neighbours, each once, v excluded, and d = |N(v)|. The coefficient
// is the number of arcs u → w with u ≠ w both in N(v) over d(d-1) — on a
// directed graph the arcs as LDBC counts them (u → w and w → u are two,
// parallel arcs one), on an undirected graph, whose CSR holds every edge
// in both directions, each edge among N(v) twice: LDBC's arcs/(d(d-1))
// and edges/(d(d-1)/2) alike — and 0 when d < 2.
//
// That count is a sum over the triangles at v: each triangle {v, x, y} of
// the simple undirected graph (loops, direction and parallel arcs
// ignored) brings the arcs between x and y, m(x, y) ∈ {1, 2} on a
// directed graph (2 where both directions exist), 2 on an undirected one.
// The program lists every triangle once, as triangle counting does: edges
// oriented from lower to higher (degree, id) rank, vertex a gathers over
// each neighbour b ranked above it the intersection of the two sorted
// oriented lists, whose elements c close the triangles {a, b, c} in which
// a is the lowest vertex and b the middle one. It credits each of the
// three vertices with the arcs between the other two: a's share in its
// accumulator, b's (summed over the intersection) and each c's by atomic
// adds into the credit arrays, which Update reads after every gather of
// the superstep. Undirected graphs count triangles and double them in
// Update.
//
// The oriented lists live in rank space: vertex v has rank ρ(v) (0 the
// highest), v's list holds the ranks of its higher neighbours, sorted,
// and the lists are laid out in rank order, so the hubs' lists, which
// most intersections read, sit together (as on a graph renumbered by
// degree), and the highest ranks (min(n/8, lccHubs) of them) are told
// apart as hubs by their rank alone: their credits, which most triangles
// add to, are spread over lccReplicas copies (on a device one hot counter
// would serialize the atomics of millions of triangles), and Update sums
// the copies.
//
// It runs on the CPU engine and, through its device code (lcc_device.go),
// on a GPU backend.
type LCCProgram struct {
	// LCC[v] is v's coefficient, after the run.
	LCC []float64
	// credit[ρ] is what the gathers credited the vertex of rank ρ with,
	// as the middle or highest vertex of its triangles, for the ranks
	// from o.hubs on; hub[k*(o.hubs+lccHubPad)+ρ] is copy k of it for the
	// ranks below (the CPU adds to the copy the gathering vertex's rank
	// picks, the device to the one its thread picks).
	credit, hub []int64
	o           *lccOrientation
}

// lccReplicas is the copies of a hub's credit (the device code's
// LCC_REPLICAS), lccHubs the most ranks that are hubs. Copy k of the hubs'
// credits starts k·(hubs+lccHubPad) entries in (LCC_HUB_PAD): the pad
// keeps the copies of a hub from lying a power of two apart, which could
// map them all to one L2 slice.
const (
	lccReplicas = 32
	lccHubs     = 4096
	lccHubPad   = 16
)

// lccOrientation is the graph's oriented lists in rank space, made once
// per graph (vertexprog.Graph.Memo) and shared by every run on it.
type lccOrientation struct {
	directed bool
	// hubs: the ranks below it are hubs (min(n/8, lccHubs)).
	hubs int32
	// rank[v] is ρ(v); deg[v] is d, |N(v)|.
	rank, deg []int32
	// The list of the vertex of rank ρ is adj[off[ρ]:off[ρ]+cnt[ρ]],
	// starting at a multiple of lccBlock entries and padded with lccPad,
	// so the device merges lists lccBlock entries at a time with aligned
	// loads.
	off []int64
	cnt []int32
	adj []int32
	// both has bit s set where the edge of adj[s] has arcs both ways (a
	// directed graph's m = 2); one zero word on an undirected graph.
	both []uint32
	// dup is the first vertex whose neighbours repeat (an undirected
	// graph loaded with its duplicate edges), or -1.
	dup int32
}

// lccPad pads the oriented lists: above every rank.
const (
	lccPad   = 1<<31 - 1
	lccBlock = 4 // the device code's LCC_BLOCK
)

type lccOrientationKey struct{}

func (p *LCCProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *LCCProgram) Prepare(g *vertexprog.Graph) error {
	o := g.Memo(lccOrientationKey{}, func() any { return orientLCC(g) }).(*lccOrientation)
	if o.dup >= 0 {
		// An undirected graph loaded with its duplicate edges lists them
		// in Neighbors, and the engine gathers along each copy: the
		// count would grow with the copies.
		return fmt.Errorf("%w: lcc is defined on simple graphs, and vertex %d has duplicate edges (load without --keep-duplicates)", ErrInvalidInput, g.ID(o.dup))
	}
	n := g.N()
	p.o = o
	p.LCC = make([]float64, n)
	p.credit = make([]int64, n)
	p.hub = make([]int64, (int(o.hubs)+lccHubPad)*lccReplicas)
	return nil
}

// lccDegrees starts g's lccOrientation: each vertex's degree without its
// loops (on all cores), and dup, the lowest vertex listing a neighbour
// twice (-1 for none: the others' fields are built only then).
func lccDegrees(g *vertexprog.Graph) *lccOrientation {
	n := g.N()
	o := &lccOrientation{directed: g.Directed(), dup: -1, hubs: int32(min(n/8, lccHubs))}
	o.deg = make([]int32, n)
	var dup atomic.Int32
	dup.Store(-1)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			nb := g.Neighbors(v)
			loops := 0
			for i, u := range nb {
				if u == v {
					loops++
				}
				if i > 0 && nb[i-1] == u {
					for d := dup.Load(); d < 0 || v < d; d = dup.Load() {
						if dup.CompareAndSwap(d, v) {
							break
						}
					}
					break
				}
			}
			o.deg[v] = int32(len(nb) - loops)
		}
	})
	o.dup = dup.Load()
	return o
}

// orientLCC builds g's lccOrientation on all cores. Every pass is
// parallel and none sorts the graph as a whole:
//
//  1. deg (and dup) from each row, one pass over the rows in id order;
//  2. rank, a counting sort on the degree whose histograms are kept per
//     block of ids (lccRanks);
//  3. cnt, each row's neighbours ranked above it, a pass in id order that
//     reads rank alone;
//  4. off, a parallel prefix sum of cnt rounded up to lccBlock;
//  5. adj (and both), each row's higher neighbours' ranks gathered into a
//     scratch buffer without branches, sorted there by lccSortKeys (a
//     radix sort for the long lists, which hold most entries) and copied
//     to the list with its padding.
//
// kron21's orientation (63.5M arcs) took 290 ms on 16 cores when ranks and
// offsets were serial passes and every list was sorted with slices.Sort;
// the arrays it makes are the same, byte for byte (lcc_orient_test.go
// keeps that build as the reference).
func orientLCC(g *vertexprog.Graph) *lccOrientation {
	n := g.N()
	o := lccDegrees(g)
	if o.dup >= 0 {
		return o
	}
	o.rank = lccRanks(o.deg)
	// cnt[ρ(v)]: v's neighbours ranked above it (a loop ranks neither
	// above nor below). Counted without a branch: which way each
	// comparison goes is a coin toss.
	o.cnt = make([]int32, n)
	rank := o.rank
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			r, c := rank[v], int32(0)
			for _, u := range g.Neighbors(v) {
				c += lccLess(rank[u], r)
			}
			o.cnt[r] = c
		}
	})
	o.off = lccOffsets(o.cnt)
	o.adj = make([]int32, o.off[n])
	o.both = make([]uint32, 1)
	if o.directed {
		o.both = make([]uint32, max(1, (len(o.adj)+31)/32))
	}
	// The lists, each made in a scratch buffer: the keys ρ(u), or on a
	// directed graph ρ(u)·2 + m(v, u) - 1, are written for every neighbour
	// and kept where ρ(u) < ρ(v) (again no branch), sorted, and copied out
	// with their padding.
	shift := uint(0)
	if o.directed {
		shift = 1
	}
	g.ForVertices(func(lo, hi int32) {
		var keys, tmp []uint32
		for v := lo; v < hi; v++ {
			// (An empty list has no padding either: such vertices, 40%
			// of kron20's, cost no read of off, which lies far apart.)
			nb := g.Neighbors(v)
			if len(nb) == 0 {
				continue
			}
			r := rank[v]
			c := int(o.cnt[r])
			if c == 0 {
				continue
			}
			start, end := o.off[r], o.off[r+1]
			list := o.adj[start:end]
			if cap(keys) < len(nb) {
				keys, tmp = make([]uint32, len(nb)), make([]uint32, len(nb))
			}
			keys = keys[:len(nb)]
			k := 0
			if !o.directed {
				for _, u := range nb {
					q := rank[u]
					keys[k] = uint32(q)
					k += int(lccLess(q, r))
				}
			} else {
				out := g.OutNeighbors(v)
				j := 0
				for _, u := range nb {
					for j < len(out) && out[j] < u {
						j++
					}
					q := rank[u]
					if q >= r {
						continue
					}
					key := uint32(q) << 1
					if j < len(out) && out[j] == u {
						if _, in := slices.BinarySearch(g.OutNeighbors(u), v); in {
							key |= 1
						}
					}
					keys[k] = key
					k++
				}
			}
			lccSortKeys(keys[:c], tmp, uint32(r)<<shift)
			for i, key := range keys[:c] {
				list[i] = int32(key >> shift)
			}
			if o.directed {
				o.setBoth(start, keys[:c])
			}
			for i := c; i < len(list); i++ {
				list[i] = lccPad
			}
		}
	})
	return o
}

// lccLess is 1 where a < b, else 0 (a SETcc, not a branch).
func lccLess(a, b int32) int32 {
	var x int32
	if a < b {
		x = 1
	}
	return x
}

// setBoth sets the both bits of the list that starts at slot start, whose
// sorted keys are keys (bit 0: m = 2): a word at a time, an atomic OR where
// the word has a bit (a word's 32 slots may hold other rows' lists, which
// other goroutines fill).
func (o *lccOrientation) setBoth(start int64, keys []uint32) {
	var word uint32
	w := start >> 5
	for i, key := range keys {
		s := start + int64(i)
		if s>>5 != w {
			if word != 0 {
				atomic.OrUint32(&o.both[w], word)
			}
			w, word = s>>5, 0
		}
		word |= (key & 1) << (s & 31)
	}
	if word != 0 {
		atomic.OrUint32(&o.both[w], word)
	}
}

// lccRankCap bounds the degrees lccRanks counts in its histograms: the
// vertices of higher degree (at most arcs/lccRankCap of them) are sorted
// apart, so the per-block histograms stay small whatever the top degree.
const lccRankCap = 1 << 14

// lccRanks ranks the vertices by decreasing degree, then decreasing id
// (0 the highest): a counting sort, parallel over blocks of ids. Block k
// counts its degrees in hist[k]; the vertex of degree d in block k with
// the most ids above it in its block (the block's last of that degree)
// gets the rank after every vertex of higher degree and every one of
// degree d in the blocks after k. Degrees of lccRankCap and above take the
// first ranks, in a sort of their own.
func lccRanks(deg []int32) []int32 {
	n := len(deg)
	rank := make([]int32, n)
	b := lccBlocks(n)
	p := len(b) - 1
	maxDeg := make([]int32, p)
	par.Parts(b, func(w, lo, hi int) {
		m := int32(0)
		for _, d := range deg[lo:hi] {
			m = max(m, d)
		}
		maxDeg[w] = m
	})
	h := int(min(slices.Max(maxDeg)+1, lccRankCap))
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

// lccOffsets is off for the list lengths cnt: each list rounded up to
// lccBlock entries, the prefix sums taken per block of ranks, then the
// blocks' totals, then each block's sums shifted by the blocks before it.
func lccOffsets(cnt []int32) []int64 {
	n := len(cnt)
	off := make([]int64, n+1)
	b := lccBlocks(n)
	p := len(b) - 1
	sums := make([]int64, p+1)
	round := func(c int32) int64 { return int64(c+lccBlock-1) / lccBlock * lccBlock }
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

// lccBlocks cuts [0, n) into one block per worker (one block below 4096),
// as par.Blocks does, but hands the cut over: the passes of lccRanks and
// lccOffsets that keep per-block data must cut alike.
func lccBlocks(n int) []int {
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

// lccSortKeys sorts keys, whose values are below limit, with tmp (at least
// as long) as scratch: insertion for the short lists (most of them), and a
// least-significant-digit radix sort for the others, which hold most of
// the entries (slices.Sort spent 20-25 ns an entry on kron20's lists, this
// about 8): as few passes of at most 8 bits as cover limit's bits, of equal
// width (3 of 7 bits below 2^21), so the counts stay small.
func lccSortKeys(keys, tmp []uint32, limit uint32) {
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

// mult is the arcs between the two ends of the edge in slot s of adj:
// m on a directed graph, 1 on an undirected one (Update doubles).
func (o *lccOrientation) mult(s int64) int64 {
	if !o.directed {
		return 1
	}
	return 1 + int64(o.both[s>>5]>>(s&31)&1)
}

func (p *LCCProgram) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *LCCProgram) Identity() int64 { return 0 }

// Gather lists the triangles in which v is the lowest vertex and u the
// middle one (nothing unless u ranks above v): see LCCProgram.
func (p *LCCProgram) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	a, b := p.o.rank[v], p.o.rank[u]
	if b >= a {
		return acc
	}
	return acc + p.triangles(a, b)
}

// GatherRow implements vertexprog.RowGatherer: Gather over the row.
func (p *LCCProgram) GatherRow(acc int64, v int32, nbrs []int32, _ []float32, _ []struct{}) int64 {
	rank := p.o.rank
	a := rank[v]
	for _, u := range nbrs {
		if b := rank[u]; b < a {
			acc += p.triangles(a, b)
		}
	}
	return acc
}

// triangles lists the triangles {a, b, c} (ranks, a > b > c) closed by
// the oriented lists of a and b: it credits b and each c, and returns a's
// credit.
func (p *LCCProgram) triangles(a, b int32) int64 {
	o := p.o
	ia, ib := o.off[a], o.off[b]
	la, lb := o.adj[ia:ia+int64(o.cnt[a])], o.adj[ib:ib+int64(o.cnt[b])]
	// m(a, b), what each c gets: b's slot in a's list.
	mab := int64(1)
	if o.directed {
		k, _ := slices.BinarySearch(la, b)
		mab = o.mult(ia + int64(k))
	}
	var own, mid int64
	// A long list and a short one (a hub's and a leaf's): the short one's
	// entries are searched for in the long one where that takes fewer
	// steps than a merge (the device: where one list is 16 times the
	// other). Either way the same triangles.
	small, large := la, lb
	if len(lb) < len(la) {
		small, large = lb, la
	}
	if len(small)*bits.Len(uint(len(large))) < len(la)+len(lb) {
		aSmall := len(la) <= len(lb)
		j := 0
		for i, c := range small {
			k, found := slices.BinarySearch(large[j:], c)
			j += k
			if !found {
				continue
			}
			sa, sb := ia+int64(i), ib+int64(j)
			if !aSmall {
				sa, sb = ia+int64(j), ib+int64(i)
			}
			own += o.mult(sb)
			mid += o.mult(sa)
			p.add(c, mab, a)
			j++
		}
	} else {
		for i, j := 0, 0; i < len(la) && j < len(lb); {
			switch c := la[i]; {
			case c < lb[j]:
				i++
			case c > lb[j]:
				j++
			default:
				own += o.mult(ib + int64(j))
				mid += o.mult(ia + int64(i))
				p.add(c, mab, a)
				i++
				j++
			}
		}
	}
	if mid > 0 {
		p.add(b, mid, a)
	}
	return own
}

// add credits the vertex of rank r with m arcs, for the gathering
// vertex of rank a: a hub in the copy a picks (so that two workers adding
// to one hub mostly hit different cache lines).
func (p *LCCProgram) add(r int32, m int64, a int32) {
	if r < p.o.hubs {
		atomic.AddInt64(&p.hub[(a&(lccReplicas-1))*(p.o.hubs+lccHubPad)+r], m)
	} else {
		atomic.AddInt64(&p.credit[r], m)
	}
}

func (p *LCCProgram) Reduce(a, b int64) int64 { return a + b }

func (p *LCCProgram) Update(v int32, acc int64, _ *struct{}, _ *vertexprog.Step) bool {
	o := p.o
	r := o.rank[v]
	t := acc + p.credit[r]
	if r < o.hubs {
		for k := range int32(lccReplicas) {
			t += p.hub[k*(o.hubs+lccHubPad)+r]
		}
	}
	if !o.directed {
		t *= 2
	}
	p.LCC[v] = 0
	if d := int64(o.deg[v]); d >= 2 {
		p.LCC[v] = float64(t) / float64(d*(d-1))
	}
	return false
}

// LCCResult is a local clustering coefficient run's output.
type LCCResult struct {
	// LCC[v] is v's local clustering coefficient, in [0, 1].
	LCC []float64
	Run *vertexprog.Result[struct{}]
}

// LCC computes every vertex's local clustering coefficient as LDBC
// Graphalytics defines it (see LCCProgram).
func LCC(g *vertexprog.Graph, opt vertexprog.Options) (*LCCResult, error) {
	p := &LCCProgram{}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](p), opt)
	if err != nil {
		return nil, err
	}
	return &LCCResult{LCC: p.LCC, Run: r}, nil
}
