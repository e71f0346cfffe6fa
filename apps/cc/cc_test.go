package cc_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func TestComponentsMatchReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			want := reference.Components(tg.G)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range vptest.Configs() {
				r, err := cc.Run(g, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for v := range want {
					if r.Label[v] != want[v] {
						t.Fatalf("%s: label[%d] = %d, want %d", c.Name, v, r.Label[v], want[v])
					}
				}
			}
		})
	}
}
