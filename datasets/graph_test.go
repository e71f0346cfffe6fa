package datasets

import (
	"bytes"
	"fmt"
	"math"
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
