package build

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
)

// randomCSR is an n-row matrix with skewed row lengths, columns sorted
// and distinct within a row, weights when weighted.
func randomCSR(rng *rand.Rand, n int, weighted bool) (ptr []int64, col []int32, val []float32) {
	ptr = []int64{0}
	for r := 0; r < n; r++ {
		l := rng.IntN(4)
		if rng.IntN(10) == 0 {
			l = rng.IntN(n + 1)
		}
		cs := rng.Perm(n)[:min(l, n)]
		slices.Sort(cs)
		for _, c := range cs {
			col = append(col, int32(c))
			if weighted {
				val = append(val, float32(rng.IntN(64)+1))
			}
		}
		ptr = append(ptr, int64(len(col)))
	}
	return
}

// symmetricCSR is randomCSR made its own transpose (each entry mirrored,
// with its weight), rows sorted.
func symmetricCSR(rng *rand.Rand, n int, weighted bool) (ptr []int64, col []int32, val []float32) {
	p0, c0, v0 := randomCSR(rng, n, weighted)
	type e struct {
		c int32
		v float32
	}
	rows := make([]map[int32]float32, n)
	for r := range rows {
		rows[r] = map[int32]float32{}
	}
	for r := 0; r < n; r++ {
		for i := p0[r]; i < p0[r+1]; i++ {
			v := float32(1)
			if weighted {
				v = v0[i]
			}
			rows[r][c0[i]], rows[c0[i]][int32(r)] = v, v
		}
	}
	ptr = []int64{0}
	for r := range rows {
		var es []e
		for c, v := range rows[r] {
			es = append(es, e{c, v})
		}
		slices.SortFunc(es, func(a, b e) int { return int(a.c - b.c) })
		for _, x := range es {
			col = append(col, x.c)
			if weighted {
				val = append(val, x.v)
			}
		}
		ptr = append(ptr, int64(len(col)))
	}
	return
}

// trialMatrix is trial's random HYB matrix of n rows (weighted on odd
// trials, every third with entries in ELL too), symmetric or not, and
// the CSR it was made from.
func trialMatrix(t *testing.T, rng *rand.Rand, trial, n int, symmetric bool) (m *hyb.Matrix, ptr []int64, col []int32, val []float32) {
	csr := randomCSR
	if symmetric {
		csr = symmetricCSR
	}
	ptr, col, val = csr(rng, n, trial%2 == 1)
	opt := hyb.DefaultOptions()
	if trial%3 == 0 {
		opt = hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0, MaxK: 3}
	}
	m, err := hyb.FromCSR(n, ptr, col, val, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m, ptr, col, val
}

// sameTiles reports whether a and b are the same tiles.
func sameTiles(a, b *Tiles) bool {
	return slices.Equal(a.arcs, b.arcs) && slices.Equal(a.vals, b.vals) && slices.Equal(a.base, b.base) &&
		slices.Equal(a.first, b.first) && slices.Equal(a.info, b.info) && slices.Equal(a.warp, b.warp) &&
		slices.Equal(a.multi, b.multi) && slices.Equal(a.vfirst, b.vfirst) && slices.Equal(a.vrow, b.vrow)
}

// TestPullTilesSymmetric builds the tiles of symmetric matrices both
// ways: copying rows for columns gives the same tiles as sorting.
func TestPullTilesSymmetric(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		m, _, _, _ := trialMatrix(t, rng, trial, 1+rng.IntN(300), true)
		rowBits, maxArcs := 1+rng.IntN(6), 1+rng.IntN(300)
		near := trial%2 == 0
		if !sameTiles(makePullTiles(m, rowBits, maxArcs, near, false), makePullTiles(m, rowBits, maxArcs, near, true)) {
			t.Fatalf("trial %d (n %d, %d entries): the symmetric build differs", trial, m.N, m.NNZ())
		}
	}
}

