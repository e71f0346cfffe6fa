package apps_test

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestWriteVertexLinesInFileOrder checks WriteVertexLines, which makes
// blocks of lines on several goroutines, against lines written one by
// one with fmt in the order of the vertices' original ids: a graph of
// several rounds of blocks, renumbered by degree (so the file's order is
// not the vertices'), on one worker and on several, with values whose
// formats (%d, %g, %.12g, %.15e) cover integers, infinities and NaN.
func TestWriteVertexLinesInFileOrder(t *testing.T) {
	el, err := gen.Grid(700, 600)
	if err != nil {
		t.Fatal(err)
	}
	base, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := base.Permute(datasets.DegreeOrder(base))
	g := vertexprog.NewGraph(d)
	x := make([]float64, d.N)
	for v := range x {
		switch v % 97 {
		case 0:
			x[v] = math.Inf(1)
		case 1:
			x[v] = math.NaN()
		default:
			x[v] = float64(v)*1.000001e-3 - 17
		}
	}
	ids := make([]int64, d.N)
	for v := range ids {
		ids[v] = d.OriginalID(int32(v))
	}
	byID := make([]int32, d.N)
	for v := range byID {
		byID[v] = int32(v)
	}
	slices.SortFunc(byID, func(a, b int32) int { return int(ids[a] - ids[b]) })
	want := func(format string, val func(v int32) any) []byte {
		var b bytes.Buffer
		for _, v := range byID {
			fmt.Fprintf(&b, format, ids[v], val(v))
		}
		return b.Bytes()
	}
	cases := []struct {
		name string
		want []byte
		line func(b []byte, v int32, id int64) []byte
	}{
		{"ints", want("%d %d\n", func(v int32) any { return int64(v) - 5 }), func(b []byte, v int32, id int64) []byte { return apps.AppendInts(b, id, int64(v)-5) }},
		{"g", want("%d %g\n", func(v int32) any { return x[v] }), func(b []byte, v int32, id int64) []byte { return apps.AppendFloat(b, id, x[v], 'g', -1) }},
		{"g12", want("%d %.12g\n", func(v int32) any { return x[v] }), func(b []byte, v int32, id int64) []byte { return apps.AppendFloat(b, id, x[v], 'g', 12) }},
		{"e15", want("%d %.15e\n", func(v int32) any { return x[v] }), func(b []byte, v int32, id int64) []byte { return apps.AppendFloat(b, id, x[v], 'e', 15) }},
	}
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, c := range cases {
			var got bytes.Buffer
			if err := apps.WriteVertexLines(&got, g, c.line); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), c.want) {
				t.Errorf("%d workers, %s: %d bytes written, want %d (first lines %q, want %q)", procs, c.name, got.Len(), len(c.want), head(got.Bytes()), head(c.want))
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func head(b []byte) []byte { return b[:min(len(b), 60)] }
