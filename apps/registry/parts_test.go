package registry_test

import (
	"math"
	"net"
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

// answer is an app's answer on g as numbers.
type answer func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error)

func f64(s []int32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// partsApps are every app's answers, run whole or in parts.
var partsApps = []struct {
	name string
	run  answer
}{
	{"bfs", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := bfs.Run(g, 3, opt)
		if err != nil {
			return nil, err
		}
		return append(f64(r.Depth), f64(r.Parent)...), nil
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
	{"pagerank-ldbc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := pagerank.LDBC(g, 0.85, 12, opt)
		if err != nil {
			return nil, err
		}
		return r.Rank, nil
	}},
	{"pagerank", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := pagerank.Run(g, 0.85, 1e-7, 0, opt)
		if err != nil {
			return nil, err
		}
		return r.Rank, nil
	}},
	{"cc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := cc.Run(g, opt)
		if err != nil {
			return nil, err
		}
		return f64(r.Label), nil
	}},
	{"tc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := tc.Run(g, true, opt)
		if err != nil {
			return nil, err
		}
		out := []float64{float64(r.Total)}
		for _, c := range r.PerVertex {
			out = append(out, float64(c))
		}
		return out, nil
	}},
	{"lcc", func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, error) {
		r, err := lcc.Run(g, opt)
		if err != nil {
			return nil, err
		}
		return r.LCC, nil
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
}

// A run over several processes (here goroutines, each with its own
// graph, joined over loopback TCP as processes on several hosts are)
// answers as the whole-graph run does, on every process.
func TestAppsOverSeveralProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rendezvous per app and graph")
	}
	const world = 3
	graphs := vptest.Graphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})
	for _, tg := range graphs[:4] {
		for _, app := range partsApps {
			t.Run(tg.Name+"/"+app.name, func(t *testing.T) {
				want, err := app.run(vertexprog.NewGraph(tg.G), vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				addr := freeLoopback(t)
				got, errs := make([][]float64, world), make([]error, world)
				var wg sync.WaitGroup
				for r := range world {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c, err := cluster.Join(cluster.Config{World: world, Rank: r, Coordinator: addr, Timeout: 20 * time.Second, Key: t.Name()})
						if err != nil {
							errs[r] = err
							return
						}
						defer c.Close()
						// Two parts a process: six in all.
						got[r], errs[r] = app.run(vertexprog.NewGraph(tg.G), vertexprog.Options{Backend: "cpu", Comm: c, Parts: 2})
					}()
				}
				wg.Wait()
				for r := range world {
					if errs[r] != nil {
						t.Fatalf("process %d: %v", r, errs[r])
					}
					if i := firstDiff(got[r], want); i >= 0 {
						t.Fatalf("process %d: output %d is %v, the whole-graph run's %v", r, i, got[r][i], want[i])
					}
				}
			})
		}
	}
}

// firstDiff is the first index where a and b differ beyond 1e-9 relative
// (float sums combine in another order across parts), or -1.
func firstDiff(a, b []float64) int {
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

func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
