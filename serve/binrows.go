package serve

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/hpgraph/hpgraph/apps"
)

// The binary output of a query (output "binary", application/octet-stream)
// is its per-vertex answer as columns that a client reads into arrays
// without parsing text, the rows ordered by id. All little-endian:
//
//	offset  size  contents
//	0       8     magic "HPGROWS\x00"
//	8       4     format version (binRowsVersion)
//	12      4     C, the number of columns
//	16      8     N, the number of rows (the graph's vertices)
//	24            each column: its type, 'q' (int64) or 'd' (float64), a
//	              byte; its name's length L, a byte; its name, L bytes;
//	              then zeros up to a multiple of 8 bytes
//	        8N    the ids (int64), ascending
//	        8N    each column's values, in the ids' order
//
// A column's type is its first row's (the apps' columns do not change
// type); unreached distances are +Inf, unreached depths -1.
const (
	binRowsMagic   = "HPGROWS\x00"
	binRowsVersion = 1
)

// binRowsBytes is the size of a binary answer of n rows of cols columns
// with names of at most 255 bytes.
func binRowsBytes(n, cols int64) int64 { return 24 + cols*264 + n*8*(cols+1) }

// writeBinaryRows writes lg's per-vertex answer in the binary output,
// status and all: the columns are made before anything is sent, so that
// an error (the client gone, a column that changes type) is the answer.
func writeBinaryRows(w http.ResponseWriter, lg *loadedGraph, columns []string, row func(v int32, cells []apps.Cell), ctx context.Context) error {
	d := lg.d
	n := d.N
	// order[i] is the vertex of the i-th smallest id.
	order := make([]int32, n)
	if lo, ok := contiguousIDs(d); ok {
		for v := int32(0); v < int32(n); v++ {
			order[d.OriginalID(v)-lo] = v
		}
	} else {
		for v := range order {
			order[v] = int32(v)
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(d.OriginalID(a), d.OriginalID(b)) })
	}
	le := binary.LittleEndian
	cells := make([]apps.Cell, len(columns))
	cols := make([][]byte, len(columns))
	isFloat := make([]bool, len(columns))
	ids := make([]byte, 8*n)
	for c := range cols {
		cols[c] = make([]byte, 8*n)
	}
	for i, v := range order {
		if i&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		row(v, cells)
		le.PutUint64(ids[8*i:], uint64(d.OriginalID(v)))
		for c, cell := range cells {
			if i == 0 {
				isFloat[c] = cell.IsFloat
			} else if cell.IsFloat != isFloat[c] {
				err := fmt.Errorf("column %s changes type at id %d", columns[c], d.OriginalID(v))
				writeError(w, &apiError{code: http.StatusInternalServerError, msg: err.Error()})
				return err
			}
			x := uint64(cell.Int)
			if cell.IsFloat {
				x = math.Float64bits(cell.Float)
			}
			le.PutUint64(cols[c][8*i:], x)
		}
	}
	hdr := le.AppendUint32([]byte(binRowsMagic), binRowsVersion)
	hdr = le.AppendUint32(hdr, uint32(len(columns)))
	hdr = le.AppendUint64(hdr, uint64(n))
	for c, name := range columns {
		typ := byte('q')
		if isFloat[c] {
			typ = 'd'
		}
		hdr = append(hdr, typ, byte(len(name)))
		hdr = append(hdr, name...)
	}
	for len(hdr)%8 != 0 {
		hdr = append(hdr, 0)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(hdr)
	bw.Write(ids)
	for _, col := range cols {
		if _, err := bw.Write(col); err != nil {
			return err
		}
	}
	return bw.Flush()
}
