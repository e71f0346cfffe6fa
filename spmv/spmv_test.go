package spmv

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// Three semirings with different identities, so a kernel that seeds with
// zero or skips Reduce shows up.
type minPlus struct{}

func (minPlus) Gather(acc float32, _, _ int32, x float32, w float32) float32 { return min(acc, x+w) }
func (minPlus) Reduce(a, b float32) float32                                  { return min(a, b) }

// Contributions: minPlus's Gather is min(acc, xu+w).
func (minPlus) Contributions(_ int32, xu float32, w []float32, out []float32) {
	for i := range out {
		ww := float32(1)
		if w != nil {
			ww = w[i]
		}
		out[i] = xu + ww
	}
}

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
// from the identity, in column order (the semirings are commutative),
// stopped where done (when not nil) says the row is decided.
func naive[X, A any](s Semiring[X, A], c csr, x []X, id A, mask *bitmask.Bitmask, wants func(int32) bool, done func(A) bool) []A {
	y := make([]A, c.n)
	for v := 0; v < c.n; v++ {
		y[v] = id
		if wants != nil && !wants(int32(v)) {
			continue
		}
		for i := c.ptr[v]; i < c.ptr[v+1]; i++ {
			if mask == nil || mask.Test(c.col[i]) {
				y[v] = s.Gather(y[v], int32(v), c.col[i], x[c.col[i]], c.val[i])
				if done != nil && done(y[v]) {
					break
				}
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

// checkPull checks every kind of pull against naive; untouched is a value
// no row computes, which Y holds before the pull.
// Functions as the kernels' hooks.
type (
	wantsFunc               func(int32) bool
	doneFunc[A any]         func(A) bool
	rowFunc[X any, A any]   func(acc A, v int32, nbrs []int32, w []float32, x []X) A
	blockFunc[X any, A any] func(lo, hi int32, ptr []int64, col []int32, w []float32, x []X, y []A, id A)
)

func (f blockFunc[X, A]) GatherBlock(lo, hi int32, ptr []int64, col []int32, w []float32, x []X, y []A, id A) {
	f(lo, hi, ptr, col, w, x, y, id)
}

func (f wantsFunc) Wants(v int32) bool { return f(v) }
func (f doneFunc[A]) Done(a A) bool    { return f(a) }
func (f rowFunc[X, A]) GatherRow(acc A, v int32, nbrs []int32, w []float32, x []X) A {
	return f(acc, v, nbrs, w, x)
}

// done, when not nil, is a Decider the "done" modes stop rows by (after
// the first gathered entry for some rows, later for others).
func checkPull[X, A comparable](t *testing.T, s Semiring[X, A], c csr, x []X, id, untouched A, done func(A) bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(c.n), 7))
	mask := bitmask.New(c.n)
	for v := 0; v < c.n; v++ {
		if rng.IntN(3) > 0 {
			mask.Set(int32(v))
		}
	}
	wants := func(v int32) bool { return v%5 != 0 }
	rows := bitmask.New(c.n)
	for v := int32(0); v < int32(c.n); v++ {
		if wants(v) {
			rows.Set(v)
		}
	}
	words := (c.n + 31) / 32
	for _, opt := range splits() {
		m, err := hyb.FromCSR(c.n, c.ptr, c.col, c.val, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, mk := range []*bitmask.Bitmask{nil, mask} {
			for _, filter := range []string{"none", "wants", "rows"} {
				for _, mode := range []string{"edge", "row", "row-touched", "edge-touched", "block", "block-touched", "done", "done-touched"} {
					touch := strings.HasSuffix(mode, "touched")
					var df func(A) bool
					if strings.HasPrefix(mode, "done") {
						if done == nil {
							continue
						}
						df = done
					}
					var wf func(int32) bool
					p := &Pull[X, A]{M: m, X: x, Y: make([]A, c.n), Identity: id, Mask: mk}
					for v := range p.Y {
						p.Y[v] = untouched
					}
					switch filter {
					case "wants":
						wf, p.Wants, p.WantsOut = wants, wantsFunc(wants), bitmask.New(c.n)
					case "rows":
						wf, p.Rows = wants, rows
					}
					if touch {
						p.Touched = bitmask.New(c.n)
					}
					if df != nil {
						p.Done = doneFunc[A](df)
					}
					if strings.HasPrefix(mode, "block") {
						p.Block = blockFunc[X, A](func(lo, hi int32, ptr []int64, col []int32, w []float32, x []X, y []A, id A) {
							for v := lo; v < hi; v++ {
								acc := id
								for i := ptr[v]; i < ptr[v+1]; i++ {
									wi := float32(1)
									if w != nil {
										wi = w[i]
									}
									acc = s.Gather(acc, v, col[i], x[col[i]], wi)
								}
								y[v] = acc
							}
						})
					}
					if strings.HasPrefix(mode, "row") {
						p.GatherRow = rowFunc[X, A](func(acc A, v int32, nbrs []int32, w []float32, x []X) A {
							for i, u := range nbrs {
								acc = s.Gather(acc, v, u, x[u], w[i])
							}
							return acc
						})
					}
					want := naive(s, c, x, id, mk, wf, df)
					// Two uneven parts of whole words, as the engine's split gives.
					Rows(s, p, 0, words/3)
					Rows(s, p, words/3, words)
					for v := range want {
						name := fmt.Sprintf("K=%d mask=%v filter=%s %s: row %d", m.K, mk != nil, filter, mode, v)
						skipped := wf != nil && !wf(int32(v))
						gathered := !skipped && gathers(c, v, mk)
						// (the block form runs where no row is skipped and
						// writes every row)
						blocked := p.Block != nil && mk == nil && wf == nil && m.K == 0
						switch {
						case blocked && p.Y[v] != want[v]:
							t.Fatalf("%s: y = %v, want %v", name, p.Y[v], want[v])
						case blocked:
						case skipped || touch && !gathered:
							if p.Y[v] != untouched {
								t.Fatalf("%s: y = %v, want it left alone", name, p.Y[v])
							}
						case p.Y[v] != want[v]:
							t.Fatalf("%s: y = %v, want %v", name, p.Y[v], want[v])
						}
						if touch && p.Touched.Test(int32(v)) != gathered {
							t.Fatalf("%s: touched %v, gathered %v", name, p.Touched.Test(int32(v)), gathered)
						}
						if p.WantsOut != nil && p.WantsOut.Test(int32(v)) != wants(int32(v)) {
							t.Fatalf("%s: WantsOut %v", name, p.WantsOut.Test(int32(v)))
						}
					}
				}
			}
		}
	}
}

// gathers reports whether row v has an entry through mask.
func gathers(c csr, v int, mask *bitmask.Bitmask) bool {
	for i := c.ptr[v]; i < c.ptr[v+1]; i++ {
		if mask == nil || mask.Test(c.col[i]) {
			return true
		}
	}
	return false
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
		checkPull(t, minPlus{}, c, xf, float32(math.Inf(1)), -1, func(a float32) bool { return a < 12 })
		checkPull(t, orAnd{}, c, xu, 0, 1<<31, func(a uint32) bool { return bits.OnesCount32(a) >= 2 })
		// plus-times in float64 with integer-valued data is exact in any order.
		for i := range xd {
			xd[i] = float64(rng.IntN(100))
		}
		checkPull(t, plusTimes{}, c, xd, 0, -0.5, func(a float64) bool { return a >= 150 })
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
			Done: doneFunc[int32](func(a int32) bool { return a != math.MaxInt32 })}, 0, (c.n+31)/32)
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

// firstList is firstFound's FirstFolder: the row takes its first masked
// neighbour; calls counts its calls.
type firstList struct{ calls *int }

func (f firstList) GatherFirst(vs, us []int32, _ []float32, _ []struct{}, y []int32) {
	*f.calls++
	for k, v := range vs {
		y[v] = min(math.MaxInt32, us[k])
	}
}

// A masked pull with First gives every row what the per-edge fold
// stopped by Done gives, with or without Touched and a row filter, in one
// call per word of rows that found something.
func TestFirstFolder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomCSR(rng, 700)
	x := make([]struct{}, c.n)
	mask, rows := bitmask.New(c.n), bitmask.New(c.n)
	for v := int32(0); v < int32(c.n); v++ {
		if rng.IntN(4) == 0 {
			mask.Set(v)
		}
		if v%3 != 0 {
			rows.Set(v)
		}
	}
	done := func(a int32) bool { return a != math.MaxInt32 }
	for _, opt := range splits() {
		m, _ := hyb.FromCSR(c.n, c.ptr, c.col, c.val, opt)
		for _, rf := range []*bitmask.Bitmask{nil, rows} {
			for _, touch := range []bool{false, true} {
				var wf func(int32) bool
				if rf != nil {
					wf = rf.Test
				}
				want := naive(firstFound{}, c, x, math.MaxInt32, mask, wf, done)
				calls := 0
				p := &Pull[struct{}, int32]{M: m, X: x, Y: make([]int32, c.n), Identity: math.MaxInt32,
					Mask: mask, Rows: rf, Done: doneFunc[int32](done), First: firstList{&calls}}
				for v := range p.Y {
					p.Y[v] = -1
				}
				if touch {
					p.Touched = bitmask.New(c.n)
				}
				words := (c.n + 31) / 32
				Rows(firstFound{}, p, 0, words/2)
				Rows(firstFound{}, p, words/2, words)
				name := fmt.Sprintf("K=%d rows=%v touched=%v", m.K, rf != nil, touch)
				for v := range want {
					gathered := (wf == nil || wf(int32(v))) && gathers(c, v, mask)
					switch {
					case (wf != nil && !wf(int32(v)) || touch && !gathered) && p.Y[v] != -1:
						t.Fatalf("%s: row %d: y = %d, want it left alone", name, v, p.Y[v])
					case (wf == nil || wf(int32(v))) && !(touch && !gathered) && p.Y[v] != want[v]:
						t.Fatalf("%s: row %d: y = %d, want %d", name, v, p.Y[v], want[v])
					}
					if touch && p.Touched.Test(int32(v)) != gathered {
						t.Fatalf("%s: row %d: touched %v, gathered %v", name, v, p.Touched.Test(int32(v)), gathered)
					}
				}
				if m.K == 0 && (calls == 0 || calls > words) {
					t.Errorf("%s: %d GatherFirst calls for %d words", name, calls, words)
				}
			}
		}
	}
}

// wordPairs is a WordClaimer that records what it is handed.
type wordPairs struct {
	got   map[int32]int32
	calls int
	bad   string
}

func (w *wordPairs) ClaimWord(wi int, vs, us []int32) {
	w.calls++
	for k, v := range vs {
		if int(v)>>5 != wi || k > 0 && v <= vs[k-1] {
			w.bad = fmt.Sprintf("word %d handed rows %v", wi, vs)
		}
		w.got[v] = us[k]
	}
}

// A masked pull with First and Claim hands each word's rows that gather
// something, with their first masked column, in one call a word: the
// rows and values the per-edge fold stopped by Done gives, and Y left
// alone.
func TestClaimWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomCSR(rng, 900)
	x := make([]struct{}, c.n)
	mask, rows := bitmask.New(c.n), bitmask.New(c.n)
	for v := int32(0); v < int32(c.n); v++ {
		if rng.IntN(5) == 0 {
			mask.Set(v)
		}
		if v%4 != 1 {
			rows.Set(v)
		}
	}
	done := func(a int32) bool { return a != math.MaxInt32 }
	m, _ := hyb.FromCSR(c.n, c.ptr, c.col, c.val, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
	if m.K != 0 {
		t.Fatalf("K=%d, want an all-COO matrix", m.K)
	}
	want := naive(firstFound{}, c, x, math.MaxInt32, mask, rows.Test, done)
	calls := 0
	w := &wordPairs{got: map[int32]int32{}}
	p := &Pull[struct{}, int32]{M: m, X: x, Y: make([]int32, c.n), Identity: math.MaxInt32,
		Mask: mask, Rows: rows, Done: doneFunc[int32](done), First: firstList{&calls}, Claim: w}
	words := (c.n + 31) / 32
	Rows(firstFound{}, p, 0, words/3)
	Rows(firstFound{}, p, words/3, words)
	if w.bad != "" {
		t.Fatal(w.bad)
	}
	for v := range c.n {
		u, ok := w.got[int32(v)]
		if g := rows.Test(int32(v)) && gathers(c, v, mask); ok != g || ok && u != want[v] {
			t.Fatalf("row %d: claimed %v (from %d), gathers %v (from %d)", v, ok, u, g, want[v])
		}
		if p.Y[v] != 0 {
			t.Fatalf("row %d: y = %d, want it left alone", v, p.Y[v])
		}
	}
	if calls != 0 || w.calls == 0 || w.calls > words {
		t.Errorf("%d GatherFirst and %d ClaimWord calls for %d words", calls, w.calls, words)
	}
}

type countingFirst struct{ n *int }

func (c countingFirst) Gather(acc int32, v, u int32, x struct{}, w float32) int32 {
	*c.n++
	return firstFound{}.Gather(acc, v, u, x, w)
}
func (countingFirst) Reduce(a, b int32) int32 { return min(a, b) }

// Push over the transpose from a frontier must equal a pull masked by the
// same frontier, for reductions that are atomic-capable; the lists the
// parts return name every touched destination once.
func TestPushEqualsMaskedPull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomCSR(rng, 500)
	x := make([]float32, c.n)
	for i := range x {
		x[i] = float32(rng.IntN(40))
	}
	frontier := bitmask.New(c.n)
	var us []int32
	for v := 0; v < c.n; v += 3 {
		frontier.Set(int32(v))
		us = append(us, int32(v))
	}
	id := float32(math.Inf(1))
	wants := func(v int32) bool { return v%7 != 0 }
	rows := bitmask.New(c.n)
	for v := int32(0); v < int32(c.n); v++ {
		if wants(v) {
			rows.Set(v)
		}
	}
	// (unweighted: the same entries, every weight 1 where naive reads them)
	ones := c
	ones.val = make([]float32, len(c.val))
	for i := range ones.val {
		ones.val[i] = 1
	}
	for _, opt := range splits() {
		for _, weighted := range []bool{true, false} {
			cw, val := c, c.val
			if !weighted {
				cw, val = ones, nil
			}
			m, _ := hyb.FromCSR(c.n, c.ptr, c.col, val, opt)
			mt, _ := m.Transpose(opt)
			for _, filter := range []string{"none", "wants", "rows", "native", "native-rows", "native-serial", "native-serial-rows", "native-add", "native-serial-add"} {
				y := NewAccumulators[float32](c.n)
				for i := range y {
					y[i] = id
				}
				touched := bitmask.New(c.n)
				p := &Push[float32, float32]{M: mt, X: x, Y: y, Touched: touched}
				var wf func(int32) bool
				switch filter {
				case "wants":
					wf, p.Wants = wants, wantsFunc(wants)
				case "rows", "native-rows", "native-serial-rows":
					wf, p.Rows = wants, rows
				}
				if strings.HasPrefix(filter, "native") {
					p.Contrib, p.Op, p.Serial = minPlus{}, OpMin, strings.HasPrefix(filter, "native-serial")
					p.AddWeight = strings.HasSuffix(filter, "-add")
				}
				want := naive(minPlus{}, cw, x, id, frontier, wf, nil)
				listed := List(minPlus{}, p, us[:len(us)/2], nil)
				listed = List(minPlus{}, p, us[len(us)/2:], listed)
				seen := map[int32]bool{}
				for _, v := range listed {
					if seen[v] {
						t.Fatalf("K=%d %s: %d listed twice", m.K, filter, v)
					}
					seen[v] = true
				}
				for v := range want {
					if y[v] != want[v] {
						t.Fatalf("K=%d weighted=%v %s: push y[%d] = %v, pull %v", m.K, val != nil, filter, v, y[v], want[v])
					}
					if touched.Test(int32(v)) != (want[v] != id) || seen[int32(v)] != touched.Test(int32(v)) {
						t.Fatalf("K=%d %s: touched[%d] = %v, listed %v", m.K, filter, v, touched.Test(int32(v)), seen[int32(v)])
					}
				}
			}
		}
	}
}

