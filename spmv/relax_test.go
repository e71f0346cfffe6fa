package spmv

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// TestRelax: a push relaxed into the values gives each destination the
// min of its value and the masked pull's (naive's) min-plus, on one
// goroutine and on four at once (the race detector watches the
// compare-and-swaps), float32 and float64, weighted and not. The
// frontier's values lie below 1 and the weights are 1 or more, so no
// source is lowered before it pushes and the order of the pushes cannot
// change the answer. Every lowering is reported with its value; the
// values reported for a vertex fall, and their least is its final
// value; RelaxMark gives the same values and marks the rows lowered. A
// matrix with ELL columns is refused.
func TestRelax(t *testing.T) {
	testRelax[float32](t)
	testRelax[float64](t)
}

func testRelax[F float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomCSR(rng, 3000)
	x0 := make([]F, c.n)
	frontier := bitmask.New(c.n)
	var us []int32
	for v := range x0 {
		switch {
		case v%3 == 0:
			x0[v] = F(rng.Float64()) // (a source: below 1)
			frontier.Set(int32(v))
			us = append(us, int32(v))
		case v%5 == 0:
			x0[v] = F(math.Inf(1))
		default:
			x0[v] = F(rng.IntN(30))
		}
	}
	rng.Shuffle(len(us), func(i, j int) { us[i], us[j] = us[j], us[i] })
	ones := c
	ones.val = make([]float32, len(c.val))
	for i := range ones.val {
		ones.val[i] = 1
	}
	for _, weighted := range []bool{true, false} {
		cw, val := c, c.val
		if !weighted {
			cw, val = ones, nil
		}
		m, _ := hyb.FromCSR(c.n, c.ptr, c.col, val, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
		mt, _ := m.Transpose(hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
		y := naive(minPlusF[F]{}, cw, x0, F(math.Inf(1)), frontier, nil, nil)
		for _, goroutines := range []int{1, 4} {
			x := append([]F(nil), x0...)
			outs, vals := make([][]int32, goroutines), make([][]F, goroutines)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					lo, hi := g*len(us)/goroutines, (g+1)*len(us)/goroutines
					var ok bool
					outs[g], vals[g], ok = Relax(mt, x, us[lo:hi], goroutines == 1, nil, nil)
					if !ok {
						t.Error("Relax refused an all-COO matrix")
					}
				}()
			}
			wg.Wait()
			least := map[int32]F{}
			for g := range outs {
				last := map[int32]F{}
				for i, v := range outs[g] {
					if l, ok := last[v]; ok && !(vals[g][i] < l) {
						t.Fatalf("weighted=%v goroutines=%d: %d lowered to %v after %v", weighted, goroutines, v, vals[g][i], l)
					}
					last[v] = vals[g][i]
					if l, ok := least[v]; !ok || vals[g][i] < l {
						least[v] = vals[g][i]
					}
				}
			}
			for v := range x {
				want := min(x0[v], y[v])
				if x[v] != want {
					t.Fatalf("weighted=%v goroutines=%d: x[%d] = %v, want %v", weighted, goroutines, v, x[v], want)
				}
				l, ok := least[int32(v)]
				if ok != (want < x0[v]) || ok && l != want {
					t.Fatalf("weighted=%v goroutines=%d: %d reported %v (%v), lowered from %v to %v", weighted, goroutines, v, l, ok, x0[v], want)
				}
			}
			// RelaxMark: the same values, and the bits of the rows lowered.
			x = append(x[:0], x0...)
			touched := bitmask.New(c.n)
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					lo, hi := g*len(us)/goroutines, (g+1)*len(us)/goroutines
					if !RelaxMark(mt, x, us[lo:hi], goroutines == 1, touched) {
						t.Error("RelaxMark refused an all-COO matrix")
					}
				}()
			}
			wg.Wait()
			for v := range x {
				want := min(x0[v], y[v])
				if x[v] != want || touched.Test(int32(v)) != (want < x0[v]) {
					t.Fatalf("weighted=%v goroutines=%d: marked: x[%d] = %v (bit %v), want %v from %v", weighted, goroutines, v, x[v], touched.Test(int32(v)), want, x0[v])
				}
			}
		}
	}
	m, _ := hyb.FromCSR(c.n, c.ptr, c.col, c.val, hyb.Options{RelativeSpeed: 1e9})
	if m.K == 0 {
		t.Fatal("no ELL columns")
	}
	if _, _, ok := Relax(m, x0, us, true, nil, nil); ok {
		t.Error("Relax took a matrix with ELL columns")
	}
	if _, _, ok := Relax(m, make([]int32, c.n), us, true, nil, nil); ok {
		t.Error("Relax took int32 values")
	}
	if RelaxMark(m, x0, us, true, bitmask.New(c.n)) {
		t.Error("RelaxMark took a matrix with ELL columns")
	}
}

// minPlusF is minPlus over F.
type minPlusF[F float32 | float64] struct{}

func (minPlusF[F]) Gather(acc F, _, _ int32, x F, w float32) F { return min(acc, x+F(w)) }
func (minPlusF[F]) Reduce(a, b F) F                            { return min(a, b) }
