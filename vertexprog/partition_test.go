package vertexprog

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
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
			sym, err := partPush(pull, d, r[0], r[1], opt)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := partPush(pull, nil, r[0], r[1], opt)
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
// search, for splitCost.
type searchProgram struct{ Program[int32, int32] }

func (searchProgram) Wants(int32) bool { return true }
func (searchProgram) Done(int32) bool  { return true }

// TestSplitCostOfASearch: a search splits by searchRowCost, other
// programs, and any program on a graph of some rows, by rowCost.
func TestSplitCostOfASearch(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(d)
	if c := splitCost[int32, int32](g, searchProgram{}); c != searchRowCost {
		t.Errorf("a search splits by %d, want %d", c, searchRowCost)
	}
	if c := splitCost[int32, int32](g, struct{ Program[int32, int32] }{}); c != rowCost {
		t.Errorf("a program that is not a search splits by %d, want %d", c, rowCost)
	}
	g.held = &heldRows{}
	if c := splitCost[int32, int32](g, searchProgram{}); c != rowCost {
		t.Errorf("a search on a graph of some rows splits by %d, want %d", c, rowCost)
	}
}

// TestPartPullWidth: a part's pull takes the ELL width the rule gives its
// own rows, capped by the whole graph's, where the rule over all N rows
// (the other parts' rows empty) would give less; it holds the part's
// rows' entries and no other. Skewed rows, sorted by decreasing length
// (a graph numbered by degree), cut into a part of long rows and one of
// short ones.
func TestPartPullWidth(t *testing.T) {
	const n = 4096
	var el datasets.EdgeList
	el.N = n
	rng := rand.New(rand.NewPCG(41, 2))
	for u := range int32(n) {
		deg := 1 + int(2000/(int(u)+1)) + rng.IntN(3)
		for range deg {
			el.Src = append(el.Src, u)
			el.Dst = append(el.Dst, int32(rng.IntN(n)))
		}
	}
	el.Directed = true
	d, err := datasets.Build(&el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opt := hyb.Options{RelativeSpeed: 3, Breakeven: 16}
	whole := hyb.ChooseK(d.RowPtr, opt)
	for _, r := range [][2]int32{{0, 64}, {64, n}, {1024, 2048}, {0, n}} {
		pull, err := partPull(d, opt, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		own := hyb.ChooseK(d.RowPtr[r[0]:r[1]+1], opt)
		if want := min(own, whole); pull.K != want {
			t.Errorf("part [%d, %d): K %d, want %d (its rows' rule %d, the whole graph's %d)", r[0], r[1], pull.K, want, own, whole)
		}
		if got, want := pull.NNZ(), d.RowPtr[r[1]]-d.RowPtr[r[0]]; got != want {
			t.Errorf("part [%d, %d): %d entries, want %d", r[0], r[1], got, want)
		}
	}
}
