package pagerank

import (
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// TestPageRankScratchKeepsArrays: summary queries of both PageRanks
// (float32 too) through one scratch, on every backend here, write into
// the same ranks and values arrays query after query — a device leaves
// the values on it (NoValues), and the scratch still keeps the array, so
// no query allocates one — and answer as a fresh run does.
func TestPageRankScratchKeepsArrays(t *testing.T) {
	sg := vptest.Graphs(t, datasets.Options{})[0]
	g := vertexprog.NewGraph(sg.G)
	for _, backend := range vertexprog.Backends() {
		for _, c := range []struct {
			app       *apps.App
			precision string
		}{{App, "float64"}, {LDBCApp, "float64"}, {LDBCApp, "float32"}} {
			prm := c.app.DefaultParams()
			prm.Precision = c.precision
			opt := vertexprog.Options{Backend: backend, Resident: true}
			fresh, err := c.app.Run(g, apps.Request{Params: prm, Need: apps.NeedSummary}, opt)
			if err != nil {
				t.Fatal(err)
			}
			s := &apps.Scratch{}
			var ranks, values unsafe.Pointer
			for q := range 3 {
				got, err := c.app.Run(g, apps.Request{Params: prm, Need: apps.NeedSummary, Scratch: s}, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got.Summary != fresh.Summary {
					t.Errorf("%s %s on %s, query %d: %q, fresh %q", c.app.Name, c.precision, backend, q, got.Summary, fresh.Summary)
				}
				r := s.LentRanks()
				var v any = apps.Lent[float64](s)
				if c.precision == "float32" {
					v = apps.Lent[float32](s)
				}
				vp := valuesData(v)
				if r == nil || vp == nil {
					t.Fatalf("%s %s on %s, query %d: the scratch kept ranks %v, values %T", c.app.Name, c.precision, backend, q, r != nil, v)
				}
				if q > 0 && (unsafe.Pointer(unsafe.SliceData(r)) != ranks || vp != values) {
					t.Errorf("%s %s on %s, query %d: new arrays, not the scratch's", c.app.Name, c.precision, backend, q)
				}
				ranks, values = unsafe.Pointer(unsafe.SliceData(r)), vp
			}
		}
	}
}

// valuesData is the first element's address of a []float64 or []float32.
func valuesData(v any) unsafe.Pointer {
	switch xs := v.(type) {
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(xs))
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(xs))
	}
	return nil
}
