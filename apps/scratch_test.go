package apps

import (
	"testing"
	"unsafe"

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
	s := &Scratch{}
	mix := []*App{appSSSP, appPageRankLDBC, appCC, appPageRank, appSSSP, appCC}
	arrays := func() map[string]unsafe.Pointer {
		m := map[string]unsafe.Pointer{"ranks": unsafe.Pointer(unsafe.SliceData(s.lentRanks()))}
		for _, k := range s.values {
			switch x := k.array.(type) {
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
			if _, err := a.Run(g, Request{Params: DefaultParams(), Need: NeedSummary, Scratch: s}, vertexprog.Options{Backend: "cpu"}); err != nil {
				t.Fatal(err)
			}
		}
		if len(s.values) != 3 {
			t.Fatalf("round %d: %d value arrays kept, want one per type (3)", round, len(s.values))
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

// SSSP's default delta is the graph's: computed once (a pass over every
// weight a query cost a batch of weighted kron21 queries ~80 ms each),
// and equal to DeltaWeights times the mean weight.
func TestDefaultDeltaOncePerGraph(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 4, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3}, W: []float32{1, 2, 6}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	for range 3 {
		if _, err := appSSSP.Run(g, Request{Params: DefaultParams()}, vertexprog.Options{Backend: "cpu"}); err != nil {
			t.Fatal(err)
		}
	}
	kept := g.Memo(defaultDeltaKey{}, func() any { t.Fatal("the runs did not keep the graph's delta"); return 0.0 })
	if want := DeltaWeights * 3.0; kept != want || DefaultDelta(g) != want {
		t.Fatalf("delta %v (DefaultDelta %v), want %v: %d times the mean weight 3", kept, DefaultDelta(g), want, DeltaWeights)
	}
}