// TestPullTilesHoldTheMatrix rebuilds the matrix from its tiles: every
// entry once, with its weight; tiles sorted by column, within their
// limits, costliest first (tileCost), a tile for every segment with
// entries and none for the others, multi set exactly on segments of several
// tiles.
func TestPullTilesHoldTheMatrix(t *testing.T) {
	// More workers than this machine may have cores: the counting sorts
	// split rows and columns into several ranges.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(400)
		weighted := trial%2 == 1
		m, ptr, col, val := trialMatrix(t, rng, trial, n, false)
		rowBits := 1 + rng.IntN(6)
		if trial%5 == 0 {
			rowBits = 13
		}
		maxArcs := 1 + rng.IntN(50)
		near := trial%4 < 2 // (both groupings, weighted and not)
		tl := makePullTiles(m, rowBits, maxArcs, near, false)
		// Segments planned in pieces of 3 entries come out the same.
		cut := makePullTilesChunked(m, rowBits, maxArcs, near, false, false, 3)
		if !sameTiles(cut, tl) {
			t.Fatalf("trial %d: planning in pieces changed the tiles", trial)
		}

		type entry struct {
			r, c int32
			w    float32
		}
		var want, got []entry
		for r := 0; r < n; r++ {
			for i := ptr[r]; i < ptr[r+1]; i++ {
				w := float32(1)
				if weighted {
					w = val[i]
				}
				want = append(want, entry{int32(r), col[i], w})
			}
		}
		nseg := (n + 1<<rowBits - 1) >> rowBits
		slotBits := rowBits + 1
		R, vmax := int32(1)<<rowBits, int32(tileVMax(rowBits))
		tilesOf := make([]int, nseg)
		ownerOf := map[[2]int32]int{} // (segment, slot) -> warp
		prevCost := int64(-1)
		for i := range tl.Count() {
			seg := tl.info[i]
			multi := seg < 0
			seg &= 1<<31 - 1
			if int(seg) >= nseg || tl.first[i]%32 != 0 {
				t.Fatalf("trial %d: tile %d: segment %d of %d, first %d", trial, i, seg, nseg, tl.first[i])
			}
			if multi != (tl.multi[seg] != 0) {
				t.Fatalf("trial %d: tile %d: multi %v, segment's %d", trial, i, multi, tl.multi[seg])
			}
			tilesOf[seg]++
			vr := tl.vrow[tl.vfirst[seg]:tl.vfirst[seg+1]]
			wg := tl.warp[i*(tileWarps+1) : (i+1)*(tileWarps+1)]
			sectors := map[int32]bool{}
			busiest := int32(0)
			for w := range tileWarps {
				busiest = max(busiest, wg[w+1]-wg[w])
			}
			for w := range tileWarps {
				for g := wg[w]; g < wg[w+1]; g++ {
					gi := tl.first[i]/32 + int64(g)
					inGroup := map[int32]bool{}
					var residues [32]int
					for q := gi * 32; q < gi*32+32; q++ {
						a := tl.arcs[q]
						sl := int32(a & (1<<slotBits - 1))
						if sl == R+vmax {
							continue // padding
						}
						if residues[sl%32]++; near && residues[sl%32] > 2 {
							t.Fatalf("trial %d: tile %d, group %d: three slots of residue %d", trial, i, g, sl%32)
						}
						if inGroup[sl] {
							t.Fatalf("trial %d: tile %d, group %d: slot %d twice", trial, i, g, sl)
						}
						inGroup[sl] = true
						if o, ok := ownerOf[[2]int32{seg, sl}]; ok && o != w {
							t.Fatalf("trial %d: segment %d: slot %d in the streams of warps %d and %d", trial, seg, sl, o, w)
						}
						ownerOf[[2]int32{seg, sl}] = w
						r := sl
						if sl >= R {
							if sl-R >= int32(len(vr)) {
								t.Fatalf("trial %d: segment %d: virtual slot %d of %d", trial, seg, sl-R, len(vr))
							}
							r = vr[sl-R]
						}
						w := float32(1)
						if weighted {
							w = tl.vals[q]
						}
						c := tl.base[gi] + int32(a>>slotBits)
						got = append(got, entry{seg<<rowBits + r, c, w})
						sectors[c>>3] = true
					}
				}
			}
			// Costliest first.
			cost := tileCost(int64(busiest), int64(len(sectors)))
			if prevCost >= 0 && cost > prevCost {
				t.Fatalf("trial %d: tile %d costs %d, more than the tile before it (%d)", trial, i, cost, prevCost)
			}
			prevCost = cost
		}
		// A segment without entries has no tile, unless no segment has
		// entries: then segment 0 has one.
		for s, k := range tilesOf {
			lo, hi := min(s<<rowBits, n), min((s+1)<<rowBits, n)
			empty := ptr[lo] == ptr[hi]
			if empty && k != 0 && (s > 0 || ptr[n] > 0) || !empty && k == 0 || empty && k == 0 && s == 0 && ptr[n] == 0 ||
				(k > 1) != (tl.multi[s] != 0) {
				t.Fatalf("trial %d: segment %d (%d entries) has %d tiles, multi %d", trial, s, ptr[hi]-ptr[lo], k, tl.multi[s])
			}
		}
		cmp := func(a, b entry) int {
			if a.r != b.r {
				return int(a.r - b.r)
			}
			return int(a.c - b.c)
		}
		slices.SortFunc(got, cmp)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, rowBits %d, maxArcs %d): the tiles hold %d entries, the matrix %d, or they differ", trial, n, rowBits, maxArcs, len(got), len(want))
		}
	}
}

