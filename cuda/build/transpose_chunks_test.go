//go:build cgo

package build

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// TestChunkRows: the chunks cover every row once, in order, whole rows
// each, each within the bound but for its last row.
func TestChunkRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, most := range []int64{1, 3, 100, 1 << 40} {
		for _, n := range []int{0, 1, 2, 17, 1000} {
			rowPtr := make([]int64, n+1)
			for v := range n {
				l := int64(rng.IntN(8))
				if rng.IntN(50) == 0 {
					l = 500 // (a row longer than most chunks)
				}
				rowPtr[v+1] = rowPtr[v] + l
			}
			b := chunkRows(rowPtr, most)
			if b[0] != 0 || b[len(b)-1] != n || len(b) < 2 {
				t.Fatalf("most %d, n %d: bounds %v", most, n, b)
			}
			for i := 1; i < len(b); i++ {
				lo, hi := b[i-1], b[i]
				if hi <= lo && n > 0 {
					t.Fatalf("most %d, n %d: empty chunk %d in %v", most, n, i, b)
				}
				// without its last row, a chunk holds fewer than most arcs
				if hi-lo > 1 && rowPtr[hi-1]-rowPtr[lo] >= most {
					t.Fatalf("most %d, n %d: chunk [%d, %d) has %d arcs before its last row", most, n, lo, hi, rowPtr[hi-1]-rowPtr[lo])
				}
			}
		}
	}
}

// TestChunkedTransposeMatchesHost: transposeRows in chunks (a few arcs a
// chunk, rows longer than a chunk, parallel arcs, weights, shuffled rows)
// gives datasets.Graph.Transpose's arrays bit for bit, as the whole sort
// does (TestDeviceTransposeMatchesHost).
func TestChunkedTransposeMatchesHost(t *testing.T) {
	d := needGPU(t)
	keep := transposeChunkArcs
	defer func() { transposeChunkArcs = keep }()
	rng := rand.New(rand.NewPCG(28, 2))
	cases := []struct {
		n, arcs, hub int
		chunk        int64
	}{
		{2, 9, 0, 1}, {257, 4097, 0, 100}, {65537, 65537, 100, 4096}, {70000, 300_000, 20_000, 50_000},
		{1 << 20, 17_000_000, 200_000, 1 << 22},
	}
	for _, c := range cases {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			for _, shuffled := range []bool{false, true} {
				in := g
				if shuffled {
					in = shuffleRows(rng, g)
				}
				want := in.Transpose()
				what := fmt.Sprintf("n=%d arcs=%d hub=%d chunk=%d weights=%d shuffled=%v", c.n, c.arcs, c.hub, c.chunk, weights, shuffled)
				transposeChunkArcs = c.chunk
				if len(chunkRows(in.RowPtr, c.chunk)) < 3 {
					t.Fatalf("%s: one chunk", what)
				}
				err := d.Do("transposing on the device in chunks", func() error {
					var bufs []cu.DevicePtr
					defer func() { rt.FreeAll(bufs) }()
					rp, col, w := rt.Put(d, &bufs, in.RowPtr), rt.Put(d, &bufs, in.Col), rt.Put(d, &bufs, in.W)
					trp, tc, tv := d.transposeRows(&bufs, rp, col, w, in.RowPtr, want.RowPtr)
					nnz := in.NNZ()
					if i := firstDiff(download[int64](trp, int64(in.N)+1), want.RowPtr); i >= 0 {
						t.Errorf("%s: row offsets differ first at row %d", what, i)
					}
					got := download[int32](tc, nnz)
					if i := firstDiff(got, want.Col); i >= 0 {
						t.Errorf("%s: columns differ first at %d (%d, host %d)", what, i, got[i], want.Col[i])
					}
					if !sameBits(download[float32](tv, nnz), want.W) {
						t.Errorf("%s: weights differ", what)
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

// TestChunkedTransposeChecksRows: rows counted wrongly by the host fail
// loudly (a panic inside Do, which Do turns into an error), never a
// result.
func TestChunkedTransposeChecksRows(t *testing.T) {
	d := needGPU(t)
	keep := transposeChunkArcs
	defer func() { transposeChunkArcs = keep }()
	transposeChunkArcs = 64
	g := gputest.DirectedGraph(rand.New(rand.NewPCG(28, 3)), 500, 4000, 0, 0)
	want := g.Transpose()
	wrong := append([]int64(nil), want.RowPtr...)
	wrong[1]++ // (row 0 one longer, row 1 one shorter: the same arcs)
	err := d.Do("transposing with wrong rows", func() error {
		var bufs []cu.DevicePtr
		defer func() { rt.FreeAll(bufs) }()
		rp, col := rt.Put(d, &bufs, g.RowPtr), rt.Put(d, &bufs, g.Col)
		d.transposeRows(&bufs, rp, col, 0, g.RowPtr, wrong)
		return nil
	})
	if err == nil {
		t.Fatal("a transpose with wrongly counted rows gave no error")
	}
	t.Log(err)
}
