package apps

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The apps' outputs in the registry's forms: --out's lines, LDBC's lines,
// and the comparisons of Result.Check.

// WriteVertexLines writes one line per vertex of g, the vertices in the
// order of their original ids (the file's order, whatever order the
// graph was loaded in: --relabel changes no output), each line appended
// to b by line from the vertex and its original id. Blocks of vertices
// are made into lines on all cores, a round of them at a time, and
// written in order: by fmt.Fprintf a line, one core at a time, writing
// kron20's components (1M lines) took 215 of `run cc`'s 336 ms to answer
// on two cores (session 40). line must be safe to call concurrently.
func WriteVertexLines(w io.Writer, g *vertexprog.Graph, line func(b []byte, v int32, id int64) []byte) error {
	const block = 1 << 14 // (vertices a block: about 300 KB of lines)
	d, order, n := g.Dataset(), g.FileOrder(), g.N()
	blocks := (n + block - 1) / block
	round := min(blocks, 4*par.Workers())
	bufs := make([][]byte, round)
	bounds := make([]int, round+1)
	for r0 := 0; r0 < blocks; r0 += round {
		k := min(round, blocks-r0)
		for i := range bounds[:k+1] {
			bounds[i] = i
		}
		par.Dynamic(bounds[:k+1], func(lo, hi int) {
			for j := lo; j < hi; j++ {
				b := bufs[j][:0]
				for i := (r0 + j) * block; i < min((r0+j+1)*block, n); i++ {
					v := int32(i)
					if order != nil {
						v = order[i]
					}
					b = line(b, v, d.OriginalID(v))
				}
				bufs[j] = b
			}
		})
		for _, b := range bufs[:k] {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// AppendInts appends id and the values xs as a line: "id x0 x1 ...\n".
func AppendInts(b []byte, id int64, xs ...int64) []byte {
	b = strconv.AppendInt(b, id, 10)
	for _, x := range xs {
		b = append(b, ' ')
		b = strconv.AppendInt(b, x, 10)
	}
	return append(b, '\n')
}

// AppendFloat appends "id x\n", x as fmt's %.{prec}g ('g') or
// %.{prec}e ('e') writes it (strconv's, byte for byte: prec -1 is %g).
func AppendFloat(b []byte, id int64, x float64, format byte, prec int) []byte {
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, x, format, prec, 64)
	return append(b, '\n')
}

// WriteLDBCFloats writes "id value" lines in LDBC's 16 significant digits
// (PageRank, LCC).
func WriteLDBCFloats(w io.Writer, g *vertexprog.Graph, x []float64) error {
	return WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte { return AppendFloat(b, id, x[v], 'e', 15) })
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