// TestPullTilesWideSpans: with 29 row bits a group spans at most 4
// columns (offsets of 2 bits), whatever the columns of its row.
func TestPullTilesWideSpans(t *testing.T) {
	n := 64
	ptr := []int64{0, 0, 8}
	col := []int32{0, 3, 4, 9, 20, 21, 22, 63}
	for len(ptr) < n+1 {
		ptr = append(ptr, 8)
	}
	m, err := hyb.FromCSR(n, ptr, col, nil, hyb.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, near := range []bool{false, true} {
		tl := makePullTiles(m, 29, 100, near, false)
		var cols []int32
		for q, a := range tl.arcs {
			if a&(1<<30-1) != uint32(1<<29+tileVMax(29)) {
				if a>>30 >= 4 {
					t.Fatalf("near %v: entry %d: offset %d", near, q, a>>30)
				}
				cols = append(cols, tl.base[q/32]+int32(a>>30))
			}
		}
		slices.Sort(cols)
		if !slices.Equal(cols, col) {
			t.Fatalf("near %v: columns %v, want %v", near, cols, col)
		}
	}
}

// degreeKron is the matrix of a Kronecker graph of the given scale
// (degree 16) renumbered by degree: PageRank's pull matrix of GAP's kron
// graphs, a symmetric one.
func degreeKron(tb testing.TB, scale int) *hyb.Matrix {
	tb.Helper()
	el, err := gen.Kronecker(scale, 16, gen.GAPSeed)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	m, err := hyb.FromGraph(g.Permute(datasets.DegreeOrder(g)), hyb.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkPullTiles builds the tiles of a Kronecker graph renumbered by
// degree (scale 16, degree 16: 2M entries), PageRank's pull matrix
// (undirected: symmetric).
func BenchmarkPullTiles(b *testing.B) {
	m := degreeKron(b, 16)
	b.ReportAllocs()
	for b.Loop() {
		makePullTiles(m, TileRowBitsFor(4, false), TileArcsDefault, true, true)
	}
	b.ReportMetric(float64(m.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mentries/s")
}

// TestTilesColumnOrder: tiles launched in column order are the tiles
// launched costliest first, in another order: by the column where each
// starts (a segment's k-th tile at its k*maxArcs-th smallest column,
// found here by sorting the segment's columns), in 1/1024ths of N. A
// Kronecker graph numbered by degree, whose hubs' segments hold many
// tiles.
func TestTilesColumnOrder(t *testing.T) {
	m := degreeKron(t, 13)
	const rowBits, maxArcs = 9, 1000
	cost := makePullTilesChunked(m, rowBits, maxArcs, true, false, false, planChunk)
	col := makePullTilesChunked(m, rowBits, maxArcs, true, false, true, planChunk)
	if !slices.Equal(col.arcs, cost.arcs) || !slices.Equal(col.base, cost.base) {
		t.Fatal("the entries differ between the two orders")
	}
	type tile struct {
		first int64
		info  int32
		warp  string
	}
	tiles := func(tl *Tiles) map[tile]int {
		m := map[tile]int{}
		for i := range tl.first {
			m[tile{tl.first[i], tl.info[i], fmt.Sprint(tl.warp[i*(tileWarps+1) : (i+1)*(tileWarps+1)])}] = i
		}
		return m
	}
	byCost, byCol := tiles(cost), tiles(col)
	if len(byCost) != len(byCol) {
		t.Fatalf("%d tiles in column order, %d costliest first", len(byCol), len(byCost))
	}
	// (each tile's place in its segment: its rank by first entry there)
	seg := map[int32][]int64{}
	for tl := range byCol {
		s := tl.info &^ (-1 << 31)
		seg[s] = append(seg[s], tl.first)
	}
	shift := bits.Len(uint(m.N-1)) - 10
	at := func(tl tile) int32 {
		s := int(tl.info &^ (-1 << 31))
		k := 0
		for _, f := range seg[int32(s)] {
			if f < tl.first {
				k++
			}
		}
		cols := slices.Clone(m.Src.Col[m.Src.RowPtr[s<<rowBits]:m.Src.RowPtr[min((s+1)<<rowBits, m.N)]])
		slices.Sort(cols)
		return cols[k*maxArcs] >> shift
	}
	order := make([]tile, len(byCol))
	for tl, i := range byCol {
		if _, ok := byCost[tl]; !ok {
			t.Fatalf("tile %+v is not among the costliest-first tiles", tl)
		}
		order[i] = tl
	}
	multi := 0
	for i := 1; i < len(order); i++ {
		a, b := at(order[i-1]), at(order[i])
		if a > b {
			t.Fatalf("tile %d starts in column bucket %d, after one at %d", i, b, a)
		}

		if b > 0 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no segment of several tiles: the test checks nothing")
	}
}
