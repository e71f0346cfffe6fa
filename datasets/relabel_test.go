package datasets

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomList is a skewed random edge list: endpoints drawn with a bias
// towards low ids, so degrees differ and ties occur too.
func randomList(n, m int, directed bool, seed uint64) *EdgeList {
	rng := rand.New(rand.NewPCG(seed, 1))
	el := &EdgeList{N: n, Directed: directed, IDBase: 1, Name: "random"}
	for range m {
		u := int32(rng.IntN(1 + rng.IntN(n)))
		v := int32(rng.IntN(n))
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		el.W = append(el.W, float32(1+rng.IntN(64)))
	}
	return el
}

func TestRelabelDegree(t *testing.T) {
	for _, directed := range []bool{false, true} {
		for _, weighted := range []bool{false, true} {
			el := randomList(300, 2000, directed, 7)
			opt := Options{}
			if !weighted {
				opt.Weights = WeightsNone
			}
			g, err := Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Relabel = RelabelDegree
			p, err := Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			if p.NNZ() != g.NNZ() || p.N != g.N || p.Directed != g.Directed {
				t.Fatalf("sizes: %d/%d arcs, %d/%d vertices", p.NNZ(), g.NNZ(), p.N, g.N)
			}
			// Degrees do not increase, and every arc (with its weight) of
			// g is in p under the original ids.
			byID := map[int64]int32{}
			for v := range p.N {
				if v > 0 && p.Degree(int32(v)) > p.Degree(int32(v-1)) {
					t.Fatalf("degree of %d (%d) above that of %d (%d)", v, p.Degree(int32(v)), v-1, p.Degree(int32(v-1)))
				}
				byID[p.OriginalID(int32(v))] = int32(v)
			}
			if len(byID) != p.N {
				t.Fatalf("%d distinct original ids for %d vertices", len(byID), p.N)
			}
			for u := range g.N {
				pu := byID[g.OriginalID(int32(u))]
				if p.Degree(pu) != g.Degree(int32(u)) {
					t.Fatalf("vertex %d: degree %d, was %d", g.OriginalID(int32(u)), p.Degree(pu), g.Degree(int32(u)))
				}
				for i, v := range g.Neighbors(int32(u)) {
					pv := byID[g.OriginalID(v)]
					found := false
					for j, x := range p.Neighbors(pu) {
						if x == pv && (g.W == nil || p.W[p.RowPtr[pu]+int64(j)] == g.W[g.RowPtr[u]+int64(i)]) {
							found = true
						}
					}
					if !found {
						t.Fatalf("arc %d->%d (weighted %v) lost", g.OriginalID(int32(u)), g.OriginalID(v), weighted)
					}
				}
			}
			// Relabelling a graph already in degree order changes nothing.
			if again := p.Relabel(RelabelDegree); again != p {
				t.Fatal("relabelling a degree-ordered graph made a copy")
			}
		}
	}
}

func TestParseRelabeling(t *testing.T) {
	for s, want := range map[string]Relabeling{"": RelabelNone, "none": RelabelNone, "degree": RelabelDegree, "auto": RelabelAuto} {
		if r, err := ParseRelabeling(s); err != nil || r != want {
			t.Errorf("%q: %v, %v", s, r, err)
		}
		if s != "" && want.String() != s {
			t.Errorf("%v prints as %q", want, want.String())
		}
	}
	if _, err := ParseRelabeling("random"); err == nil {
		t.Error("an unknown order parsed")
	}
}

