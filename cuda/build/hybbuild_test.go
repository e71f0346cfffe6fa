//go:build cgo

package build

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// download copies n elements of device memory p into a new slice (nil
// for a null pointer). Inside Do.
func download[T any](p cu.DevicePtr, n int64) []T {
	if p == 0 {
		return nil
	}
	out := make([]T, n)
	if n > 0 {
		cu.MemcpyDtoH(unsafe.Pointer(&out[0]), p, n*int64(unsafe.Sizeof(out[0])))
	}
	return out
}

// TestBuildOnDeviceMatchesHost: the ELL and COO arrays hb_ell and hb_coo
// build from a described matrix's CSR equal hyb.FromCSR's on the host,
// for skewed random matrices, weighted or not, at several ELL widths.
func TestBuildOnDeviceMatchesHost(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 31, 33, 1000, 70000} {
		for _, weighted := range []bool{false, true} {
			rowPtr := make([]int64, n+1)
			var col []int32
			var val []float32
			for r := range n {
				l := rng.IntN(8)
				if rng.IntN(50) == 0 {
					l = rng.IntN(min(n, 3000) + 1)
				}
				row := map[int32]bool{}
				for range l {
					row[int32(rng.IntN(n))] = true
				}
				cols := make([]int32, 0, len(row))
				for c := range row {
					cols = append(cols, c)
				}
				slices.Sort(cols)
				col = append(col, cols...)
				for range cols {
					if weighted {
						val = append(val, rng.Float32()*100)
					}
				}
				rowPtr[r+1] = int64(len(col))
			}
			for _, opt := range []hyb.Options{{RelativeSpeed: 3}, {RelativeSpeed: 0.01}, {RelativeSpeed: 3, MaxK: 1}} {
				want, err := hyb.FromCSR(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				m, err := hyb.Describe(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				if m.Materialized() {
					continue // K = 0: the CSR is the COO, nothing to build
				}
				err = d.Do("building on the device", func() error {
					md := wholeCopy(m)
					defer func() { rt.FreeAll(md.bufs); d.DropCSRs(true, true) }()
					d.buildOnDevice(md, m, nil)
					slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
					if got := download[int32](md.ellCol, slots); !slices.Equal(got, want.EllCol) {
						t.Errorf("n=%d weighted=%v K=%d: ELL columns differ", n, weighted, m.K)
					}
					if got := download[float32](md.ellVal, slots); !slices.Equal(got, want.EllVal) {
						t.Errorf("n=%d weighted=%v K=%d: ELL values differ", n, weighted, m.K)
					}
					if got := download[int32](md.cooCol, coo); !slices.Equal(got, want.CooCol) && coo > 0 {
						t.Errorf("n=%d weighted=%v K=%d: COO columns differ", n, weighted, m.K)
					}
					if got := download[float32](md.cooVal, coo); !slices.Equal(got, want.CooVal) && coo > 0 {
						t.Errorf("n=%d weighted=%v K=%d: COO values differ", n, weighted, m.K)
					}
					if got := download[int64](md.cooPtr, int64(n+1)); !slices.Equal(got, want.CooPtr) {
						t.Errorf("n=%d weighted=%v K=%d: COO row offsets differ", n, weighted, m.K)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if m.Materialized() {
					t.Errorf("building on the device filled the host's arrays")
				}
			}
		}
	}
}

// skewedCSR is a skewed random pattern CSR of n rows: most rows short, a
// few long ones, some empty.
func skewedCSR(rng *rand.Rand, n, long int) (rowPtr []int64, col []int32) {
	rowPtr = make([]int64, n+1)
	for r := range n {
		l := rng.IntN(6)
		if rng.IntN(40) == 0 {
			l = rng.IntN(long + 1)
		}
		for range l {
			col = append(col, int32(rng.IntN(n)))
		}
		slices.Sort(col[rowPtr[r]:])
		rowPtr[r+1] = int64(len(col))
	}
	return rowPtr, col
}

// TestDeviceBinsMatchHost: the pull bins hb_bin_* make (deviceBins) equal
// makePullBins' on the host, and the degrees and push chunks hb_degrees
// counts equal the CSR's row lengths and pushChunks, across tile
// boundaries (2048 rows), more tiles than one scan block holds, ELL
// widths from none to wide, and bin limits that fill every bin.
func TestDeviceBinsMatchHost(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(3, 5))
	lims := []BinLimits{DefaultBins(), {Thread: 1, Quad: 2, Warp: 8, Chunk: 16}, {Thread: 0, Quad: 0, Warp: 0, Chunk: 1}}
	for _, n := range []int{1, 2047, 2048, 2049, 70000, 600001} {
		rowPtr, col := skewedCSR(rng, n, 3000)
		for _, opt := range []hyb.Options{{RelativeSpeed: 3}, {RelativeSpeed: 3, MaxK: 1}, {RelativeSpeed: 0.01}} {
			m, err := hyb.Describe(n, rowPtr, col, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			deg := make([]int32, n)
			for r := range n {
				deg[r] = int32(rowPtr[r+1] - rowPtr[r])
			}
			for _, lim := range lims {
				want := makePullBins(m.CooPtr, lim)
				err = d.Do("binning on the device", func() error {
					md := wholeCopy(m)
					defer func() { rt.FreeAll(md.bufs); rt.FreeAll(md.binBufs); d.DropCSRs(true, true) }()
					if m.Materialized() {
						md.cooPtr = rt.Put(d, &md.bufs, m.CooPtr)
					} else {
						d.buildOnDevice(md, m, nil)
					}
					got := d.deviceBins(md, m, lim)
					rows := download[int32](md.binRows, int64(got.nWarp+got.nQuad+got.nThread))
					if got.nWarp != want.nWarp || got.nQuad != want.nQuad || got.nThread != want.nThread ||
						!slices.Equal(rows, want.rows) && len(want.rows) > 0 ||
						!slices.Equal(got.heavyRow, want.heavyRow) || !slices.Equal(got.heavyFirst, want.heavyFirst) ||
						!slices.Equal(got.chunkHeavy, want.chunkHeavy) {
						t.Errorf("n=%d K=%d lim=%v: device bins (warp %d quad %d thread %d heavy %d) differ from the host's (%d %d %d %d)",
							n, m.K, lim, got.nWarp, got.nQuad, got.nThread, len(got.heavyRow), want.nWarp, want.nQuad, want.nThread, len(want.heavyRow))
					}
					d.deviceDegrees(md)
					if gd := download[int32](md.PushDeg, int64(n)); !slices.Equal(gd, deg) {
						t.Errorf("n=%d K=%d: device degrees differ from the CSR's", n, m.K)
					}
					if md.PushChunks != pushChunks(deg) || md.PushChunks > pushChunkBound(m.NNZ()) {
						t.Errorf("n=%d K=%d: device push chunks %d, host %d, bound %d", n, m.K, md.PushChunks, pushChunks(deg), pushChunkBound(m.NNZ()))
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestPrefetchedBuild: a matrix built from a prefetched CSR equals the
// host's; the copy stays on the device for the next matrix of the graph,
// which is built from it without an upload: with other HYB options, and
// unweighted from the weighted copy, and a weighted matrix from an
// unweighted copy, which gains the values, and one with K = 0 (the
// matrix cache copies its COO, the CSR, on the device where the graph's
// CSR is there); the run's start drops the
// copies no cached matrix is built from (device memory back where it
// was).
func TestPrefetchedBuild(t *testing.T) {
	d := needGPU(t)
	dropAllCSRs(d) // (other tests' runs leave theirs)
	rng := rand.New(rand.NewPCG(9, 1))
	n := 50000
	rowPtr, col := skewedCSR(rng, n, 5000)
	val := make([]float32, len(col))
	for i := range val {
		val[i] = rng.Float32()
	}
	var before int64
	_ = d.Do("memory", func() error { before, _ = d.MemInfo(); return nil })
	// An unrelated CSR, prefetched and never taken.
	other := slices.Clone(rowPtr)
	d.Prefetch(other, col, nil)
	// The CSR without values: the weighted matrix adds them to the copy.
	d.Prefetch(rowPtr, col, nil)
	waitPrefetches(t, d, 2)
	copies := func() (n int) {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.csrs)
	}
	var cols cu.DevicePtr // the graph's copy's columns
	for i, c := range []struct {
		opt hyb.Options
		val []float32
	}{{hyb.Options{RelativeSpeed: 3}, val}, {hyb.Options{RelativeSpeed: 3, MaxK: 2}, nil}, {hyb.Options{RelativeSpeed: 0.01}, val}, {hyb.CPUOptions(), val}} {
		want, err := hyb.FromCSR(n, rowPtr, col, c.val, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hyb.Describe(n, rowPtr, col, c.val, c.opt)
		if err != nil || m.Materialized() != (m.K == 0) {
			t.Fatalf("describe: %v (K %d, materialized %v)", err, m.K, m.Materialized())
		}
		err = d.Do("building from the CSR on the device", func() error {
			md := wholeCopy(m)
			defer func() { rt.FreeAll(md.bufs) }()
			d.buildOnDevice(md, m, phase.New("cuda", "test"))
			d.mu.Lock()
			for _, c := range d.csrs {
				if sameRows(c.src, m.Src) {
					if cols == 0 {
						cols = c.col
					} else if c.col != cols {
						t.Errorf("matrix %d: the columns were uploaded again", i)
					}
				}
			}
			d.mu.Unlock()
			slots := int64(m.K) * int64(m.Pitch)
			if got := download[int32](md.ellCol, slots); !slices.Equal(got, want.EllCol) && slots > 0 {
				t.Errorf("matrix %d: ELL columns differ", i)
			}
			if got := download[float32](md.ellVal, slots); !slices.Equal(got, want.EllVal) && slots > 0 && c.val != nil {
				t.Errorf("matrix %d: ELL values differ", i)
			}
			if got := download[int32](md.cooCol, m.CooNNZ()); !slices.Equal(got, want.CooCol) {
				t.Errorf("matrix %d: COO columns differ", i)
			}
			if got := download[float32](md.cooVal, m.CooNNZ()); !slices.Equal(got, want.CooVal) && c.val != nil {
				t.Errorf("matrix %d: COO values differ", i)
			}
			if (md.ellVal != 0 || md.cooVal != 0) != (c.val != nil) {
				t.Errorf("matrix %d: weighted %v, device values %#x %#x", i, c.val != nil, md.ellVal, md.cooVal)
			}
			if left := copies(); left != 2 {
				t.Errorf("matrix %d: %d CSR copies on the device after the build, want 2 (the graph's and the unrelated one)", i, left)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// No cached matrix is built from either copy: a run's start drops them.
	_ = d.Do("a run's start", func() error { d.DropCSRs(true, false); return nil })
	if left := copies(); left != 0 {
		t.Errorf("%d CSR copies left after the drop, want 0", left)
	}
	var after int64
	_ = d.Do("memory", func() error { after, _ = d.MemInfo(); return nil })
	if after < before {
		t.Errorf("free device memory %d after the builds and drop, %d before", after, before)
	}
}

// TestDeviceOrientationMatchesHost builds graphs' orientations on the
// device (deviceOrientation and deviceRankedOrientation, from the HYB
// matrix of Neighbors in every
// split: all COO, mixed, all ELL) and compares every array with the
// host's Orientation.Build: graphs with self loops, parallel arcs, hubs
// whose rows span many warps, scan blocks (1024 rows) and their edges,
// and (gap) half the rows without arcs in one run in the middle, as a
// part's rows without arcs lie before the next part's: the kernels' walks
// from segment to segment cross it by a search.
func TestDeviceOrientationMatchesHost(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ n, gap int }{{1, 0}, {1023, 0}, {1025, 0}, {70000, 0}, {300001, 0}, {300001, 150000}} {
		n := c.n
		vertex := func() int32 {
			v := rng.IntN(n - c.gap)
			if v >= n/4 {
				v += c.gap
			}
			return int32(v)
		}
		for _, directed := range []bool{false, true} {
			el := &datasets.EdgeList{N: n, Directed: directed}
			for range 6 * (n - c.gap) {
				u, v := vertex(), vertex()
				if rng.IntN(8) == 0 {
					u = int32(rng.IntN(min(n, 4))) // hubs
				}
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
				if rng.IntN(8) == 0 { // arcs both ways (a ranked orientation's Both)
					el.Src, el.Dst = append(el.Src, v), append(el.Dst, u)
				}
			}
			dg, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})
			if err != nil {
				t.Fatal(err)
			}
			g := vertexprog.NewGraph(dg)
			for _, s := range gputest.Splits[:3] {
				m, err := g.PullMatrix(vertexprog.AllEdges, s.Opt)
				if err != nil {
					t.Fatal(err)
				}
				kinds := []*vertexprog.Orientation{g.Orientation(false), g.Orientation(true), g.RankedOrientation()}
				for _, o := range kinds {
					o.Build()
					err := d.Do("orienting on the device", func() error {
						md := wholeCopy(m.Matrix)
						defer func() { rt.FreeAll(md.bufs); d.DropCSRs(true, true) }()
						if m.Materialized() {
							md.ellCol, md.cooCol = rt.Put(d, &md.bufs, m.EllCol), rt.Put(d, &md.bufs, m.CooCol)
							md.cooPtr = rt.Put(d, &md.bufs, m.CooPtr)
						} else {
							d.buildOnDevice(md, m.Matrix, nil)
						}
						used := d.inUse()
						var od *Orientation
						if o.Ranked {
							od = d.deviceRankedOrientation(md, dg, nil)
						} else {
							od = d.deviceOrientation(md, o.All)
						}
						what := fmt.Sprintf("n=%d gap=%d directed=%v %s all=%v ranked=%v", n, c.gap, directed, s.Name, o.All, o.Ranked)
						// (the bound the reservation counts covers the build's peak)
						var kind [3]bool
						kind[OrientKind(o)] = true
						outArcs := int64(0)
						if directed {
							outArcs = int64(len(dg.Col))
						}
						if grew, bound := od.used-used, d.Cache.OrientBytes(m.Matrix, kind, outArcs); grew > bound {
							t.Errorf("%s: the build held %d bytes at its peak, over OrientBytes' %d", what, grew, bound)
						}
						if od.adjLen != o.Off[n] {
							t.Fatalf("%s: device lists take %d entries, the host's %d", what, od.adjLen, o.Off[n])
						}
						if got := download[int32](od.deg, int64(n)); !slices.Equal(got, o.Deg) {
							t.Fatalf("%s: device degrees differ from the host's", what)
						}
						if got := download[int32](od.cnt, int64(n)); !slices.Equal(got, o.Cnt) {
							t.Fatalf("%s: device list lengths differ from the host's", what)
						}
						if got := download[int64](od.off, int64(n)+1); !slices.Equal(got, o.Off) {
							t.Fatalf("%s: device offsets differ from the host's", what)
						}
						if got := download[int32](od.adj, od.adjLen); !slices.Equal(got, o.Adj) && len(o.Adj) > 0 {
							t.Fatalf("%s: device lists differ from the host's", what)
						}
						if o.Ranked {
							if got := download[int32](od.rank, int64(n)); !slices.Equal(got, o.Rank) {
								t.Fatalf("%s: device ranks differ from the host's", what)
							}
							if got := download[uint32](od.both, int64(len(o.Both))); !slices.Equal(got, o.Both) {
								t.Fatalf("%s: device Both differs from the host's", what)
							}
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestPrefetchAddsValues: a weighted CSR prefetched where its rows are on
// the device already without values uploads the values alone, to that
// copy.
func TestPrefetchAddsValues(t *testing.T) {
	d := needGPU(t)
	dropAllCSRs(d) // (other tests' runs leave theirs)
	rng := rand.New(rand.NewPCG(9, 2))
	rowPtr, col := skewedCSR(rng, 20000, 2000)
	val := make([]float32, len(col))
	for i := range val {
		val[i] = rng.Float32()
	}
	d.Prefetch(rowPtr, col, nil)
	waitPrefetches(t, d, 1)
	d.mu.Lock()
	first := d.csrs[0]
	d.mu.Unlock()
	d.Prefetch(rowPtr, col, val)
	src := hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
	waitCSRs(t, d, "the values were added to the copy", func() bool {
		return len(d.csrs) == 1 && d.csrs[0] == first && first.covers(src)
	})
	_ = d.Do("checking the values", func() error {
		if got := download[float32](first.val, int64(len(val))); !slices.Equal(got, val) {
			t.Error("the copy's values differ from the host's")
		}
		d.DropCSRs(true, true)
		return nil
	})
}

// TestDeviceInMatrixMatchesHost: a directed graph's in-matrix described
// as its out-CSR's transpose (hyb.DescribeTranspose, as vertexprog does
// for a device run) and built on the device (deviceTranspose, then hb_ell
// and hb_coo, or as the COO itself with K = 0) equals hyb.FromCSR of the
// host's transpose array by array, in every split, weighted (small
// integers: equal parallel weights; random floats) and not, with loops,
// parallel arcs, hubs and empty rows, from an upload and from a prefetched
// out-CSR; the host never builds the transpose, and the out-CSR stays on
// the device for the out-matrix.
func TestDeviceInMatrixMatchesHost(t *testing.T) {
	d := needGPU(t)
	dropAllCSRs(d) // (other tests' runs leave theirs)
	rng := rand.New(rand.NewPCG(24, 10))
	for _, c := range []struct{ n, arcs, hub int }{{1, 3, 0}, {33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}, {300001, 1_200_001, 150_000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			tr := g.Transpose()
			of := hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}
			for _, s := range gputest.Splits {
				for _, prefetched := range []bool{false, true} {
					what := fmt.Sprintf("n=%d arcs=%d weights=%d %s prefetched=%v", c.n, c.arcs, weights, s.Name, prefetched)
					want, err := hyb.FromCSR(tr.N, tr.RowPtr, tr.Col, tr.W, s.Opt)
					if err != nil {
						t.Fatal(err)
					}
					m, err := hyb.DescribeTranspose(g.N, slices.Clone(tr.RowPtr), of, s.Opt, func() hyb.CSR {
						t.Errorf("%s: the host transpose was asked for", what)
						return hyb.CSR{RowPtr: tr.RowPtr, Col: tr.Col, Val: tr.W}
					})
					if err != nil {
						t.Fatal(err)
					}
					if prefetched {
						d.Prefetch(g.RowPtr, g.Col, g.W)
						waitPrefetches(t, d, 1)
					}
					err = d.Do("building an in-matrix on the device", func() error {
						md := wholeCopy(m)
						defer func() { rt.FreeAll(md.bufs) }()
						d.buildOnDevice(md, m, phase.New("cuda", "test"))
						slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
						if got := download[int32](md.ellCol, slots); !slices.Equal(got, want.EllCol) && slots > 0 {
							t.Errorf("%s: ELL columns differ", what)
						}
						if got := download[float32](md.ellVal, slots); !sameBits(got, want.EllVal) && slots > 0 && want.EllVal != nil {
							t.Errorf("%s: ELL values differ", what)
						}
						if got := download[int32](md.cooCol, coo); !slices.Equal(got, want.CooCol) && coo > 0 {
							t.Errorf("%s: COO columns differ", what)
						}
						if got := download[float32](md.cooVal, coo); !sameBits(got, want.CooVal) && coo > 0 && want.CooVal != nil {
							t.Errorf("%s: COO values differ", what)
						}
						if (md.ellVal != 0 || md.cooVal != 0) != (g.W != nil && g.NNZ() > 0) {
							t.Errorf("%s: weighted %v, device values %#x %#x", what, g.W != nil, md.ellVal, md.cooVal)
						}
						if got := download[int64](md.cooPtr, int64(g.N+1)); !slices.Equal(got, want.CooPtr) {
							t.Errorf("%s: COO row offsets differ", what)
						}
						d.mu.Lock()
						left := len(d.csrs)
						back := left == 1 && d.csrs[0].covers(of) && d.csrs[0].done
						d.mu.Unlock()
						if !back {
							t.Errorf("%s: %d CSR copies on the device after the build; want the out-CSR, done", what, left)
						}
						d.DropCSRs(true, true)
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if m.Materialized() {
						t.Errorf("%s: building on the device filled the host's arrays", what)
					}
				}
			}
		}
	}
}

// dropAllCSRs frees the device's CSR copies.
func dropAllCSRs(d *Device) {
	_ = d.Do("dropping CSR copies", func() error { d.DropCSRs(true, true); return nil })
}

// waitPrefetches waits for n CSR copies on the device to be made.
func waitPrefetches(t *testing.T, d *Device, n int) {
	t.Helper()
	waitCSRs(t, d, fmt.Sprintf("%d CSR copies were made", n), func() bool {
		done := len(d.csrs) == n
		for _, c := range d.csrs {
			done = done && c.done
		}
		return done
	})
}

// waitCSRs waits up to 10 s for ok (called under d.mu) to hold.
func waitCSRs(t *testing.T, d *Device, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		d.mu.Lock()
		done := ok()
		d.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not in 10 s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDeviceInMatrixRowsChecked: an in-matrix described with other rows
// than the transpose's (a bug in the count) is refused with the check's
// message, not built wrong; the device's memory is given back.
func TestDeviceInMatrixRowsChecked(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(24, 11))
	g := gputest.DirectedGraph(rng, 5000, 20000, 100, 2)
	rowPtr := slices.Clone(g.Transpose().RowPtr)
	r := 10
	for rowPtr[r+1] == rowPtr[r] {
		r++ // (a row with an entry: moving one keeps every length >= 0)
	}
	rowPtr[r]++ // (the total stays right)
	m, err := hyb.DescribeTranspose(g.N, rowPtr, hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}, gputest.Splits[1].Opt, func() hyb.CSR {
		t.Error("the host transpose was asked for")
		return hyb.CSR{}
	})
	if err != nil {
		t.Fatal(err)
	}
	var before, after int64
	_ = d.Do("memory", func() error { before, _ = d.MemInfo(); return nil })
	md := wholeCopy(m)
	err = d.Do("building an in-matrix on the device", func() error {
		d.buildOnDevice(md, m, nil)
		return nil
	})
	_ = d.Do("freeing", func() error { rt.FreeAll(md.bufs); d.DropCSRs(true, true); after, _ = d.MemInfo(); return nil })
	if err == nil || !strings.Contains(err.Error(), "row offset") {
		t.Fatalf("a wrong row count: %v; want the transpose check's panic", err)
	}
	if after < before {
		t.Errorf("free device memory %d after the refused build, %d before", after, before)
	}
}
