package datasets

import (
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
