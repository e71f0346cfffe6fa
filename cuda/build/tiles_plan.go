package build

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
)

// segTile is a tile as makePullTiles builds it: its first entry, its
// entries (without padding), its cost (tileCost), its segment and its
// warps' first groups.
type segTile struct {
	first, arcs, cost int64
	seg               int32
	at                float32 // (tilePlaces)
	warp              [tileWarps + 1]int32
}

// tileOut is one tile's part of Tiles, as a worker builds it.
type tileOut struct {
	tile segTile
	arcs []uint32
	vals []float32
	base []int32
}

// segPlan is a segment's slots: each entry's slot (from the segment's
// first entry), each slot's warp (compact index), the virtual slots' rows.
type segPlan struct {
	slotOf []uint32
	owner  []uint8
	vrow   []int32
}

// tileScratch is what pass 3 reads: the entries of every segment, by
// column (cols, rows in the segment, weights or nil).
type tileScratch struct {
	rowBits   int
	near      bool // groups by groupsNear
	cols      []int32
	rows      []uint16
	vals      []float32
	planChunk int64 // (planChunk)
}

// tileWorker is one goroutine's scratch for pass 3. Slots are indexed
// compactly: the segment's rows, then its virtual slots (ix).
type tileWorker struct {
	*tileScratch
	n, R, rmax, vmax int
	deg              []int64
	part, parts      []int32 // a row's first virtual slot - R (or -1), its slots
	load             []int64
	streams          [tileWarps][]int64
	wait             waitList
	pend             []int64 // groupsNear's window
}

// worker makes a worker's scratch (per row and slot only for plan).
func (sc *tileScratch) worker(n int, planning bool) *tileWorker {
	R := 1 << sc.rowBits
	rmax, vmax := min(R, n), tileVMax(sc.rowBits)
	w := &tileWorker{tileScratch: sc, n: n, R: R, rmax: rmax, vmax: vmax}
	if planning {
		w.deg, w.load = make([]int64, rmax), make([]int64, rmax+vmax)
		w.part, w.parts = make([]int32, rmax), make([]int32, rmax)
	}
	return w
}

func (w *tileWorker) ix(sl uint32) int {
	if sl < uint32(w.R) {
		return int(sl)
	}
	return w.rmax + int(sl) - w.R
}

// unitParts is par.Dynamic's bounds for n parts of one item each.
func unitParts(n int) []int {
	b := make([]int, n+1)
	for i := range b {
		b[i] = i
	}
	return b
}

// tileCapDiv: a row is split when it has more than 1/tileCapDiv of a
// lane's fair share of its segment (measured on kron21: 4 leaves 1.5% of
// the entries padding and the busiest warp 5% above the mean, 1 leaves
// 3.2% and 12%).
const tileCapDiv = 4

// planChunk is the most entries of a segment that plan numbers in one
// piece (tests cut it smaller: makePullTilesChunked).
const planChunk = 1 << 20

