//go:build cgo

package build

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A pull matrix's tiles built on the device (issue 24, item 2): the host
// builder (makePullTiles) took about a second of kron21 on 16 cores, so
// the tiles were built in the background for resident runs only. Here
// tilesdev.cu's kernels build the same arrays, array by array, from the
// matrix's HYB arrays already on the device; the host computes only what
// is per segment or per tile (the virtual slots' offsets, the tiles'
// bounds, the streams' group offsets and the launch order by cost).
// makePullTiles stays the reference (tests) and builds the shapes this
// does not take (TilesOnDevice). tl_groups' batching, the part of the
// device's order that differs most from the host's code, also runs on the
// host in CI (tlGroupsModel, tilesdev_model_test.go).

const (
	// tlMaxSlots is the most slots (rows and virtual slots) of a segment
	// tl_assign takes (TL_MAXSLOTS).
	tlMaxSlots = 8704
	// tlNearInts and tlGroupInts are a grouping warp's scratch in 4-byte
	// words: groupsNear's window (TL_PEND entries), groups' waiting list
	// (TL_WAIT entries and as many 2-byte links).
	tlNearInts  = 4096
	tlGroupInts = 8192 + 8192/2
)

// tlArg is tilesdev.cu's TL_Arg.
type tlArg struct {
	ellCol, ellVal, cooCol, cooVal, cooPtr, rowPtr, csrCol, part, parts, nv, vfirst, vrow, owner cu.DevicePtr
	key, src, val, sCol, sSlot, sVal, tileLo, tileSeg, streamOff, streams, sectors               cu.DevicePtr
	code, tmpBase, groups, scratch, next, groupOff, arcs, vals, base                             cu.DevicePtr
	nnz, coo, tiles, fill, recBase, cooLo                                                        int64
	n, k, pitch, rowBits, slotBits, nseg, rmax, vmax, near, pool, sym, r0, r1                    int
}

func (a *tlArg) bytes() []byte {
	b := make([]byte, 368)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{a.ellCol, a.ellVal, a.cooCol, a.cooVal, a.cooPtr, a.rowPtr, a.csrCol, a.part, a.parts, a.nv, a.vfirst, a.vrow, a.owner,
		a.key, a.src, a.val, a.sCol, a.sSlot, a.sVal, a.tileLo, a.tileSeg, a.streamOff, a.streams, a.sectors,
		a.code, a.tmpBase, a.groups, a.scratch, a.next, a.groupOff, a.arcs, a.vals, a.base} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	for i, v := range []int64{a.nnz, a.coo, a.tiles, a.fill, a.recBase, a.cooLo} {
		le.PutUint64(b[264+8*i:], uint64(v))
	}
	for i, v := range []int{a.n, a.k, a.pitch, a.rowBits, a.slotBits, a.nseg, a.rmax, a.vmax, a.near, a.pool, a.sym, a.r0, a.r1} {
		le.PutUint32(b[312+4*i:], uint32(int32(v)))
	}
	return b
}

// TilesOnDevice reports whether deviceTiles builds m's tiles of shape ts:
// a matrix with entries, tiles of at most 65,536 entries and segments of
// at most 2^15 rows (an entry and its slot are named in 16 bits each),
// segments of at most tlMaxSlots slots, and a segment and slot that pack
// into 32 bits (n below about 2^30).
func TilesOnDevice(m *hyb.Matrix, ts TileSpec) bool {
	n := m.N
	if n == 0 || m.NNZ() == 0 || ts.MaxArcs < 1 || ts.MaxArcs > 1<<16 || ts.RowBits < 1 || ts.RowBits > 15 {
		return false
	}
	R := 1 << ts.RowBits
	nseg := (n + R - 1) >> ts.RowBits
	return min(R, n)+tileVMax(ts.RowBits) <= tlMaxSlots && bits.Len(uint(nseg-1))+ts.RowBits+1 <= 32
}

