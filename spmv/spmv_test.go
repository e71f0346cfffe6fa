package spmv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// Three semirings with different identities, so a kernel that seeds with
// zero or skips Reduce shows up.
type minPlus struct{}

func (minPlus) Gather(acc float32, _, _ int32, x float32, w float32) float32 { return min(acc, x+w) }
func (minPlus) Reduce(a, b float32) float32                                  { return min(a, b) }

type plusTimes struct{}

func (plusTimes) Gather(acc float64, _, _ int32, x float64, w float32) float64 {
	return acc + x*float64(w)
}
func (plusTimes) Reduce(a, b float64) float64 { return a + b }

// orAnd folds bits: acc | x<<(u%7), and records that it ran.
type orAnd struct{}

func (orAnd) Gather(acc uint32, _, u int32, x uint32, _ float32) uint32 {
	return acc | x<<(uint32(u)%7)
}
func (orAnd) Reduce(a, b uint32) uint32 { return a | b }

type csr struct {
	n   int
	ptr []int64
	col []int32
	val []float32
}

func randomCSR(rng *rand.Rand, n int) csr {
	c := csr{n: n, ptr: make([]int64, n+1)}
	for r := 0; r < n; r++ {
		l := rng.IntN(4)
		if rng.IntN(8) == 0 {
			l = rng.IntN(n)
		}
		row := rng.Perm(n)[:l]
		slices.Sort(row)
		for _, u := range row {
			c.col = append(c.col, int32(u))
			c.val = append(c.val, float32(1+rng.IntN(9)))
		}
		c.ptr[r+1] = int64(len(c.col))
	}
	return c
}

// naive is the definition: y[v] = fold of Gather over v's masked entries
// from the identity, in column order (the semirings are commutative).
func naive[X, A any, S Semiring[X, A]](s S, c csr, x []X, id A, mask *bitmask.Bitmask, wants func(int32) bool) []A {
	y := make([]A, c.n)
	for v := 0; v < c.n; v++ {
		y[v] = id
		if wants != nil && !wants(int32(v)) {
			continue
		}
		for i := c.ptr[v]; i < c.ptr[v+1]; i++ {
			if mask == nil || mask.Test(c.col[i]) {
				y[v] = s.Gather(y[v], int32(v), c.col[i], x[c.col[i]], c.val[i])
			}
		}
	}
	return y
}

func splits() []hyb.Options {
	return []hyb.Options{
		{RelativeSpeed: 3, Breakeven: 1 << 30}, // K = 0: all COO
		{RelativeSpeed: 3},                     // mixed
		{RelativeSpeed: 1e-9},                  // K = max: all ELL
	}
}

func checkPull[X, A comparable, S Semiring[X, A]](t *testing.T, s S, c csr, x []X, id A) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(c.n), 7))
	mask := bitmask.New(c.n)
	for v := 0; v < c.n; v++ {
		if rng.IntN(3) > 0 {
			mask.Set(int32(v))
		}
	}
	wants := func(v int32) bool { return v%5 != 0 }
	for _, opt := range splits() {
		m, err := hyb.FromCSR(c.n, c.ptr, c.col, c.val, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, mk := range []*bitmask.Bitmask{nil, mask} {
			for _, wf := range []func(int32) bool{nil, wants} {
				want := naive(s, c, x, id, mk, wf)
				y := make([]A, c.n)
				p := &Pull[X, A]{M: m, X: x, Y: y, Identity: id, Mask: mk, Wants: wf}
				// Two uneven parts, as the engine's split would give.
				Rows(s, p, 0, c.n/3)
				Rows(s, p, c.n/3, c.n)
				for v := range want {
					if wf != nil && !wf(int32(v)) {
						continue
					}
					if y[v] != want[v] {
						t.Fatalf("K=%d mask=%v wants=%v: y[%d] = %v, want %v", m.K, mk != nil, wf != nil, v, y[v], want[v])
					}
				}
			}
		}
	}
}

