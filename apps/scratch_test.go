package apps_test

import (
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// A scratch lent to queries of apps in turn (a server's mix) keeps one
// array of each value type and reuses it: after the first round no query
// writes into fresh memory (an array dropped for another at every change
// of app was garbage a server's heap grew by), whatever the order.
func TestScratchKeepsOneArrayPerType(t *testing.T) {
	el, err := gen.Kronecker(8, 8, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Build(el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	s := &apps.Scratch{}
	mix := []*apps.App{sssp.App, pagerank.LDBCApp, cc.App, pagerank.App, sssp.App, cc.App}
	arrays := func() map[string]unsafe.Pointer {
		m := map[string]unsafe.Pointer{"ranks": unsafe.Pointer(unsafe.SliceData(s.LentRanks()))}
		for _, k := range apps.KeptValues(s) {
			switch x := k.(type) {
			case []float64:
				m["float64"] = unsafe.Pointer(unsafe.SliceData(x))
			case []float32:
				m["float32"] = unsafe.Pointer(unsafe.SliceData(x))
			case []int32:
				m["int32"] = unsafe.Pointer(unsafe.SliceData(x))
			default:
				t.Fatalf("kept a %T", x)
			}
		}
		return m
	}
	var first map[string]unsafe.Pointer
	for round := range 3 {
		for _, a := range mix {
			if _, err := a.Run(g, apps.Request{Params: registry.DefaultParams(), Need: apps.NeedSummary, Scratch: s}, vertexprog.Options{Backend: "cpu"}); err != nil {
				t.Fatal(err)
			}
		}
		if len(apps.KeptValues(s)) != 3 {
			t.Fatalf("round %d: %d value arrays kept, want one per type (3)", round, len(apps.KeptValues(s)))
		}
		now := arrays()
		if round == 0 {
			first = now
			continue
		}
		for k, p := range first {
			if now[k] != p {
				t.Fatalf("round %d: a new %s array, not the one kept", round, k)
			}
		}
	}
}
