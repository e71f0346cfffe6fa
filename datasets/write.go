package datasets

import (
	"io"
	"math"
	"strconv"

	"github.com/hpgraph/hpgraph/internal/par"
)

// writeRows writes the text that appendRow makes for every row of g, in
// row order. Rounds of rows are formatted in parallel, one buffer per core,
// and written in order, so memory stays at a few MiB per core.
func writeRows(w io.Writer, g *Graph, appendRow func(dst []byte, v int32) []byte) error {
	p := par.Workers()
	const arcsPerPart = 1 << 18
	bufs := make([][]byte, p)
	for v := 0; v < g.N; {
		// Rows [v, end) hold about p*arcsPerPart arcs (and at most that
		// many rows, for graphs with many empty rows).
		target := g.RowPtr[v] + int64(p*arcsPerPart)
		end, hi := v+1, min(g.N, v+p*arcsPerPart)
		for end < hi {
			mid := int(uint(end+hi) >> 1)
			if g.RowPtr[mid] < target {
				end = mid + 1
			} else {
				hi = mid
			}
		}
		weight := func(i int) int64 { return g.RowPtr[v+i] - g.RowPtr[v] + int64(i) }
		bounds := par.Split(end-v, p, weight)
		par.Parts(bounds, func(k, lo, hi int) {
			buf := bufs[k][:0]
			for r := v + lo; r < v+hi; r++ {
				buf = appendRow(buf, int32(r))
			}
			bufs[k] = buf
		})
		for k := range len(bounds) - 1 {
			if _, err := w.Write(bufs[k]); err != nil {
				return err
			}
		}
		v = end
	}
	return nil
}

// appendWeight formats w so that parseReal reads back exactly w: the
// shortest float32 form when it round-trips through our parser (it almost
// always does), else the shortest float64 form, which always does.
func appendWeight(dst []byte, w float32) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, float64(w), 'g', -1, 32)
	if x, p := parseReal(dst[n:]); p == entryOK && math.Float32bits(x) == math.Float32bits(w) {
		return dst
	}
	return strconv.AppendFloat(dst[:n], float64(w), 'g', -1, 64)
}

func appendInt(dst []byte, x int64, sep byte) []byte {
	return append(strconv.AppendInt(dst, x, 10), sep)
}
