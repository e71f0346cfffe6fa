//go:build cgo

package build

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/hyb"
)

// wholeCopy is a device copy of every row of m, as Cache.Get makes one
// without a window (for tests that build its arrays themselves).
func wholeCopy(m *hyb.Matrix) *Matrix {
	return &Matrix{m: m, rows: Window{0, m.N}, pitch: m.Pitch}
}

// partCSR is a skewed random CSR of n rows with entries in the rows
// [lo, hi) only, as a part's pull has (vertexprog's partPull), weighted
// or not.
func partCSR(rng *rand.Rand, n, lo, hi int, weighted bool) (rowPtr []int64, col []int32, val []float32) {
	full, all := skewedCSR(rng, n, 3000)
	rowPtr = make([]int64, n+1)
	for r := range n {
		if r >= lo && r < hi {
			col = append(col, all[full[r]:full[r+1]]...)
		}
		rowPtr[r+1] = int64(len(col))
	}
	if weighted {
		val = make([]float32, len(col))
		for i := range val {
			val[i] = rng.Float32() * 10
		}
	}
	return rowPtr, col, val
}

// TestRowsOf: a window's copy holds the window's rows, its first rounded
// down to a multiple of 32, at the pitch of those rows; every row where
// no window is asked, degrees are, the window is the whole matrix, or the
// matrix has entries outside it.
func TestRowsOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	n := 1000
	rowPtr, col, _ := partCSR(rng, n, 200, 700, false)
	m, err := hyb.Describe(n, rowPtr, col, nil, hyb.Options{RelativeSpeed: 3})
	if err != nil {
		t.Fatal(err)
	}
	all := Window{0, n}
	for _, c := range []struct {
		w       Window
		degrees bool
		rows    Window
		pitch   int
	}{
		{Window{}, false, all, m.Pitch},
		{Window{200, 700}, true, all, m.Pitch},
		{Window{200, 700}, false, Window{192, 700}, 512},
		{Window{192, 701}, false, Window{192, 701}, 512},
		{Window{150, 1000}, false, Window{128, 1000}, 896},
		{Window{0, 1000}, false, all, m.Pitch},
		{Window{0, 690}, false, all, m.Pitch},    // (entries past the window)
		{Window{224, 700}, false, all, m.Pitch},  // (entries before it)
		{Window{700, 200}, false, all, m.Pitch},  // (not a window)
		{Window{200, 1001}, false, all, m.Pitch}, // (past the rows)
	} {
		rows, pitch := rowsOf(m, c.w, c.degrees)
		if rows != c.rows || pitch != c.pitch {
			t.Errorf("window %v degrees %v: rows %v pitch %d, want %v and %d", c.w, c.degrees, rows, pitch, c.rows, c.pitch)
		}
	}
}

// TestWindowedCopyMatchesHost: a copy of a part's pull over its own rows
// holds, for each of them, the host's ELL slots and COO offsets (Pad
// past the window's rows), the host's COO entries, pull bins equal to the
// host's and tiles equal to the host's, built on the device or uploaded
// from a materialized matrix, all COO or with an ELL, weighted or not;
// the same matrix asked for whole is copied whole.
func TestWindowedCopyMatchesHost(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	rng := rand.New(rand.NewPCG(38, 2))
	lim := BinLimits{Thread: 1, Quad: 2, Warp: 8, Chunk: 16}
	ts := TileSpec{RowBits: 6, MaxArcs: 700}
	for _, n := range []int{5000, 70001} {
		for _, w := range []Window{{0, n / 64 * 32}, {n / 64 * 32, n}, {1005, n - 1000}} {
			for _, weighted := range []bool{false, true} {
				rowPtr, col, val := partCSR(rng, n, w.Lo, w.Hi, weighted)
				for oi, opt := range []hyb.Options{{RelativeSpeed: 3}, {RelativeSpeed: 3, MaxK: 1}, hyb.CPUOptions()} {
					want, err := hyb.FromCSR(n, rowPtr, col, val, opt)
					if err != nil {
						t.Fatal(err)
					}
					for _, described := range []bool{true, false} {
						m := want
						if described {
							if m, err = hyb.Describe(n, rowPtr, col, val, opt); err != nil {
								t.Fatal(err)
							}
						}
						name := fmt.Sprintf("n=%d window %v weighted %v options %d K=%d described %v", n, w, weighted, oi, m.K, described)
						checkWindowedCopy(t, d, name, m, want, w, lim, ts)
					}
				}
			}
		}
	}
}

