package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// addSeeds adds the testdata files matching pattern and the hand-made
// cases to the corpus.
func addSeeds(f *testing.F, pattern string, extra ...string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkEdgeList is the fuzz property shared by the readers: an edge list
// that parsed is consistent, and Build either builds a valid graph from it
// or returns an error.
func checkEdgeList(t *testing.T, el *EdgeList) {
	if el.N <= 0 || len(el.Dst) != len(el.Src) || (el.W != nil && len(el.W) != len(el.Src)) {
		t.Fatalf("inconsistent edge list: N=%d, %d/%d/%d entries", el.N, len(el.Src), len(el.Dst), len(el.W))
	}
	for i := range el.Src {
		if el.Src[i] < 0 || int(el.Src[i]) >= el.N || el.Dst[i] < 0 || int(el.Dst[i]) >= el.N {
			t.Fatalf("entry %d (%d, %d) outside [0, %d)", i, el.Src[i], el.Dst[i], el.N)
		}
	}
	if el.IDs != nil && (len(el.IDs) != el.N || !slices.IsSorted(el.IDs) || len(slices.Compact(slices.Clone(el.IDs))) != el.N) {
		t.Fatalf("ids %v are not %d increasing ids", el.IDs, el.N)
	}
	for _, opt := range []Options{{}, {Symmetrize: true, KeepSelfLoops: true}} {
		if g, err := Build(el, opt); err == nil {
			if err := g.Validate(); err != nil {
				t.Fatalf("Build made an invalid graph: %v", err)
			}
		}
	}
}

func FuzzReadMatrixMarket(f *testing.F) {
	addSeeds(f, "*.mtx",
		"",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 3 -1e-3\n",
		"%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -4\n",
		"%%MatrixMarket matrix coordinate pattern hermitian\n%%GraphBLAS type bool\n\n2 2 1\n\n2 1\n",
		"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix coordinate pattern general\n2147483647 2147483647 1000000000000\n1 2\n",
		"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 1\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n",
		"3 3 2\n1 2 1\n2 3\n",
		"3 3 2\r\n1 2\r\n3 0\r\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1e39\n2 1 99999999999999999999e-20\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		el, err := ReadMatrixMarket(bytes.NewReader(data), "fuzz.mtx")
		if err != nil {
			return
		}
		if el.IDBase != 1 || el.IDs != nil {
			t.Fatalf("Matrix Market ids: IDBase=%d IDs=%v", el.IDBase, el.IDs)
		}
		checkEdgeList(t, el)
	})
}

func FuzzReadEdgeList(f *testing.F) {
	addSeeds(f, "*.edgelist",
		"",
		"# c\n% c\n0 1\n1 2\n",
		"1,2,0.5\r\n2,3,1e-3\r\n",
		"9223372036854775807 0\n4294967296 7\n",
		"1000000000000 1000000000001\n",
		"5 5\n",
		"1 2\n3 4 5\n",
		"1 2 nan\n",
		"0 1\n-1 2\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		el, err := ReadEdgeList(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		if el.IDs != nil && el.IDBase != 0 {
			t.Fatalf("IDBase %d with explicit ids", el.IDBase)
		}
		checkEdgeList(t, el)
	})
}

func FuzzParseReal(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "-.25", "1e-45", "3.4028235e38", "1e39", "nan", "inf", "0x1p3", "1_0", "9007199254740993", "1e22", "123456789012345678901"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		checkParseReal(t, tok)
	})
}

func FuzzReadCache(f *testing.F) {
	for _, g := range testGraphs(f) {
		f.Add(cacheBytes(f, g))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadCache(bytes.NewReader(data), "fuzz.hpg")
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("ReadCache returned an invalid graph: %v", err)
		}
	})
}
