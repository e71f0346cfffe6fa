//go:build cgo

package build

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// TestDeviceSymmetrizedMatchesHost: a directed graph's undirected view
// built on the device (SymmetrizedRows) has the host's row offsets
// (datasets.Graph.Symmetrized), and the matrix described from them and
// built on the device (from the view kept there, or, once it went, from
// the view made again) equals hyb.FromCSR of the host's view array by
// array, weights bit for bit, in every split: graphs with hubs whose
// in-rows are long, parallel arcs (their lightest weight kept), arcs both
// ways, self loops and empty rows.
func TestDeviceSymmetrizedMatchesHost(t *testing.T) {
	d := needGPU(t)
	dropAllCSRs(d) // (other tests' runs leave theirs)
	rng := rand.New(rand.NewPCG(24, 12))
	for _, c := range []struct{ n, arcs, hub int }{{1, 3, 0}, {33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}, {300001, 1_200_001, 150_000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			want := g.Symmetrized(nil)
			of := hyb.CSR{RowPtr: g.RowPtr, Col: g.Col, Val: g.W}
			rows, err := d.SymmetrizedRows(g.RowPtr, g.Col, g.W)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("n=%d arcs=%d weights=%d", c.n, c.arcs, weights)
			if !slices.Equal(rows, want.RowPtr) {
				t.Fatalf("%s: the device's row offsets differ from the host's view", what)
			}
			for i, s := range gputest.Splits {
				what := what + " " + s.Name
				ref, err := hyb.FromCSR(want.N, want.RowPtr, want.Col, want.W, s.Opt)
				if err != nil {
					t.Fatal(err)
				}
				m, err := hyb.DescribeSymmetrized(g.N, rows, of, s.Opt, func() hyb.CSR {
					t.Errorf("%s: the host's view was asked for", what)
					return hyb.CSR{RowPtr: want.RowPtr, Col: want.Col, Val: want.W}
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, again := range []bool{false, true} {
					if again || i > 0 {
						// (the view the first build borrowed went: made again)
						dropAllCSRs(d)
					}
					err = d.Do("building a symmetrized matrix on the device", func() error {
						md := wholeCopy(m)
						defer func() { rt.FreeAll(md.bufs) }()
						d.buildOnDevice(md, m, phase.New("cuda", "test"))
						slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
						if got := download[int32](md.ellCol, slots); !slices.Equal(got, ref.EllCol) && slots > 0 {
							t.Errorf("%s (again %v): ELL columns differ", what, again)
						}
						if got := download[float32](md.ellVal, slots); !sameBits(got, ref.EllVal) && slots > 0 && ref.EllVal != nil {
							t.Errorf("%s (again %v): ELL values differ", what, again)
						}
						if got := download[int32](md.cooCol, coo); !slices.Equal(got, ref.CooCol) && coo > 0 {
							t.Errorf("%s (again %v): COO columns differ", what, again)
						}
						if got := download[float32](md.cooVal, coo); !sameBits(got, ref.CooVal) && coo > 0 && ref.CooVal != nil {
							t.Errorf("%s (again %v): COO values differ", what, again)
						}
						if got := download[int64](md.cooPtr, int64(g.N+1)); !slices.Equal(got, ref.CooPtr) {
							t.Errorf("%s (again %v): COO row offsets differ", what, again)
						}
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
				}
			}
			dropAllCSRs(d)
		}
	}
}

// symModel runs symmetrizeOnDevice's merge on the host, step for step as
// its kernels do (hb_sy_deg, the scans of the lengths rounded up to 32,
// hb_sy_mask chunk by chunk with each chunk's row found as
// hb_sy_chunks finds it, the scans of the kept counts, hb_sy_rows,
// hb_sy_fill of both sides in reverse chunk order: the warps write in
// any order), from g and its transpose, so its arithmetic is tested
// without a GPU.
func symModel(g *datasets.Graph) (rowPtr []int64, col []int32, w []float32) {
	n := g.N
	tr := g.Transpose()
	ptr := [2][]int64{g.RowPtr, tr.RowPtr}
	cols := [2][]int32{g.Col, tr.Col}
	vals := [2][]float32{g.W, tr.W}
	chunks := symChunks(n, g.NNZ())
	var ch, base [2][]int64
	var mask [2][]uint32
	rowOf := func(s int, c int64) int { // the last row whose first chunk is at or before c
		lo, hi := 0, n
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if ch[s][mid] <= c*32 {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	lower := func(c []int32, lo, hi int64, x int32) int64 {
		for lo < hi {
			mid := lo + (hi-lo)/2
			if c[mid] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	for s := range 2 {
		ch[s] = make([]int64, n+1)
		for v := range n {
			ch[s][v+1] = ch[s][v] + (ptr[s][v+1]-ptr[s][v]+31)/32*32
		}
		mask[s] = make([]uint32, chunks)
		for c := range ch[s][n] / 32 {
			u := rowOf(s, c)
			for lane := range int64(32) {
				i := ptr[s][u] + c*32 - ch[s][u] + lane
				if i >= ptr[s][u+1] {
					continue
				}
				x := cols[s][i]
				keep := i == ptr[s][u] || cols[s][i-1] != x
				if keep && s == 1 {
					j := lower(cols[0], ptr[0][u], ptr[0][u+1], x)
					keep = j == ptr[0][u+1] || cols[0][j] != x
				}
				if keep {
					mask[s][c] |= 1 << lane
				}
			}
		}
		base[s] = make([]int64, chunks+1)
		for c := range chunks {
			base[s][c+1] = base[s][c] + int64(bits.OnesCount32(mask[s][c]))
		}
	}
	rowPtr = make([]int64, n+1)
	for v := range n + 1 {
		rowPtr[v] = base[0][ch[0][v]/32] + base[1][ch[1][v]/32]
	}
	below := func(s, u int, i int64) int64 {
		k := i - ptr[s][u]
		c0 := ch[s][u] / 32
		c := c0 + k/32
		return base[s][c] - base[s][c0] + int64(bits.OnesCount32(mask[s][c]&(1<<(k%32)-1)))
	}
	col = make([]int32, rowPtr[n])
	if g.W != nil {
		w = make([]float32, rowPtr[n])
	}
	for s := range 2 {
		o := 1 - s
		for c := ch[s][n]/32 - 1; c >= 0; c-- {
			u := rowOf(s, c)
			for lane := range int64(32) {
				i := ptr[s][u] + c*32 - ch[s][u] + lane
				if i >= ptr[s][u+1] || mask[s][c]>>lane&1 == 0 {
					continue
				}
				x := cols[s][i]
				oe := ptr[o][u+1]
				j := lower(cols[o], ptr[o][u], oe, x)
				rank := base[s][c] - base[s][ch[s][u]/32] + int64(bits.OnesCount32(mask[s][c]&(1<<lane-1)))
				at := rowPtr[u] + rank + below(o, u, j)
				col[at] = x
				if w != nil {
					m := vals[s][i] // (strictly lighter only, as the kernel)
					for k := i + 1; k < ptr[s][u+1] && cols[s][k] == x; k++ {
						if vals[s][k] < m {
							m = vals[s][k]
						}
					}
					for k := j; s == 0 && k < oe && cols[o][k] == x; k++ {
						if vals[o][k] < m {
							m = vals[o][k]
						}
					}
					w[at] = m
				}
			}
		}
	}
	return rowPtr, col, w
}

// TestSymModelMatchesHost runs symModel (no GPU needed) on the GPU test's
// kinds of graphs, and ones whose rows end on and around chunk
// boundaries: the host's view (datasets.Graph.Symmetrized), row offsets,
// columns and weights bit for bit.
func TestSymModelMatchesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 14))
	for _, c := range []struct{ n, arcs, hub int }{{1, 0, 0}, {1, 3, 0}, {2, 64, 32}, {33, 100, 10}, {40, 1500, 33}, {1000, 8191, 300}, {20000, 90000, 3000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			want := g.Symmetrized(nil)
			rowPtr, col, w := symModel(g)
			what := fmt.Sprintf("n=%d arcs=%d weights=%d", c.n, c.arcs, weights)
			if !slices.Equal(rowPtr, want.RowPtr) || !slices.Equal(col, want.Col) && len(col) > 0 {
				t.Fatalf("%s: the model's view differs from the host's", what)
			}
			for i := range w {
				if math.Float32bits(w[i]) != math.Float32bits(want.W[i]) {
					t.Fatalf("%s: weight %d is %v, the host's %v", what, i, w[i], want.W[i])
				}
			}
		}
	}
}
