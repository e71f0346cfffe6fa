//go:build cgo

package run

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestComponentsPackedMerge: components in 2 and 3 parts merge their
// forests packed (a giant's bits and a list), and where a list outgrows
// its room (a test hook caps it at 4 pairs) whole, with the CPU's labels
// either way: a Kronecker graph (one giant and small components: its
// lists fit) and one of many components (paths of every length, a
// matching, isolated vertices), whose lists are long.
func TestComponentsPackedMerge(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(14, 8, 5)
	if err != nil {
		t.Fatal(err)
	}
	many := &datasets.EdgeList{}
	for l := int32(90); l >= 1; l-- {
		first := int32(many.N)
		for i := int32(1); i < l; i++ {
			many.Src, many.Dst = append(many.Src, first+i-1), append(many.Dst, first+i)
		}
		many.N += int(l)
	}
	for i := range int32(300) {
		many.Src, many.Dst = append(many.Src, int32(many.N)+2*i), append(many.Dst, int32(many.N)+2*i+1)
	}
	many.N += 600 + 200
	for _, c := range []struct {
		name string
		el   *datasets.EdgeList
	}{{"kron14", kron}, {"many components", many}} {
		g := vertexprog.NewGraph(gputest.Build(t, c.el, datasets.Options{}))
		want, err := cc.Run(g, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{2, 3} {
			for _, capped := range []bool{false, true} {
				what := fmt.Sprintf("%s in %d parts (capped %v)", c.name, parts, capped)
				d.hooks.ccPack = 1 << 30 // (packed on one device too)
				if capped {
					d.hooks.ccPack = 4
				}
				packed, whole := d.counts.packedMerge, d.counts.wholeMerge
				got, err := cc.Run(g, vertexprog.Options{Backend: "cuda", Parts: parts})
				d.hooks.ccPack = 0
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if len(got.Run.Parts) != parts {
					t.Fatalf("%s: %d parts reported", what, len(got.Run.Parts))
				}
				if !slices.Equal(got.Label, want.Label) || got.Components != want.Components {
					t.Fatalf("%s: %d components, the CPU's %d; labels equal: %v", what, got.Components, want.Components, slices.Equal(got.Label, want.Label))
				}
				// (uncapped, the Kronecker graph's lists fit; the many
				// components' may outgrow the buffer's half)
				np, nw := d.counts.packedMerge-packed, d.counts.wholeMerge-whole
				if np+nw != 1 || capped && nw != 1 || !capped && c.el == kron && np != 1 {
					t.Errorf("%s: %d merges packed, %d whole after a packing", what, np, nw)
				}
			}
		}
	}
}