// TestFoldNumber: the native folds give Go's min, max and + bit for bit
// (signed zeros, NaN) and say whether the bits changed.
func TestFoldNumber(t *testing.T) {
	negZero, nan := float32(math.Copysign(0, -1)), float32(math.NaN())
	for _, c := range []struct {
		op      Op
		old, x  float32
		want    float32
		changed bool
	}{
		{OpMin, 3, 2, 2, true}, {OpMin, 2, 3, 2, false}, {OpMin, 0, negZero, negZero, true},
		{OpMin, negZero, 0, negZero, false}, {OpMin, 1, nan, nan, true}, {OpMax, 1, 4, 4, true},
		{OpMax, 4, 1, 4, false}, {OpSum, 1.5, 2, 3.5, true}, {OpSum, 1, 0, 1, false},
	} {
		y := NewAccumulators[float32](1)
		y[0] = c.old
		changed := foldNumber(c.op, &y[0], c.x)
		if math.Float32bits(y[0]) != math.Float32bits(c.want) || changed != c.changed {
			t.Errorf("op %d(%v, %v) = %v (changed %v), want %v (%v)", c.op, c.old, c.x, y[0], changed, c.want, c.changed)
		}
	}
	var i64 int64 = 5
	if !foldNumber(OpMin, &i64, -7) || i64 != -7 || foldNumber(OpMax, &i64, -9) {
		t.Errorf("int64 folds: %d", i64)
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

// TestSumBlock: a pull with Sum (rows summed by spmv itself) writes Y
// bit for bit as the Block it stands for (the float64 sum from the
// identity in the row's order, converted once), float64 and float32,
// with and without Touched, on all-COO matrices with empty and long rows;
// and leaves types it does not sum to the Block.
func TestSumBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{5, 31, 33, 200, 1000} {
		c := randomCSR(rng, n)
		m, err := hyb.FromCSR(c.n, c.ptr, c.col, nil, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		x64, x32 := make([]float64, n), make([]float32, n)
		for i := range n {
			x64[i] = rng.Float64() / 3
			x32[i] = float32(rng.Float64() / 7)
		}
		words := (n + 31) / 32
		for _, touched := range []bool{false, true} {
			for _, sum := range []bool{false, true} {
				p64 := &Pull[float64, float64]{M: m, X: x64, Y: make([]float64, n), Identity: 0.125, Sum: sum,
					Block: blockFunc[float64, float64](func(lo, hi int32, ptr []int64, col []int32, _ []float32, x, y []float64, id float64) {
						for v := lo; v < hi; v++ {
							s := id
							for _, u := range col[ptr[v]:ptr[v+1]] {
								s += x[u]
							}
							y[v] = s
						}
					})}
				p32 := &Pull[float32, float32]{M: m, X: x32, Y: make([]float32, n), Identity: 0.25, Sum: sum,
					Block: blockFunc[float32, float32](func(lo, hi int32, ptr []int64, col []int32, _ []float32, x, y []float32, id float32) {
						for v := lo; v < hi; v++ {
							s := float64(id)
							for _, u := range col[ptr[v]:ptr[v+1]] {
								s += float64(x[u])
							}
							y[v] = float32(s)
						}
					})}
				if touched {
					p64.Touched, p32.Touched = bitmask.New(n), bitmask.New(n)
				}
				Rows[float64, float64](plusTimes{}, p64, 0, words)
				Rows[float32, float32](nil, p32, 0, words)
				// (the engine's sums may pair a row's edges differently: equal
				// to the sum within summation's bound, the row's length in
				// float64's epsilons of it (the terms are positive), and to
				// its float32 within one ulp)
				for v := range n {
					s, s32 := 0.125, float64(0.25)
					for _, u := range c.col[c.ptr[v]:c.ptr[v+1]] {
						s += x64[u]
						s32 += float64(x32[u])
					}
					ulp := math.Nextafter32(float32(s32), float32(math.Inf(1))) - float32(s32)
					if math.Abs(p64.Y[v]-s) > float64(c.ptr[v+1]-c.ptr[v])*0x1p-52*s || math.Abs(float64(p32.Y[v]-float32(s32))) > float64(ulp) {
						t.Fatalf("n %d, sum %v, touched %v: row %d is %v and %v, want %v and %v", n, sum, touched, v, p64.Y[v], p32.Y[v], s, float32(s32))
					}
					if touched && p64.Touched.Test(int32(v)) != (c.ptr[v+1] > c.ptr[v]) {
						t.Fatalf("n %d, sum %v: row %d touched %v", n, sum, v, p64.Touched.Test(int32(v)))
					}
				}
			}
		}
	}
	// (a type Sum does not cover runs the Block)
	c := randomCSR(rng, 64)
	m, _ := hyb.FromCSR(c.n, c.ptr, c.col, nil, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
	ran := false
	p := &Pull[float64, float32]{M: m, X: make([]float64, 64), Y: make([]float32, 64), Sum: true,
		Block: blockFunc[float64, float32](func(int32, int32, []int64, []int32, []float32, []float64, []float32, float32) { ran = true })}
	Rows[float64, float32](nil, p, 0, 2)
	if !ran {
		t.Error("Sum over float64 values into float32 accumulators did not leave the rows to the Block")
	}
}

// TestMinPlusBlock: a pull with MinPlus (rows folded by spmv itself)
// writes Y bit for bit (a NaN's payload aside) as Go's min from the
// identity over x[u] + w in the row's order, float32 and float64, weighted and not (every weight 1),
// values with NaN, -0 and +Inf among them, rows of every length mod 4;
// and leaves types it does not fold to the Block.
func TestMinPlusBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	negZero := math.Copysign(0, -1)
	for _, n := range []int{5, 31, 33, 200, 1000} {
		c := randomCSR(rng, n)
		x64, x32 := make([]float64, n), make([]float32, n)
		for i := range n {
			x64[i] = float64(rng.IntN(50)) / 4
			switch rng.IntN(40) {
			case 0:
				x64[i] = math.NaN()
			case 1:
				x64[i] = negZero
			case 2:
				x64[i] = math.Inf(1)
			}
			x32[i] = float32(x64[i])
		}
		words := (n + 31) / 32
		for _, weighted := range []bool{false, true} {
			val := c.val
			if !weighted {
				val = nil
			}
			m, err := hyb.FromCSR(c.n, c.ptr, c.col, val, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			p64 := &Pull[float64, float64]{M: m, X: x64, Y: make([]float64, n), Identity: math.Inf(1), MinPlus: true,
				Block: blockFunc[float64, float64](func(int32, int32, []int64, []int32, []float32, []float64, []float64, float64) {
					t.Fatal("float64 rows left to the Block")
				})}
			p32 := &Pull[float32, float32]{M: m, X: x32, Y: make([]float32, n), Identity: float32(math.Inf(1)), MinPlus: true,
				Block: blockFunc[float32, float32](func(int32, int32, []int64, []int32, []float32, []float32, []float32, float32) {
					t.Fatal("float32 rows left to the Block")
				})}
			Rows[float64, float64](nil, p64, 0, words)
			Rows[float32, float32](nil, p32, 0, words)
			for v := range n {
				w64, w32 := math.Inf(1), float32(math.Inf(1))
				for e := c.ptr[v]; e < c.ptr[v+1]; e++ {
					w := float32(1)
					if weighted {
						w = c.val[e]
					}
					w64 = min(w64, x64[c.col[e]]+float64(w))
					w32 = min(w32, x32[c.col[e]]+w)
				}
				// (bit for bit but a NaN's payload, which the order picks)
				same64 := math.Float64bits(p64.Y[v]) == math.Float64bits(w64) || math.IsNaN(p64.Y[v]) && math.IsNaN(w64)
				same32 := math.Float32bits(p32.Y[v]) == math.Float32bits(w32) || w32 != w32 && p32.Y[v] != p32.Y[v]
				if !same64 || !same32 {
					t.Fatalf("n %d, weighted %v: row %d is %v and %v, want %v and %v", n, weighted, v, p64.Y[v], p32.Y[v], w64, w32)
				}
			}
		}
	}
	// (a type MinPlus does not cover runs the Block)
	c := randomCSR(rng, 64)
	m, _ := hyb.FromCSR(c.n, c.ptr, c.col, nil, hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30})
	ran := false
	p := &Pull[float64, float32]{M: m, X: make([]float64, 64), Y: make([]float32, 64), MinPlus: true,
		Block: blockFunc[float64, float32](func(int32, int32, []int64, []int32, []float32, []float64, []float32, float32) { ran = true })}
	Rows[float64, float32](nil, p, 0, 2)
	if !ran {
		t.Error("MinPlus over float64 values into float32 accumulators did not leave the rows to the Block")
	}
}
