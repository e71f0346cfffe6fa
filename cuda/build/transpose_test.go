//go:build cgo

package build

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
)

// shuffleRows permutes every row's arcs (columns with their weights), so
// rows are no longer sorted and parallel arcs not in weight order: the
// host's Transpose does not care, the device's must not either (tr_fix).
func shuffleRows(rng *rand.Rand, g *datasets.Graph) *datasets.Graph {
	s := *g
	s.Col = slices.Clone(g.Col)
	s.W = slices.Clone(g.W)
	for v := range g.N {
		lo, hi := g.RowPtr[v], g.RowPtr[v+1]
		rng.Shuffle(int(hi-lo), func(i, j int) {
			i, j = i+int(lo), j+int(lo)
			s.Col[i], s.Col[j] = s.Col[j], s.Col[i]
			if s.W != nil {
				s.W[i], s.W[j] = s.W[j], s.W[i]
			}
		})
	}
	return &s
}

// transposeOnDevice uploads g's CSR, transposes it with deviceTranspose
// and downloads the result; it also checks that the input is unchanged.
// Inside Do.
func transposeOnDevice(t *testing.T, d *Device, g *datasets.Graph) (rowPtr []int64, col []int32, w []float32, took time.Duration) {
	var bufs []cu.DevicePtr
	defer func() { rt.FreeAll(bufs) }()
	rp, c, v := rt.Put(d, &bufs, g.RowPtr), rt.Put(d, &bufs, g.Col), rt.Put(d, &bufs, g.W)
	nnz := g.NNZ()
	start := time.Now()
	trp, tc, tv := d.deviceTranspose(&bufs, rp, c, v, g.N, nnz)
	took = time.Since(start)
	if (tv != 0) != (g.W != nil && nnz > 0) {
		t.Fatalf("weighted graph %v, transposed weights %#x", g.W != nil, tv)
	}
	if got := download[int32](c, nnz); !slices.Equal(got, g.Col) && nnz > 0 {
		t.Fatal("deviceTranspose changed its input's columns")
	}
	if got := download[float32](v, nnz); !slices.Equal(got, g.W) && v != 0 {
		t.Fatal("deviceTranspose changed its input's weights")
	}
	return download[int64](trp, int64(g.N)+1), download[int32](tc, nnz), download[float32](tv, nnz), took
}

