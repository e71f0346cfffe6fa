package datasets

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Validate reports the first invalid row in row order, whatever block of
// the parallel check finds it, and the first invalid arc within it.
func TestValidateFirstError(t *testing.T) {
	withProcs(t, 3)
	g := randomGraph(t, 11, 20000, 100000, true, true, false)
	row := func(frac float64) int { // a row of 2+ arcs near frac of the way
		v := int(frac * float64(g.N))
		for g.Degree(int32(v)) < 2 {
			v++
		}
		return v
	}
	early, late := row(0.2), row(0.9)
	for _, c := range []struct {
		name string
		edit func(h *Graph)
		want string
	}{
		{"valid", func(*Graph) {}, ""},
		{"negative lengths", func(h *Graph) {
			h.RowPtr[late+1] = h.RowPtr[late] - 1
			h.RowPtr[early+1] = h.RowPtr[early] - 1
		}, "row " + strconv.Itoa(early) + " has negative length"},
		{"out of range before unsorted", func(h *Graph) {
			h.Col[h.RowPtr[late]] = -1
			h.Col[h.RowPtr[early]+1] = -5 // unsorted and out of range: range is checked first
		}, "arc " + strconv.Itoa(early) + "->-5 out of range"},
		{"unsorted", func(h *Graph) {
			h.Col[h.RowPtr[late]] = int32(g.N - 1)
			h.Col[h.RowPtr[early]] = int32(g.N - 1)
		}, "row " + strconv.Itoa(early) + " is not sorted"},
		{"last column out of range", func(h *Graph) {
			h.Col[h.RowPtr[early+1]-1] = int32(g.N)
		}, "out of range [0,20000)"},
		{"weight", func(h *Graph) {
			h.W[h.RowPtr[late]] = float32(math.Inf(1))
			h.W[h.RowPtr[early+1]-1] = float32(math.NaN())
		}, "arc " + strconv.Itoa(early) + "->" + strconv.Itoa(int(g.Col[g.RowPtr[early+1]-1])) + " has weight NaN"},
	} {
		h := *g
		h.RowPtr, h.Col, h.W = slices.Clone(g.RowPtr), slices.Clone(g.Col), slices.Clone(g.W)
		c.edit(&h)
		err := h.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRepeatFree: Build says a graph is RepeatFree exactly when it merged
// duplicates; a cache read back says so exactly when no row repeats (the
// definition, checked plainly); Permute and Transpose keep it.
func TestRepeatFree(t *testing.T) {
	for _, directed := range []bool{false, true} {
		for _, keep := range []bool{false, true} {
			for _, repeated := range []bool{false, true} {
				el := &EdgeList{N: 6, Directed: directed, Src: []int32{0, 1, 2, 3, 4}, Dst: []int32{1, 2, 3, 4, 5}}
				if repeated {
					el.Src, el.Dst = append(el.Src, 2), append(el.Dst, 3)
				}
				g, err := Build(el, Options{KeepDuplicates: keep})
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("directed=%v keep=%v repeated=%v", directed, keep, repeated)
				if g.RepeatFree != !keep {
					t.Errorf("%s: Build's RepeatFree %v", what, g.RepeatFree)
				}
				plain := true
				for v := range int32(g.N) {
					nb := g.Neighbors(v)
					for i := 1; i < len(nb); i++ {
						plain = plain && nb[i] != nb[i-1]
					}
				}
				if plain != !(keep && repeated) {
					t.Fatalf("%s: the test's graph repeats %v", what, !plain)
				}
				var buf bytes.Buffer
				if err := WriteCache(&buf, g); err != nil {
					t.Fatal(err)
				}
				r, err := ReadCache(&buf, "test")
				if err != nil {
					t.Fatal(err)
				}
				if r.RepeatFree != plain {
					t.Errorf("%s: read back, RepeatFree %v, want %v", what, r.RepeatFree, plain)
				}
				if p := r.Permute([]int32{5, 4, 3, 2, 1, 0}); p.RepeatFree != r.RepeatFree {
					t.Errorf("%s: Permute's RepeatFree %v", what, p.RepeatFree)
				}
				if tr := r.Transpose(); tr.RepeatFree != r.RepeatFree {
					t.Errorf("%s: Transpose's RepeatFree %v", what, tr.RepeatFree)
				}
			}
		}
	}
}

// TestTransposeMatchesDefinition: Transpose's rows are the tails of each
// head's arcs in increasing order, parallel arcs by weight, computed
// plainly: directed graphs with hubs, loops, empty rows and parallel arcs
// (listed by weight as Build leaves them, or shuffled as a file may list
// them), of one bucket and of dozens, and of buckets of 2^16 heads with
// arcs into the last, at 1, 3 and 8 workers.
func TestTransposeMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct{ n, perVertex int }{{1, 4}, {70, 4}, {5000, 4}, {300000, 4}, {70000, 1}} {
		n := c.n
		for _, weighted := range []bool{false, true} {
			el := &EdgeList{N: n, Directed: true}
			for range c.perVertex * n {
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				switch rng.IntN(8) {
				case 0:
					v = int32(rng.IntN(min(n, 3))) // hub heads
				case 1:
					v = u
				case 2:
					// (at one arc a vertex, buckets of 2^16 heads: the
					// last head of the first)
					v = int32(min(n-1, 1<<16-1))
				}
				for range 1 + rng.IntN(2) { // parallel arcs, some
					el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
					if weighted {
						el.W = append(el.W, float32(rng.IntN(5)))
					}
				}
			}
			g, err := Build(el, Options{KeepSelfLoops: true, KeepDuplicates: true})
			if err != nil {
				t.Fatal(err)
			}
			if weighted {
				shuffleParallelArcs(g, rng)
			}
			type arc struct {
				u int32
				w float32
			}
			rows := make([][]arc, n)
			for u := range int32(n) {
				for i := g.RowPtr[u]; i < g.RowPtr[u+1]; i++ {
					a := arc{u: u}
					if weighted {
						a.w = g.W[i]
					}
					rows[g.Col[i]] = append(rows[g.Col[i]], a)
				}
			}
			for _, r := range rows {
				slices.SortFunc(r, func(a, b arc) int { return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.w, b.w)) })
			}
			for _, procs := range []int{1, 3, 8} {
				withProcs(t, procs)
				tr := g.Transpose()
				what := fmt.Sprintf("n=%d weighted=%v procs=%d", n, weighted, procs)
				if !tr.Directed || tr.N != n || tr.NNZ() != g.NNZ() || (tr.W != nil) != weighted {
					t.Fatalf("%s: transpose's shape differs", what)
				}
				for v := range int32(n) {
					got, want := tr.Neighbors(v), rows[v]
					if len(got) != len(want) {
						t.Fatalf("%s: row %d has %d arcs, want %d", what, v, len(got), len(want))
					}
					for i, u := range got {
						if u != want[i].u || (weighted && tr.Weights(v)[i] != want[i].w) {
							t.Fatalf("%s: row %d differs at %d", what, v, i)
						}
					}
				}
				if err := tr.Validate(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
		}
	}
}

// TestSymmetrizedMatchesBuild: a directed graph's Symmetrized is what
// Build makes of its arcs as an undirected edge list with self loops kept
// (every array, and the counts), with its transpose given or not, at 1
// and 3 workers; an undirected graph is its own.
func TestSymmetrizedMatchesBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{1, 70, 5000, 100000} {
		for _, weighted := range []bool{false, true} {
			el := &EdgeList{N: n, Directed: true, IDBase: 3, Name: "sym"}
			for range 4 * n {
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				switch rng.IntN(8) {
				case 0:
					v = int32(rng.IntN(min(n, 3)))
				case 1:
					v = u
				case 2:
					el.Src, el.Dst = append(el.Src, v), append(el.Dst, u) // both ways
					if weighted {
						el.W = append(el.W, float32(1+rng.IntN(5)))
					}
				}
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
				if weighted {
					el.W = append(el.W, float32(1+rng.IntN(5)))
				}
			}
			g, err := Build(el, Options{KeepSelfLoops: true, KeepDuplicates: true})
			if err != nil {
				t.Fatal(err)
			}
			ul := g.EdgeList()
			ul.Directed = false
			want, err := Build(ul, Options{KeepSelfLoops: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 3} {
				withProcs(t, procs)
				for _, in := range []*Graph{nil, g.Transpose()} {
					got := g.Symmetrized(in)
					what := fmt.Sprintf("n=%d weighted=%v procs=%d transpose given %v", n, weighted, procs, in != nil)
					if got.Directed || !got.RepeatFree || got.N != n || got.Name != g.Name || got.IDBase != g.IDBase {
						t.Fatalf("%s: %+v", what, got)
					}
					if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.W, want.W) {
						t.Fatalf("%s: the rows differ from Build's", what)
					}
					if got.Stats != want.Stats {
						t.Fatalf("%s: stats %+v, Build's %+v", what, got.Stats, want.Stats)
					}
				}
			}
			if u := want.Symmetrized(nil); u != want {
				t.Fatal("an undirected graph's Symmetrized is not itself")
			}
		}
	}
}
