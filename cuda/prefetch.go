//go:build cgo

package cuda

import (
	"github.com/hpgraph/hpgraph/cuda/rt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A graph's CSR on the device. Every matrix built on the device
// (buildOnDevice, transposedOnDevice) borrows it (borrowCSR) instead of
// uploading the same arrays, and it stays while a cached matrix is built
// from it: the next app's matrix on the same graph (other HYB options,
// weights or none, a multiset program's, a transpose) is built without
// an upload. kron21's first LDBC PageRank after BFS, SSSP and TC in one
// process uploaded its 270 MB again: 21.5 ms of its 44.6 ms PREPROCESS
// (docs/perf.md, session 21).
//
// The copy is made early where it can be (vertexprog.Prefetcher): in a
// goroutine of its own while the host prepares the run, so that the
// upload overlaps the host's PREPROCESS where the device is open already
// (a server loading a graph, bench's first run; a fresh process opens the
// device after the host's passes are done, so there it only moves the
// upload: docs/perf.md, session 18).
//
// Copies go when nothing is built from them (dropCSRs): a run's start
// drops the pending copies (too late for it) and those no cached matrix
// is built from, a trim of the matrix cache the copies of the graphs
// whose matrices it freed, and a run short of device memory every copy
// (a copy costs an upload to make again, a matrix a build).
type csrCopy struct {
	src              hyb.CSR // the host arrays (Val nil: the copy has no values)
	rowPtr, col, val cu.DevicePtr
	bufs             []cu.DevicePtr
	done, cancelled  bool // under device.mu
}

// sameRows reports whether two CSRs have the same row offsets and
// columns (the same arrays).
func sameRows(a, b hyb.CSR) bool {
	return len(a.RowPtr) == len(b.RowPtr) && len(a.Col) == len(b.Col) &&
		unsafe.SliceData(a.RowPtr) == unsafe.SliceData(b.RowPtr) && unsafe.SliceData(a.Col) == unsafe.SliceData(b.Col)
}

// derivedOf is the CSR a transposed or symmetrized matrix is described
// from (hyb.Matrix.TransposeOf, SymmetrizeOf), or nil.
func derivedOf(m *hyb.Matrix) *hyb.CSR {
	if m.TransposeOf != nil {
		return m.TransposeOf
	}
	return m.SymmetrizeOf
}

// derivedFrom reports whether m is described from src's rows (its
// transpose or its undirected view).
func derivedFrom(m *hyb.Matrix, src hyb.CSR) bool {
	of := derivedOf(m)
	return of != nil && sameRows(*of, src)
}

// sameVals reports whether two CSRs' values are the same array.
func sameVals(a, b hyb.CSR) bool {
	return len(a.Val) == len(b.Val) && unsafe.SliceData(a.Val) == unsafe.SliceData(b.Val)
}

// covers reports whether c holds what a matrix built from src reads: its
// row offsets and columns, and its values unless src has none (a
// weighted graph's copy serves its unweighted matrices).
func (c *csrCopy) covers(src hyb.CSR) bool {
	return sameRows(c.src, src) && (src.Val == nil || sameVals(c.src, src))
}

// Prefetch implements vertexprog.Prefetcher: it registers the copy and
// makes it in a goroutine of its own, when the device is free.
func (b *Backend) Prefetch(rowPtr []int64, col []int32, val []float32) {
	d, err := b.device()
	if err != nil || d.Hooks.Unstaged || len(rowPtr) == 0 {
		return
	}
	c := &csrCopy{src: hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}}
	d.mu.Lock()
	d.csrs = append(d.csrs, c)
	d.mu.Unlock()
	go func() { _ = d.Do("prefetching a graph", func() error { d.prefetch(c); return nil }) }()
}

// prefetch copies c to the device unless a run took or dropped it first,
// a copy on the device covers it already (or has its rows without values:
// then only the values go, to that copy), a cached matrix has it as its
// source (or is its transpose: its graph's copy was dropped for memory,
// and uploading it for every query would not pay), or the device has not
// room for it and a matrix built from it. Inside device.do.
func (d *device) prefetch(c *csrCopy) {
	d.mu.Lock()
	cancelled := c.cancelled
	var covered, rows *csrCopy
	for _, o := range d.csrs {
		switch {
		case !o.done || o == c:
		case o.covers(c.src):
			covered = o
		case sameRows(o.src, c.src) && o.src.Val == nil:
			rows = o
		}
	}
	d.mu.Unlock()
	if cancelled {
		return
	}
	if covered != nil || rows != nil {
		d.dropCSR(c)
		if covered == nil {
			pt := phase.New("cuda", "prefetch")
			defer pt.Print()
			_ = rt.Catch("prefetching a graph's values", func() error { d.addValues(rows, c.src.Val); return nil })
			pt.Mark("values (rows on the device)")
		}
		return
	}
	for m, md := range d.cache.m {
		if (sameRows(m.Src, c.src) || derivedFrom(m, c.src)) && md.consistent() {
			d.dropCSR(c)
			return
		}
	}
	if free, _ := d.MemInfo(); 3*csrBytes(c.src) > free {
		d.dropCSR(c)
		return
	}
	pt := phase.New("cuda", "prefetch")
	defer pt.Print()
	err := rt.Catch("prefetching a graph", func() error {
		c.rowPtr = rt.Put(d, &c.bufs, c.src.RowPtr)
		c.col = rt.Put(d, &c.bufs, c.src.Col)
		c.val = rt.Put(d, &c.bufs, c.src.Val)
		return nil
	})
	pt.Mark("upload")
	d.NotePeak()
	d.mu.Lock()
	c.done = err == nil
	d.mu.Unlock()
	if err != nil {
		d.dropCSR(c)
	}
}

