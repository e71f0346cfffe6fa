package vertexprog

import (
	"math/rand/v2"
	"slices"
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
			a, b := sym.Source(), transposeCSR(n, cols.Src.RowPtr, pull.Src)
			if len(a.Col) != int(a.RowPtr[n]) || !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Col, b.Col) || !slices.Equal(a.Val, b.Val) {
				t.Errorf("n=%d part [%d, %d): the push counted from the symmetric rows differs from the pull's transpose", n, r[0], r[1])
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