func checkWindowedCopy(t *testing.T, d *Device, name string, m, want *hyb.Matrix, w Window, lim BinLimits, ts TileSpec) {
	t.Helper()
	lo := w.Lo &^ 31
	tiles := TilesOnDevice(m, ts)
	if !tiles {
		ts = TileSpec{}
	}
	err := d.Do("a window's copy", func() error {
		md := d.Cache.Get(m, true, false, lim, ts, w)
		defer func() { d.Cache.Release(md); d.Cache.free(md); d.DropCSRs(true, true) }()
		rows := w.Hi - lo
		if md.rows != (Window{lo, w.Hi}) || md.pitch != (rows+31)&^31 {
			t.Fatalf("%s: a copy of rows %v at pitch %d", name, md.rows, md.pitch)
		}
		slots := int64(m.K) * int64(md.pitch)
		gotCol, gotVal := download[int32](md.ellCol, slots), download[float32](md.ellVal, slots)
		for k := range m.K {
			for i := range md.pitch {
				r, c, v := lo+i, int32(hyb.Pad), float32(0)
				if r < m.N {
					c = want.EllCol[k*want.Pitch+r]
					if want.EllVal != nil {
						v = want.EllVal[k*want.Pitch+r]
					}
				}
				if s := k*md.pitch + i; gotCol[s] != c || gotVal != nil && gotVal[s] != v {
					t.Fatalf("%s: ELL slot %d of row %d differs from the host's (column %d, want %d)", name, k, r, gotCol[s], c)
				}
			}
		}
		if m.K > 0 && (gotVal != nil) != m.Weighted() { // (no slots, no values: K = 0)
			t.Errorf("%s: ELL values on the device: %v", name, gotVal != nil)
		}
		if got := download[int64](md.cooPtr, int64(rows+1)); !slices.Equal(got, want.CooPtr[lo:w.Hi+1]) {
			t.Errorf("%s: the COO offsets differ from the host's rows [%d, %d]", name, lo, w.Hi)
		}
		// (by the matrix's rows, as the kernels read them)
		if a, b := d.cooAt(md, lo), d.cooAt(md, w.Hi); a != want.CooPtr[lo] || b != want.CooPtr[w.Hi] {
			t.Errorf("%s: rows %d and %d's offsets by row %d and %d, want %d and %d", name, lo, w.Hi, a, b, want.CooPtr[lo], want.CooPtr[w.Hi])
		}
		coo := m.CooNNZ()
		if coo > 0 && (!slices.Equal(download[int32](md.cooCol, coo), want.CooCol) ||
			m.Weighted() && !slices.Equal(download[float32](md.cooVal, coo), want.CooVal)) {
			t.Errorf("%s: the COO entries differ from the host's", name)
		}
		bins := makePullBins(want.CooPtr, lim)
		got := md.Bins
		if got.nWarp != bins.nWarp || got.nQuad != bins.nQuad || got.nThread != bins.nThread ||
			len(bins.rows) > 0 && !slices.Equal(download[int32](md.binRows, int64(len(bins.rows))), bins.rows) ||
			!slices.Equal(got.heavyRow, bins.heavyRow) || !slices.Equal(got.chunkHeavy, bins.chunkHeavy) {
			t.Errorf("%s: the pull bins differ from the host's", name)
		}
		if have, whole := md.RowBytes(); have >= whole {
			t.Errorf("%s: the copy's rows take %d bytes, all rows %d", name, have, whole)
		}
		if tiles {
			wt := makePullTilesChunked(want, ts.RowBits, ts.MaxArcs, ts.Near, false, ts.Columns, planChunk)
			gt := *md.Tiles
			groups := int64(0)
			for i := range gt.Count() {
				groups += int64(gt.warp[i*(tileWarps+1)+tileWarps])
			}
			gt.arcs, gt.vals = download[uint32](md.tileArcs, groups*32), download[float32](md.tileVal, groups*32)
			gt.base, gt.vrow = download[int32](md.tileBase, groups), download[int32](md.tileVRow, int64(gt.vfirst[len(gt.vfirst)-1]))
			if !sameTiles(&gt, wt) {
				t.Errorf("%s: the tiles differ from the host's: %s", name, diffTiles(&gt, wt))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The same matrix asked for whole: a copy of every row in its place.
	err = d.Do("the whole copy", func() error {
		md := d.Cache.Get(m, false, false, BinLimits{}, TileSpec{}, Window{})
		defer func() { d.Cache.Release(md); d.Cache.free(md); d.DropCSRs(true, true) }()
		if md.rows != (Window{0, m.N}) || md.pitch != m.Pitch {
			t.Errorf("%s: asked whole, a copy of rows %v at pitch %d", name, md.rows, md.pitch)
		}
		if got := download[int64](md.cooPtr, int64(m.N+1)); !slices.Equal(got, want.CooPtr) {
			t.Errorf("%s: asked whole, the COO offsets differ", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
