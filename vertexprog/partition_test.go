package vertexprog

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
)

// TestPartPushCountsOfAnUndirectedGraph: a part's push rows counted from
// the symmetric adjacency's rows are the counts of the part pull's
// columns, and the transpose materialized from them is the host's, for
// undirected graphs with self loops, parallel edges and hubs, on parts
// of every shape (empty, one word, the whole graph).
func TestPartPushCountsOfAnUndirectedGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	for _, n := range []int{1, 40, 9000} {
		el := directedTestGraph(t, rng, n, 4*n, true)
		d, err := datasets.Build(&datasets.EdgeList{N: el.N, Src: sources(el), Dst: el.Col, W: el.W},
			datasets.Options{Symmetrize: true, KeepSelfLoops: true, KeepDuplicates: true})
		if err != nil {
			t.Fatal(err)
		}
		if d.Directed {
			t.Fatal("a symmetrized graph is directed")
		}
		opt := hyb.DefaultOptions()
		for _, r := range [][2]int32{{0, 0}, {0, int32(n)}, {0, min(32, int32(n))}, {int32(n) / 3 &^ 31, int32(n)}, {int32(n) / 4 &^ 31, int32(n) / 2 &^ 31}} {
			pull, err := partPull(d, opt, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			sym, err := partPush(pull, d, nil, r[0], r[1], opt)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := partPush(pull, nil, nil, r[0], r[1], opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sym.Src.RowPtr, cols.Src.RowPtr) || len(sym.Src.RowPtr) != n+1 {
				t.Errorf("n=%d part [%d, %d): the push rows counted from the symmetric rows differ from the pull's column counts", n, r[0], r[1])
			}
			// The push materialized from those rows against the pull's
			// entries sorted by column, each column's in the pull's order.
			type entry struct {
				row, col int32
				w        float32
			}
			var want []entry
			src := pull.Src
			for u := range int32(n) {
				for i := src.RowPtr[u]; i < src.RowPtr[u+1]; i++ {
					want = append(want, entry{src.Col[i], u, src.Val[i]})
				}
			}
			sort.SliceStable(want, func(i, j int) bool { return want[i].row < want[j].row })
			a := sym.Source()
			if len(a.Col) != len(want) {
				t.Fatalf("n=%d part [%d, %d): push of %d entries, the pull has %d", n, r[0], r[1], len(a.Col), len(want))
			}
			for v := range int32(n) {
				for i := a.RowPtr[v]; i < a.RowPtr[v+1]; i++ {
					if e := want[i]; e.row != v || e.col != a.Col[i] || e.w != a.Val[i] {
						t.Fatalf("n=%d part [%d, %d): push entry %d is (%d, %d, %g), the pull's transpose has (%d, %d, %g)", n, r[0], r[1], i, v, a.Col[i], a.Val[i], e.row, e.col, e.w)
					}
				}
			}
		}
	}
}

// sources lists each arc's tail of a CSR.
func sources(d *datasets.Graph) []int32 {
	src := make([]int32, 0, len(d.Col))
	for u := range d.N {
		for range d.RowPtr[u+1] - d.RowPtr[u] {
			src = append(src, int32(u))
		}
	}
	return src
}

// TestSplitRowsByCost: every boundary is the first 32-aligned vertex
// whose rows' entries plus cost a row reach its share of the total (a
// scan over every vertex), for random skewed rows and several costs; a
// higher row cost moves the boundaries of rows sorted by decreasing
// length towards the long rows' end.
func TestSplitRowsByCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for _, n := range []int{0, 31, 5000} {
		lens := make([]int64, n)
		for i := range lens {
			lens[i] = int64(rng.IntN(200) * rng.IntN(3) * rng.IntN(3))
		}
		slices.SortFunc(lens, func(a, b int64) int { return int(b - a) })
		rowPtr := make([]int64, n+1)
		for i, l := range lens {
			rowPtr[i+1] = rowPtr[i] + l
		}
		var prev []int32
		for _, cost := range []int64{0, rowCost, searchRowCost, 1000} {
			for _, parts := range []int{1, 2, 3, 7} {
				pt, err := splitRows(rowPtr, parts, cost)
				if err != nil {
					t.Fatal(err)
				}
				total := rowPtr[n] + cost*int64(n)
				for p := 1; p < parts; p++ {
					want := total * int64(p) / int64(parts)
					v := 0
					for v < n && rowPtr[v]+cost*int64(v) < want {
						v++
					}
					v = min((v+31)/32*32, n)
					if got := pt.Bounds[p]; got != max(int32(v), pt.Bounds[p-1]) {
						t.Fatalf("n %d, cost %d, %d parts: boundary %d is %d, want %d", n, cost, parts, p, got, v)
					}
				}
				if parts == 2 {
					if prev != nil && pt.Bounds[1] < prev[1] {
						t.Errorf("n %d: cost %d moved the boundary back, %d < %d", n, cost, pt.Bounds[1], prev[1])
					}
					prev = pt.Bounds
				}
			}
		}
	}
}