// tileBuildBytes bounds the device memory deviceTiles takes besides its
// output (tileBytes) at its peak. The segments' slots and the slots'
// warps live throughout. In one piece the peak is the largest of its
// phases' (deviceTiles frees each phase's temporaries before the next
// needs room): the records (two key and two slot arrays, the weights'
// two) with the rows' offsets and slot counts, then with the sort's
// scratch; the records with the streams, the tiles' offsets and the
// grouping warps' scratch; the records with the output. (kron28's part
// of 4.2 G arcs: the sum of the phases asked 105 GiB, beside a BFS's
// push matrix more than was free, and PageRank pulled by rows at 41.8 ms
// an iteration against 21.1 with tiles.) In several pieces the rows'
// offsets, the scratch and the output all live beside a piece's records,
// streams and tiles: room for the largest piece's.
func tileBuildBytes(m *hyb.Matrix, ts TileSpec, pool int) int64 {
	n, nnz := int64(m.N), m.NNZ()
	pieces := tilePieces(m, ts)
	e := int64(0) // (the most entries of a piece)
	for i := 0; i+1 < len(pieces); i++ {
		e = max(e, m.Src.RowPtr[min(int(pieces[i+1])<<ts.RowBits, m.N)]-m.Src.RowPtr[min(int(pieces[i])<<ts.RowBits, m.N)])
	}
	rec := e * 16
	if m.Weighted() {
		rec += e * 8
	}
	words := int64(tlGroupInts)
	if ts.Near {
		words = tlNearInts
	}
	segs := n>>ts.RowBits + 1
	tiles := e/int64(max(1, ts.MaxArcs)) + segs
	live := segs*(4+tlMaxSlots) + rec + tiles*(tileWarps+1)*20
	out := tileBytes(m, ts.RowBits, ts.MaxArcs)
	rows := (n+1)*8 + n*8
	if len(pieces) > 2 {
		return live + rows + e*2 + sortScratchBytes(e) + int64(pool)*words*4
	}
	records := live + max(rows, sortScratchBytes(nnz))
	groups := live + nnz*2 + sortScratchBytes(nnz) + int64(pool)*words*4
	return max(records, groups, live+out) - out
}

// tilePieces cuts m's segments (of ts.RowBits rows) into ts.Chunks
// pieces (one for 0) of about equal entries, for deviceTiles: the
// pieces' first segments, then the number of segments. A piece holds at
// least a segment, so there are at most as many pieces as segments.
func tilePieces(m *hyb.Matrix, ts TileSpec) []int32 {
	nseg := (m.N + 1<<ts.RowBits - 1) >> ts.RowBits
	pieces := []int32{0}
	nnz := m.NNZ()
	for k := 1; k < ts.Chunks; k++ {
		// (the first segment whose entries end past k/Chunks of them)
		goal := nnz * int64(k) / int64(ts.Chunks)
		s := sort.Search(nseg, func(s int) bool { return m.Src.RowPtr[min((s+1)<<ts.RowBits, m.N)] > goal })
		if s+1 > int(pieces[len(pieces)-1]) && s+1 < nseg {
			pieces = append(pieces, int32(s+1))
		}
	}
	return append(pieces, int32(nseg))
}

// tileCapFor is the groups the output of a build in several pieces is
// first made for, given tileGroups' estimate (tests make it small, so
// the output grows).
var tileCapFor = func(estimate int64) int64 { return estimate }

// cooAt is the first COO entry of row r of md (its device offsets; r
// one of its copy's rows, or its end). Inside Do.
func (d *Device) cooAt(md *Matrix, r int) int64 {
	var x int64
	cu.MemcpyDtoH(unsafe.Pointer(&x), md.byRow(md.cooPtr, 8)+cu.DevicePtr(8*int64(r)), 8)
	return x
}

// tlPool is how many warps group streams, each taking streams until
// none is left: for groupsNear as many as the device holds at once
// (tl_group's 48 registers a thread leave room for 40 warps a
// multiprocessor); for groups, whose waiting lists take 48 KB a warp,
// 32 a multiprocessor (kron21 on an H200: 10.6 ms, 11.8 with 40).
func tlPool(sms int, near bool) int {
	if near {
		return sms * 40
	}
	return sms * 32
}

