//go:build cgo

package build

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
)

// deviceTilesOf builds m's tiles of shape ts on the device (its HYB
// arrays as a run's matrix cache makes them) and brings every array
// back, for comparison with makePullTiles'.
func deviceTilesOf(t *testing.T, d *Device, m *hyb.Matrix, ts TileSpec) *Tiles {
	t.Helper()
	if !TilesOnDevice(m, ts) {
		t.Fatalf("n=%d shape %+v: not a device shape", m.N, ts)
	}
	var got *Tiles
	err := d.Do("building tiles on the device", func() error {
		md := d.Cache.Get(m, false, false, BinLimits{}, TileSpec{}, Window{})
		defer func() { d.Cache.Release(md); d.Cache.free(md); d.DropCSRs(true, true) }()
		got = d.deviceTiles(md, ts, nil)
		groups := int64(0)
		for i := range got.Count() {
			groups += int64(got.warp[i*(tileWarps+1)+tileWarps])
		}
		got.arcs = download[uint32](md.tileArcs, groups*32)
		got.vals = download[float32](md.tileVal, groups*32)
		got.base = download[int32](md.tileBase, groups)
		got.vrow = download[int32](md.tileVRow, int64(got.vfirst[len(got.vfirst)-1]))
		// (what the run's kernels read: the description uploaded too)
		if !slices.Equal(download[int64](md.tileFirst, int64(got.Count())), got.first) ||
			!slices.Equal(download[int32](md.tileWarp, int64(len(got.warp))), got.warp) ||
			!slices.Equal(download[int32](md.tileInfo, int64(got.Count())), got.info) ||
			!slices.Equal(download[uint8](md.tileMulti, int64(len(got.multi))), got.multi) ||
			!slices.Equal(download[int32](md.tileVFirst, int64(len(got.vfirst))), got.vfirst) {
			t.Errorf("n=%d shape %+v: the device's copy of the tiles' description differs", m.N, ts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// diffTiles names the first array where a and b differ, and where.
func diffTiles(a, b *Tiles) string {
	first := func(name string, n1, n2 int, eq func(i int) bool) string {
		if n1 != n2 {
			return fmt.Sprintf("%s: %d entries, want %d", name, n1, n2)
		}
		for i := range n1 {
			if !eq(i) {
				return fmt.Sprintf("%s[%d] differs", name, i)
			}
		}
		return ""
	}
	for _, s := range []string{
		first("vfirst", len(a.vfirst), len(b.vfirst), func(i int) bool { return a.vfirst[i] == b.vfirst[i] }),
		first("vrow", len(a.vrow), len(b.vrow), func(i int) bool { return a.vrow[i] == b.vrow[i] }),
		first("multi", len(a.multi), len(b.multi), func(i int) bool { return a.multi[i] == b.multi[i] }),
		first("first", len(a.first), len(b.first), func(i int) bool { return a.first[i] == b.first[i] }),
		first("info", len(a.info), len(b.info), func(i int) bool { return a.info[i] == b.info[i] }),
		first("warp", len(a.warp), len(b.warp), func(i int) bool { return a.warp[i] == b.warp[i] }),
		first("base", len(a.base), len(b.base), func(i int) bool { return a.base[i] == b.base[i] }),
		first("arcs", len(a.arcs), len(b.arcs), func(i int) bool { return a.arcs[i] == b.arcs[i] }),
		first("vals", len(a.vals), len(b.vals), func(i int) bool { return a.vals[i] == b.vals[i] }),
	} {
		if s != "" {
			return s
		}
	}
	return ""
}

// TestDeviceTilesMatchHost: the tiles tilesdev.cu builds equal
// makePullTiles', array by array: random matrices (symmetric or not,
// weighted or not, entries in ELL or COO only) cut into small segments
// and tiles of a few entries (many tiles a segment, tiles of one entry,
// split rows, full virtual slots), both groupings; a Kronecker graph
// renumbered by degree (hubs: the first segment's raised cap) in the
// runs' shapes and in tiles of 4,096 entries; and directed graphs'
// in-matrices transposed on the device (parallel arcs of equal and of
// different weights). Those grouped by groupsNear are launched in column
// order (TileSpec.Columns), the others costliest first.
func TestDeviceTilesMatchHost(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	// (a symmetric matrix's tiles both ways: from its rows as its columns,
	// and sorted by column)
	check := func(name string, m *hyb.Matrix, ts TileSpec, sym bool) {
		t.Helper()
		want := makePullTilesChunked(m, ts.RowBits, ts.MaxArcs, ts.Near, false, ts.Columns, planChunk)
		for _, ts.Symmetric = range []bool{false, true}[:1+btoi(sym)] {
			// (in pieces: 3, the output made as estimated; 5, made for one
			// group and grown at every piece)
			for _, ts.Chunks = range []int{0, 3, 5} {
				if ts.Chunks == 5 {
					tileCapFor = func(int64) int64 { return 1 }
				}
				got := deviceTilesOf(t, d, m, ts)
				tileCapFor = func(e int64) int64 { return e }
				if !sameTiles(got, want) {
					t.Errorf("%s, %d rows, %d entries, shape %+v: the device's tiles differ from the host's: %s", name, m.N, m.NNZ(), ts, diffTiles(got, want))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 28))
	shapes := []TileSpec{{RowBits: 2, MaxArcs: 5}, {RowBits: 4, MaxArcs: 64}, {RowBits: 6, MaxArcs: 700}, {RowBits: 3, MaxArcs: 1}, {RowBits: 12, MaxArcs: 1 << 16}, {RowBits: 13, MaxArcs: 1 << 16}}
	for trial, n := range []int{1, 2, 50, 333, 1000, 3000, 4097} {
		for _, sym := range []bool{false, true} {
			m, _, _, _ := trialMatrix(t, rng, trial, n, sym)
			if m.NNZ() == 0 {
				continue
			}
			for _, ts := range shapes {
				for _, near := range []bool{false, true} {
					ts.Near, ts.Columns = near, near
					check(fmt.Sprintf("trial %d symmetric %v", trial, sym), m, ts, sym)
				}
			}
		}
	}

	// (parallel entries: a symmetric matrix's rank of an entry among its
	// row's entries counts the copies before it)
	for _, weighted := range []bool{false, true} {
		ptr, col, val := multiSymmetricCSR(rng, 700, weighted)
		m, err := hyb.FromCSR(700, ptr, col, val, hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0, MaxK: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range []TileSpec{{RowBits: 4, MaxArcs: 64}, {RowBits: 6, MaxArcs: 300, Near: true}, {RowBits: 12, MaxArcs: 1 << 16}} {
			check(fmt.Sprintf("parallel entries, weighted %v", weighted), m, ts, true)
		}
	}

	// (one stream of a whole tile: two rows of 12,000 entries in a
	// segment of five slots, so the waiting list fills, is compacted and
	// holds its most, and groupsNear's window grows to its most)
	{
		n := 40000
		ptr := make([]int64, n+1)
		var col []int32
		for r := range 2 {
			cs := rng.Perm(n)[:12000]
			slices.Sort(cs)
			for _, c := range cs {
				col = append(col, int32(c))
			}
			ptr[r+1] = int64(len(col))
		}
		for r := 3; r <= n; r++ {
			ptr[r] = ptr[2]
		}
		m, err := hyb.FromCSR(n, ptr, col, nil, hyb.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, near := range []bool{false, true} {
			check("two long rows", m, TileSpec{RowBits: 2, MaxArcs: 1 << 16, Near: near, Columns: near}, false)
		}
	}

	m := degreeKron(t, 14)
	for _, ts := range []TileSpec{{RowBits: 12, MaxArcs: TileArcsDefault, Near: true}, {RowBits: 13, MaxArcs: TileArcsDefault},
		{RowBits: 12, MaxArcs: 4096, Near: true, Columns: true}, {RowBits: 13, MaxArcs: 4096}, {RowBits: 9, MaxArcs: 1000, Near: true, Columns: true}} {
		check("kron14", m, ts, true)
	}

	for _, weights := range []int{0, 1, 2} {
		g := gputest.DirectedGraph(rng, 20000, 90000, 3000, weights)
		tr := g.Transpose()
		opt := hyb.Options{RelativeSpeed: 3}
		m, err := hyb.DescribeTranspose(g.N, slices.Clone(tr.RowPtr), hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}, opt, func() hyb.CSR {
			return hyb.CSR{RowPtr: tr.RowPtr, Col: tr.Col, Val: tr.W}
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range []TileSpec{{RowBits: 6, MaxArcs: 64, Near: true}, {RowBits: 6, MaxArcs: 64}, {RowBits: 12, MaxArcs: 8192, Near: true}, {RowBits: 13, MaxArcs: 8192}} {
			check(fmt.Sprintf("in-matrix, weights %d", weights), m, ts, false)
		}
	}
}

// multiSymmetricCSR is an n-row symmetric matrix with hubs and parallel
// entries (up to four copies of a pair, of random weights when
// weighted), each row sorted by column and weight.
func multiSymmetricCSR(rng *rand.Rand, n int, weighted bool) (ptr []int64, col []int32, val []float32) {
	type e struct {
		c int32
		w float32
	}
	rows := make([][]e, n)
	for range 8 * n {
		u := rng.IntN(n)
		if rng.IntN(3) == 0 {
			u = rng.IntN(8) // (hubs: rows split over several slots)
		}
		v := rng.IntN(n)
		for range 1 + rng.IntN(4)*btoi(rng.IntN(5) == 0) {
			w := float32(1)
			if weighted {
				w = float32(rng.IntN(4) + 1)
			}
			rows[u] = append(rows[u], e{int32(v), w})
			if u != v {
				rows[v] = append(rows[v], e{int32(u), w})
			}
		}
	}
	ptr = []int64{0}
	for _, r := range rows {
		slices.SortFunc(r, func(a, b e) int {
			if a.c != b.c {
				return int(a.c - b.c)
			}
			return int(a.w - b.w)
		})
		for _, x := range r {
			col = append(col, x.c)
			if weighted {
				val = append(val, x.w)
			}
		}
		ptr = append(ptr, int64(len(col)))
	}
	return
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkDeviceTiles builds the tiles of a Kronecker graph renumbered
// by degree on the device (scale 18: 8M entries), as
// BenchmarkPullTiles does on the host.
func BenchmarkDeviceTiles(b *testing.B) {
	d := needGPU(b)
	m := degreeKron(b, 18)
	for _, near := range []bool{true, false} {
		ts := TileSpec{RowBits: TileRowBitsFor(4, false), MaxArcs: TileArcsDefault, Near: near, Symmetric: true}
		if !near {
			ts.RowBits = TileRowBitsFor(8, false)
		}
		b.Run(fmt.Sprintf("near=%v", near), func(b *testing.B) {
			err := d.Do("benchmarking the device's tiles", func() error {
				md := d.Cache.Get(m, false, false, BinLimits{}, TileSpec{}, Window{})
				defer func() { d.Cache.Release(md); d.Cache.free(md); d.DropCSRs(true, true) }()
				for b.Loop() {
					d.deviceTiles(md, ts, nil)
					rt.FreeAll(md.tileBufs)
					md.tileBufs = nil
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(m.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mentries/s")
		})
	}
}

// TestTilePieces checks the pieces a tiles build is made in: whole
// segments, every one in exactly one piece, no piece empty of segments,
// at most Chunks of them, and none with more entries than an even share
// plus the largest segment's.
func TestTilePieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	for trial, n := range []int{1, 7, 100, 4097, 20000} {
		m, _, _, _ := trialMatrix(t, rng, trial, n, trial%2 == 0)
		for _, rowBits := range []int{1, 4, 12} {
			seg := func(s int) int64 { return m.Src.RowPtr[min(s<<rowBits, n)] }
			nseg := (n + 1<<rowBits - 1) >> rowBits
			biggest := int64(0)
			for s := range nseg {
				biggest = max(biggest, seg(s+1)-seg(s))
			}
			for _, chunks := range []int{0, 1, 2, 3, 16, 1000} {
				p := tilePieces(m, TileSpec{RowBits: rowBits, Chunks: chunks})
				if p[0] != 0 || int(p[len(p)-1]) != nseg || len(p)-1 > max(1, chunks) {
					t.Fatalf("n=%d rowBits %d, %d chunks: pieces %v of %d segments", n, rowBits, chunks, p, nseg)
				}
				for i := 0; i+1 < len(p); i++ {
					if p[i+1] <= p[i] {
						t.Fatalf("n=%d rowBits %d, %d chunks: pieces %v not increasing", n, rowBits, chunks, p)
					}
					if e := seg(int(p[i+1])) - seg(int(p[i])); e > m.NNZ()/int64(max(1, chunks))+biggest {
						t.Errorf("n=%d rowBits %d, %d chunks: piece %d holds %d of %d entries", n, rowBits, chunks, i, e, m.NNZ())
					}
				}
			}
		}
	}
}

// TestDeviceTilesOutOfMemory: a tiles build that runs out of device
// memory (its output grown past the device's: tileCapFor) leaves the
// matrix without tiles and frees what it made, and the cache hands the
// matrix out (its run pulls by rows); the next Get builds the tiles.
func TestDeviceTilesOutOfMemory(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	m := degreeKron(t, 14)
	ts := TileSpec{RowBits: 12, MaxArcs: TileArcsDefault, Near: true, Chunks: 3}
	defer func() { tileCapFor = func(e int64) int64 { return e } }()
	err := d.Do("tiles out of memory", func() error {
		defer d.DropCSRs(true, true)
		free0, _ := d.MemInfo()
		tileCapFor = func(int64) int64 { return 1 << 50 } // (groups of 128 bytes: no device has that)
		md := d.Cache.Get(m, false, false, BinLimits{}, ts, Window{})
		if md.Tiles != nil || len(md.tileBufs) != 0 {
			t.Errorf("out of memory: tiles %v, %d tile buffers kept", md.Tiles != nil, len(md.tileBufs))
		}
		d.Cache.Release(md)
		tileCapFor = func(e int64) int64 { return e }
		md = d.Cache.Get(m, false, false, BinLimits{}, ts, Window{})
		if !md.Tiles.Matches(ts) {
			t.Error("the next Get did not build the tiles")
		}
		d.Cache.Release(md)
		d.Cache.free(md)
		d.DropCSRs(true, true)
		if free, _ := d.MemInfo(); free < free0-(64<<20) {
			t.Errorf("%d bytes free after, %d before: the failed build left memory in use", free, free0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
