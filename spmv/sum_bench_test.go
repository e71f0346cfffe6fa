package spmv

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSumRows is the pulls' plain sums (sumRows32, sumRows64) on
// one goroutine over 2^20 rows: a grid's four neighbours a row (near
// columns; the adds, not the loads, bound it) and 16 random columns.
// ns/op over all rows.
func BenchmarkSumRows(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []struct {
		name string
		deg  int
		col  func(r, i int) int32
	}{
		{"grid4", 4, func(r, i int) int32 { return int32((r + []int{-1024, -1, 1, 1024}[i] + n) % n) }},
		{"random16", 16, func(int, int) int32 { return rng.Int32N(n) }},
	} {
		ptr, col := make([]int64, n+1), make([]int32, 0, n*shape.deg)
		for r := range n {
			for i := range shape.deg {
				col = append(col, shape.col(r, i))
			}
			ptr[r+1] = int64(len(col))
		}
		x32, y32 := make([]float32, n), make([]float32, n)
		x64, y64 := make([]float64, n), make([]float64, n)
		for v := range x32 {
			x32[v], x64[v] = rng.Float32(), rng.Float64()
		}
		b.Run(shape.name+"/float32", func(b *testing.B) {
			for b.Loop() {
				sumRows32(0, n, ptr, col, x32, y32, 0)
			}
		})
		b.Run(shape.name+"/float64", func(b *testing.B) {
			for b.Loop() {
				sumRows64(0, n, ptr, col, x64, y64, 0)
			}
		})
	}
}