// addValues uploads val to c, a copy without values, for the weighted
// matrices of its rows. Inside device.do.
func (d *device) addValues(c *csrCopy, val []float32) {
	p := rt.Put(d, &c.bufs, val)
	d.mu.Lock()
	c.val, c.src.Val = p, val
	d.mu.Unlock()
	d.NotePeak()
}

// csrBytes is the device memory of a copy of src.
func csrBytes(src hyb.CSR) int64 {
	return int64(len(src.RowPtr))*8 + int64(len(src.Col))*4 + int64(len(src.Val))*4
}

// borrowCSR returns the device's copy of src, which stays the device's:
// the copy that covers it, one with its rows given src's values, or a new
// upload. A pending copy of the same rows is cancelled (it would upload
// them a second time). Inside device.do.
func (d *device) borrowCSR(src hyb.CSR, pt *phase.Trace) *csrCopy {
	if c := d.csrFor(src); c != nil {
		pt.Mark("CSR on the device")
		return c
	}
	d.mu.Lock()
	var same *csrCopy
	var pending []*csrCopy
	for _, c := range d.csrs {
		switch {
		case !sameRows(c.src, src):
		case c.done && c.src.Val == nil:
			same = c
		case !c.done:
			pending = append(pending, c)
		}
	}
	d.mu.Unlock()
	for _, c := range pending {
		d.dropCSR(c)
	}
	if same != nil {
		d.addValues(same, src.Val)
		pt.Mark("values (rows on the device)")
		return same
	}
	c := &csrCopy{src: src}
	d.mu.Lock()
	d.csrs = append(d.csrs, c)
	d.mu.Unlock()
	ok := false
	defer func() {
		if !ok {
			d.dropCSR(c)
		}
	}()
	c.rowPtr = rt.Put(d, &c.bufs, src.RowPtr)
	pt.Mark("row offsets")
	c.col = rt.Put(d, &c.bufs, src.Col)
	pt.Mark("columns")
	c.val = rt.Put(d, &c.bufs, src.Val)
	d.mu.Lock()
	c.done = true
	d.mu.Unlock()
	ok = true
	return c
}

// csrFor is the copy on the device that covers src, or nil.
func (d *device) csrFor(src hyb.CSR) *csrCopy {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.csrs {
		if c.done && c.covers(src) {
			return c
		}
	}
	return nil
}

// backs reports whether a cached matrix is built from c's rows.
// Inside device.do.
func (d *device) backs(c *csrCopy) bool {
	for m := range d.cache.m {
		if sameRows(m.Src, c.src) || derivedFrom(m, c.src) {
			return true
		}
	}
	return false
}

// dropCSRs frees the device's CSR copies: the pending ones (cancelled:
// their upload will not happen) where pending is set, the done ones that
// no cached matrix is built from, and with all the done ones too. Inside
// device.do.
func (d *device) dropCSRs(pending, all bool) {
	d.mu.Lock()
	var drop []*csrCopy
	keep := d.csrs[:0]
	for _, c := range d.csrs {
		if c.done && (all || !d.backs(c)) || !c.done && pending {
			drop = append(drop, c)
		} else {
			keep = append(keep, c)
		}
	}
	clear(d.csrs[len(keep):])
	d.csrs = keep
	for _, c := range drop {
		c.cancelled = true
	}
	d.mu.Unlock()
	for _, c := range drop {
		rt.FreeAll(c.bufs)
		c.bufs = nil
	}
}

// keepCSR adds c, made on the device (an undirected view, a renumbered
// graph), to the CSR copies as done, its source src. Inside device.do.
func (d *device) keepCSR(c *csrCopy, src hyb.CSR) {
	c.src = src
	c.done = true
	d.mu.Lock()
	d.csrs = append(d.csrs, c)
	d.mu.Unlock()
	d.NotePeak()
}

// dropCSR frees c and forgets it. Inside device.do.
func (d *device) dropCSR(c *csrCopy) {
	d.mu.Lock()
	for i, o := range d.csrs {
		if o == c {
			d.csrs = append(d.csrs[:i], d.csrs[i+1:]...)
			break
		}
	}
	c.cancelled = true
	d.mu.Unlock()
	rt.FreeAll(c.bufs)
	c.bufs = nil
}