// A star is not skewed enough to relabel (too few arcs per vertex); 20
// hubs joined to every other vertex are; a ring lattice is not.
func TestSkewed(t *testing.T) {
	star := &EdgeList{N: 1000, Name: "star"}
	for v := int32(1); v < 1000; v++ {
		star.Src, star.Dst = append(star.Src, 0), append(star.Dst, v)
	}
	dense := &EdgeList{N: 1000, Name: "hubs"}
	for h := int32(980); h < 1000; h++ {
		for v := int32(0); v < 980; v++ {
			dense.Src, dense.Dst = append(dense.Src, h), append(dense.Dst, v)
		}
	}
	ring := &EdgeList{N: 1000, Name: "ring"}
	for v := int32(0); v < 1000; v++ {
		for d := int32(1); d <= 10; d++ {
			ring.Src, ring.Dst = append(ring.Src, v), append(ring.Dst, (v+d)%1000)
		}
	}
	for _, c := range []struct {
		el   *EdgeList
		want bool
	}{{star, false}, {dense, true}, {ring, false}} {
		g, err := Build(c.el, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if Skewed(g) != c.want {
			t.Errorf("%s: Skewed %v, want %v", c.el.Name, !c.want, c.want)
		}
		p, err := Build(c.el, Options{Relabel: RelabelAuto})
		if err != nil {
			t.Fatal(err)
		}
		if relabelled := p.IDs != nil; relabelled != c.want {
			t.Errorf("%s: auto relabelled %v, want %v", c.el.Name, relabelled, c.want)
		}
	}
}

// Skewed's histogram median agrees with sorting the degrees.
func TestSkewedMatchesSortedMedian(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		el := randomList(200+int(seed)*7, 1000+int(seed)*300, seed%2 == 0, seed)
		g, err := Build(el, Options{})
		if err != nil {
			t.Fatal(err)
		}
		deg := make([]int, g.N)
		for v := range deg {
			deg[v] = g.Degree(int32(v))
		}
		slices.Sort(deg)
		mean := float64(g.NNZ()) / float64(g.N)
		want := g.NNZ() >= 8*int64(g.N) && mean > 1.3*float64(deg[g.N/2])
		if got := Skewed(g); got != want {
			t.Errorf("seed %d: Skewed %v, sorted median %d and mean %.2f say %v", seed, got, deg[g.N/2], mean, want)
		}
	}
}

// permuteBySorting is Permute's specification, computed another way: map
// every row's columns, then sort the row stably by column (parallel arcs
// keep their order in the input row).
func permuteBySorting(g *Graph, newID []int32) *Graph {
	type arc struct {
		to int32
		w  float32
	}
	old := make([]int32, g.N)
	for v, nv := range newID {
		old[nv] = int32(v)
	}
	p := &Graph{Name: g.Name, N: g.N, RowPtr: []int64{0}, Col: []int32{}, Directed: g.Directed, Stats: g.Stats, RepeatFree: g.RepeatFree}
	if g.W != nil {
		p.W = []float32{}
	}
	for _, v := range old {
		ws := g.Weights(v)
		arcs := make([]arc, g.Degree(v))
		for i, u := range g.Neighbors(v) {
			arcs[i].to = newID[u]
			if ws != nil {
				arcs[i].w = ws[i]
			}
		}
		slices.SortStableFunc(arcs, func(a, b arc) int { return int(a.to) - int(b.to) })
		for _, a := range arcs {
			p.Col = append(p.Col, a.to)
			if ws != nil {
				p.W = append(p.W, a.w)
			}
		}
		p.RowPtr = append(p.RowPtr, int64(len(p.Col)))
		p.IDs = append(p.IDs, g.OriginalID(v))
	}
	return p
}

// shuffleParallelArcs reorders every run of equal columns of a directed
// graph's rows at random, so that parallel arcs' order is not that of
// their weights (as Build leaves it) and must be kept as it is.
func shuffleParallelArcs(g *Graph, rng *rand.Rand) {
	for v := range g.N {
		s, e := g.RowPtr[v], g.RowPtr[v+1]
		for i := s; i < e; {
			j := i
			for j < e && g.Col[j] == g.Col[i] {
				j++
			}
			w := g.W[i:j]
			rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
			i = j
		}
	}
}

// Permute equals a per-row stable sort on random graphs of every kind:
// directed or not, weighted or not, with parallel arcs of different
// weights, self loops, isolated vertices and empty rows, on 1 to 3
// goroutines, with random permutations and the degree order.
func TestPermuteMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 60 {
		n := 1 + rng.IntN(1<<rng.IntN(13))
		m := rng.IntN(8*n + 1)
		if trial%10 == 0 {
			m = 300000 // large enough to run in parallel
		}
		directed, weighted := trial%2 == 0, trial%4 < 2
		el := &EdgeList{N: n, Directed: directed, IDBase: int64(rng.IntN(3)), Name: "perm"}
		for range m {
			// Ids below n/2 only: the upper half is isolated; few distinct
			// weights, so parallel arcs sometimes tie on weight too.
			el.Src = append(el.Src, int32(rng.IntN(n/2+1)))
			el.Dst = append(el.Dst, int32(rng.IntN(n/2+1)))
			el.W = append(el.W, float32(rng.IntN(4)))
		}
		if trial%3 == 0 {
			el.IDs = make([]int64, n)
			for v := range el.IDs {
				el.IDs[v] = int64(3*v + 1)
			}
		}
		opt := Options{KeepDuplicates: trial%3 != 2, KeepSelfLoops: trial%5 < 3}
		if !weighted {
			opt.Weights = WeightsNone
		}
		g, err := Build(el, opt)
		if err != nil {
			t.Fatal(err)
		}
		if weighted && directed {
			shuffleParallelArcs(g, rng)
		}
		orders := map[string][]int32{"degree": DegreeOrder(g), "random": make([]int32, n)}
		for v, nv := range rng.Perm(n) {
			orders["random"][v] = int32(nv)
		}
		for name, newID := range orders {
			want := permuteBySorting(g, newID)
			for _, procs := range []int{1, 2, 3} {
				withProcs(t, procs)
				got := g.Permute(newID)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("trial %d (n=%d m=%d directed=%v weighted=%v %s order, %d procs): Permute differs from sorting",
						trial, n, m, directed, weighted, name, procs)
				}
			}
		}
	}
}

