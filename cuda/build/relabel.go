//go:build cgo

package build

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A graph renumbered by degree on the device (issue 24, item 2):
// datasets.Graph.Relabel(RelabelDegree) on the host takes 353-423 ms of
// kron21 on the H100 machine's 16 cores and 4.7 times the file at its
// peak (session 24, call 5). Here the CSR (the device's copy, or
// uploaded for it) is renumbered with transpose.cu's tr_rl_ kernels and
// two device transposes; the new arrays come back into arrays of the
// size of the graph's own, and stay on the device as the new graph's
// copy, so its first run uploads nothing.

// rlArg is transpose.cu's RL_Arg.
type rlArg struct {
	rowPtr, key, ids, order, newID, in, out cu.DevicePtr
	nnz                                     int64
	n, maxDeg                               int
}

func (a *rlArg) bytes() []byte {
	b := make([]byte, 72)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{a.rowPtr, a.key, a.ids, a.order, a.newID, a.in, a.out} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	le.PutUint64(b[56:], uint64(a.nnz))
	le.PutUint32(b[64:], uint32(a.n))
	le.PutUint32(b[68:], uint32(a.maxDeg))
	return b
}

// relabelBytes bounds the device memory RelabelByDegree needs besides
// the graph's copy: the sort of the ids (keys, ids and their buffers, the
// new ids), the renumbered columns, and two transposes at once. An
// undirected graph's transposes go in chunks (transposeRows: their rows
// are the degrees in the new order), the renumbered columns freed before
// the second: about 8 bytes an arc at the peak, where the whole sorts took
// 36 and kron27 (4.2 G arcs) went to the host (35 s).
func relabelBytes(g *datasets.Graph) int64 {
	n, nnz, weighted := g.N, g.NNZ(), g.W != nil
	tiles := (int64(n) + trTile - 1) / trTile
	sortB := tiles*trRadix*4 + (tiles*trRadix+trScanChunk-1)/trScanChunk*8
	if g.Directed {
		return int64(n)*4*6 + sortB + nnz*4 + 2*deviceTransposeBytes(n, nnz, weighted)
	}
	t := transposeRowsBytes(g.RowPtr, weighted) // (the new rows' chunks are alike)
	out := int64(n+1)*8 + nnz*4
	if weighted {
		out += nnz * 4
	}
	return int64(n)*4*6 + sortB + max(nnz*4+t, out+t)
}

// RelabelByDegree is driver.DegreeRelabeler's on the device open
// returns (opened while the host makes the new arrays): g renumbered by
// decreasing degree, ties by increasing id, interleaved over parts
// (datasets.InterleaveParts), array by array what
// g.RelabelParts(datasets.RelabelDegree, parts) makes (g itself where that
// order is g's own). An error (no device, too little memory) leaves the
// host to do it.
func RelabelByDegree(g *datasets.Graph, parts int, open func() (*Device, error)) (*datasets.Graph, error) {
	n, nnz := g.N, g.NNZ()
	if n < 2 || nnz == 0 {
		return g.RelabelParts(datasets.RelabelDegree, parts), nil // (nothing to move)
	}
	if nnz != int64(len(g.Col)) || (g.W != nil && len(g.W) != len(g.Col)) {
		return nil, fmt.Errorf("cuda: RelabelByDegree: inconsistent graph (%d arcs, %d columns, %d weights)", nnz, len(g.Col), len(g.W))
	}
	// (the new arrays' pages are touched while the device opens and works)
	p, touched := newRelabelled(g)
	defer func() { <-touched }()
	d, err := open()
	if err != nil {
		return nil, err
	}
	maxDeg := g.MaxDegree()
	if maxDeg >= 1<<31-1 {
		return nil, fmt.Errorf("cuda: RelabelByDegree: a row of %d arcs", maxDeg)
	}
	src := hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}
	var out *datasets.Graph
	err = d.Do("renumbering a graph by degree", func() error {
		had := d.csrFor(src)
		need := relabelBytes(g)
		if had == nil {
			need += csrBytes(src)
		}
		if free, _ := d.MemInfo(); need > free {
			return fmt.Errorf("cuda: renumbering by degree needs %d MiB of device memory, %d MiB are free (the host does it)", need>>20, free>>20)
		}
		pt := phase.New("cuda", "relabel")
		defer pt.Print()
		out = d.relabelOnDevice(g, p, touched, had, maxDeg, parts, pt)
		return nil
	})
	return out, err
}

