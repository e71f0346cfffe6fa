package hyb

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomCSR makes a CSR with row lengths drawn from a skewed distribution
// (a few long rows, many short or empty ones), rows sorted, no duplicates.
func randomCSR(rng *rand.Rand, n int, weighted bool) ([]int64, []int32, []float32) {
	rowPtr := make([]int64, n+1)
	var col []int32
	var val []float32
	for r := 0; r < n; r++ {
		l := 0
		switch rng.IntN(10) {
		case 0:
			l = 0
		case 1:
			l = rng.IntN(n + 1)
		default:
			l = rng.IntN(6)
		}
		l = min(l, n)
		seen := map[int32]bool{}
		var row []int32
		for len(row) < l {
			c := int32(rng.IntN(n))
			if !seen[c] {
				seen[c] = true
				row = append(row, c)
			}
		}
		slices.Sort(row)
		col = append(col, row...)
		for range row {
			if weighted {
				val = append(val, float32(rng.IntN(100))-50)
			}
		}
		rowPtr[r+1] = int64(len(col))
	}
	return rowPtr, col, val
}

func TestChooseK(t *testing.T) {
	ptr := func(lens ...int) []int64 {
		p := []int64{0}
		for _, l := range lens {
			p = append(p, p[len(p)-1]+int64(l))
		}
		return p
	}
	cases := []struct {
		name string
		lens []int
		opt  Options
		want int
	}{
		// n=6: R(0)=5, R(1)=4, R(2)=2, R(3)=1; 3*R(k) < 6 first at k=3.
		{"one-third", []int{1, 2, 3, 5, 2, 0}, Options{RelativeSpeed: 3}, 3},
		// Breakeven above n sends everything to COO.
		{"small graph all COO", []int{1, 2, 3}, Options{RelativeSpeed: 3, Breakeven: 4096}, 0},
		// No k < max satisfies the rule: K = max.
		{"uniform rows", []int{4, 4, 4, 4}, Options{RelativeSpeed: 3}, 4},
		// n=4: R(0)=4 is not < 4, R(1)=2 is.
		{"relative speed 1", []int{1, 1, 2, 9}, Options{RelativeSpeed: 1}, 1},
		// Breakeven 3: R(0)=4, R(1)=2 < 3.
		{"breakeven", []int{1, 1, 2, 9}, Options{RelativeSpeed: 100, Breakeven: 3}, 1},
		{"max K cap", []int{4, 4, 4, 4}, Options{RelativeSpeed: 3, MaxK: 2}, 2},
		{"empty rows", []int{0, 0, 0}, Options{RelativeSpeed: 3}, 0},
		// The rule gives 0 (Breakeven); MinK raises it, up to the longest row.
		{"min K", []int{1, 2, 3}, Options{RelativeSpeed: 3, Breakeven: 4096, MinK: 2}, 2},
		{"min K past the longest row", []int{1, 2, 3}, Options{RelativeSpeed: 3, Breakeven: 4096, MinK: 7}, 3},
		{"min K below the rule's", []int{1, 2, 3, 5, 2, 0}, Options{RelativeSpeed: 3, MinK: 1}, 3},
		{"min K and max K", []int{1, 2, 3}, Options{RelativeSpeed: 3, Breakeven: 4096, MinK: 2, MaxK: 1}, 1},
	}
	for _, c := range cases {
		if got := ChooseK(ptr(c.lens...), c.opt); got != c.want {
			t.Errorf("%s: K = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestChooseKMatchesRule compares ChooseK, which counts row lengths on
// every core in a capped histogram, with the rule applied literally (a
// full histogram on one core), on row lengths around and above the cap
// and on row counts that split over several cores.
func TestChooseKMatchesRule(t *testing.T) {
	literal := func(rowPtr []int64, opt Options) int {
		n := len(rowPtr) - 1
		maxLen := 0
		for r := 0; r < n; r++ {
			maxLen = max(maxLen, int(rowPtr[r+1]-rowPtr[r]))
		}
		hist := make([]int, maxLen+1)
		for r := 0; r < n; r++ {
			hist[rowPtr[r+1]-rowPtr[r]]++
		}
		longer, k := n-hist[0], maxLen
		for i := 0; i < maxLen; i++ {
			if opt.RelativeSpeed*float64(longer) < float64(n) || longer < opt.Breakeven {
				k = i
				break
			}
			longer -= hist[i+1]
		}
		if opt.MaxK > 0 && k > opt.MaxK {
			k = opt.MaxK
		}
		return k
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 40; trial++ {
		n := 1 + rng.IntN(20000)
		base := []int{0, 3, histCap - 2, histCap + 5}[trial%4]
		rowPtr := make([]int64, n+1)
		for r := 0; r < n; r++ {
			rowPtr[r+1] = rowPtr[r] + int64(base+rng.IntN(8))
		}
		for _, opt := range []Options{{RelativeSpeed: 3}, {RelativeSpeed: 3, Breakeven: 4096}, {RelativeSpeed: 1.5}, {RelativeSpeed: 3, MaxK: 5}} {
			if got, want := ChooseK(rowPtr, opt), literal(rowPtr, opt); got != want {
				t.Fatalf("n=%d, lengths %d..%d, %+v: K = %d, the rule says %d", n, base, base+7, opt, got, want)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 33, 100, 1000} {
		for _, weighted := range []bool{false, true} {
			rowPtr, col, val := randomCSR(rng, n, weighted)
			for _, opt := range []Options{{RelativeSpeed: 3}, {RelativeSpeed: 3, Breakeven: 4096}, {RelativeSpeed: 0.01}, {RelativeSpeed: 3, MaxK: 1}} {
				m, err := FromCSR(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				if m.Pitch%32 != 0 || m.Pitch < n {
					t.Fatalf("pitch %d for n=%d", m.Pitch, n)
				}
				for r := 0; r < n; r++ {
					for i := m.CooPtr[r] + 1; i < m.CooPtr[r+1]; i++ {
						if m.CooCol[i] <= m.CooCol[i-1] {
							t.Fatalf("COO row %d not sorted at %d", r, i)
						}
					}
				}
				// Described then materialized equals built at once.
				d, err := Describe(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				if d.K != m.K || !slices.Equal(d.CooPtr, m.CooPtr) || d.Materialized() != (m.K == 0) {
					t.Fatalf("Describe: K %d, materialized %v; FromCSR: K %d", d.K, d.Materialized(), m.K)
				}
				d.Materialize()
				if !slices.Equal(d.EllCol, m.EllCol) || !slices.Equal(d.EllVal, m.EllVal) || !slices.Equal(d.CooCol, m.CooCol) || !slices.Equal(d.CooVal, m.CooVal) {
					t.Fatalf("n=%d opt=%+v: Describe+Materialize differs from FromCSR", n, opt)
				}
				p2, c2, v2 := m.ToCSR()
				if !slices.Equal(p2, rowPtr) || !slices.Equal(c2, col) || !slices.Equal(v2, val) {
					t.Fatalf("n=%d weighted=%v opt=%+v: round trip differs", n, weighted, opt)
				}
				s := m.Stats()
				if s.NNZ != rowPtr[n] || s.EllEntries+s.CooEntries != s.NNZ || s.EllPadding != s.EllSlots-s.EllEntries {
					t.Fatalf("stats inconsistent: %+v", s)
				}
			}
		}
	}
}

func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	rowPtr, col, val := randomCSR(rng, n, true)
	m, err := FromCSR(n, rowPtr, col, val, Options{RelativeSpeed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.Transpose(Options{RelativeSpeed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Entry (r, c, v) of m must be entry (c, r, v) of mt.
	dense := map[[2]int32]float32{}
	for r := 0; r < n; r++ {
		for i := rowPtr[r]; i < rowPtr[r+1]; i++ {
			dense[[2]int32{col[i], int32(r)}] = val[i]
		}
	}
	tp, tc, tv := mt.ToCSR()
	if int(tp[n]) != len(dense) {
		t.Fatalf("transpose has %d entries, want %d", tp[n], len(dense))
	}
	for r := 0; r < n; r++ {
		for i := tp[r]; i < tp[r+1]; i++ {
			if w, ok := dense[[2]int32{int32(r), tc[i]}]; !ok || w != tv[i] {
				t.Fatalf("transpose entry (%d,%d)=%v not in original", r, tc[i], tv[i])
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := FromCSR(2, []int64{0, 1}, []int32{0}, nil, DefaultOptions()); err == nil {
		t.Error("short row pointer accepted")
	}
	if _, err := FromCSR(1, []int64{0, 1}, []int32{0}, nil, Options{}); err == nil {
		t.Error("zero relative speed accepted")
	}
}

// TestDescribeTranspose: a matrix described as a CSR's transpose from its
// row pointer alone has the shape of FromCSR's of the transpose, builds
// the host transpose only when materialized (or asked its Source), and
// then equals it array by array, in every split (K = 0 included, where
// its COO becomes the transpose's arrays), weighted and not. The same for
// a matrix described as a CSR's undirected view (DescribeSymmetrized).
func TestDescribeTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	for _, n := range []int{0, 1, 40, 300} {
		for _, weighted := range []bool{false, true} {
			rowPtr, col, val := randomCSR(rng, n, weighted)
			of := CSR{rowPtr, col, val}
			ref, err := FromCSR(n, rowPtr, col, val, Options{RelativeSpeed: 3})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := ref.Transpose(Options{RelativeSpeed: 3})
			if err != nil {
				t.Fatal(err)
			}
			sym := mergedRows(n, ref.Src, tr.Src)
			for _, opt := range []Options{CPUOptions(), {RelativeSpeed: 3}, {RelativeSpeed: 1e-9}, {RelativeSpeed: 1e-9, MaxK: 2}} {
				checkDescribed(t, fmt.Sprintf("transpose n=%d %+v", n, opt), tr.Src, opt, func(build func() CSR) (*Matrix, error) {
					m, err := DescribeTranspose(n, slices.Clone(tr.Src.RowPtr), of, opt, build)
					if err == nil && m.TransposeOf == nil {
						t.Fatal("DescribeTranspose left TransposeOf nil")
					}
					return m, err
				})
				checkDescribed(t, fmt.Sprintf("symmetrized n=%d %+v", n, opt), sym, opt, func(build func() CSR) (*Matrix, error) {
					m, err := DescribeSymmetrized(n, slices.Clone(sym.RowPtr), of, opt, build)
					if err == nil && m.SymmetrizeOf == nil {
						t.Fatal("DescribeSymmetrized left SymmetrizeOf nil")
					}
					return m, err
				})
			}
		}
	}
}

// checkDescribed checks a matrix that describe makes of target's rows
// from their row pointer alone (build returning target) against
// FromCSR's of target.
func checkDescribed(t *testing.T, name string, target CSR, opt Options, describe func(build func() CSR) (*Matrix, error)) {
	t.Helper()
	n := len(target.RowPtr) - 1
	want, err := FromCSR(n, target.RowPtr, target.Col, target.Val, opt)
	if err != nil {
		t.Fatal(err)
	}
	builds := 0
	m, err := describe(func() CSR { builds++; return target })
	if err != nil {
		t.Fatal(err)
	}
	if m.K != want.K || m.Pitch != want.Pitch || !slices.Equal(m.CooPtr, want.CooPtr) || m.NNZ() != want.NNZ() || m.Weighted() != (target.Val != nil) {
		t.Fatalf("%s: K %d, pitch %d, nnz %d, weighted %v; want %d, %d, %d, %v (or COO offsets differ)",
			name, m.K, m.Pitch, m.NNZ(), m.Weighted(), want.K, want.Pitch, want.NNZ(), target.Val != nil)
	}
	if m.Src.Col != nil || m.Src.Val != nil || builds != 0 {
		t.Fatalf("%s: described with columns or values, or built the host's CSR (%d)", name, builds)
	}
	if m.Materialized() != (n == 0) {
		t.Fatalf("%s: materialized %v before Materialize", name, m.Materialized())
	}
	m.Materialize()
	m.Materialize()
	if n > 0 && builds != 1 {
		t.Fatalf("%s: the host's CSR was built %d times", name, builds)
	}
	if !m.Materialized() || !slices.Equal(m.EllCol, want.EllCol) || !slices.Equal(m.EllVal, want.EllVal) ||
		!slices.Equal(m.CooCol, want.CooCol) || !slices.Equal(m.CooVal, want.CooVal) {
		t.Fatalf("%s: materialized arrays differ from the host's", name)
	}
	r, c, v := m.ToCSR()
	if !slices.Equal(r, target.RowPtr) || !slices.Equal(c, target.Col) || !slices.Equal(v, target.Val) {
		t.Fatalf("%s: ToCSR is not the host's CSR", name)
	}
}

// mergedRows is the undirected view of a CSR given with its transpose:
// each row's out- and in-entries merged, every column once with its
// lightest value (datasets.Graph.Symmetrized, written plainly).
func mergedRows(n int, out, in CSR) CSR {
	s := CSR{RowPtr: make([]int64, n+1)}
	if out.Val != nil {
		s.Val = []float32{}
	}
	for v := 0; v < n; v++ {
		best := map[int32]float32{}
		var cols []int32
		add := func(c int32, x float32) {
			if w, ok := best[c]; !ok || x < w {
				if !ok {
					cols = append(cols, c)
				}
				best[c] = x
			}
		}
		for i := out.RowPtr[v]; i < out.RowPtr[v+1]; i++ {
			add(out.Col[i], valAt(out.Val, i))
		}
		for i := in.RowPtr[v]; i < in.RowPtr[v+1]; i++ {
			add(in.Col[i], valAt(in.Val, i))
		}
		slices.Sort(cols)
		for _, c := range cols {
			s.Col = append(s.Col, c)
			if s.Val != nil {
				s.Val = append(s.Val, best[c])
			}
		}
		s.RowPtr[v+1] = int64(len(s.Col))
	}
	return s
}

func valAt(val []float32, i int64) float32 {
	if val == nil {
		return 0
	}
	return val[i]
}

// TestDescribeTransposeChecks: inconsistent arguments are errors, and a
// host transpose whose rows are not the described ones panics.
func TestDescribeTransposeChecks(t *testing.T) {
	of := CSR{RowPtr: []int64{0, 1, 2}, Col: []int32{1, 1}}
	build := func() CSR { return CSR{RowPtr: []int64{0, 0, 2}, Col: []int32{0, 1}} }
	for _, c := range []struct {
		n      int
		rowPtr []int64
		b      func() CSR
	}{{2, []int64{0, 0}, build}, {2, []int64{0, 0, 3}, build}, {2, []int64{0, 0, 2}, nil}, {1, []int64{0, 2}, build}} {
		if _, err := DescribeTranspose(c.n, c.rowPtr, of, Options{RelativeSpeed: 3}, c.b); err == nil {
			t.Errorf("n=%d rowPtr=%v: no error", c.n, c.rowPtr)
		}
	}
	// (a symmetrization has at most twice the entries)
	for _, c := range []struct {
		n      int
		rowPtr []int64
		b      func() CSR
	}{{2, []int64{0, 0}, build}, {2, []int64{0, 0, 5}, build}, {2, []int64{0, 0, 2}, nil}, {1, []int64{0, 2}, build}, {2, []int64{1, 1, 2}, build}} {
		if _, err := DescribeSymmetrized(c.n, c.rowPtr, of, Options{RelativeSpeed: 3}, c.b); err == nil {
			t.Errorf("symmetrized n=%d rowPtr=%v: no error", c.n, c.rowPtr)
		}
	}
	m, err := DescribeTranspose(2, []int64{0, 1, 2}, of, CPUOptions(), build)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a transpose of other rows than described did not panic")
		}
	}()
	m.Materialize()
}

// TestNegativeRowRefused: a row pointer that decreases is an error, not a
// panic, from DescribeRows and DescribeTranspose.
func TestNegativeRowRefused(t *testing.T) {
	rowPtr := []int64{0, 2, 1, 3}
	if _, err := DescribeRows(3, rowPtr, CPUOptions()); err == nil || !strings.Contains(err.Error(), "negative length") {
		t.Errorf("DescribeRows: %v", err)
	}
	of := CSR{RowPtr: []int64{0, 1, 2, 3}, Col: []int32{1, 2, 0}}
	if _, err := DescribeTranspose(3, rowPtr, of, Options{RelativeSpeed: 3}, func() CSR { return of }); err == nil {
		t.Error("DescribeTranspose accepted a decreasing row pointer")
	}
}
