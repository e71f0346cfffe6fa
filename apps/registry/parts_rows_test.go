package registry_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/cluster"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// overRows runs fn on world goroutines joined over loopback as the
// processes of a run are, each holding only its parts' rows of the .hpg
// at path (datasets.ReadCacheRows, vertexprog.NewGraphRows; parts a
// process, or -1: rank 0 holds a word more than its one part, rank 1 a
// word less), and returns what each gave.
func overRows(t *testing.T, path string, world, parts int, fn func(g *vertexprog.Graph, r *datasets.Rows, c vertexprog.Comm) ([]float64, error)) ([][]float64, []error) {
	t.Helper()
	return overHeldRows(t, world, func(rank int, _ vertexprog.Comm) (*datasets.Rows, error) {
		return datasets.ReadCacheRows(path, func(rowPtr []int64) (int32, int32, error) {
			if parts < 0 {
				lo, hi, err := vertexprog.RowsOf(rowPtr, 1, world, rank)
				return max(lo, lo+32*int32(rank)), hi + 32*int32(1-rank), err
			}
			return vertexprog.RowsOf(rowPtr, parts, world, rank)
		})
	}, fn)
}

// overHeldRows runs fn on world goroutines joined over loopback as the
// processes of a run are, each holding the rows rowsOf gives it
// (vertexprog.NewGraphRows), and returns what each gave.
func overHeldRows(t *testing.T, world int, rowsOf func(rank int, c vertexprog.Comm) (*datasets.Rows, error), fn func(g *vertexprog.Graph, r *datasets.Rows, c vertexprog.Comm) ([]float64, error)) ([][]float64, []error) {
	t.Helper()
	addr := freeLoopback(t)
	got, errs := make([][]float64, world), make([]error, world)
	var wg sync.WaitGroup
	for rank := range world {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[rank] = func() error {
				c, err := cluster.Join(cluster.Config{World: world, Rank: rank, Coordinator: addr, Timeout: 20 * time.Second, Key: t.Name()})
				if err != nil {
					return err
				}
				defer c.Close()
				rows, err := rowsOf(rank, c)
				if err != nil {
					return err
				}
				g, err := vertexprog.NewGraphRows(rows, c)
				if err != nil {
					return err
				}
				got[rank], err = fn(g, rows, c)
				return err
			}()
		}()
	}
	wg.Wait()
	return got, errs
}

// writeHPG writes g as a cache file in dir.
func writeHPG(t *testing.T, dir, name string, g *datasets.Graph) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, name+".hpg")
	if err := datasets.WriteCacheFile(path, g); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Size()
}

// Processes that each read only their parts' rows of an undirected .hpg
// (weights in the file) answer as a whole-graph run on the whole file
// does, every process, while each reads less than the file and all of
// them together hold every arc once.
func TestAppsOverHeldRows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per app and graph")
	}
	dir := t.TempDir()
	graphs := vptest.Graphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})
	for _, tg := range graphs {
		if tg.G.Directed {
			continue
		}
		path, size := writeHPG(t, dir, tg.Name, tg.G)
		whole, err := datasets.ReadCacheFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, app := range partsApps {
			if !slices.Contains([]string{"bfs", "sssp", "pagerank", "pagerank-ldbc", "cc", "cdlp"}, app.name) {
				continue // (TestHeldRowsRefuse)
			}
			t.Run(tg.Name+"/"+app.name, func(t *testing.T) {
				want, err := app.run(vertexprog.NewGraph(whole), vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				const world = 3
				var mu sync.Mutex
				var arcs int64
				got, errs := overRows(t, path, world, 2, func(g *vertexprog.Graph, r *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
					if r.Bytes >= size {
						return nil, fmt.Errorf("read %d bytes of the file's %d for rows [%d, %d)", r.Bytes, size, r.Lo, r.Hi)
					}
					if g.Edges() != whole.Edges() {
						return nil, fmt.Errorf("%d edges, the whole graph %d", g.Edges(), whole.Edges())
					}
					mu.Lock()
					arcs += r.Graph.NNZ()
					mu.Unlock()
					return app.run(g, vertexprog.Options{Backend: "cpu", Comm: c, Parts: 2})
				})
				for r := range world {
					if errs[r] != nil {
						t.Fatalf("process %d: %v", r, errs[r])
					}
					if i := firstDiff(got[r], want); i >= 0 {
						t.Fatalf("process %d: output %d is %v, the whole-graph run's %v", r, i, got[r][i], want[i])
					}
				}
				if arcs != whole.NNZ() {
					t.Fatalf("the processes held %d arcs in all, the graph has %d", arcs, whole.NNZ())
				}
			})
		}
	}
}