// newRelabelled allocates the arrays of g renumbered and touches their
// pages on every core in a goroutine, closing touched when done: copied
// back into untouched pages, kron21's 270 MB took 56 ms (a page fault
// every 4 KB on the staging's copies).
func newRelabelled(g *datasets.Graph) (*datasets.Graph, <-chan struct{}) {
	n, nnz := g.N, g.NNZ()
	p := &datasets.Graph{Name: g.Name, N: n, RowPtr: make([]int64, n+1), Col: make([]int32, nnz),
		Directed: g.Directed, IDs: make([]int64, n), Stats: g.Stats, RepeatFree: g.RepeatFree}
	if g.W != nil {
		p.W = make([]float32, nnz)
	}
	touched := make(chan struct{})
	go func() {
		touchPages(unsafe.Pointer(&p.RowPtr[0]), len(p.RowPtr)*8)
		touchPages(unsafe.Pointer(&p.Col[0]), len(p.Col)*4)
		if p.W != nil {
			touchPages(unsafe.Pointer(&p.W[0]), len(p.W)*4)
		}
		close(touched)
	}()
	return p, touched
}

// relabelOnDevice is RelabelByDegree inside Do: from had, the
// device's copy of g (nil: uploaded for this and freed after), into p
// (newRelabelled's) once touched is closed.
func (d *Device) relabelOnDevice(g, p *datasets.Graph, touched <-chan struct{}, had *csrCopy, maxDeg, parts int, pt *phase.Trace) *datasets.Graph {
	n, nnz := g.N, g.NNZ()
	// (tbuf: the transposes' first, freed as soon as the second is made;
	// mapped: the renumbered columns, freed after the first)
	var tmp, tbuf, mapped []cu.DevicePtr
	c := &csrCopy{}
	ok := false
	defer func() {
		rt.FreeAll(tmp)
		rt.FreeAll(tbuf)
		rt.FreeAll(mapped)
		if !ok { // (a device error panics out of here: Do reports it)
			rt.FreeAll(c.bufs)
		}
	}()
	var rowPtr, col, val cu.DevicePtr
	if had != nil {
		rowPtr, col = had.rowPtr, had.col
		if g.W != nil {
			val = had.val
		}
		pt.Mark("CSR on the device")
	} else {
		rowPtr, col, val = rt.Put(d, &tmp, g.RowPtr), rt.Put(d, &tmp, g.Col), rt.Put(d, &tmp, g.W)
		pt.Mark("upload")
	}
	mod := d.transposeModule()
	most := int64(d.SMs) * 16
	unused := make([]byte, 4)
	launch := func(name string, threads int64, a *rlArg) {
		mod.Launch2(name, min(rt.Blocks(threads, rt.BlockSize), most), d.Stream(), a.bytes(), unused)
	}
	// The new ids: the ids sorted stably by maxDeg - degree.
	a := rlArg{rowPtr: rowPtr, key: rt.Alloc(&tmp, int64(n)*4), ids: rt.Alloc(&tmp, int64(n)*4), newID: rt.Alloc(&tmp, int64(n)*4), n: n, maxDeg: maxDeg}
	launch("tr_rl_keys", int64(n), &a)
	var sbuf []cu.DevicePtr
	b := sortBufs{key: [2]cu.DevicePtr{rt.Alloc(&sbuf, int64(n)*4), rt.Alloc(&sbuf, int64(n)*4)}, src: [2]cu.DevicePtr{rt.Alloc(&tmp, int64(n)*4), rt.Alloc(&tmp, int64(n)*4)}}
	hist, sums := sortScratch(&sbuf, int64(n))
	passes := transposePasses(maxDeg + 1)
	d.radixSort(mod, a.key, a.ids, 0, b, int64(n), 0, passes, hist, sums)
	a.order = b.src[(passes-1)%2]
	order := make([]int32, n)
	if parts > 1 {
		// (the ranks interleaved over the parts on the host: a pass over
		// 4n bytes each way)
		d.Sync()
		d.DtoH(unsafe.Pointer(&order[0]), a.order, int64(n)*4)
		order = datasets.InterleaveOrder(order, parts)
		d.HtoD(a.order, unsafe.Pointer(&order[0]), int64(n)*4)
	}
	launch("tr_rl_newid", int64(n), &a)
	d.Sync()
	rt.FreeAll(sbuf)
	if parts <= 1 {
		d.DtoH(unsafe.Pointer(&order[0]), a.order, int64(n)*4)
	}
	pt.Mark("order")
	identity := true
	for i, v := range order {
		if int(v) != i {
			identity = false
			break
		}
	}
	if identity {
		return g // (already in that order)
	}
	// The columns renumbered, transposed (rows the new columns, the old
	// tails in input order), renumbered, transposed back. An undirected
	// graph's rows, in the new order, are its degrees: its transposes go in
	// chunks (transposeRows), the renumbered columns freed between them.
	transpose := func(bufs *[]cu.DevicePtr, rp, col, val cu.DevicePtr, rows []int64) (cu.DevicePtr, cu.DevicePtr, cu.DevicePtr) {
		return d.deviceTranspose(bufs, rp, col, val, n, nnz)
	}
	var newRows []int64
	if !g.Directed {
		newRows = make([]int64, n+1)
		par.Blocks(n, func(_, lo, hi int) {
			for j := lo; j < hi; j++ {
				v := order[j]
				newRows[j+1] = g.RowPtr[v+1] - g.RowPtr[v]
			}
		})
		par.PrefixSum(newRows)
		transpose = func(bufs *[]cu.DevicePtr, rp, col, val cu.DevicePtr, rows []int64) (cu.DevicePtr, cu.DevicePtr, cu.DevicePtr) {
			return d.transposeRows(bufs, rp, col, val, rows, newRows)
		}
	}
	a.in, a.out, a.nnz = col, rt.Alloc(&mapped, nnz*4), nnz
	launch("tr_rl_map", nnz, &a)
	tRow, tCol, tVal := transpose(&tbuf, rowPtr, a.out, val, g.RowPtr)
	d.Sync()
	rt.FreeAll(mapped)
	mapped = nil
	a.in, a.out = tCol, tCol
	launch("tr_rl_map", nnz, &a)
	c.rowPtr, c.col, c.val = transpose(&c.bufs, tRow, tCol, tVal, newRows)
	rt.FreeAll(tbuf)
	tbuf = nil
	pt.Mark("renumbered")
	par.Blocks(n, func(_, lo, hi int) {
		for nv := lo; nv < hi; nv++ {
			p.IDs[nv] = g.OriginalID(order[nv])
		}
	})
	<-touched
	pt.Mark("pages touched")
	d.DtoH(unsafe.Pointer(&p.RowPtr[0]), c.rowPtr, int64(n+1)*8)
	d.DtoH(unsafe.Pointer(&p.Col[0]), c.col, nnz*4)
	if p.W != nil {
		d.DtoH(unsafe.Pointer(&p.W[0]), c.val, nnz*4)
	}
	pt.Mark("copied back")
	// The new graph's copy stays on the device.
	d.keepCSR(c, hyb.CSR{RowPtr: p.RowPtr, Col: p.Col, Val: p.W})
	ok = true
	return p
}

// touchPages writes a zero into every 4 KB page of the bytes at b, on
// every core: the page faults of fresh memory, taken ahead.
func touchPages(b unsafe.Pointer, bytes int) {
	const page = 4096
	pages := (bytes + page - 1) / page
	par.Blocks(pages, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			*(*byte)(unsafe.Add(b, i*page)) = 0
		}
	})
}
