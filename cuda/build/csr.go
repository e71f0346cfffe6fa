//go:build cgo

package build

import (
	"cmp"
	"fmt"
	"slices"
	"time"
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
	d.mu.Lock()
	c.uploading = true
	d.mu.Unlock()
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
	c := &csrCopy{src: src, uploading: true}
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
	var cp, vp pieceCounts
	c.col, cp = assemble(d, &c.bufs, src.Col, func(o *csrCopy) ([]int32, cu.DevicePtr) { return o.src.Col, o.col })
	c.val, vp = assemble(d, &c.bufs, src.Val, func(o *csrCopy) ([]float32, cu.DevicePtr) { return o.src.Val, o.val })
	if all := len(src.Col) + len(src.Val); cp.host+vp.host < int64(all) {
		pt.Mark(fmt.Sprintf("columns and values (%.1f%% from the host, %.1f%% from other devices, the rest on this one)",
			100*float64(cp.host+vp.host)/float64(all), 100*float64(cp.peer+vp.peer)/float64(all)))
	} else {
		pt.Mark("columns and values")
	}
	d.mu.Lock()
	c.done = true
	d.mu.Unlock()
	ok = true
	return c
}

// AddPeers lets d copy the pieces of a graph's CSR that devs' copies
// hold (assemble): the devices of a partitioned run, whose parts hold
// their rows' columns, pieces of the whole graph's.
func (d *Device) AddPeers(devs ...*Device) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, o := range devs {
		if o != d && !slices.Contains(d.peers, o) {
			d.peers = append(d.peers, o)
		}
	}
}

// A piece is host[lo:hi] of an array assemble makes, held at p on from
// by its CSR copy c (pinned: c.readers).
type piece struct {
	from   *Device
	c      *csrCopy
	p      cu.DevicePtr
	lo, hi int
}

// pieceWait bounds how long assemble waits for a peer's copy of a piece
// that is uploading: the two parts of kron27 finished theirs 157 ms
// apart, and a half of its columns from the host took 412-569 ms.
const pieceWait = time.Second

// pieceCounts are the elements of an array assemble copied from the host
// and from other devices.
type pieceCounts struct{ host, peer int64 }

// assemble makes a device copy of host (a graph's columns or values),
// owned by bufs, from the pieces of it that d's or its peers' CSR copies
// hold (of gives a copy's host array of host's kind and its device
// address), copied on and between the devices, and the rest from the
// host; it returns the copy and where its elements came from.
// A partitioned run's parts each upload their rows, and triangle
// counting's orientation reads the whole graph on every part's device:
// kron27's 17 GB of columns took each of two H200s 990 ms from the host,
// beside its part's 412-569 ms (docs/parts.md). Inside Do.
func assemble[T int32 | float32](d *Device, bufs *[]cu.DevicePtr, host []T, of func(*csrCopy) ([]T, cu.DevicePtr)) (cu.DevicePtr, pieceCounts) {
	var n pieceCounts
	if len(host) == 0 {
		return 0, n
	}
	dst := rt.Alloc(bufs, int64(len(host))*4)
	ps := findPieces(d, host, of)
	defer unpin(ps)
	upload := func(lo, hi int) {
		if hi > lo {
			d.HtoD(dst+cu.DevicePtr(4*lo), unsafe.Pointer(&host[lo]), 4*int64(hi-lo))
			n.host += int64(hi - lo)
		}
	}
	at := 0
	for _, pc := range ps {
		if pc.hi <= at {
			continue
		}
		lo := max(pc.lo, at)
		upload(at, lo)
		if pc.from != d {
			d.EnablePeer(pc.from.RT())
			n.peer += int64(pc.hi - lo)
		}
		d.CopyFrom(dst+cu.DevicePtr(4*lo), pc.from.RT(), pc.p+cu.DevicePtr(4*(lo-pc.lo)), 4*int64(pc.hi-lo))
		at = pc.hi
	}
	upload(at, len(host))
	d.Sync() // (the pieces read: their copies may go)
	return dst, n
}

// findPieces is the pieces of host that d's and its peers' done CSR
// copies hold, pinned, by their first element (d's own first where two
// start alike). It waits, up to pieceWait, for a peer's copy of a piece
// that is uploading, unless that peer is looking for pieces itself (two
// parts' devices that reach the whole graph at once would wait for each
// other's).
func findPieces[T int32 | float32](d *Device, host []T, of func(*csrCopy) ([]T, cu.DevicePtr)) []piece {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(host)))
	end := base + uintptr(len(host))*4
	d.mu.Lock()
	devs := append([]*Device{d}, d.peers...)
	d.finding = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.finding = false
		d.mu.Unlock()
	}()
	deadline := time.Now().Add(pieceWait)
	for {
		var ps []piece
		waiting := false
		for _, o := range devs {
			o.mu.Lock()
			for _, c := range o.csrs {
				s, p := of(c)
				a := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
				if len(s) == 0 || a < base || a+uintptr(len(s))*4 > end {
					continue
				}
				if !c.done || c.cancelled || p == 0 {
					waiting = waiting || o != d && c.uploading && !c.cancelled && !o.finding
					continue
				}
				c.readers++
				lo := int(a-base) / 4
				ps = append(ps, piece{from: o, c: c, p: p, lo: lo, hi: lo + len(s)})
			}
			o.mu.Unlock()
		}
		if !waiting || time.Now().After(deadline) {
			slices.SortStableFunc(ps, func(a, b piece) int { return cmp.Compare(a.lo, b.lo) })
			return ps
		}
		unpin(ps)
		time.Sleep(time.Millisecond)
	}
}

// unpin lets the copies of pieces go (findPieces pinned them).
func unpin(ps []piece) {
	for _, pc := range ps {
		pc.from.mu.Lock()
		pc.c.readers--
		pc.from.mu.Unlock()
	}
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
		if c.readers == 0 && (c.done && (all || !d.backs(c)) || !c.done && pending) {
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

// AdoptPiece keeps columns and values of a graph made on the device
// (cuda/gen's part: col and val, 0 for none, held in bufs, which go with
// them) as the copy of col and val, a piece of its host arrays: a copy of
// a CSR whose arrays hold that piece takes it from here (assemble), not
// from the host. No matrix is built from a piece itself: the next
// DropCSRs that drops copies no matrix is built from drops it. Inside Do.
func (d *Device) AdoptPiece(col []int32, colPtr cu.DevicePtr, val []float32, valPtr cu.DevicePtr, bufs []cu.DevicePtr) {
	d.keepCSR(&csrCopy{col: colPtr, val: valPtr, bufs: bufs}, hyb.CSR{Col: col, Val: val})
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
