package vertexprog_test

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/cluster"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// rowsAnswer is an app's answer as numbers.
type rowsAnswer func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error)

func i32s(s []int32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

var rowsApps = []struct {
	name string
	run  rowsAnswer
}{
	{"bfs", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := bfs.Run(g, 3, opt)
		if err != nil {
			return nil, err
		}
		return append(i32s(r.Depth), i32s(r.Parent)...), nil
	}},
	{"sssp", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := sssp.Run(g, 3, opt)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(r.Dist))
		for i, d := range r.Dist {
			out[i] = float64(d)
		}
		return out, nil
	}},
	{"pagerank", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := pagerank.Run(g, 0.85, 1e-7, 0, opt)
		if err != nil {
			return nil, err
		}
		return r.Rank, nil
	}},
	{"pagerank-ldbc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := pagerank.LDBC(g, 0.85, 12, opt)
		if err != nil {
			return nil, err
		}
		return r.Rank, nil
	}},
	{"cdlp", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := cdlp.Run(g, 5, opt)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(r.Label))
		for i, l := range r.Label {
			out[i] = float64(l)
		}
		return out, nil
	}},
	{"cc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := cc.Run(g, opt)
		if err != nil {
			return nil, err
		}
		return i32s(r.Label), nil
	}},
}

// overRows runs fn on world goroutines joined over loopback as the
// processes of a run are, each holding only its parts' rows of the .hpg
// at path (parts a process; -1: rank 0 holds a word more, rank 1 less, of
// one part each), and returns what each gave.
func overRows(t *testing.T, path string, world, parts int, fn func(g *vertexprog.Graph, r *datasets.Rows, c vertexprog.Comm) ([]float64, error)) ([][]float64, []error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	got, errs := make([][]float64, world), make([]error, world)
	var wg sync.WaitGroup
	for rank := range world {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := cluster.Join(cluster.Config{World: world, Rank: rank, Coordinator: addr, Timeout: 20 * time.Second, Key: t.Name()})
			if err != nil {
				errs[rank] = err
				return
			}
			defer c.Close()
			rows, err := datasets.ReadCacheRows(path, func(rowPtr []int64) (int32, int32, error) {
				if parts < 0 {
					lo, hi, err := vertexprog.RowsOf(rowPtr, 1, world, rank)
					return max(lo, lo+32*int32(rank)), hi + 32*int32(1-rank), err
				}
				return vertexprog.RowsOf(rowPtr, parts, world, rank)
			})
			if err != nil {
				errs[rank] = err
				return
			}
			g, err := vertexprog.NewGraphRows(rows, c)
			if err != nil {
				errs[rank] = err
				return
			}
			got[rank], errs[rank] = fn(g, rows, c)
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
// does, every process, while each reads less than the file.
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
		for _, app := range rowsApps {
			t.Run(tg.Name+"/"+app.name, func(t *testing.T) {
				want, err := app.run(vertexprog.NewGraph(whole), vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				const world = 3
				var mu sync.Mutex
				var arcs int64
				got, errs := overRows(t, path, world, 2, func(g *vertexprog.Graph, r *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
					if r.Bytes >= size && r.Hi-r.Lo < int32(whole.N) {
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
					if i := diffAt(got[r], want); i >= 0 {
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

// diffAt is the first index where a and b differ beyond 1e-9 relative
// (float sums combine in another order across parts), or -1.
func diffAt(a, b []float64) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] == b[i] || math.IsNaN(a[i]) && math.IsNaN(b[i]) {
			continue
		}
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(math.Abs(a[i]), math.Abs(b[i])) {
			return i
		}
	}
	return -1
}

// What would read rows a process does not hold refuses on every process,
// saying so: programs built on the whole adjacency (TC, LCC), a
// whole-graph run, parts other than the rows read, a directed graph.
func TestHeldRowsRefuse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per case")
	}
	dir := t.TempDir()
	gs := vptest.Graphs(t, datasets.Options{})
	path, _ := writeHPG(t, dir, "kron", gs[0].G)
	refusals := map[string]rowsAnswer{
		"tc": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			_, err := tc.Run(g, true, opt)
			return nil, err
		},
		"lcc": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			_, err := lcc.Run(g, opt)
			return nil, err
		},
		"bfs whole": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			opt.Comm = nil
			_, err := bfs.Run(g, 3, opt)
			return nil, err
		},
		"bfs in other parts": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			opt.Parts = 1 // (rank 0 read a word of rows more than its part's, rank 1 less)
			_, err := bfs.Run(g, 3, opt)
			return nil, err
		},
		"cc whole": func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
			opt.Comm = nil
			_, err := cc.Run(g, opt)
			return nil, err
		},
	}
	for name, run := range refusals {
		t.Run(name, func(t *testing.T) {
			parts := 2
			if name == "bfs in other parts" {
				parts = -1
			}
			_, errs := overRows(t, path, 2, parts, func(g *vertexprog.Graph, _ *datasets.Rows, c vertexprog.Comm) ([]float64, error) {
				return run(g, vertexprog.Options{Backend: "cpu", Comm: c, Parts: 2})
			})
			for r, err := range errs {
				if !errors.Is(err, vertexprog.ErrRowsNotHeld) {
					t.Fatalf("process %d: %v, want a refusal (ErrRowsNotHeld)", r, err)
				}
			}
		})
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
