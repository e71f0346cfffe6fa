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
