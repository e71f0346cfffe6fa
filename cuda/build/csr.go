//go:build cgo

package build

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// sameRows reports whether two CSRs have the same row offsets and
// columns (the same arrays).
func sameRows(a, b hyb.CSR) bool {
	return len(a.RowPtr) == len(b.RowPtr) && len(a.Col) == len(b.Col) &&
		unsafe.SliceData(a.RowPtr) == unsafe.SliceData(b.RowPtr) && unsafe.SliceData(a.Col) == unsafe.SliceData(b.Col)
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

// Prefetch is driver.Prefetcher's on d: it registers the copy and
// makes it in a goroutine of its own, when the device is free.
func (d *Device) Prefetch(rowPtr []int64, col []int32, val []float32) {
	if d.Hooks.Unstaged || len(rowPtr) == 0 {
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
// room for it and a matrix built from it. Inside Do.
func (d *Device) prefetch(c *csrCopy) {
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
	for m, md := range d.Cache.m {
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
// matrices of its rows. Inside Do.
func (d *Device) addValues(c *csrCopy, val []float32) {
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
// them a second time). Inside Do.
func (d *Device) borrowCSR(src hyb.CSR, pt *phase.Trace) *csrCopy {
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
func (d *Device) csrFor(src hyb.CSR) *csrCopy {
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
// Inside Do.
func (d *Device) backs(c *csrCopy) bool {
	for m := range d.Cache.m {
		if sameRows(m.Src, c.src) || derivedFrom(m, c.src) {
			return true
		}
	}
	return false
}

// dropCSRs frees the device's CSR copies: the pending ones (cancelled:
// their upload will not happen) where pending is set, the done ones that
// no cached matrix is built from, and with all the done ones too. Inside
// Do.
func (d *Device) DropCSRs(pending, all bool) {
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
// graph), to the CSR copies as done, its source src. Inside Do.
func (d *Device) keepCSR(c *csrCopy, src hyb.CSR) {
	c.src = src
	c.done = true
	d.mu.Lock()
	d.csrs = append(d.csrs, c)
	d.mu.Unlock()
	d.NotePeak()
}

// AdoptCSR keeps a graph's CSR made on the device (cuda/gen's: rowPtr,
// col and val, 0 for none, held in bufs, which go with it) as the copy of
// src, its host arrays: the matrices built from src then read it, without
// an upload. Inside Do.
func (d *Device) AdoptCSR(src hyb.CSR, rowPtr, col, val cu.DevicePtr, bufs []cu.DevicePtr) {
	d.keepCSR(&csrCopy{rowPtr: rowPtr, col: col, val: val, bufs: bufs}, src)
}

// dropCSR frees c and forgets it. Inside Do.
func (d *Device) dropCSR(c *csrCopy) {
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