// plan gives segment s's entries (lo .. hi-1 of the column order) their
// slots and the slots their warps.
func (w *tileWorker) plan(s int, lo, hi int64) segPlan {
	var p segPlan
	R, vmax := w.R, w.vmax
	rows := w.rows
	nrows := min(R, w.n-s<<w.rowBits)
	// A segment of more than planChunk entries (kron21's first holds 39%
	// of them) counts and numbers its rows' entries in parallel pieces:
	// piece k's counts, then where each row's entries of piece k start.
	pieces := [][2]int64{{lo, hi}}
	if hi-lo > w.planChunk {
		pieces = pieces[:0]
		for a := lo; a < hi; a += w.planChunk {
			pieces = append(pieces, [2]int64{a, min(a+w.planChunk, hi)})
		}
	}
	counts := make([][]int32, len(pieces))
	par.Dynamic(unitParts(len(pieces)), func(a, b int) {
		for k := a; k < b; k++ {
			c := make([]int32, nrows)
			for q := pieces[k][0]; q < pieces[k][1]; q++ {
				c[rows[q]]++
			}
			counts[k] = c
		}
	})
	clear(w.deg)
	for _, c := range counts {
		for r, x := range c {
			at := w.deg[r]
			w.deg[r] += int64(x)
			c[r] = int32(at) // (now where row r's entries of this piece start)
		}
	}
	// Split rows above cap entries, raised until the virtual slots fit.
	cap := max(32, (hi-lo)/(tileWarps*32*tileCapDiv))
	for {
		v := 0
		for r := range nrows {
			if w.deg[r] > cap {
				v += int((w.deg[r]+cap-1)/cap) - 1
			}
		}
		if v <= vmax {
			break
		}
		cap *= 2
	}
	nv := int32(0)
	for r := range nrows {
		w.parts[r], w.part[r] = 1, -1
		if w.deg[r] > cap {
			k := int32((w.deg[r] + cap - 1) / cap)
			w.parts[r], w.part[r] = k, nv
			for range k - 1 {
				p.vrow = append(p.vrow, int32(r))
			}
			nv += k - 1
		}
	}
	// Each entry's slot (a row's entries go round robin over its slots,
	// in column order), and the slots' loads.
	p.slotOf = make([]uint32, hi-lo)
	par.Dynamic(unitParts(len(pieces)), func(a, b int) {
		for k := a; k < b; k++ {
			seen := counts[k]
			for q := pieces[k][0]; q < pieces[k][1]; q++ {
				r := int32(rows[q])
				j := seen[r] % w.parts[r]
				seen[r]++
				sl := uint32(r)
				if j > 0 {
					sl = uint32(R) + uint32(w.part[r]+j-1)
				}
				p.slotOf[q-lo] = sl
			}
		}
	})
	clear(w.load)
	for _, sl := range p.slotOf {
		w.load[w.ix(sl)]++
	}
	p.owner = w.assign(w.rmax + int(nv)) // (ix: rows, then virtual slots from rmax)
	return p
}

// tile builds the tile of entries i .. e-1 of segment s (whose first
// entry is lo): one stream per warp.
func (w *tileWorker) tile(p *segPlan, s int, lo, i, e int64) tileOut {
	out := tileOut{tile: segTile{arcs: e - i, seg: int32(s)}}
	slotBits := w.rowBits + 1
	for k := range w.streams {
		w.streams[k] = w.streams[k][:0]
	}
	for q := i; q < e; q++ {
		k := p.owner[w.ix(p.slotOf[q-lo])]
		w.streams[k] = append(w.streams[k], q)
	}
	for k := range w.streams {
		out.tile.warp[k] = int32(len(out.arcs) / 32)
		if w.near {
			w.groupsNear(&out, p.slotOf, w.streams[k], lo, int32(1)<<(32-slotBits), slotBits, uint32(w.R+w.vmax))
		} else {
			w.groups(&out, p.slotOf, w.streams[k], lo, int32(1)<<(32-slotBits), slotBits, uint32(w.R+w.vmax))
		}
	}
	out.tile.warp[tileWarps] = int32(len(out.arcs) / 32)
	// Its cost (tileCost): the groups of its longest stream and the X
	// sectors its entries touch (consecutive in column order).
	busiest := int32(0)
	for k := range tileWarps {
		busiest = max(busiest, out.tile.warp[k+1]-out.tile.warp[k])
	}
	sectors, last := int64(0), int32(-1)
	for q := i; q < e; q++ {
		if sc := w.cols[q] >> 3; sc != last {
			sectors, last = sectors+1, sc
		}
	}
	out.tile.cost = tileCost(int64(busiest), sectors)
	return out
}

// tileCost estimates a tile's time from the groups of its longest warp
// stream and the 32-byte sectors of 4-byte X (8 columns) its gathers
// touch, each of which L1 fetches at least once. Fitted to the tiles'
// times on an H200 (kron21's float32 PageRank, HPGRAPH_CUDA_PROBE=1: 0.128
// µs a group, 0.88 ns a sector, 4.7 µs a tile; correlation 0.90, where
// entries alone give 0.46): the last tiles of a segment, whose columns
// are the graph's rarely shared low-degree vertices, take up to three
// times as long as its first
// (docs/perf/pagerank-tiles.md#the-tiles-order-costliest-first). In sectors.
func tileCost(groups, sectors int64) int64 { return 146*groups + sectors + 5400 }

