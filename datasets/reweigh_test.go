package datasets

import (
	"path/filepath"
	"slices"
	"testing"
	"unsafe"
)

// Loading a cache with other weights (--weights random or none) weighs
// its arcs in place, sharing them, and gives what rebuilding the graph
// from its edge list gives (the reference: Build, as loading did before);
// where the rebuild would drop arcs the cache kept (a self loop, parallel
// arcs) it still rebuilds.
func TestCacheReweighedInPlace(t *testing.T) {
	dir := t.TempDir()
	el := &EdgeList{N: 7, Src: []int32{0, 0, 1, 2, 3, 4, 5, 6, 6, 2}, Dst: []int32{1, 2, 2, 3, 4, 5, 6, 0, 3, 2},
		W: []float32{5, 4, 3, 2, 1, 9, 8, 7, 6, 1}}
	random := Options{Weights: WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 11}
	for _, c := range []struct {
		name     string
		directed bool
		built    Options // the cache's cleaning
		load     Options
		inPlace  bool
	}{
		{"undirected random", false, Options{}, random, true},
		{"directed random", true, Options{}, random, true},
		{"undirected none", false, Options{}, Options{Weights: WeightsNone}, true},
		{"random, relabelled", false, Options{}, Options{Weights: WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 3, Relabel: RelabelDegree}, true},
		{"loop kept, dropped now", true, Options{KeepSelfLoops: true}, random, false},
		{"loop kept, kept now", true, Options{KeepSelfLoops: true}, Options{Weights: WeightsRandom, WeightMin: 1, WeightMax: 9, KeepSelfLoops: true}, true},
		{"parallel arcs kept", true, Options{KeepDuplicates: true, KeepSelfLoops: true}, Options{Weights: WeightsNone, KeepSelfLoops: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := *el
			in.Directed = c.directed
			if c.name == "parallel arcs kept" {
				in.Src, in.Dst, in.W = append(in.Src, 0), append(in.Dst, 1), append(in.W, 2)
			}
			built, err := Build(&in, c.built)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "g.hpg")
			if err := WriteCacheFile(path, built); err != nil {
				t.Fatal(err)
			}
			cache, err := Load(path, Options{KeepSelfLoops: true, KeepDuplicates: true})
			if err != nil {
				t.Fatal(err)
			}
			want, err := Build(cache.EdgeList(), c.load)
			if err != nil {
				t.Fatal(err)
			}
			got, err := applyToCache(cache, c.load)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.W, want.W) ||
				(got.W == nil) != (want.W == nil) || !slices.Equal(got.IDs, want.IDs) || got.Directed != want.Directed {
				t.Fatalf("reweighed:\n%v %v %v ids %v\nrebuilt:\n%v %v %v ids %v", got.RowPtr, got.Col, got.W, got.IDs, want.RowPtr, want.Col, want.W, want.IDs)
			}
			shared := unsafe.SliceData(got.Col) == unsafe.SliceData(cache.Col)
			if c.load.Relabel == RelabelNone && shared != c.inPlace {
				t.Fatalf("the cache's arcs shared: %v, want %v (in place only where a rebuild would keep every arc)", shared, c.inPlace)
			}
		})
	}
}
