package driver

import (
	"testing"

	"github.com/hpgraph/hpgraph/hyb"
)

// TestColumnsBelowAndFilledRows checks the memoized column bound and
// the filled rows' bitmask against the matrix they describe.
func TestColumnsBelowAndFilledRows(t *testing.T) {
	// 40 rows (two bitmask words): row r holds columns r and 39 where r%3 == 0
	ptr := make([]int64, 41)
	var col []int32
	for r := range 40 {
		if r%3 == 0 {
			col = append(col, int32(r))
			if r != 39 {
				col = append(col, 39)
			}
		}
		ptr[r+1] = int64(len(col))
	}
	h, err := hyb.FromCSR(40, ptr, col, nil, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatrix(h, nil)
	if !m.ColumnsBelow(40) || m.ColumnsBelow(39) || !m.ColumnsBelow(1000) {
		t.Errorf("ColumnsBelow(40, 39, 1000) = %v, %v, %v; want true, false, true", m.ColumnsBelow(40), m.ColumnsBelow(39), m.ColumnsBelow(1000))
	}
	w := m.FilledRows()
	if len(w) != 2 {
		t.Fatalf("FilledRows: %d words, want 2", len(w))
	}
	for r := range 40 {
		if got := w[r>>5]&(1<<(r&31)) != 0; got != (r%3 == 0) {
			t.Errorf("FilledRows: row %d filled %v", r, got)
		}
	}
	// a negative column (an unchecked matrix) is out of every bound
	bad := NewMatrix(&hyb.Matrix{N: 2, CooPtr: []int64{0, 1, 1}, CooCol: []int32{-1}, Src: hyb.CSR{RowPtr: []int64{0, 1, 1}}}, nil)
	if bad.ColumnsBelow(1 << 30) {
		t.Error("ColumnsBelow accepted a negative column")
	}
	empty := NewMatrix(&hyb.Matrix{N: 3, CooPtr: make([]int64, 4), Src: hyb.CSR{RowPtr: make([]int64, 4)}}, nil)
	if !empty.ColumnsBelow(0) || empty.FilledRows()[0] != 0 {
		t.Error("a matrix without entries: ColumnsBelow(0) false, or rows filled")
	}
}
