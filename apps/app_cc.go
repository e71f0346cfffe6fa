package apps

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

var appCC = &App{
	Name:    "cc",
	Aliases: []string{"wcc"}, // LDBC Graphalytics' name
	About:   "weakly connected components, labelled by their smallest vertex (Afforest on the GPU; --direction push or pull runs label propagation)",
	Columns: []string{"component"},
	LDBC:    LDBC{Output: true},
	Program: CCProgram{},
	Traffic: traversalTraffic,
	run:     runCC,
}

func runCC(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	d := g.Dataset()
	opt.Values = lentValues[int32](req.Scratch)
	r, err := ConnectedComponents(g, opt)
	if err != nil {
		return nil, err
	}
	req.Scratch.keep(nil, r.Label)
	largest, _ := labelCounts(r.Label, req.Scratch)
	// A component's label in the outputs is its smallest id in the file
	// (LDBC's WCC labels), found when an output first asks.
	var first []int64
	smallest := func() []int64 {
		if first == nil {
			first = smallestIDs(d, r.Label)
		}
		return first
	}
	lines := func(w io.Writer) error {
		first := smallest()
		return writeVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
			fmt.Fprintf(bw, "%d %d\n", id, first[r.Label[v]])
		})
	}
	return &Result{
		Stats:     statsOf(r.Run),
		Summary:   fmt.Sprintf("%d components, largest %d vertices", r.Components, largest),
		Fields:    map[string]any{"components": r.Components, "largest": largest},
		Rows:      func(v int32, c []Cell) { c[0] = intCell(smallest()[r.Label[v]]) },
		WriteText: lines,
		WriteLDBC: lines,
		Check: func() error {
			want := reference.Components(d)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), d.OriginalID(r.Label[v]), d.OriginalID(want[v]))
				}
			}
			return nil
		},
	}, nil
}

// labelCounts are the number of vertices of the largest group of
// vertices that share a label, and the number of groups, counted on every
// core into s's counts where it has them (labels are vertices: a slice,
// where a map cost ~250 ms on kron21; one core took ~5 ms of a served
// kron21 query). A worker counts in a small table of its own and adds an
// entry to the shared count when another label takes its slot: one
// atomic add a vertex, all on the giant component's counter, took 114 ms.
func labelCounts(label []int32, s *Scratch) (largest int32, groups int) {
	var sizes []int32
	if s != nil && len(s.counts) == len(label) {
		sizes = s.counts
		clear(sizes)
	} else {
		sizes = make([]int32, len(label))
		if s != nil {
			s.counts = sizes
		}
	}
	const slots = 1024
	par.Blocks(len(label), func(_, lo, hi int) {
		var lab [slots]int32
		var cnt [slots]int32
		for _, l := range label[lo:hi] {
			k := l & (slots - 1)
			if cnt[k] > 0 && lab[k] != l {
				atomic.AddInt32(&sizes[lab[k]], cnt[k])
				cnt[k] = 0
			}
			lab[k] = l
			cnt[k]++
		}
		for k, c := range cnt {
			if c > 0 {
				atomic.AddInt32(&sizes[lab[k]], c)
			}
		}
	})
	tops := make([]int32, par.Workers())
	nonzero := make([]int, par.Workers())
	par.Blocks(len(sizes), func(w, lo, hi int) {
		for _, c := range sizes[lo:hi] {
			tops[w] = max(tops[w], c)
			if c > 0 {
				nonzero[w]++
			}
		}
	})
	for _, n := range nonzero {
		groups += n
	}
	return slices.Max(append(tops, 0)), groups
}
