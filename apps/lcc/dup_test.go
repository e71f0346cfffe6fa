package lcc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestLCCDuplicate: lccDuplicate is the first vertex whose Neighbors
// repeat an entry, found plainly, on random graphs (duplicates kept or
// not, self loops kept or not, directed or not: a directed graph's
// Neighbors merge parallel arcs) large enough to split into many parts,
// at one worker and at more workers than cores; and it is memoized.
func TestLCCDuplicate(t *testing.T) {
	for _, directed := range []bool{false, true} {
		for _, opt := range []datasets.Options{{}, {KeepDuplicates: true}, {KeepSelfLoops: true}, {KeepSelfLoops: true, KeepDuplicates: true}} {
			for _, dupAt := range []int32{-1, 3, 4999, 39990} {
				t.Run(fmt.Sprintf("directed=%v/dups=%v/loops=%v/at=%d", directed, opt.KeepDuplicates, opt.KeepSelfLoops, dupAt), func(t *testing.T) {
					// Distinct random arcs (but for self loops), plus one
					// repeated at dupAt and a loop repeated at 7.
					rng := rand.New(rand.NewPCG(5, uint64(dupAt+2)))
					n := 40000
					el := &datasets.EdgeList{N: n, Directed: directed}
					seen := map[[2]int32]bool{}
					for len(el.Src) < 200000 {
						u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
						if seen[[2]int32{u, v}] || seen[[2]int32{v, u}] || u == dupAt || v == dupAt || u == 7 || v == 7 {
							continue
						}
						seen[[2]int32{u, v}] = true
						el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
					}
					if dupAt >= 0 {
						el.Src, el.Dst = append(el.Src, dupAt, dupAt+1), append(el.Dst, dupAt+1, dupAt)
					}
					el.Src, el.Dst = append(el.Src, 7, 7), append(el.Dst, 7, 7)
					d, err := datasets.Build(el, opt)
					if err != nil {
						t.Fatal(err)
					}
					g := vertexprog.NewGraph(d)
					want := int32(-1)
					for v := range int32(n) {
						nb := g.Neighbors(v)
						for i := 1; i < len(nb); i++ {
							if nb[i] == nb[i-1] {
								want = v
								break
							}
						}
						if want >= 0 {
							break
						}
					}
					// (the definition, checked on what the graph holds)
					expect := int32(-1)
					if !directed && opt.KeepDuplicates {
						expect = dupAt
						if opt.KeepSelfLoops && (dupAt < 0 || dupAt > 7) {
							expect = 7
						}
					}
					if want != expect {
						t.Fatalf("first repeat at %d, want %d", want, expect)
					}
					for _, procs := range []int{1, 7, runtime.GOMAXPROCS(0)} {
						prev := runtime.GOMAXPROCS(procs)
						got := lccFindDuplicate(g)
						runtime.GOMAXPROCS(prev)
						if got != want {
							t.Fatalf("%d workers: %d, want %d", procs, got, want)
						}
					}
					if lccDuplicate(g) != want || lccDuplicate(g) != want {
						t.Fatalf("lccDuplicate: %d, want %d", lccDuplicate(g), want)
					}
				})
			}
		}
	}
}

// BenchmarkLCCDuplicate times the duplicate check of LCC's Prepare (not
// memoized), the host work a device run does before its superstep, on
// GAP's Kronecker graph (undirected: a directed graph's check reads
// nothing) at scale 18, or $HPGRAPH_LCC_BENCH_SCALE.
func BenchmarkLCCDuplicate(b *testing.B) {
	scale := 18
	if s, err := strconv.Atoi(os.Getenv("HPGRAPH_LCC_BENCH_SCALE")); err == nil {
		scale = s
	}
	el, err := gen.Kronecker(scale, gen.GAPDegree, gen.GAPSeed)
	if err != nil {
		b.Fatal(err)
	}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// (as a graph loaded without knowing whether a row repeats: one known
	// RepeatFree is not read at all, and SetBytes then reported a rate of
	// bytes never read)
	d.RepeatFree = false
	g := vertexprog.NewGraph(d)
	b.Run(fmt.Sprintf("kron%d", scale), func(b *testing.B) {
		b.SetBytes(4 * d.NNZ())
		for range b.N {
			if lccFindDuplicate(g) >= 0 {
				b.Fatal("duplicates in kron")
			}
		}
	})
}

// lccDegreeOrdered (where the device sums hub credits first) is true on
// a graph numbered by degree and false where a vertex has more
// neighbours than the one before it.
func TestLCCDegreeOrdered(t *testing.T) {
	// a star centred on 3, with a triangle 0-1-2; directed and numbered
	// by out-degree, it is ordered, but LCC sums no hub credits there
	// (measured slower)
	for _, c := range []struct {
		directed bool
		relabel  datasets.Relabeling
		want     bool
		agg      bool
	}{{false, datasets.RelabelNone, false, false}, {false, datasets.RelabelDegree, true, true}, {true, datasets.RelabelDegree, true, false}} {
		el := &datasets.EdgeList{N: 8, Src: []int32{3, 3, 3, 3, 3, 3, 3, 0, 1}, Dst: []int32{0, 1, 2, 4, 5, 6, 7, 1, 2}, Directed: c.directed}
		d, err := datasets.Build(el, datasets.Options{Relabel: c.relabel})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		if got := lccDegreeOrdered(g); got != c.want {
			t.Errorf("directed %v relabel %v: lccDegreeOrdered %v, want %v", c.directed, c.relabel, got, c.want)
		}
		p := &Program{}
		if err := p.Prepare(g); err != nil {
			t.Fatal(err)
		}
		if p.agg != c.agg {
			t.Errorf("directed %v relabel %v: agg %v, want %v", c.directed, c.relabel, p.agg, c.agg)
		}
	}
}
