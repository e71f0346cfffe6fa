package sssp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// hostSummary is the answer's summary as the app made it on the host
// before the engine's reductions: the vertices whose distance is not
// +Inf, and the greatest such distance (0 where none), one pass by value.
func hostSummary(dist []float32) (reached int, far float32) {
	for _, x := range dist {
		if !math.IsInf(float64(x), 1) {
			reached++
			far = max(far, x)
		}
	}
	return reached, far
}

// TestReachedMatchesHostSummary: the run's reductions (Result.Reached),
// on every backend vptest knows (the CPU's pass; a device's kernel over
// the distances where it has one), are the host's pass over the
// distances and gonum's shortest paths' count and farthest, unweighted
// and weighted, from several sources.
func TestReachedMatchesHostSummary(t *testing.T) {
	for _, w := range []struct {
		name string
		opt  datasets.Options
	}{{"unweighted", datasets.Options{}}, {"weighted", apptest.Weighted}} {
		for _, tg := range apptest.Shapes(t, w.opt) {
			g := vertexprog.NewGraph(tg.G)
			for _, src := range apptest.Sources(tg.G) {
				want, err := reference.SSSP(tg.G, src)
				if err != nil {
					t.Fatal(err)
				}
				refReached, refFar := 0, 0.0
				for _, d := range want {
					if !math.IsInf(d, 1) {
						refReached, refFar = refReached+1, max(refFar, d)
					}
				}
				for _, c := range vptest.Configs() {
					name := fmt.Sprintf("%s/%s/src%d/%s", w.name, tg.Name, src, c.Name)
					r, err := sssp.Run(g, src, c.Options)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					reached, far := r.Reached()
					hr, hf := hostSummary(r.Dist)
					if reached != hr || math.Float32bits(far) != math.Float32bits(hf) {
						t.Errorf("%s: reductions %d, %g; the host's pass %d, %g", name, reached, far, hr, hf)
					}
					if reached != refReached || float64(far) != refFar {
						t.Errorf("%s: reductions %d, %g; gonum's %d, %g", name, reached, far, refReached, refFar)
					}
				}
			}
		}
	}
}

// TestSummaryOnlyAnswer: the app's answer to a query that needs only
// its summary (several sources, no --out) has the same summary line as
// one that needs everything, on every backend; where the distances
// stayed on a device, writing them fails instead of writing nothing.
func TestSummaryOnlyAnswer(t *testing.T) {
	for _, tg := range apptest.Shapes(t, apptest.Weighted) {
		g := vertexprog.NewGraph(tg.G)
		for _, src := range apptest.Sources(tg.G) {
			for _, c := range vptest.Configs() {
				var lines [2]string
				for i, need := range []apps.Need{apps.NeedAll, apps.NeedSummary} {
					req := apps.Request{Params: apps.Params{Delta: -1}, Source: src, Need: need}
					res, err := sssp.App.Answer(g, req, c.Options)
					if err != nil {
						t.Fatalf("%s/src%d/%s: %v", tg.Name, src, c.Name, err)
					}
					lines[i] = res.Summary
					if need == apps.NeedSummary && res.Rows == nil && res.Check() == nil {
						t.Errorf("%s/src%d/%s: no distances, yet Check passes", tg.Name, src, c.Name)
					}
				}
				if lines[0] != lines[1] {
					t.Errorf("%s/src%d/%s: summary-only %q; with the distances %q", tg.Name, src, c.Name, lines[1], lines[0])
				}
			}
		}
	}
}

// BenchmarkSummarize is the app's summary pass before the engine's
// reductions (oldSummarize) over a kron21-sized answer, its unreached
// vertices (40%) scattered: vertexprog's BenchmarkReduceValues is the
// engine's pass that replaced it, on the same values.
func BenchmarkSummarize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	dist := make([]float32, 1<<21)
	for i := range dist {
		dist[i] = float32(r.IntN(8))
		if r.IntN(10) < 4 {
			dist[i] = float32(math.Inf(1))
		}
	}
	b.SetBytes(int64(len(dist)) * 4)
	for b.Loop() {
		oldSummarize(dist)
	}
}

// oldSummarize is the app's summary pass of session 28, kept to measure
// against: every core, each worker's counts in its own variables, on the
// distances' bits without a branch.
func oldSummarize(dist []float32) (reached int, far float32) {
	const infBits = 0x7f800000
	type part struct {
		reached int
		far     uint32
	}
	parts := make([]part, par.Workers())
	par.Blocks(len(dist), func(w, lo, hi int) {
		var p part
		for _, x := range dist[lo:hi] {
			b := math.Float32bits(x)
			d := b ^ infBits
			finite := (d | -d) >> 31 // 1 unless x is +Inf
			p.reached += int(finite)
			p.far = max(p.far, b&-finite)
		}
		parts[w] = p
	})
	var top uint32
	for _, p := range parts {
		reached, top = reached+p.reached, max(top, p.far)
	}
	return reached, math.Float32frombits(top)
}