// deviceTiles builds md's tiles of shape ts on the device into md's tile
// buffers (md.tileBufs) and returns their description, equal to
// makePullTiles' without its arcs, vals, base and vrow (on the device).
// TilesOnDevice(md.m, ts) must hold. Inside Do.
func (d *Device) deviceTiles(md *Matrix, ts TileSpec, pt *phase.Trace) *Tiles {
	m := md.m
	mod := d.tilesDevModule()
	n, nnz := m.N, m.NNZ()
	rowBits, maxArcs := ts.RowBits, int64(ts.MaxArcs)
	R := 1 << rowBits
	nseg := (n + R - 1) >> rowBits
	t := &Tiles{rowBits: rowBits, maxArcs: ts.MaxArcs, near: ts.Near, columns: ts.Columns}
	var segFirst []int64 // (tilePlaces': segment s's first tile)
	var places []float32
	if ts.Columns {
		segFirst, places = tilePlaces(m, rowBits, ts.MaxArcs)
		if pt != nil {
			pt.Mark("tiles: places")
		}
	}
	md.tileArcs, md.tileVal, md.tileBase = 0, 0, 0 // (made by grow below)
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }() // (on a panic; else freed below)
	// (the ELL and COO offsets by the matrix's rows, of which md's copy may
	// hold a window: byRow; the records are made from the window's rows)
	a := tlArg{ellCol: md.byRow(md.ellCol, 4), cooCol: md.cooCol, cooPtr: md.byRow(md.cooPtr, 8), nnz: nnz, coo: m.CooNNZ(),
		n: n, k: m.K, pitch: md.pitch, rowBits: rowBits, slotBits: rowBits + 1, nseg: nseg, rmax: min(R, n), vmax: tileVMax(rowBits)}
	weighted := m.Weighted()
	if weighted {
		a.ellVal, a.cooVal = md.byRow(md.ellVal, 4), md.cooVal
	}
	if ts.Near {
		a.near = 1
	}
	unused := make([]byte, 4)
	most := int64(d.SMs) * 16
	// (traced: the build's peak above what was in use when it began,
	// sampled where each phase's temporaries are all made, against
	// tileBuildBytes and tileBytes' estimate)
	var free0, low int64
	note := func() {}
	if pt != nil {
		free0, _ = d.MemInfo()
		low = free0
		note = func() { f, _ := d.MemInfo(); low = min(low, f) }
	}
	segBlocks := min(int64(nseg), most)

	// The segments' slots: split rows, virtual slots, their warps.
	if c := d.csrFor(m.Src); c != nil {
		// (the graph's copy: an undirected graph's matrix; its rows side by
		// side for the searches of a symmetric matrix's ranks)
		a.rowPtr, a.csrCol = c.rowPtr, c.col
	} else {
		a.rowPtr = rt.Put(d, &tmp, m.Src.RowPtr)
	}
	a.part, a.parts, a.nv = rt.Alloc(&tmp, int64(n)*4), rt.Alloc(&tmp, int64(n)*4), rt.Alloc(&tmp, int64(nseg)*4)
	mod.Launch2("tl_plan", segBlocks, d.Stream(), a.bytes(), unused)
	d.Sync()
	nv := make([]int32, nseg)
	cu.MemcpyDtoH(unsafe.Pointer(&nv[0]), a.nv, int64(nseg)*4)
	t.vfirst = make([]int32, nseg+1)
	for s, v := range nv {
		t.vfirst[s+1] = t.vfirst[s] + v
	}
	md.tileVFirst = rt.Put(d, &md.tileBufs, t.vfirst)
	a.vfirst = md.tileVFirst
	if V := int64(t.vfirst[nseg]); V > 0 {
		md.tileVRow = rt.Alloc(&md.tileBufs, V*4)
	} else {
		md.tileVRow = 0
	}
	a.vrow = md.tileVRow
	mod.Launch2("tl_vrow", segBlocks, d.Stream(), a.bytes(), unused)
	a.owner = rt.Alloc(&tmp, int64(nseg)*int64(a.rmax+a.vmax))
	mod.Launch2("tl_assign", segBlocks, d.Stream(), a.bytes(), unused)
	if pt != nil {
		d.Sync()
		pt.Mark("tiles: slots")
	}

	// The rest goes a piece of whole segments at a time (tilePieces: one
	// unless ts.Chunks asks for more, where the whole build would not fit
	// beside the run): a piece's records, sort, streams and groups need
	// room for its own entries only, and its entries go into the output
	// before the next piece's records are made. The output is made once
	// the groups are known where there is one piece; with several, at the
	// first piece, as large as tileBytes estimates, and grown where a
	// piece finds more groups than that.
	pieces := tilePieces(m, ts)
	last := len(pieces) - 2
	var most1 int64 // (the most entries of a piece)
	for i := range last + 1 {
		most1 = max(most1, m.Src.RowPtr[min(int(pieces[i+1])<<rowBits, n)]-m.Src.RowPtr[min(int(pieces[i])<<rowBits, n)])
	}
	// A symmetric matrix's records come in column order (its rows are its
	// columns), so only the sort by segment is needed; but a piece's rows
	// are not its columns, so pieces sort by column too. (tl_record then
	// reads any row: a copy of all of them.)
	if ts.Symmetric && last == 0 && md.rows == (Window{0, n}) {
		a.sym = 1
	}
	var keys, srcs, vals [2]cu.DevicePtr
	for i := range 2 {
		keys[i], srcs[i] = rt.Alloc(&tmp, most1*4), rt.Alloc(&tmp, most1*4)
		if weighted {
			vals[i] = rt.Alloc(&tmp, most1*4)
		}
	}
	tr := d.transposeModule()
	var hist, sums, streams, scratch, next cu.DevicePtr
	words := int64(tlGroupInts)
	if ts.Near {
		words = tlNearInts
	}
	pool := int64(tlPool(d.SMs, ts.Near))
	t.multi = make([]uint8, nseg)
	// grow makes the output room for want groups, the first used of them
	// kept, the rest padding (the dummy slot, weight 0) until tl_expand
	// writes entries over it.
	grow := func(used, want int64) {
		old := []cu.DevicePtr{md.tileArcs, md.tileVal, md.tileBase}
		arcs, base := rt.Alloc(&md.tileBufs, want*32*4), rt.Alloc(&md.tileBufs, want*4)
		vals := cu.DevicePtr(0)
		if weighted {
			vals = rt.Alloc(&md.tileBufs, want*32*4)
		}
		if used > 0 {
			cu.MemcpyDtoD(arcs, md.tileArcs, used*32*4)
			cu.MemcpyDtoD(base, md.tileBase, used*4)
			if weighted {
				cu.MemcpyDtoD(vals, md.tileVal, used*32*4)
			}
		}
		cu.CtxSynchronize() // (the copies ran on the legacy stream)
		rt.Free(&md.tileBufs, old...)
		md.tileArcs, md.tileVal, md.tileBase = arcs, vals, base
		f := a
		f.arcs, f.fill = arcs+cu.DevicePtr(used*32*4), (want-used)*32
		if weighted {
			f.vals = vals + cu.DevicePtr(used*32*4)
		}
		mod.Launch2("tl_fill", min(rt.Blocks(f.fill, rt.BlockSize), most), d.Stream(), f.bytes(), unused)
	}
	var segTiles []segTile
	var total, capacity int64 // (the output's groups: made, room for)
	for pi := range last + 1 {
		s0, s1 := int(pieces[pi]), int(pieces[pi+1])
		r0, r1 := min(s0<<rowBits, n), min(s1<<rowBits, n)
		b0 := m.Src.RowPtr[r0]
		e := m.Src.RowPtr[r1] - b0
		if e == 0 {
			continue // (its segments have no entries: no tiles)
		}
		// The piece's entries as records at their CSR places (from the
		// piece's first), sorted by column, then by segment: each
		// segment's entries by column, rows increasing. (Made from the
		// piece's rows that md's copy holds: the others have no entries.)
		a.recBase = b0
		a.r0 = min(max(r0, md.rows.Lo), md.rows.Hi)
		a.r1 = max(min(r1, md.rows.Hi), a.r0)
		a.cooLo, a.coo = 0, 0
		if m.CooNNZ() > 0 {
			a.cooLo, a.coo = d.cooAt(md, a.r0), d.cooAt(md, a.r1)
		}
		a.key, a.src, a.val = keys[1], srcs[1], vals[1]
		if slots := int64(m.K) * int64(a.r1-a.r0); slots > 0 {
			mod.Launch2("tl_rec_ell", min(rt.Blocks(slots, rt.BlockSize), most), d.Stream(), a.bytes(), unused)
		}
		if c := a.coo - a.cooLo; c > 0 {
			mod.Launch2("tl_rec_coo", min(rt.Blocks(c, 4096), most), d.Stream(), a.bytes(), unused)
		}
		if pi == last {
			// (the rows' offsets and slot counts are done with once the
			// last records are: the rest reads the records only)
			note()
			d.Sync()
			rt.Free(&tmp, a.rowPtr, a.part, a.parts, a.nv)
			a.rowPtr, a.csrCol, a.part, a.parts, a.nv = 0, 0, 0, 0, 0
		}
		if hist == 0 {
			hist, sums = sortScratch(&tmp, most1)
		}
		// (cur.key[f], cur.src[f] and cur.val[f]: the records' slots,
		// columns and weights; their other arrays are free after the sort)
		cur, f := sortBufs{key: keys, src: srcs, val: vals}, 1
		if a.sym == 0 {
			p1 := transposePasses(n)
			d.radixSort(tr, keys[1], srcs[1], vals[1], cur, e, 0, p1, hist, sums)
			// (sorted by column: now the slots are the keys, the columns ride)
			cur, f = sortBufs{key: srcs, src: keys, val: vals}, (p1-1)%2
		}
		if segBits := bits.Len(uint(nseg - 1)); segBits > 0 {
			p2 := (segBits + trDigitBits - 1) / trDigitBits
			b := sortBufs{key: [2]cu.DevicePtr{cur.key[1-f], cur.key[f]}, src: [2]cu.DevicePtr{cur.src[1-f], cur.src[f]}, val: [2]cu.DevicePtr{cur.val[1-f], cur.val[f]}}
			d.radixSort(tr, cur.key[f], cur.src[f], cur.val[f], b, e, rowBits+1, p2, hist, sums)
			cur, f = b, (p2-1)%2
		}
		a.sSlot, a.sCol, a.sVal = cur.key[f], cur.src[f], cur.val[f]
		a.key, a.src, a.val = 0, 0, 0
		if pt != nil {
			d.Sync()
			pt.Mark("tiles: sort")
		}

		// The piece's tiles: each segment's entries cut every maxArcs
		// (none for a segment without entries).
		var lo []int64
		var seg []int32
		var at []float32
		for s := s0; s < s1; s++ {
			q0, q1 := m.Src.RowPtr[min(s<<rowBits, n)], m.Src.RowPtr[min((s+1)<<rowBits, n)]
			for i := q0; i < q1; i += maxArcs {
				lo, seg = append(lo, i-b0), append(seg, int32(s))
				if places != nil {
					at = append(at, places[segFirst[s]+(i-q0)/maxArcs])
				} else {
					at = append(at, 0)
				}
				if i > q0 {
					t.multi[s] = 1
				}
			}
		}
		tiles := int64(len(seg))
		if tiles == 0 {
			continue
		}
		lo = append(lo, e)
		// (the piece's own buffers are in tmp too, freed with it on a
		// panic, and at the piece's end)
		a.tiles = tiles
		a.tileLo, a.tileSeg = rt.Put(d, &tmp, lo), rt.Put(d, &tmp, seg)
		a.streamOff = rt.Alloc(&tmp, tiles*(tileWarps+1)*4)
		if streams == 0 {
			streams = rt.Alloc(&tmp, most1*2)
		}
		a.streams, a.sectors = streams, rt.Alloc(&tmp, tiles*8)
		mod.Launch2("tl_streams", min(tiles, most), d.Stream(), a.bytes(), unused)
		if pt != nil {
			d.Sync()
			pt.Mark("tiles: streams")
		}

		// The groups of each stream.
		a.code, a.tmpBase, a.groups = cur.key[1-f], cur.src[1-f], rt.Alloc(&tmp, tiles*tileWarps*4)
		a.pool = int(min(pool, tiles*tileWarps))
		if scratch == 0 {
			scratch, next = rt.Alloc(&tmp, pool*words*4), rt.Alloc(&tmp, 8)
		}
		a.scratch, a.next = scratch, next
		note()
		d.Sync()
		cu.MemsetD32(a.next, 0, 2)
		cu.CtxSynchronize() // (the memset ran on the legacy stream)
		mod.Launch2("tl_group", rt.Blocks(int64(a.pool)*32, rt.BlockSize), d.Stream(), a.bytes(), unused)
		d.Sync()
		pt.Mark("tiles: groups")
		groups := make([]int32, tiles*tileWarps)
		sectors := make([]int64, tiles)
		cu.MemcpyDtoH(unsafe.Pointer(&groups[0]), a.groups, tiles*tileWarps*4)
		cu.MemcpyDtoH(unsafe.Pointer(&sectors[0]), a.sectors, tiles*8)
		if last == 0 {
			// (the groups' inputs and scratch are done with before the
			// output is made: tileBuildBytes counts the peak of each phase,
			// not their sum)
			rt.Free(&tmp, streams, scratch, next, hist, sums)
		}

		// Each stream's first group, and the tiles' costs (for their
		// launch order: launchOrder).
		groupOff := make([]int64, tiles*tileWarps)
		first := total
		for i := range int(tiles) {
			st := segTile{first: total * 32, seg: seg[i], at: at[i]}
			busiest := int64(0)
			for k := range tileWarps {
				g := int64(groups[i*tileWarps+k])
				groupOff[i*tileWarps+k] = total
				st.warp[k] = int32(total - st.first/32)
				total += g
				busiest = max(busiest, g)
			}
			st.warp[tileWarps] = int32(total - st.first/32)
			st.cost = tileCost(busiest, sectors[i])
			segTiles = append(segTiles, st)
		}

		// The piece's entries into their groups' lanes.
		if total > capacity {
			want := total
			if last > 0 {
				want = max(total, tileCapFor(tileGroups(m, rowBits, ts.MaxArcs)))
			}
			grow(first, want)
			capacity = want
			note()
			pt.Mark("tiles: output allocated")
		}
		a.groupOff = rt.Put(d, &tmp, groupOff)
		a.arcs, a.vals, a.base = md.tileArcs, md.tileVal, md.tileBase
		mod.Launch2("tl_expand", min(tiles, most), d.Stream(), a.bytes(), unused)
		d.Sync()
		rt.Free(&tmp, a.tileLo, a.tileSeg, a.streamOff, a.sectors, a.groups, a.groupOff)
	}
	launchOrder(segTiles, ts.Columns)
	tiles := len(segTiles)
	t.first = make([]int64, tiles)
	t.info = make([]int32, tiles)
	t.warp = make([]int32, 0, tiles*(tileWarps+1))
	for i, st := range segTiles {
		t.first[i], t.info[i] = st.first, st.seg
		if t.multi[st.seg] != 0 {
			t.info[i] |= -1 << 31
		}
		t.warp = append(t.warp, st.warp[:]...)
	}
	md.tileFirst, md.tileInfo = rt.Put(d, &md.tileBufs, t.first), rt.Put(d, &md.tileBufs, t.info)
	md.tileWarp, md.tileMulti = rt.Put(d, &md.tileBufs, t.warp), rt.Put(d, &md.tileBufs, t.multi)
	d.Sync()
	pt.Mark("tiles: entries")
	d.NotePeak()
	rt.FreeAll(tmp)
	tmp = nil
	pt.Mark("tiles: temporaries freed")
	if pt != nil {
		est := tileBytes(m, rowBits, ts.MaxArcs) + tileBuildBytes(m, ts, tlPool(d.SMs, ts.Near))
		pt.Mark(fmt.Sprintf("tiles: build peak %.2f GiB, estimated %.2f", float64(free0-low)/(1<<30), float64(est)/(1<<30)))
	}
	return t
}
