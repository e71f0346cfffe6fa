package apps_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// TestDefaultSourceIgnoresRelabelling: the default source has the
// highest degree, and is the same vertex (by original id) in the file's
// order and renumbered by degree, on graphs whose top degree ties (a
// cycle, a grid) and does not.
func TestDefaultSourceIgnoresRelabelling(t *testing.T) {
	for _, tg := range vptest.Graphs(t, datasets.Options{}) {
		g := tg.G
		if g.N == 0 {
			continue
		}
		s := apps.DefaultSource(g)
		for v := range int32(g.N) {
			if g.Degree(v) > g.Degree(s) || g.Degree(v) == g.Degree(s) && g.OriginalID(v) < g.OriginalID(s) {
				t.Fatalf("%s: vertex %d (id %d) comes before the default source %d (id %d)", tg.Name, v, g.OriginalID(v), s, g.OriginalID(s))
			}
		}
		r := g.Permute(datasets.DegreeOrder(g))
		if got, want := r.OriginalID(apps.DefaultSource(r)), g.OriginalID(s); got != want {
			t.Errorf("%s: default source %d renumbered by degree, %d in the file's order", tg.Name, got, want)
		}
	}
}