// Permute of a built graph equals building the renumbered edge list: the
// independent construction through Build (which orders parallel arcs by
// weight, an order Permute keeps).
func TestPermuteMatchesBuild(t *testing.T) {
	for _, directed := range []bool{false, true} {
		for _, weighted := range []bool{false, true} {
			el := randomList(2000, 30000, directed, 5)
			for i := range el.W {
				el.W[i] = float32(int(el.W[i]) % 3) // parallel arcs of equal and different weights
			}
			opt := Options{KeepDuplicates: true, KeepSelfLoops: true}
			if !weighted {
				opt.Weights = WeightsNone
			}
			g, err := Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			newID := DegreeOrder(g)
			mapped := &EdgeList{N: el.N, Directed: directed, W: el.W, Name: el.Name, IDs: make([]int64, el.N)}
			for i := range el.Src {
				mapped.Src = append(mapped.Src, newID[el.Src[i]])
				mapped.Dst = append(mapped.Dst, newID[el.Dst[i]])
			}
			for v, nv := range newID {
				mapped.IDs[nv] = el.OriginalID(int32(v))
			}
			want, err := Build(mapped, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := g.Permute(newID)
			if !reflect.DeepEqual(got.RowPtr, want.RowPtr) || !reflect.DeepEqual(got.Col, want.Col) ||
				!reflect.DeepEqual(got.W, want.W) || !reflect.DeepEqual(got.IDs, want.IDs) {
				t.Errorf("directed=%v weighted=%v: Permute differs from building the renumbered list", directed, weighted)
			}
		}
	}
}

// A graph of one vertex, with and without a self loop.
func TestPermuteOneVertex(t *testing.T) {
	for _, g := range []*Graph{
		{N: 1, RowPtr: []int64{0, 0}, Col: []int32{}, IDBase: 4},
		{N: 1, RowPtr: []int64{0, 1}, Col: []int32{0}, W: []float32{2.5}, Directed: true},
	} {
		p := g.Permute([]int32{0})
		if !reflect.DeepEqual(p, permuteBySorting(g, []int32{0})) {
			t.Errorf("%+v permuted to %+v", g, p)
		}
	}
}

// DegreeOrder numbers the vertices as a stable sort by decreasing degree
// does: on small graphs (counted in one block), and on larger ones in
// blocks, with vertices of degrees above its counted buckets (sorted
// apart), ties among them too.
func TestDegreeOrderIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 41))
	for _, n := range []int{1, 7, 5000, 70000} {
		deg := make([]int64, n)
		for v := range deg {
			deg[v] = int64(rng.IntN(40))
			if rng.IntN(2000) == 0 {
				deg[v] = degreeBuckets + int64(rng.IntN(3))*1000 // (ties above the buckets too)
			}
		}
		rowPtr := make([]int64, n+1)
		for v, d := range deg {
			rowPtr[v+1] = rowPtr[v] + d
		}
		g := &Graph{N: n, RowPtr: rowPtr}
		order := make([]int32, n)
		for v := range order {
			order[v] = int32(v)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(deg[b], deg[a]) })
		want := make([]int32, n)
		for i, v := range order {
			want[v] = int32(i)
		}
		if got := DegreeOrder(g); !slices.Equal(got, want) {
			t.Errorf("%d vertices: the order differs from a stable sort by decreasing degree", n)
		}
	}
}