// sameBits is slices.Equal for weights, bit for bit.
func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// firstDiff is the first place where a and b differ (-1: none).
func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestDeviceTransposeMatchesHost: deviceTranspose's arrays equal
// datasets.Graph.Transpose's, bit for bit, on random directed graphs with
// hubs (rows of 150,000 and 200,000 entries, in and out), self loops,
// parallel arcs of equal and different weights, empty rows; weighted and
// not; rows sorted (as every datasets.Graph) and shuffled; heads of one
// to three radix passes (n = 256 and 257: the first with two digits;
// 65537: three); arcs around the tiles' boundaries (4096) and scan
// chunks' (16 tiles), and more tiles than one block of tr_scan2 scans at
// once (4096).
func TestDeviceTransposeMatchesHost(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(24, 2))
	cases := []struct{ n, arcs, hub int }{
		{1, 0, 0}, {1, 7, 0}, {2, 1, 0}, {5, 4095, 0}, {256, 4096, 0}, {257, 4097, 0},
		{1000, 8191, 0}, {65537, 65536, 0}, {65537, 65537, 100}, {70000, 65535, 0},
		{300001, 1_200_001, 150_000}, {1 << 20, 17_000_000, 200_000},
	}
	for _, c := range cases {
		for _, weights := range []int{0, 1, 2} {
			if c.arcs > 10_000_000 && weights == 1 {
				continue // (the largest case twice, not three times)
			}
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			for _, shuffled := range []bool{false, true} {
				in := g
				if shuffled {
					in = shuffleRows(rng, g)
				}
				want := in.Transpose()
				what := fmt.Sprintf("n=%d arcs=%d hub=%d weights=%d shuffled=%v", c.n, c.arcs, c.hub, weights, shuffled)
				err := d.Do("transposing on the device", func() error {
					rowPtr, col, w, took := transposeOnDevice(t, d, in)
					if i := firstDiff(rowPtr, want.RowPtr); i >= 0 {
						t.Errorf("%s: row offsets differ first at row %d", what, i)
					}
					if i := firstDiff(col, want.Col); i >= 0 {
						t.Errorf("%s: columns differ first at %d (%d, host %d)", what, i, col[i], want.Col[i])
					}
					if !sameBits(w, want.W) {
						t.Errorf("%s: weights differ", what)
					}
					if c.arcs > 1_000_000 {
						t.Logf("%s: %v", what, took)
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

// BenchmarkDeviceTranspose transposes kron21 (67M arcs, its symmetric CSR
// taken as directed), weighted (random 1-64) and not, and checks the
// result against the host's once.
func BenchmarkDeviceTranspose(b *testing.B) {
	d := needGPU(b)
	el, err := gen.Kronecker(21, 16, gen.GAPSeed)
	if err != nil {
		b.Fatal(err)
	}
	for _, weighted := range []bool{false, true} {
		opt := datasets.Options{}
		if weighted {
			opt = datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64}
		}
		g, err := datasets.Build(el, opt)
		if err != nil {
			b.Fatal(err)
		}
		g.Directed = true
		want := g.Transpose()
		b.Run(fmt.Sprintf("weighted=%v", weighted), func(b *testing.B) {
			err := d.Do("transposing kron21", func() error {
				var bufs []cu.DevicePtr
				defer func() { rt.FreeAll(bufs) }()
				rp, c, v := rt.Put(d, &bufs, g.RowPtr), rt.Put(d, &bufs, g.Col), rt.Put(d, &bufs, g.W)
				nnz := g.NNZ()
				var trp, tc, tv cu.DevicePtr
				var out []cu.DevicePtr
				b.ResetTimer()
				for range b.N {
					rt.FreeAll(out)
					out = out[:0]
					trp, tc, tv = d.deviceTranspose(&out, rp, c, v, g.N, nnz)
				}
				b.StopTimer()
				defer func() { rt.FreeAll(out) }()
				b.ReportMetric(float64(nnz)/(float64(b.Elapsed().Nanoseconds())/float64(b.N))/1e3, "Marcs/ms")
				if !slices.Equal(download[int64](trp, int64(g.N)+1), want.RowPtr) || !slices.Equal(download[int32](tc, nnz), want.Col) ||
					!sameBits(download[float32](tv, nnz), want.W) {
					b.Error("the device transpose differs from the host's")
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// transposeModel runs transpose.cu's algorithm on the host, step for step
// as the kernels index their arrays (tiles, rounds of warps, digit-major
// histograms scanned in chunks, the passes' buffers as deviceTranspose
// alternates them), so its arithmetic is tested without a GPU.
func transposeModel(g *datasets.Graph) (tRowPtr []int64, tCol []int32, tW []uint32) {
	n, nnz := g.N, g.NNZ()
	tRowPtr = make([]int64, n+1)
	if nnz == 0 {
		return tRowPtr, nil, nil
	}
	weighted := g.W != nil
	var val []uint32
	if weighted {
		val = make([]uint32, nnz)
		for i, w := range g.W {
			val[i] = math.Float32bits(w)
		}
	}
	tCol = make([]int32, nnz)
	srcTmp := make([]int32, nnz)
	var valOut, valTmp []uint32
	if weighted {
		valOut, valTmp = make([]uint32, nnz), make([]uint32, nnz)
	}
	keys := [2][]int32{make([]int32, nnz), make([]int32, nnz)}
	tiles := (nnz + trTile - 1) / trTile
	hist := make([]uint32, tiles*trRadix)
	sums := make([]int64, (tiles*trRadix+trScanChunk-1)/trScanChunk)
	passes := transposePasses(n)
	out := func(p int) ([]int32, []uint32) {
		if (passes-1-p)%2 == 0 {
			return tCol, valOut
		}
		return srcTmp, valTmp
	}
	src0 := tCol
	if (passes-1)%2 == 0 {
		src0 = srcTmp
	}
	// tr_src
	for i := range nnz {
		u, _ := slices.BinarySearch(g.RowPtr[:n], i+1) // the first row starting past i
		src0[i] = int32(u - 1)
	}
	keyIn, srcIn, valIn := g.Col, src0, val
	digit := func(k int32, shift int) int { return int(uint32(k)>>shift) & (trRadix - 1) }
	for p := range passes {
		shift := p * trDigitBits
		srcOut, vOut := out(p)
		keyOut := keys[p%2]
		// tr_hist
		for tile := range tiles {
			for i := tile * trTile; i < min((tile+1)*trTile, nnz); i++ {
				hist[int64(digit(keyIn[i], shift))*tiles+tile]++
			}
		}
		// tr_scan1, tr_scan2
		for b := range sums {
			var run int64
			for h := int64(b) * trScanChunk; h < min(int64(b+1)*trScanChunk, int64(len(hist))); h++ {
				c := hist[h]
				hist[h] = uint32(run)
				run += int64(c)
			}
			sums[b] = run
		}
		var carry int64
		for b := range sums {
			sums[b], carry = carry, carry+sums[b]
		}
		// tr_scatter
		for tile := range tiles {
			first := tile * trTile
			count := int(min(trTile, nnz-first))
			var gbase [trRadix]int64
			for d := range trRadix {
				h := int64(d)*tiles + tile
				gbase[d] = sums[h/trScanChunk] + int64(hist[h])
			}
			pos := make([]int, count)
			var tot [trRadix]int
			for r := range trTile / rt.BlockSize {
				var wc [rt.BlockSize / 32][trRadix]int
				rank := make([]int, rt.BlockSize)
				for w := range rt.BlockSize / 32 {
					for lane := range 32 {
						i := r*rt.BlockSize + w*32 + lane
						if i >= count {
							continue
						}
						d := digit(keyIn[first+int64(i)], shift)
						rank[w*32+lane] = wc[w][d] // (the lanes below with d)
						wc[w][d]++
					}
				}
				for d := range trRadix {
					run := tot[d]
					for w := range rt.BlockSize / 32 {
						wc[w][d], run = run, run+wc[w][d]
					}
					tot[d] = run
				}
				for t := range rt.BlockSize {
					if i := r*rt.BlockSize + t; i < count {
						pos[i] = wc[t/32][digit(keyIn[first+int64(i)], shift)] + rank[t]
					}
				}
			}
			var lstart [trRadix]int
			for d := 1; d < trRadix; d++ {
				lstart[d] = lstart[d-1] + tot[d-1]
			}
			bufK, bufS, bufV := make([]int32, count), make([]int32, count), make([]uint32, count)
			for i := range count {
				at := pos[i] + lstart[digit(keyIn[first+int64(i)], shift)]
				bufK[at], bufS[at] = keyIn[first+int64(i)], srcIn[first+int64(i)]
				if valIn != nil {
					bufV[at] = valIn[first+int64(i)]
				}
			}
			for j := range count {
				d := digit(bufK[j], shift)
				at := gbase[d] + int64(j-lstart[d])
				keyOut[at], srcOut[at] = bufK[j], bufS[j]
				if valIn != nil {
					vOut[at] = bufV[j]
				}
			}
		}
		clear(hist)
		keyIn, srcIn, valIn = keyOut, srcOut, vOut
	}
	// tr_rowptr
	for v := range n + 1 {
		i, _ := slices.BinarySearch(keyIn, int32(v))
		tRowPtr[v] = int64(i)
	}
	// tr_fix
	for p := int64(0); weighted && p+1 < nnz; p++ {
		k, s := keyIn[p], tCol[p]
		if keyIn[p+1] != k || tCol[p+1] != s || p > 0 && keyIn[p-1] == k && tCol[p-1] == s {
			continue
		}
		e := p + 2
		for e < nnz && keyIn[e] == k && tCol[e] == s {
			e++
		}
		for x := p + 1; x < e; x++ {
			v, y := valOut[x], x
			for y > p && math.Float32frombits(valOut[y-1]) > math.Float32frombits(v) {
				valOut[y] = valOut[y-1]
				y--
			}
			valOut[y] = v
		}
	}
	return tRowPtr, tCol, valOut
}

// TestTransposeModelMatchesHost runs transposeModel (no GPU needed) on the
// GPU test's kinds of graphs, smaller.
func TestTransposeModelMatchesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	for _, c := range []struct{ n, arcs, hub int }{{1, 0, 0}, {1, 7, 0}, {5, 4095, 0}, {256, 4097, 0}, {257, 9000, 0}, {65537, 70000, 5000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			for _, in := range []*datasets.Graph{g, shuffleRows(rng, g)} {
				want := in.Transpose()
				rowPtr, col, w := transposeModel(in)
				var wantW []uint32
				for _, x := range want.W {
					wantW = append(wantW, math.Float32bits(x))
				}
				if !slices.Equal(rowPtr, want.RowPtr) || !slices.Equal(col, want.Col) && len(col) > 0 || !slices.Equal(w, wantW) {
					t.Fatalf("n=%d arcs=%d weights=%d: the model's transpose differs from the host's", c.n, c.arcs, weights)
				}
			}
		}
	}
}

// TestPullTilesTransposed (here, beside transposeTestGraph, which needs
// cgo; it needs no GPU): the tiles of a directed graph's in-matrix
// described as its out-CSR's transpose (read from the out-CSR, the host
// transpose never built) equal those of the in-matrix from the host
// transpose, weighted (equal parallel weights and random ones) and not.
func TestPullTilesTransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 12))
	for _, weights := range []int{0, 1, 2} {
		g := gputest.DirectedGraph(rng, 20000, 90000, 3000, weights)
		tr := g.Transpose()
		opt := hyb.Options{RelativeSpeed: 3}
		host, err := hyb.Describe(tr.N, tr.RowPtr, tr.Col, tr.W, opt)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hyb.DescribeTranspose(g.N, slices.Clone(tr.RowPtr), hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}, opt, func() hyb.CSR {
			t.Error("the host transpose was asked for")
			return hyb.CSR{RowPtr: tr.RowPtr, Col: tr.Col, Val: tr.W}
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, near := range []bool{false, true} {
			if !sameTiles(makePullTiles(m, 6, 64, near, false), makePullTiles(host, 6, 64, near, false)) {
				t.Errorf("weights=%d near=%v: the transposed matrix's tiles differ from the host transpose's", weights, near)
			}
		}
	}
}