func TestPullSemirings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 5, 64, 700} {
		c := randomCSR(rng, n)
		xf := make([]float32, n)
		xd := make([]float64, n)
		xu := make([]uint32, n)
		for i := range xf {
			xf[i], xd[i], xu[i] = float32(rng.IntN(50)), rng.Float64(), uint32(rng.IntN(4))
		}
		checkPull(t, minPlus{}, c, xf, float32(math.Inf(1)))
		checkPull(t, orAnd{}, c, xu, 0)
		// plus-times in float64 with integer-valued data is exact in any order.
		for i := range xd {
			xd[i] = float64(rng.IntN(100))
		}
		checkPull(t, plusTimes{}, c, xd, 0)
	}
}

// firstFound stops at the first gathered neighbour; with sorted rows that
// is the smallest masked column.
type firstFound struct{}

func (firstFound) Gather(acc int32, _, u int32, _ struct{}, _ float32) int32 { return min(acc, u) }
func (firstFound) Reduce(a, b int32) int32                                   { return min(a, b) }

func TestEarlyExit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := randomCSR(rng, 300)
	x := make([]struct{}, c.n)
	for _, opt := range splits() {
		m, _ := hyb.FromCSR(c.n, c.ptr, c.col, c.val, opt)
		y := make([]int32, c.n)
		gathers := 0
		counting := countingFirst{&gathers}
		Rows(counting, &Pull[struct{}, int32]{M: m, X: x, Y: y, Identity: math.MaxInt32,
			Done: func(a int32) bool { return a != math.MaxInt32 }}, 0, c.n)
		nonEmpty := 0
		for v := 0; v < c.n; v++ {
			want := int32(math.MaxInt32)
			if c.ptr[v+1] > c.ptr[v] {
				want = c.col[c.ptr[v]]
				nonEmpty++
			}
			if y[v] != want {
				t.Fatalf("K=%d: row %d found %d, want %d", m.K, v, y[v], want)
			}
		}
		if gathers != nonEmpty {
			t.Errorf("K=%d: %d gathers for %d non-empty rows: early exit did not stop the scan", m.K, gathers, nonEmpty)
		}
	}
}

type countingFirst struct{ n *int }

func (c countingFirst) Gather(acc int32, v, u int32, x struct{}, w float32) int32 {
	*c.n++
	return firstFound{}.Gather(acc, v, u, x, w)
}
func (countingFirst) Reduce(a, b int32) int32 { return min(a, b) }

// Push over the transpose from a frontier must equal a pull masked by the
// same frontier, for reductions that are atomic-capable.
func TestPushEqualsMaskedPull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomCSR(rng, 500)
	x := make([]float32, c.n)
	for i := range x {
		x[i] = float32(rng.IntN(40))
	}
	frontier := bitmask.New(c.n)
	for v := 0; v < c.n; v += 3 {
		frontier.Set(int32(v))
	}
	id := float32(math.Inf(1))
	want := naive(minPlus{}, c, x, id, frontier, nil)
	for _, opt := range splits() {
		m, _ := hyb.FromCSR(c.n, c.ptr, c.col, c.val, opt)
		mt, _ := m.Transpose(opt)
		y := NewAccumulators[float32](c.n)
		for i := range y {
			y[i] = id
		}
		touched := bitmask.New(c.n)
		p := &Push[float32, float32]{M: mt, X: x, Y: y, Frontier: frontier, Touched: touched}
		Words(minPlus{}, p, 0, frontier.NumWords()/2)
		Words(minPlus{}, p, frontier.NumWords()/2, frontier.NumWords())
		for v := range want {
			if y[v] != want[v] {
				t.Fatalf("K=%d: push y[%d] = %v, pull %v", m.K, v, y[v], want[v])
			}
			if touched.Test(int32(v)) != (want[v] != id) {
				t.Fatalf("K=%d: touched[%d] = %v", m.K, v, touched.Test(int32(v)))
			}
		}
	}
}

func TestAtomicCapable(t *testing.T) {
	type pair struct{ a, b int32 }
	type withPtr struct{ p *int32 }
	cases := []struct {
		got, want bool
	}{
		{AtomicCapable[int32](), true}, {AtomicCapable[float64](), true}, {AtomicCapable[pair](), true},
		{AtomicCapable[[3]int32](), false}, {AtomicCapable[withPtr](), false}, {AtomicCapable[string](), false},
		{AtomicCapable[struct{}](), false},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: AtomicCapable = %v, want %v", i, c.got, c.want)
		}
	}
}
