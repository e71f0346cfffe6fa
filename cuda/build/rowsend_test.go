//go:build cgo

package build

import (
	"testing"

	"github.com/hpgraph/hpgraph/hyb"
)

// TestRowsEnd: Matrix.RowsEnd is hyb.RowsEnd over the host's row pointer
// (hyb's TestRowsEnd checks the search), and every row where the host
// holds none.
func TestRowsEnd(t *testing.T) {
	rp := []int64{0, 2, 2, 5, 5, 5}
	md := &Matrix{m: &hyb.Matrix{N: 5, Src: hyb.CSR{RowPtr: rp}}}
	if got := md.RowsEnd(0, 5); got != 3 {
		t.Errorf("RowsEnd(0, 5) = %d, want 3", got)
	}
	if got := md.RowsEnd(1, 2); got != 1 {
		t.Errorf("RowsEnd(1, 2) = %d, want 1 (an empty row)", got)
	}
	if got := (&Matrix{m: &hyb.Matrix{N: 4}}).RowsEnd(0, 4); got != 4 {
		t.Errorf("without a row pointer: RowsEnd = %d, want 4 (every row)", got)
	}
}
