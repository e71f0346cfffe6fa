package hyb_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
)

// Every shipped graph, directed or not, weighted or not, must come back
// from HYB as the same CSR under every split, and transposing twice must
// give the original.
func TestShippedGraphsRoundTrip(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	var files []string
	for _, sub := range []string{"tiny", "small"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, filepath.Join(dir, sub, e.Name()))
		}
	}
	splits := []hyb.Options{
		hyb.DefaultOptions(),
		{RelativeSpeed: 3},    // breakeven 0: ELL on small graphs too
		{RelativeSpeed: 1e-9}, // K = max
	}
	for _, f := range files {
		g, err := datasets.Load(f, datasets.Options{KeepSelfLoops: true})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, opt := range splits {
			m, err := hyb.FromGraph(g, opt)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			ptr, col, val := m.ToCSR()
			if !slices.Equal(ptr, g.RowPtr) || !slices.Equal(col, g.Col) || !slices.Equal(val, g.W) {
				t.Fatalf("%s K=%d: HYB does not round-trip", f, m.K)
			}
			mt, err := m.Transpose(opt)
			if err != nil {
				t.Fatal(err)
			}
			mtt, err := mt.Transpose(opt)
			if err != nil {
				t.Fatal(err)
			}
			p2, c2, v2 := mtt.ToCSR()
			if !slices.Equal(p2, g.RowPtr) || !slices.Equal(c2, g.Col) || !slices.Equal(v2, g.W) {
				t.Fatalf("%s K=%d: transposing twice changed the matrix", f, m.K)
			}
		}
	}
	t.Logf("%d shipped graphs round-trip", len(files))
}