// searchProgram is a program that filters its rows and exits early: a
// search, for split.
type searchProgram struct{ Program[int32, int32] }

func (searchProgram) Wants(int32) bool { return true }
func (searchProgram) Done(int32) bool  { return true }

// TestSearchSplit: a search's parts are split by searchRowCost a row
// where no part then holds more than maxArcsShare times its share of the
// arcs, by half that cost (down to rowCost) where one would; other
// programs, and any program on a graph of some rows, split by rowCost.
func TestSearchSplit(t *testing.T) {
	// 1,024 rows of 50 arcs, then 3,072 rows of one arc: 64 a row puts
	// 95% of the arcs in the first of 2 parts, rowCost 71%.
	const n = 4096
	var el datasets.EdgeList
	el.N, el.Directed = n, true
	for u := range int32(n) {
		deg := 1
		if u < 1024 {
			deg = 50
		}
		for k := range deg {
			el.Src = append(el.Src, u)
			el.Dst = append(el.Dst, int32((int(u)+k+1)%n))
		}
	}
	d, err := datasets.Build(&el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(d)
	rowPtr := d.RowPtr
	nnz := rowPtr[n]
	most := func(pt Partition) int64 {
		m := int64(0)
		for p := range pt.Parts() {
			lo, hi := pt.Range(p)
			m = max(m, rowPtr[hi]-rowPtr[lo])
		}
		return m
	}
	for _, parts := range []int{2, 3} {
		got, err := split[int32, int32](g, searchProgram{}, rowPtr, parts)
		if err != nil {
			t.Fatal(err)
		}
		if m := most(got); float64(m) > maxArcsShare*float64(nnz)/float64(parts) {
			t.Errorf("%d parts: a part holds %d of %d arcs", parts, m, nnz)
		}
		// The highest cost, halving from searchRowCost, that keeps the share.
		want := Partition{}
		for cost := int64(searchRowCost); ; cost /= 2 {
			pt, _ := splitRows(rowPtr, parts, cost)
			if cost <= rowCost || float64(most(pt)) <= maxArcsShare*float64(nnz)/float64(parts) {
				want = pt
				break
			}
		}
		if !slices.Equal(got.Bounds, want.Bounds) {
			t.Errorf("%d parts: a search split at %v, want %v", parts, got.Bounds, want.Bounds)
		}
		if full, _ := splitRows(rowPtr, parts, searchRowCost); slices.Equal(full.Bounds, got.Bounds) {
			t.Errorf("%d parts: the search split did not back off from %d a row (%v)", parts, searchRowCost, got.Bounds)
		}
		plain, _ := SplitRows(rowPtr, parts)
		if other, _ := split[int32, int32](g, struct{ Program[int32, int32] }{}, rowPtr, parts); !slices.Equal(other.Bounds, plain.Bounds) {
			t.Errorf("%d parts: a program that is not a search split at %v, want %v", parts, other.Bounds, plain.Bounds)
		}
		g.held = &heldRows{rowPtr: rowPtr, bounds: []int32{0, int32(len(rowPtr) - 1)}}
		if held, _ := split[int32, int32](g, searchProgram{}, rowPtr, parts); !slices.Equal(held.Bounds, plain.Bounds) {
			t.Errorf("%d parts: a search on a graph of some rows split at %v, want %v", parts, held.Bounds, plain.Bounds)
		}
		g.held = nil
	}
}

// TestInterleavedPartsBalance: a kron graph renumbered by degree over P
// parts (datasets.Graph.RelabelParts) splits, by SplitRows and by a
// search's split, into parts of about 1/P of the rows and of the arcs
// each, where the plain degree order gives the first part the hubs' arcs
// and the last most of the rows.
func TestInterleavedPartsBalance(t *testing.T) {
	el, err := gen.Kronecker(14, 16, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{2, 3} {
		in := d.RelabelParts(datasets.RelabelDegree, parts)
		plain := d.Relabel(datasets.RelabelDegree)
		n, nnz := float64(d.N), float64(d.NNZ())
		share := func(g *datasets.Graph, pt Partition) (rows, arcs float64) {
			rows, arcs = 0, 0
			for p := range pt.Parts() {
				lo, hi := pt.Range(p)
				rows = max(rows, float64(hi-lo)/n*float64(parts))
				arcs = max(arcs, float64(g.RowPtr[hi]-g.RowPtr[lo])/nnz*float64(parts))
			}
			return rows, arcs
		}
		for _, search := range []bool{false, true} {
			var pt, pp Partition
			if search {
				pt, _ = searchSplit(in.RowPtr, parts)
				pp, _ = searchSplit(plain.RowPtr, parts)
			} else {
				pt, _ = SplitRows(in.RowPtr, parts)
				pp, _ = SplitRows(plain.RowPtr, parts)
			}
			r, a := share(in, pt)
			pr, pa := share(plain, pp)
			t.Logf("%d parts, search %v: the largest part's rows and arcs over an even share: interleaved %.3f, %.3f; degree order %.3f, %.3f", parts, search, r, a, pr, pa)
			if r > 1.03 || a > 1.03 {
				t.Errorf("%d parts, search %v: a part holds %.3f times its share of the rows or %.3f of the arcs", parts, search, r, a)
			}
		}
	}
}

// transposeCSR, on every core, is the stable transpose: each row its
// entries' rows increasing, the parallel entries of one row (duplicates,
// their weights differing) in the source's order, as a sequential pass
// over the source rows places them.
func TestTransposeCSRIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	for _, n := range []int{1, 50, 9000} {
		for _, weighted := range []bool{false, true} {
			src := hyb.CSR{RowPtr: make([]int64, n+1)}
			for v := range n {
				deg := rng.IntN(12)
				if rng.IntN(500) == 0 {
					deg = 3000 // (a hub: its column is many workers' at once)
				}
				for range deg {
					u := int32(rng.IntN(n))
					if rng.IntN(20) == 0 {
						u = 0
					}
					src.Col = append(src.Col, u)
					if weighted {
						src.Val = append(src.Val, float32(rng.IntN(64)))
					}
					if rng.IntN(10) == 0 { // (a parallel entry)
						src.Col = append(src.Col, u)
						if weighted {
							src.Val = append(src.Val, float32(rng.IntN(64)))
						}
					}
				}
				src.RowPtr[v+1] = int64(len(src.Col))
			}
			rowPtr := make([]int64, n+1)
			for _, u := range src.Col {
				rowPtr[u+1]++
			}
			for v := range n {
				rowPtr[v+1] += rowPtr[v]
			}
			// (the sequential pass)
			want := hyb.CSR{RowPtr: rowPtr, Col: make([]int32, len(src.Col))}
			if weighted {
				want.Val = make([]float32, len(src.Col))
			}
			next := slices.Clone(rowPtr[:n])
			for v := range n {
				for i := src.RowPtr[v]; i < src.RowPtr[v+1]; i++ {
					j := next[src.Col[i]]
					next[src.Col[i]]++
					want.Col[j] = int32(v)
					if weighted {
						want.Val[j] = src.Val[i]
					}
				}
			}
			got := transposeCSR(n, rowPtr, src)
			if !slices.Equal(got.Col, want.Col) || !slices.Equal(got.Val, want.Val) {
				t.Errorf("%d rows, weighted %v: the transpose differs from the sequential pass's", n, weighted)
			}
		}
	}
}

// TestInRange: the columns of a sorted row in [lo, hi), by its ends and
// binary searches, are those a scan counts, with repeated columns, empty
// rows and ranges at and past either end.
func TestInRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for range 2000 {
		row := make([]int32, rng.IntN(40))
		for i := range row {
			row[i] = rng.Int32N(50)
		}
		slices.Sort(row)
		lo := rng.Int32N(55)
		hi := lo + rng.Int32N(55-lo+1)
		want := 0
		for _, c := range row {
			if c >= lo && c < hi {
				want++
			}
		}
		if got := inRange(row, lo, hi); got != want {
			t.Fatalf("row %v, [%d, %d): %d columns, want %d", row, lo, hi, got, want)
		}
	}
}
