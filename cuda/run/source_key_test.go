//go:build cgo

package run

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// TestSourceKeyDeterminesSource: kernelImage keeps a run's image by
// sourceKey, so two runs whose keys are equal must have the same kernel
// source, and (or the cache would hold one source under two keys, no
// harm but no use) different keys different sources. Checked over
// programs and every feature that buildSource writes.
func TestSourceKeyDeterminesSource(t *testing.T) {
	codes := []vertexprog.DeviceCode{
		(&bfs.Program{}).Device(),
		(&sssp.Program{Delta: 16}).Device(),
		(&pagerank.Program{Damping: 0.85}).Device(),
		(&pagerank.LDBCProgram[float32]{Damping: 0.85}).Device(),
	}
	noInit := codes[1]
	noInit.Init = false
	codes = append(codes, noInit)
	base := jobFeatures(&driver.DeviceJob{XSize: 4, ASize: 4}, 1<<20, 1<<28, DefaultOptions())
	feats := []features{base}
	for _, change := range []func(*features){
		func(f *features) { f.XSize = 8 }, func(f *features) { f.ASize = 8 },
		func(f *features) { f.HasWants = true }, func(f *features) { f.HasDone = true },
		func(f *features) { f.Priority = true }, func(f *features) { f.Texture = !f.Texture },
		func(f *features) { f.TextureX = !f.TextureX }, func(f *features) { f.Unroll = 2 },
		func(f *features) { f.Stream = !f.Stream }, func(f *features) { f.Probe = !f.Probe },
		func(f *features) { f.LoopList = 512 }, func(f *features) { f.TileChunk = 3 },
		func(f *features) { f.ApplyRows = 7 }, func(f *features) { f.Aggs = "0,1," },
	} {
		f := base
		change(&f)
		feats = append(feats, f)
	}
	type built struct {
		k   sourceKey
		src string
	}
	var all []built
	for i := range codes {
		l, err := layoutState(&codes[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range feats {
			all = append(all, built{keyOf(&codes[i], l, f), buildSource(&codes[i], l, f)})
		}
	}
	for i, a := range all {
		for _, b := range all[i+1:] {
			if (a.k == b.k) != (a.src == b.src) {
				t.Fatalf("keys equal %v, sources equal %v:\n%+v\n%+v", a.k == b.k, a.src == b.src, a.k.f, b.k.f)
			}
		}
	}
}
