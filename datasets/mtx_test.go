package datasets

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

const (
	bannerPattern = "%%MatrixMarket matrix coordinate pattern general\n"
	bannerReal    = "%%MatrixMarket matrix coordinate real general\n"
	bannerInt     = "%%MatrixMarket matrix coordinate integer general\n"
)

func TestReadMatrixMarketBadInput(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int64
		want     string
	}{
		{"example from the issue", "%%MatrixMarket matrix coordinate pattern symmetric\n% a\n% b\n% c\n34 34 78\n1 2\n3 x\n", 7,
			`expected 2 integers and no value for a pattern matrix, found "3 x"`},
		{"empty file", "", 1, "found an empty file"},
		{"only blank lines", "\n\n  \n", 3, `expected a size line "rows cols entries", found the end of the file`},
		{"only comments", bannerPattern + "% c\n", 2, `expected a size line "rows cols entries", found the end of the file`},
		{"misspelled banner", "%%MatrixMarkt matrix coordinate real general\n3 3 0\n", 1, `expected a banner "%%MatrixMarket matrix coordinate <field> <symmetry>"`},
		{"banner missing symmetry", "%%MatrixMarket matrix coordinate real\n3 3 0\n", 1, `found "%%MatrixMarket matrix coordinate real"`},
		{"banner extra token", "%%MatrixMarket matrix coordinate real general x\n3 3 0\n", 1, "expected a banner"},
		{"banner vector", "%%MatrixMarket vector coordinate real general\n3 3 0\n", 1, `expected object "matrix" in the banner, found "vector"`},
		{"array format", "%%MatrixMarket matrix array real general\n3 3\n", 1, `expected format "coordinate" in the banner, found "array": dense array files are not supported`},
		{"unknown format", "%%MatrixMarket matrix sparse real general\n3 3 0\n", 1, `expected format "coordinate" in the banner, found "sparse"`},
		{"complex field", "%%MatrixMarket matrix coordinate complex general\n3 3 0\n", 1, `found "complex": complex matrices are not supported`},
		{"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n3 3 0\n", 1, `expected field pattern, integer, real or double in the banner, found "quaternion"`},
		{"unknown symmetry", "%%MatrixMarket matrix coordinate real upper\n3 3 0\n", 1, `expected symmetry general, symmetric, skew-symmetric or hermitian in the banner, found "upper"`},
		{"skew pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n", 1, "a pattern has no signs"},
		{"size line non-numeric", bannerPattern + "3 3 x\n", 2, `expected a size line "rows cols entries" (3 non-negative integers), found "3 3 x"`},
		{"size line two numbers", bannerPattern + "3 3\n", 2, `found "3 3"`},
		{"size line four numbers", bannerPattern + "3 3 1 1\n", 2, `found "3 3 1 1"`},
		{"size line negative", bannerPattern + "-3 3 1\n", 2, `found "-3 3 1"`},
		{"size line overflow", bannerPattern + "99999999999999999999 3 1\n", 2, "3 non-negative integers"},
		{"non-square", bannerPattern + "% c\n3 4 1\n1 1\n", 3, "matrix is 3 x 4; a graph needs a square matrix"},
		{"empty graph", bannerPattern + "0 0 0\n", 2, "matrix is 0 x 0; expected at least one vertex"},
		{"too many rows", bannerPattern + "3000000000 3000000000 0\n", 2, "expected at most 2147483647 vertices"},
		{"rows far beyond the entries", "1000000000 1000000000 0", 1, "matrix is 1000000000 x 1000000000 with 0 entries; expected at most 4 rows per entry plus 1048576"},
		{"fewer entries", bannerPattern + "3 3 3\n1 2\n2 3\n", 4, "expected 3 entries as declared on line 2, found the end of the file after 2"},
		{"fewer entries, no final newline", bannerPattern + "3 3 3\n1 2\n2 3", 4, "found the end of the file after 2"},
		{"fewer entries, trailing comments", bannerPattern + "3 3 3\n1 2\n% c\n\n", 5, "found the end of the file after 1"},
		{"no entries", bannerPattern + "3 3 1\n", 2, "expected 1 entries as declared on line 2, found the end of the file after 0"},
		{"more entries", bannerPattern + "3 3 2\n1 2\n2 3\n% c\n3 1\n1 1\n", 6, `expected the end of the file after the 2 entries declared on line 2, found "3 1"`},
		{"more entries than zero", bannerPattern + "3 3 0\n\n1 2\n", 4, `expected the end of the file after the 0 entries declared on line 2, found "1 2"`},
		{"row index 0", bannerPattern + "3 3 2\n1 2\n0 1\n", 4, `expected row and column indices in 1..3, found "0 1"`},
		{"column index 0", bannerPattern + "3 3 2\n1 2\n1 0\n", 4, `found "1 0"`},
		{"row beyond size", bannerPattern + "3 3 2\n1 2\n4 1\n", 4, `expected row and column indices in 1..3, found "4 1"`},
		{"column beyond size", bannerPattern + "3 3 1\n1 4\n", 3, `found "1 4"`},
		{"index overflows int64", bannerPattern + "3 3 1\n99999999999999999999 1\n", 3, "expected row and column indices in 1..3"},
		{"negative index", bannerPattern + "3 3 1\n-1 2\n", 3, "expected 2 integers and no value for a pattern matrix"},
		{"one field", bannerPattern + "3 3 1\n1\n", 3, `found "1"`},
		{"no separator", bannerPattern + "3 3 1\n1 2x\n", 3, `found "1 2x"`},
		{"no separator after row", bannerPattern + "3 3 1\n1x 2\n", 3, `found "1x 2"`},
		{"comma is not a separator", bannerPattern + "3 3 1\n1,2\n", 3, `found "1,2"`},
		{"pattern with value", bannerPattern + "3 3 1\n1 2 3\n", 3, `expected 2 integers and no value for a pattern matrix, found "1 2 3"`},
		{"real without value", bannerReal + "3 3 1\n1 2\n", 3, `expected 2 integers and a real value for a real matrix, found "1 2"`},
		{"real non-numeric", bannerReal + "3 3 1\n1 2 abc\n", 3, `found "1 2 abc"`},
		{"real two values", bannerReal + "3 3 1\n1 2 3 4\n", 3, `found "1 2 3 4"`},
		{"real NaN", bannerReal + "3 3 1\n1 2 nan\n", 3, `expected a finite value, found "1 2 nan"`},
		{"real Inf", bannerReal + "3 3 1\n1 2 Inf\n", 3, `expected a finite value, found "1 2 Inf"`},
		{"real -Infinity", bannerReal + "3 3 1\n1 2 -Infinity\n", 3, "expected a finite value"},
		{"real beyond float64", bannerReal + "3 3 1\n1 2 1e400\n", 3, "expected a value within the float32 range"},
		{"real beyond float32", bannerReal + "3 3 1\n1 2 1e39\n", 3, `expected a value within the float32 range (magnitude at most 3.4e38), found "1 2 1e39"`},
		{"integer with fraction", bannerInt + "3 3 1\n1 2 1.5\n", 3, `expected 2 integers and an integer value for an integer matrix, found "1 2 1.5"`},
		{"integer with exponent", bannerInt + "3 3 1\n1 2 1e3\n", 3, "an integer value"},
		{"no banner: value after none", "3 3 2\n1 2\n2 3 4\n", 3, `expected 2 integers and no value, like the first entry (line 2), found "2 3 4"`},
		{"no banner: none after value", "% c\n3 3 2\n1 2 1\n2 3\n", 4, `expected 2 integers and a value, like the first entry (line 3), found "2 3"`},
		{"no banner: size line", "% c\n1 2\n", 2, `expected a size line "rows cols entries"`},
		{"no banner: edge list", "0 1 1\n1 2 1\n", 1, "matrix is 0 x 1; a graph needs a square matrix"},
		{"gzip data", "\x1f\x8b\x08\x00", 1, "expected a size line"},
		{"long bad line is cut", bannerPattern + "3 3 1\n1 " + strings.Repeat("9", 200) + "x\n", 3, `..."`},
	} {
		t.Run(c.name, func(t *testing.T) {
			el, err := ReadMatrixMarket(strings.NewReader(c.in), "bad.mtx")
			if err == nil {
				t.Fatalf("no error; read %+v", el)
			}
			wantParseError(t, err, "bad.mtx", c.line, c.want)
		})
	}
}

