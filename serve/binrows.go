package serve

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"

	"github.com/hpgraph/hpgraph/apps"
)

// The binary output of a query (output "binary", application/octet-stream)
// is its per-vertex answer as columns that a client reads into arrays
// without parsing text, the rows ordered by id: every vertex's, or with
// reached_only the reached vertices'; every column, or those the request
// names (RunRequest.Columns). All little-endian:
//
//	offset  size  contents
//	0       8     magic "HPGROWS\x00"
//	8       4     format version (binRowsVersion)
//	12      4     C, the number of columns
//	16      8     N, the number of rows
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

// writeBinaryRows writes lg's per-vertex answer in the binary output (q's
// columns, q's vertices), status and all: the columns are made before
// anything is sent, so that an error (the client gone, a column that
// changes type) is the answer.
func writeBinaryRows(w http.ResponseWriter, lg *loadedGraph, q *query, row func(v int32, cells []apps.Cell), ctx context.Context) error {
	d := lg.d
	columns := q.columnNames()
	le := binary.LittleEndian
	cols := make([][]byte, len(columns))
	isFloat := make([]bool, len(columns))
	ids := make([]byte, 0, 8*d.N)
	for c := range cols {
		cols[c] = make([]byte, 0, 8*d.N)
	}
	err := eachRow(ctx, d, q, row, func(v int32, cells []apps.Cell) error {
		first := len(ids) == 0
		ids = le.AppendUint64(ids, uint64(d.OriginalID(v)))
		for k, c := range q.cols {
			cell := cells[c]
			if first {
				isFloat[k] = cell.IsFloat
			} else if cell.IsFloat != isFloat[k] {
				err := fmt.Errorf("column %s changes type at id %d", columns[k], d.OriginalID(v))
				writeError(w, &apiError{code: http.StatusInternalServerError, msg: err.Error()})
				return err
			}
			x := uint64(cell.Int)
			if cell.IsFloat {
				x = math.Float64bits(cell.Float)
			}
			cols[k] = le.AppendUint64(cols[k], x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	hdr := le.AppendUint32([]byte(binRowsMagic), binRowsVersion)
	hdr = le.AppendUint32(hdr, uint32(len(columns)))
	hdr = le.AppendUint64(hdr, uint64(len(ids)/8))
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
