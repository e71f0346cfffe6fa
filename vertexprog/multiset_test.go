package vertexprog_test

import (
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// stats is a user multiset program's vertex value: its own value and,
// after one superstep, the number of distinct values among its
// neighbours (along every arc at it) and their lower median.
type stats struct {
	Val      int64
	Distinct int
	Median   int64
	Size     int
}

type summary struct {
	distinct, size int
	median         int64
}

type statsProgram struct{}

func value(v int32) int64 { return int64(v*7919) % 13 }

func (statsProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InOutEdges, GatherAll: true, MaxIterations: 1}
}
func (statsProgram) Init(v int32, _ *vertexprog.Step) (stats, bool) {
	return stats{Val: value(v), Median: -1}, true
}
func (statsProgram) Element(_, _ int32, xu stats, _ float32) int64 { return xu.Val }
func (statsProgram) Summarize(_ int32, b vertexprog.Bag[int64]) summary {
	s := summary{distinct: len(b.Values), size: b.Size, median: -1}
	// (the lower median: the element at (size-1)/2 in sorted order)
	for i, rank := 0, (b.Size-1)/2; i < len(b.Values); i++ {
		if rank < b.Counts[i] {
			s.median = b.Values[i]
			break
		}
		rank -= b.Counts[i]
	}
	return s
}
func (statsProgram) Update(_ int32, s summary, x *stats, _ *vertexprog.Step) bool {
	x.Distinct, x.Median, x.Size = s.distinct, s.median, s.size
	return false
}

// bruteStats collects each vertex's neighbour values edge by edge.
func bruteStats(g *datasets.Graph) []stats {
	bags := make([][]int64, g.N)
	for u := int32(0); u < int32(g.N); u++ {
		for _, w := range g.Neighbors(u) {
			bags[u] = append(bags[u], value(w))
			if g.Directed {
				bags[w] = append(bags[w], value(u))
			}
		}
	}
	out := make([]stats, g.N)
	for v, b := range bags {
		slices.Sort(b)
		out[v] = stats{Val: value(int32(v)), Distinct: len(slices.Compact(slices.Clone(b))), Median: -1, Size: len(b)}
		if len(b) > 0 {
			out[v].Median = b[(len(b)-1)/2]
		}
	}
	return out
}

// A user's multiset program (distinct count and median of neighbour
// values) agrees with brute force on every backend configuration.
func TestMultisetUserProgram(t *testing.T) {
	for _, opt := range []datasets.Options{{}, {KeepSelfLoops: true, KeepDuplicates: true}} {
		for _, tg := range vptest.Graphs(t, opt) {
			g := vertexprog.NewGraph(tg.G)
			got := vptest.Compare(t, g,
				func() *vertexprog.MultisetAdapter[stats, int64, summary] {
					return vertexprog.Multiset[stats, int64, summary](statsProgram{})
				},
				func(_ *vertexprog.MultisetAdapter[stats, int64, summary], r *vertexprog.Result[stats]) []stats {
					return r.X
				},
				func(a, b stats) bool { return a == b })
			want := bruteStats(tg.G)
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("%s: vertex %d: %+v, brute force %+v", tg.Name, v, got[v], want[v])
				}
			}
		}
	}
}
