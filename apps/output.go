package apps

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The apps' outputs in the registry's forms: --out's lines, LDBC's lines,
// and the comparisons of Result.Check.

// WriteVertexLines writes one line per vertex of g through a buffer,
// the vertices in the order of their original ids (the file's order,
// whatever order the graph was loaded in: --relabel changes no output),
// each line made by line from the vertex and its original id.
func WriteVertexLines(w io.Writer, g *vertexprog.Graph, line func(bw *bufio.Writer, v int32, id int64)) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	d := g.Dataset()
	forFileOrder(g, func(v int32) { line(bw, v, d.OriginalID(v)) })
	return bw.Flush()
}

// forFileOrder calls fn for every vertex of g in the order of their
// original ids (vertexprog.Graph.FileOrder): the order every per-vertex
// output lists them in (run's --out, serve's rows), so that an output
// does not depend on the order loading gave the vertices.
func forFileOrder(g *vertexprog.Graph, fn func(v int32)) {
	order := g.FileOrder()
	for k := range g.N() {
		v := int32(k)
		if order != nil {
			v = order[k]
		}
		fn(v)
	}
}

// WriteLDBCFloats writes "id value" lines in LDBC's 16 significant digits
// (PageRank, LCC).
func WriteLDBCFloats(w io.Writer, g *vertexprog.Graph, x []float64) error {
	return WriteVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
		fmt.Fprintf(bw, "%d %.15e\n", id, x[v])
	})
}

// CompareFloats compares got with the reference's want to rel
// (relative); infinities compare equal.
func CompareFloats(what string, d *datasets.Graph, want []float64, got func(v int) float64, rel float64) error {
	for v, w := range want {
		x := got(v)
		if x == w || (math.IsInf(x, 1) && math.IsInf(w, 1)) {
			continue
		}
		if math.IsNaN(x) || math.Abs(x-w) > rel*math.Max(math.Abs(x), math.Abs(w)) {
			return fmt.Errorf("vertex %d: %s %v, reference %v (relative tolerance %g)", d.OriginalID(int32(v)), what, x, w, rel)
		}
	}
	return nil
}

// FloatCell and IntCell are per-vertex row values.
func FloatCell(x float64) Cell { return Cell{Float: x, IsFloat: true} }
func IntCell(x int64) Cell     { return Cell{Int: x} }
