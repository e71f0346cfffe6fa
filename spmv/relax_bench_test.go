package spmv

import (
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// BenchmarkRelaxMark is one marked push (RelaxMark) on one goroutine and
// on shared values, serial and not: 2^18 rows of 16 random
// destinations, weights 1-64, from every row, the values reset from
// random ones before each push (about a third of the relaxations
// lower). ns/op over the 4M relaxations.
func BenchmarkRelaxMark(b *testing.B) {
	const n, deg = 1 << 18, 16
	rng := rand.New(rand.NewPCG(3, 4))
	m := &hyb.Matrix{N: n, CooPtr: make([]int64, n+1), CooCol: make([]int32, n*deg), CooVal: make([]float32, n*deg)}
	for r := range n {
		m.CooPtr[r+1] = int64((r + 1) * deg)
		for e := r * deg; e < (r+1)*deg; e++ {
			m.CooCol[e], m.CooVal[e] = rng.Int32N(n), float32(1+rng.IntN(64))
		}
	}
	x0 := make([]float32, n)
	for v := range x0 {
		x0[v] = float32(rng.IntN(256))
	}
	us := make([]int32, n)
	for v := range us {
		us[v] = int32(v)
	}
	x := make([]float32, n)
	touched := bitmask.New(n)
	for _, serial := range []bool{true, false} {
		name := "serial"
		if !serial {
			name = "atomic"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				copy(x, x0)
				RelaxMark(m, x, us, serial, touched)
			}
		})
	}
}