func TestReadMatrixMarketEmptyGraphIsErrEmptyGraph(t *testing.T) {
	_, err := ReadMatrixMarket(strings.NewReader(bannerReal+"0 0 0\n"), "zero.mtx")
	if !errors.Is(err, ErrEmptyGraph) {
		t.Errorf("error %v does not wrap ErrEmptyGraph", err)
	}
}

// TestReadMatrixMarketHugeClaim: a header claiming 10^12 entries (and 2^31-1
// vertices) in a tiny file must fail fast without allocating for the claim.
func TestReadMatrixMarketHugeClaim(t *testing.T) {
	in := bannerPattern + "2147483647 2147483647 1000000000000\n1 2\n3 4\n"
	for name, r := range map[string]func() any{
		"sized":   func() any { return strings.NewReader(in) },
		"unsized": func() any { return unsized{strings.NewReader(in)} },
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			var err error
			switch r := r().(type) {
			case *strings.Reader:
				_, err = ReadMatrixMarket(r, "huge.mtx")
			case unsized:
				_, err = ReadMatrixMarket(r, "huge.mtx")
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			wantParseError(t, err, "huge.mtx", 4, "expected 1000000000000 entries as declared on line 2, found the end of the file after 2")
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("allocated %d bytes for a %d-byte file", alloc, len(in))
			}
			if elapsed > time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
}

func TestReadMatrixMarket(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     EdgeList
	}{
		{"pattern general", bannerPattern + "3 3 2\n1 2\n3 1\n",
			EdgeList{N: 3, Src: []int32{0, 2}, Dst: []int32{1, 0}, Directed: true}},
		{"pattern symmetric, comments and blank lines anywhere",
			"\n%%matrixmarket MATRIX Coordinate Pattern SYMMETRIC\n%%GraphBLAS type bool\n\n% c\n3 3 2\n\n2 1\n% in between\n   \n3 3\n\n",
			EdgeList{N: 3, Src: []int32{1, 2}, Dst: []int32{0, 2}}},
		{"real general, CRLF, tabs, trailing spaces", "%%MatrixMarket matrix coordinate real general\r\n3 3 3\r\n1\t2\t0.5\r\n  2 3 -.25  \r\n3 1 1e-3\r\n",
			EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}, W: []float32{0.5, -0.25, 1e-3}, Directed: true}},
		{"double field", "%%MatrixMarket matrix coordinate double symmetric\n2 2 1\n2 1 3.25\n",
			EdgeList{N: 2, Src: []int32{1}, Dst: []int32{0}, W: []float32{3.25}}},
		{"integer field with signs", bannerInt + "2 2 2\n1 2 -7\n2 1 +8\n",
			EdgeList{N: 2, Src: []int32{0, 1}, Dst: []int32{1, 0}, W: []float32{-7, 8}, Directed: true}},
		{"skew-symmetric keeps the stored value", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 -2\n",
			EdgeList{N: 2, Src: []int32{1}, Dst: []int32{0}, W: []float32{-2}}},
		{"hermitian is symmetric", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n2 1 2\n",
			EdgeList{N: 2, Src: []int32{1}, Dst: []int32{0}, W: []float32{2}}},
		{"no entries", bannerReal + "4 4 0\n",
			EdgeList{N: 4, W: []float32{}, Directed: true}},
		{"byte order mark", "\xef\xbb\xbf" + bannerPattern + "3 3 1\n1 2\n",
			EdgeList{N: 3, Src: []int32{0}, Dst: []int32{1}, Directed: true}},
		{"no banner, pattern", "3 3 2\n1 2\n2 3",
			EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Directed: true}},
		{"no banner, weights", "% c\n3 3 2\n1 2 5\n2 3 0.5\n",
			EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, W: []float32{5, 0.5}, Directed: true}},
		{"self loops and duplicates are kept for Build", bannerPattern + "2 2 3\n1 1\n1 2\n1 2\n",
			EdgeList{N: 2, Src: []int32{0, 0, 0}, Dst: []int32{0, 1, 1}, Directed: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			el, err := ReadMatrixMarket(strings.NewReader(c.in), "good.mtx")
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			want.IDBase, want.Name = 1, "good.mtx"
			if want.Src == nil {
				want.Src, want.Dst = el.Src, el.Dst
				if len(el.Src) != 0 {
					t.Fatalf("got %d entries, want none", len(el.Src))
				}
			}
			if !reflect.DeepEqual(*el, want) {
				t.Errorf("got  %+v\nwant %+v", *el, want)
			}
		})
	}
}

