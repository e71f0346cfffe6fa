package datasets

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestFillBucketsMatchesDirect builds the same entries with the arcs
// placed by buckets of rows (fillBuckets) and one by one (fillDirect),
// and wants the same graph: directed and undirected, weighted and not,
// self loops and duplicates kept or dropped, renumbered rows and a range
// of them (BuildStreamRows), on one worker and several, on a skewed graph
// (a hub's rows span buckets) and one of many small buckets.
func TestFillBucketsMatchesDirect(t *testing.T) {
	defer func(v int64) { fillBucketsMax = v }(fillBucketsMax)
	graphs := map[string]*EdgeList{"skewed": skewedList(1<<14, 300_000, 3), "sparse": skewedList(200_000, 150_000, 1)}
	for name, el := range graphs {
		newID := rand.New(rand.NewPCG(5, 6)).Perm(el.N)
		ids := make([]int32, el.N)
		for i, v := range newID {
			ids[i] = int32(v)
		}
		stream := &EdgeStream{N: el.N, M: len(el.Src), Directed: el.Directed, Name: name, Blocks: func(fn func(lo int, src, dst []int32)) {
			for lo := 0; lo < len(el.Src); lo += 10_000 {
				hi := min(lo+10_000, len(el.Src))
				fn(lo, el.Src[lo:hi], el.Dst[lo:hi])
			}
		}}
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			for _, opt := range []Options{
				{},
				{Symmetrize: true, KeepSelfLoops: true, KeepDuplicates: true},
				{Weights: WeightsKeep},
				{Weights: WeightsRandom, WeightMin: 1, WeightMax: 9, Symmetrize: true},
			} {
				builds := func() (*Graph, *Graph) {
					whole, err := Build(el, opt)
					if err != nil {
						t.Fatal(err)
					}
					o := opt
					if o.Weights == WeightsKeep {
						o.Weights = WeightsNone // (a stream has no weights of its own)
					}
					rows, err := BuildStreamRows(stream, o, ids, el.N/3, el.N-el.N/4)
					if err != nil {
						t.Fatal(err)
					}
					return whole, rows
				}
				fillBucketsMax = 0
				w0, r0 := builds()
				fillBucketsMax = 1 << 62
				w1, r1 := builds()
				for _, pair := range [][2]*Graph{{w0, w1}, {r0, r1}} {
					a, b := pair[0], pair[1]
					if !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Col, b.Col) || !slices.Equal(a.W, b.W) || a.Stats != b.Stats {
						t.Fatalf("%s, %d workers, %+v: the graphs by buckets and one by one differ (%d and %d arcs)", name, procs, opt, len(b.Col), len(a.Col))
					}
				}
				if len(w1.Col) == 0 || len(r1.Col) == 0 {
					t.Fatalf("%s: no arcs built", name)
				}
			}
			runtime.GOMAXPROCS(old)
		}
	}
}

// skewedList is m entries over n vertices, their ends drawn as the squares
// of uniforms (a few hubs, many light rows), with loops and repeats, and
// weights 0.5-10.5.
func skewedList(n, m int, seed uint64) *EdgeList {
	r := rand.New(rand.NewPCG(seed, seed+1))
	el := &EdgeList{N: n, Name: "skewed", Src: make([]int32, m), Dst: make([]int32, m), W: make([]float32, m)}
	for i := range m {
		a, b := r.Float64(), r.Float64()
		el.Src[i], el.Dst[i] = int32(a*a*float64(n)), int32(b*b*float64(n))
		el.W[i] = 0.5 + float32(r.IntN(20))/2
	}
	el.Directed = seed%2 == 1
	return el
}

// TestSortRowMatchesComparisons sorts rows of lengths around
// radixRowMin, with repeated columns and weights (negative, zero and
// positive), by sortRow and by a comparison sort on (column, weight),
// for 1 to 3 digits.
func TestSortRowMatchesComparisons(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var sc rowScratch
	for _, n := range []int{1000, 1 << 22, 1 << 30} {
		digits := max(1, (bitsLen(n-1)+radixBits-1)/radixBits)
		for _, l := range []int{0, 1, 7, radixRowMin - 1, radixRowMin, 1000, 5000} {
			for _, weighted := range []bool{false, true} {
				cols := make([]int32, l)
				var ws []float32
				if weighted {
					ws = make([]float32, l)
				}
				for i := range cols {
					cols[i] = int32(r.IntN(min(n, 3*l+1)))
					if weighted {
						ws[i] = float32(r.IntN(9)-4) / 2 // (negative, zero and positive)
					}
				}
				type arc struct {
					c int32
					w float32
				}
				want := make([]arc, l)
				for i, c := range cols {
					want[i].c = c
					if weighted {
						want[i].w = ws[i]
					}
				}
				slices.SortFunc(want, func(a, b arc) int {
					if a.c != b.c {
						return int(a.c - b.c)
					}
					return cmp.Compare(a.w, b.w)
				})
				wantC := make([]int32, l)
				var wantW []float32
				if weighted {
					wantW = make([]float32, l)
				}
				for i, a := range want {
					wantC[i] = a.c
					if weighted {
						wantW[i] = a.w
					}
				}
				sortRow(cols, ws, &sc, digits)
				if !slices.Equal(cols, wantC) || !slices.Equal(ws, wantW) {
					t.Fatalf("n %d, length %d, weighted %v: sortRow's order differs from the comparison sort's", n, l, weighted)
				}
			}
		}
	}
}

func bitsLen(x int) int { return bits.Len32(uint32(x)) }
