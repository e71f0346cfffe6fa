//go:build cgo

package build

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
)

// peerDev is a second device for the pieces' test: device 1 where there
// is one, else a second context on device 0.
var peerDev gputest.Device[*Device]

// TestWholeCSRFromPieces: where a partitioned run's parts left their
// rows' columns and values on their devices (pieces of the whole graph's
// arrays), a device's copy of the whole graph takes them from there, on
// the device and from its peer, and only the rows of no part from the
// host, none where the generator left those (AdoptPiece); the copy equals
// the host's arrays.
func TestWholeCSRFromPieces(t *testing.T) {
	d := needGPU(t)
	e := peerDev.Get(t, func() (*Device, error) {
		if n, err := rt.DeviceCount(); err == nil && n > 1 {
			return Open(1)
		}
		return Open(0)
	})
	dropAllCSRs(d)
	dropAllCSRs(e)
	defer dropAllCSRs(e)
	defer dropAllCSRs(d)
	rng := rand.New(rand.NewPCG(4, 4))
	rowPtr, col := skewedCSR(rng, 30000, 3000)
	val := make([]float32, len(col))
	for i := range val {
		val[i] = rng.Float32()
	}
	n := len(rowPtr) - 1
	a, b := n/3, 2*n/3
	// rows [lo, hi) as a part's pull holds them (vertexprog's partPull):
	// its own row offsets, the whole graph's columns and values
	part := func(lo, hi int) hyb.CSR {
		base := rowPtr[lo]
		rp := make([]int64, hi-lo+1)
		for i := range rp {
			rp[i] = rowPtr[lo+i] - base
		}
		return hyb.CSR{RowPtr: rp, Col: col[base:rowPtr[hi]], Val: val[base:rowPtr[hi]]}
	}
	// (rows [0, a) on the peer, [a, b) on d, [b, n) on neither)
	_ = e.Do("uploading a part", func() error { e.borrowCSR(part(0, a), nil); return nil })
	_ = d.Do("uploading a part", func() error { d.borrowCSR(part(a, b), nil); return nil })
	d.AddPeers(e)
	_ = d.Do("assembling the columns", func() error {
		var bufs []cu.DevicePtr
		defer func() { rt.FreeAll(bufs) }()
		p, got := assemble(d, &bufs, col, func(o *csrCopy) ([]int32, cu.DevicePtr) { return o.src.Col, o.col })
		if want := (pieceCounts{host: rowPtr[n] - rowPtr[b], peer: rowPtr[a]}); got != want {
			t.Errorf("columns from the host and the peer %+v, want %+v", got, want)
		}
		if got := download[int32](p, int64(len(col))); !slices.Equal(got, col) {
			t.Error("the assembled columns differ from the host's")
		}
		return nil
	})
	// (rows [b, n) as the generator leaves a part: its columns and values
	// on the device, no row offsets)
	_ = d.Do("adopting a piece", func() error {
		var bufs []cu.DevicePtr
		c, v := rt.Put(d, &bufs, col[rowPtr[b]:]), rt.Put(d, &bufs, val[rowPtr[b]:])
		d.AdoptPiece(col[rowPtr[b]:], c, val[rowPtr[b]:], v, bufs)
		return nil
	})
	_ = d.Do("assembling the values", func() error {
		var bufs []cu.DevicePtr
		defer func() { rt.FreeAll(bufs) }()
		p, got := assemble(d, &bufs, val, func(o *csrCopy) ([]float32, cu.DevicePtr) { return o.src.Val, o.val })
		if want := (pieceCounts{peer: rowPtr[a]}); got != want {
			t.Errorf("values from the host and the peer %+v, want %+v", got, want)
		}
		if got := download[float32](p, int64(len(val))); !slices.Equal(got, val) {
			t.Error("the assembled values differ from the host's")
		}
		return nil
	})
	whole := hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
	_ = d.Do("copying the whole graph", func() error {
		c := d.borrowCSR(whole, nil)
		if c.src.RowPtr == nil || !c.covers(whole) {
			t.Fatal("the whole graph's copy does not cover it")
		}
		if got := download[int64](c.rowPtr, int64(len(rowPtr))); !slices.Equal(got, rowPtr) {
			t.Error("the copy's row offsets differ from the host's")
		}
		if got := download[int32](c.col, int64(len(col))); !slices.Equal(got, col) {
			t.Error("the copy's columns differ from the host's")
		}
		if got := download[float32](c.val, int64(len(val))); !slices.Equal(got, val) {
			t.Error("the copy's values differ from the host's")
		}
		return nil
	})
	// (no matrix is built from a piece: it goes with the copies no matrix
	// is built from)
	_ = d.Do("dropping copies", func() error { d.DropCSRs(false, false); return nil })
	d.mu.Lock()
	for _, c := range d.csrs {
		if c.src.RowPtr == nil {
			t.Error("the adopted piece outlived DropCSRs")
		}
	}
	d.mu.Unlock()
	// (the pieces are no longer pinned: they can go)
	for _, x := range []*Device{d, e} {
		x.mu.Lock()
		for _, c := range x.csrs {
			if c.readers != 0 {
				t.Errorf("a copy still has %d readers", c.readers)
			}
		}
		x.mu.Unlock()
	}
}