// randomGraph builds a random graph with n vertices and about m edges.
func randomGraph(t testing.TB, seed uint64, n, m int, directed, weighted, loops bool) *Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	el := &EdgeList{N: n, Directed: directed, IDBase: 1, Name: "random"}
	for range m {
		u, v := int32(r.IntN(n)), int32(r.IntN(n))
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		if weighted {
			w := math.Float32frombits(r.Uint32())
			for math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
				w = math.Float32frombits(r.Uint32())
			}
			if r.IntN(2) == 0 {
				w = float32(r.IntN(100))
			}
			el.W = append(el.W, w)
		}
	}
	g, err := Build(el, Options{KeepSelfLoops: loops})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sameGraph(t *testing.T, got, want *Graph) {
	t.Helper()
	if got.N != want.N || got.Directed != want.Directed || !reflect.DeepEqual(got.RowPtr, want.RowPtr) ||
		!reflect.DeepEqual(got.Col, want.Col) || (got.W == nil) != (want.W == nil) {
		t.Fatalf("graphs differ: got N=%d directed=%v nnz=%d weighted=%v, want N=%d directed=%v nnz=%d weighted=%v",
			got.N, got.Directed, got.NNZ(), got.W != nil, want.N, want.Directed, want.NNZ(), want.W != nil)
	}
	for i := range got.W {
		if math.Float32bits(got.W[i]) != math.Float32bits(want.W[i]) {
			t.Fatalf("weight %d: got %v, want %v", i, got.W[i], want.W[i])
		}
	}
}

func TestWriteMatrixMarketRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name                      string
		directed, weighted, loops bool
	}{
		{"directed pattern", true, false, false},
		{"directed weighted with loops", true, true, true},
		{"undirected pattern with loops", false, false, true},
		{"undirected weighted", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			withProcs(t, 3)
			g := randomGraph(t, 1, 3000, 400000, c.directed, c.weighted, c.loops)
			var buf bytes.Buffer
			if err := WriteMatrixMarket(&buf, g); err != nil {
				t.Fatal(err)
			}
			el, err := ReadMatrixMarket(&buf, "rt.mtx")
			if err != nil {
				t.Fatal(err)
			}
			if el.Directed != c.directed {
				t.Fatalf("read back directed=%v", el.Directed)
			}
			back, err := Build(el, Options{KeepSelfLoops: c.loops})
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, back, g)
		})
	}
}

func TestWriteMatrixMarketHeader(t *testing.T) {
	g := randomGraph(t, 2, 5, 8, false, true, true)
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, g); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "%%MatrixMarket matrix coordinate real symmetric\n% random, written by hpgraph\n") {
		t.Errorf("header:\n%s", buf.String())
	}
}