// What would read rows a process does not hold refuses on every process,
// saying so: programs built on the whole adjacency (tc, lcc), a
// whole-graph run, a directed graph; and
// a corrupt byte that only the file's checksum sees fails every process.
func TestHeldRowsRefuse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per case")
	}
	dir := t.TempDir()
	gs := vptest.Graphs(t, datasets.Options{})
	path, _ := writeHPG(t, dir, "kron", gs[0].G)
	refusals := map[string]answer{
		"bfs whole": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			opt.Comm = nil
			_, err := bfs.Run(g, 3, opt)
			return nil, err
		},
		"cc whole": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			opt.Comm = nil
			_, err := cc.Run(g, opt)
			return nil, err
		},
	}
	for _, app := range partsApps {
		if app.name == "tc" || app.name == "lcc" {
			refusals[app.name] = app.run
		}
	}
	for name, run := range refusals {
		t.Run(name, func(t *testing.T) {
			_, errs := overRows(t, path, 2, 2, func(g *vertexprog.Graph, _ *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
				return run(g, vertexprog.Options{Backend: "cpu", Comm: c, Parts: 2})
			})
			for r, err := range errs {
				if !errors.Is(err, vertexprog.ErrRowsNotHeld) {
					t.Fatalf("process %d: %v, want a refusal (ErrRowsNotHeld)", r, err)
				}
			}
		})
	}
	if len(refusals) != 4 {
		t.Fatalf("%d refusals tested, want 4 (tc and lcc among the apps)", len(refusals))
	}
	t.Run("directed", func(t *testing.T) {
		path, _ := writeHPG(t, dir, "directed", gs[3].G)
		_, errs := overRows(t, path, 2, 1, func(*vertexprog.Graph, *datasets.Rows, vertexprog.Comm) ([]float64, error) {
			t.Error("a directed graph's rows were wrapped")
			return nil, nil
		})
		for r, err := range errs {
			if !errors.Is(err, vertexprog.ErrRowsNotHeld) {
				t.Fatalf("process %d: %v, want a refusal (ErrRowsNotHeld)", r, err)
			}
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A bit of the stats, which every process reads and nothing
		// but the checksum checks.
		data[48+(len(gs[0].G.Name)+7)/8*8] ^= 1
		bad := filepath.Join(dir, "bad.hpg")
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs := overRows(t, bad, 2, 1, func(*vertexprog.Graph, *datasets.Rows, vertexprog.Comm) ([]float64, error) {
			t.Error("a corrupt file's rows were wrapped")
			return nil, nil
		})
		for r, err := range errs {
			if !errors.Is(err, datasets.ErrBadCache) {
				t.Fatalf("process %d: %v, want the checksum's error", r, err)
			}
		}
	})
}

// The rows each process holds set its parts: processes whose rows are
// not at RowsOf's bounds (rank 0 holds a word more, rank 1 a word less)
// split their own rows into their parts, and answer as a whole-graph run.
func TestHeldRowsSetTheParts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per case")
	}
	tg := vptest.Graphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})[0]
	path, _ := writeHPG(t, t.TempDir(), "kron", tg.G)
	for _, app := range partsApps {
		if !slices.Contains([]string{"bfs", "sssp", "pagerank", "cc", "cdlp"}, app.name) {
			continue
		}
		want, err := app.run(vertexprog.NewGraph(tg.G), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{1, 3} {
			got, errs := overRows(t, path, 2, -1, func(g *vertexprog.Graph, _ *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
				return app.run(g, vertexprog.Options{Backend: "cpu", Comm: c, Parts: parts})
			})
			for r := range 2 {
				if errs[r] != nil {
					t.Fatalf("%s, %d parts a process: process %d: %v", app.name, parts, r, errs[r])
				}
				if i := firstDiff(got[r], want); i >= 0 {
					t.Fatalf("%s, %d parts a process: process %d: output %d is %v, the whole-graph run's %v", app.name, parts, r, i, got[r][i], want[i])
				}
			}
		}
	}
}

// Processes that each make only their rows of a generated graph
// (datasets.BuildStreamRows, split by the stream's counts) and gather
// them (vertexprog.GatherRows) answer as a whole-graph run on the graph
// made whole, and their gathered offsets and stats are the whole graph's.
func TestAppsOverMadeRows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per app")
	}
	opt := datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}
	es, err := gen.KroneckerStream(14, 16, gen.GAPSeed) // (rows enough a process for its loops on every core)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := datasets.BuildStream(es, opt)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := datasets.StreamCounts(es, opt)
	if err != nil {
		t.Fatal(err)
	}
	const world = 3
	split, err := vertexprog.SplitRows(raw, world)
	if err != nil {
		t.Fatal(err)
	}
	for _, app := range partsApps {
		if !slices.Contains([]string{"bfs", "sssp", "pagerank-ldbc", "cc", "cdlp"}, app.name) {
			continue
		}
		want, err := app.run(vertexprog.NewGraph(whole), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		got, errs := overHeldRows(t, world, func(rank int, c vertexprog.Comm) (*datasets.Rows, error) {
			lo, hi := split.Range(rank)
			part, err := datasets.BuildStreamRows(es, opt, nil, int(lo), int(hi))
			if err != nil {
				return nil, err
			}
			rows, err := vertexprog.GatherRows(part, lo, hi, c)
			if err == nil && (!slices.Equal(rows.RowPtr, whole.RowPtr) || rows.Graph.Stats != whole.Stats) {
				err = fmt.Errorf("gathered offsets or stats (%+v) differ from the whole graph's (%+v)", rows.Graph.Stats, whole.Stats)
			}
			return rows, err
		}, func(g *vertexprog.Graph, _ *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
			if g.Edges() != whole.Edges() {
				return nil, fmt.Errorf("%d edges, the whole graph %d", g.Edges(), whole.Edges())
			}
			return app.run(g, vertexprog.Options{Backend: "cpu", Comm: c, Parts: world})
		})
		for r := range world {
			if errs[r] != nil {
				t.Fatalf("%s: process %d: %v", app.name, r, errs[r])
			}
			if i := firstDiff(got[r], want); i >= 0 {
				t.Fatalf("%s: process %d: output %d is %v, the whole-graph run's %v", app.name, r, i, got[r][i], want[i])
			}
		}
	}
}