// assign gives the segment's slots (compact indices 0 .. ns-1) to warps:
// chunks of 32 consecutive slots (every lane's residue once), largest
// first, each to the warp whose busiest lane it raises least.
func (w *tileWorker) assign(ns int) []uint8 {
	owner := make([]uint8, ns)
	nch := (ns + 31) / 32
	cl := make([]int64, nch)
	for i := range ns {
		cl[i/32] += w.load[i]
	}
	co := make([]int, 0, nch)
	for c := range nch {
		if cl[c] > 0 {
			co = append(co, c)
		}
	}
	slices.SortFunc(co, func(a, b int) int {
		if cl[a] != cl[b] {
			if cl[a] > cl[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	lane := func(i int) int {
		if i < w.rmax {
			return i % 32
		}
		return (w.R + i - w.rmax) % 32
	}
	var lanes [tileWarps][32]int64
	var wl [tileWarps]int64
	for _, c := range co {
		best, bestMax := 0, int64(-1)
		for k := range tileWarps {
			m := int64(0)
			for i := c * 32; i < min(c*32+32, ns); i++ {
				m = max(m, lanes[k][lane(i)]+w.load[i])
			}
			if bestMax < 0 || m < bestMax || m == bestMax && wl[k] < wl[best] {
				best, bestMax = k, m
			}
		}
		for i := c * 32; i < min(c*32+32, ns); i++ {
			owner[i] = uint8(best)
			lanes[best][lane(i)] += w.load[i]
			wl[best] += w.load[i]
		}
	}
	return owner
}

// groups appends one warp's stream st (entry indices, in column order)
// as groups of 32: lane i takes an entry whose slot is i mod 32 (so the
// group's slots are distinct and fall in distinct shared memory banks),
// within span columns of the group's first; lanes left empty then take
// entries of other residues (a bank conflict costs less than an idle
// lane), still of slots not in the group; what is left is padding.
// Entries that do not fit wait, in order, for the next group (w.wait).
func (w *tileWorker) groups(out *tileOut, slotOf []uint32, st []int64, lo int64, span int32, slotBits int, dummy uint32) {
	pq := &w.wait
	pq.reset()
	var lanes [32]int64
	for next := 0; next < len(st) || pq.live > 0; {
		var base int32
		n := 0
		for i := range lanes {
			lanes[i] = -1
		}
		strict := true
		take := func(q int64) bool {
			sl := slotOf[q-lo]
			l := sl % 32
			if n > 0 && w.cols[q]-base >= span {
				return false
			}
			if lanes[l] >= 0 {
				if strict {
					return false
				}
				for _, o := range lanes {
					if o >= 0 && slotOf[o-lo] == sl {
						return false
					}
				}
				l = uint32(slices.Index(lanes[:], -1))
			}
			if n == 0 {
				base = w.cols[q]
			}
			lanes[l] = q
			n++
			return true
		}
		// stream takes entries from the stream, the ones that do not fit
		// waiting (at most 4096 wait).
		stream := func() {
			for n < 32 && next < len(st) && pq.live < 4096 {
				if q := st[next]; !take(q) {
					pq.push(q, uint8(slotOf[q-lo]%32))
				}
				next++
			}
		}
		// The waiting entries first, in order: strictly, the oldest (it
		// sets the base) and then each other residue's oldest, if within
		// span (the later ones of a residue are further).
		if pq.live > 0 {
			i := pq.oldest()
			take(pq.q[i])
			pq.remove(i)
			for l := range lanes {
				if lanes[l] < 0 {
					if i, ok := pq.head(l); ok && take(pq.q[i]) {
						pq.remove(i)
					}
				}
			}
		}
		stream()
		if n < 32 {
			strict = false
			for i := pq.first; i < len(pq.q) && n < 32; i++ {
				if pq.q[i] >= 0 && take(pq.q[i]) {
					pq.remove(i)
				}
			}
			stream()
		}
		w.emit(out, &lanes, base, slotOf, lo, slotBits, dummy)
	}
}

// tileNearWindow is how many of a stream's next entries groupsNear
// chooses a group from.
const tileNearWindow = 64

// groupsNear appends one warp's stream st (entry indices, in column
// order) as groups of 32 taken from a window of its next tileNearWindow
// entries, in order: an entry joins the group unless its slot is in it
// already, two of its residue (slot mod 32) are, or its column is span or
// more past the group's first; it takes lane slot mod 32 where that is
// free. Against groups, a 4-byte fold meets a two-way bank conflict
// (one shared memory wavefront more), but the group's X gathers touch
// 5.7 lines of 128 bytes instead of 13.2 (kron21):
// docs/perf/pagerank-tiles.md#groups-near-in-columns-for-4-byte-accumulators.
func (w *tileWorker) groupsNear(out *tileOut, slotOf []uint32, st []int64, lo int64, span int32, slotBits int, dummy uint32) {
	pend := w.pend[:0]
	next := 0
	var lanes [32]int64
	var cnt [32]uint8
	var base int32
	n := 0
	take := func(q int64) bool {
		sl := slotOf[q-lo]
		r := sl % 32
		if n == 32 || cnt[r] == 2 || n > 0 && w.cols[q]-base >= span {
			return false
		}
		if cnt[r] == 1 {
			for _, o := range lanes {
				if o >= 0 && slotOf[o-lo] == sl {
					return false
				}
			}
		}
		l := int(r)
		if lanes[l] >= 0 {
			l = slices.Index(lanes[:], -1)
		}
		if n == 0 {
			base = w.cols[q]
		}
		lanes[l] = q
		cnt[r]++
		n++
		return true
	}
	for next < len(st) || len(pend) > 0 {
		for len(pend) < tileNearWindow && next < len(st) {
			pend = append(pend, st[next])
			next++
		}
		for i := range lanes {
			lanes[i], cnt[i] = -1, 0
		}
		n = 0
		k := 0
		for _, q := range pend {
			if !take(q) {
				pend[k] = q
				k++
			}
		}
		pend = pend[:k]
		// A window that cannot fill the group (one row's entries in a run
		// of columns, say) grows, as groups' waiting list does, rather
		// than pad.
		for n < 32 && next < len(st) && len(pend) < 4096 {
			if q := st[next]; !take(q) {
				pend = append(pend, q)
			}
			next++
		}
		w.emit(out, &lanes, base, slotOf, lo, slotBits, dummy)
	}
	w.pend = pend
}

// emit appends the group of entries lanes (-1: padding, the dummy slot)
// whose first column is base.
func (w *tileWorker) emit(out *tileOut, lanes *[32]int64, base int32, slotOf []uint32, lo int64, slotBits int, dummy uint32) {
	out.base = append(out.base, base)
	for _, q := range lanes {
		if q < 0 {
			out.arcs = append(out.arcs, dummy)
			if w.vals != nil {
				out.vals = append(out.vals, 0)
			}
			continue
		}
		out.arcs = append(out.arcs, uint32(w.cols[q]-base)<<slotBits|slotOf[q-lo])
		if w.vals != nil {
			out.vals = append(out.vals, w.vals[q])
		}
	}
}

// waitList holds the entries that wait for a group, in order (q; -1
// once taken), with a queue of positions per slot residue, so a group
// finds each residue's oldest without scanning them all.
type waitList struct {
	q     []int64
	res   []uint8
	lane  [32][]int32
	next  [32]int // lane[l][:next[l]] are all taken
	first int     // q[:first] are all taken
	live  int
}

func (p *waitList) reset() {
	p.q, p.res = p.q[:0], p.res[:0]
	for l := range p.lane {
		p.lane[l], p.next[l] = p.lane[l][:0], 0
	}
	p.first, p.live = 0, 0
}

func (p *waitList) push(q int64, res uint8) {
	if len(p.q) >= 1024 && len(p.q) >= 2*p.live {
		p.compact()
	}
	p.lane[res] = append(p.lane[res], int32(len(p.q)))
	p.q, p.res = append(p.q, q), append(p.res, res)
	p.live++
}

func (p *waitList) remove(i int) {
	p.q[i] = -1
	p.live--
}

// oldest is the first waiting entry's position (live > 0).
func (p *waitList) oldest() int {
	for p.q[p.first] < 0 {
		p.first++
	}
	return p.first
}

// head is the position of residue l's oldest waiting entry.
func (p *waitList) head(l int) (int, bool) {
	for h := p.next[l]; h < len(p.lane[l]); h++ {
		if i := int(p.lane[l][h]); p.q[i] >= 0 {
			p.next[l] = h
			return i, true
		}
	}
	p.next[l] = len(p.lane[l])
	return 0, false
}

// compact drops the taken entries (positions change).
func (p *waitList) compact() {
	k := 0
	for i, q := range p.q {
		if q >= 0 {
			p.q[k], p.res[k] = q, p.res[i]
			k++
		}
	}
	p.q, p.res = p.q[:k], p.res[:k]
	for l := range p.lane {
		p.lane[l], p.next[l] = p.lane[l][:0], 0
	}
	for i, r := range p.res {
		p.lane[r] = append(p.lane[r], int32(i))
	}
	p.first = 0
}

// tilePlaces is where each tile of m starts in X, for launchOrder's
// column order: the tiles of segment s (rows cut every 1<<rowBits, each
// segment's entries in column order cut every maxArcs) are
// first[s] .. first[s+1]-1, and at[first[s]+k] is the column where its
// k-th tile starts, as a fraction of N: read from a histogram of the
// segment's columns in 1/1024ths of N (within a bucket, as if its
// entries were spread evenly over it), one pass over the entries on every
// core (kron27: 4.2 G entries, 0.88 s on the H200 host's 16 cores). Where the host does not hold m's columns
// (a view built on the device), a tile's place among its segment's
// (k/T) stands in for it.
func tilePlaces(m *hyb.Matrix, rowBits, maxArcs int) (first []int64, at []float32) {
	n := m.N
	rowPtr, col := m.Src.RowPtr, m.Src.Col
	nseg := (n + 1<<rowBits - 1) >> rowBits
	seg := func(s int) (int64, int64) {
		return rowPtr[min(s<<rowBits, n)], rowPtr[min((s+1)<<rowBits, n)]
	}
	first = make([]int64, nseg+1)
	for s := range nseg {
		q0, q1 := seg(s)
		first[s+1] = first[s] + (q1-q0+int64(maxArcs)-1)/int64(maxArcs)
	}
	at = make([]float32, first[nseg])
	if len(col) != int(rowPtr[n]) {
		for s := range nseg {
			for k := first[s]; k < first[s+1]; k++ {
				at[k] = float32(k-first[s]) / float32(first[s+1]-first[s])
			}
		}
		return first, at
	}
	const buckets = 1 << 10
	shift := max(0, bits.Len(uint(max(n-1, 0)))-10)
	// (segments balanced by their entries, and one for each: the clears)
	par.Dynamic(par.Split(nseg, 8*par.Workers(), func(s int) int64 { return rowPtr[min(s<<rowBits, n)] + int64(s) }), func(a, b int) {
		var hist [buckets + 1]int64
		for s := a; s < b; s++ {
			q0, q1 := seg(s)
			if q0 == q1 {
				continue
			}
			clear(hist[:])
			for _, c := range col[q0:q1] {
				hist[c>>shift]++
			}
			k, cum := first[s], int64(0)
			for bk, h := range hist {
				// (tile k starts at entry (k - first[s]) * maxArcs: its
				// column within the bucket taken as if the bucket's
				// entries were spread evenly over it)
				for ; k < first[s+1] && (k-first[s])*int64(maxArcs) < cum+h; k++ {
					at[k] = (float32(bk) + float32((k-first[s])*int64(maxArcs)-cum)/float32(h)) / buckets
				}
				cum += h
			}
		}
	})
	return first, at
}

// launchOrder sorts tiles into their launch order: costliest first
// (tileCost: blocks start in index order, so the long tiles do not trail
// at the end of the launch), or, with columns, by the column where each
// starts (tilePlaces), costliest first at one place. A segment's tiles
// cut its entries in column order, so the segments of many entries (the
// hubs' rows, in an order by degree) read X from its start to its end
// over their tiles, and in column order the tiles that run at once read
// about the same stretch of it: where X does not fit the L2, its lines
// are then read from memory once for many segments. Measured on an H200,
// float32 PageRank iteration (docs/perf/pagerank-tiles.md): kron27 15.50
// -> 12.73 ms, kron25 2.81 -> 2.51; kron21 (X in the L2) 0.146 -> 0.163
// by places, where the costliest-first order stays.
func launchOrder(tiles []segTile, columns bool) {
	slices.SortStableFunc(tiles, func(a, b segTile) int {
		if columns && a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(b.cost, a.cost)
	})
}
