package lcc_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// lccClose: the app divides an arc count by d(d-1), the reference an edge
// count by d(d-1)/2 on undirected graphs; the quotients may differ in the
// last bit.
func lccClose(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12 }

func checkLCC(t *testing.T, what string, got, want []float64, ids func(v int32) int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for v := range want {
		if !lccClose(got[v], want[v]) || got[v] < 0 || got[v] > 1 {
			t.Fatalf("%s: vertex %d: lcc %v, reference %v", what, ids(int32(v)), got[v], want[v])
		}
	}
}

func TestLCCMatchesReference(t *testing.T) {
	for _, o := range []struct {
		name string
		opt  datasets.Options
	}{{"simple", datasets.Options{}}, {"loops", datasets.Options{KeepSelfLoops: true}}, {"symmetrized", datasets.Options{Symmetrize: true}}} {
		for _, tg := range apptest.Shapes(t, o.opt) {
			t.Run(o.name+"/"+tg.Name, func(t *testing.T) {
				want := reference.LCC(tg.G)
				positive := 0
				for _, x := range want {
					if x > 0 {
						positive++
					}
				}
				t.Logf("directed %v, %d vertices, %d with lcc > 0", tg.G.Directed, tg.G.N, positive)
				g := vertexprog.NewGraph(tg.G)
				for _, c := range apptest.PullConfigs() {
					r, err := lcc.Run(g, c.Options)
					if vptest.Unsupported(err, c) {
						continue
					}
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					checkLCC(t, c.Name, r.LCC, want, tg.G.OriginalID)
				}
			})
		}
	}
}

// Duplicate arcs kept on a directed graph change nothing (each pair counts
// once); an undirected graph that keeps duplicate edges lists them as
// neighbours, which LCC refuses rather than count twice.
func TestLCCDuplicates(t *testing.T) {
	el := &datasets.EdgeList{N: 4, Src: []int32{0, 0, 1, 1, 2, 0, 3}, Dst: []int32{1, 1, 2, 2, 0, 2, 3}, Directed: true}
	for _, directed := range []bool{true, false} {
		el.Directed = directed
		d := apptest.Build(t, el, datasets.Options{KeepDuplicates: true, KeepSelfLoops: true})
		g := vertexprog.NewGraph(d)
		for _, c := range apptest.PullConfigs() {
			r, err := lcc.Run(g, c.Options)
			if vptest.Unsupported(err, c) {
				continue
			}
			if !directed {
				if !errors.Is(err, apps.ErrInvalidInput) {
					t.Errorf("%s: undirected with duplicates: %v, want ErrInvalidInput", c.Name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			checkLCC(t, c.Name+": directed duplicates", r.LCC, reference.LCC(d), d.OriginalID)
			// 0: N = {1, 2}, arcs 1->2 and 2->0 (not in N): 1/2.
			if r.LCC[0] != 0.5 {
				t.Errorf("%s: vertex 0: lcc %v, want 0.5", c.Name, r.LCC[0])
			}
		}
	}
}

// lccHubGraph is a graph of n vertices on which LCC's heavy paths run:
// five hubs that 15% to 7% of the vertices point to (rows of thousands of
// entries, cut into chunks on a device, and many triangles closed at the
// hubs, whose credits a device spreads over copies), random arcs among
// the others, one in twenty reciprocated, one in twenty repeated and one
// in twenty with a self loop, and isolated vertices at the end. Take n of
// 8·lccHubs (32768) or more, for the most hub ranks.
func lccHubGraph(n int, directed bool, seed uint64) *datasets.EdgeList {
	rng := rand.New(rand.NewPCG(seed, 11))
	el := &datasets.EdgeList{N: n, Directed: directed, Name: "lcc-hubs"}
	arc := func(u, v int) { el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v)) }
	const hubs = 5
	live := n - 100 // (the last 100 vertices stay isolated)
	var nb [hubs][]int
	for v := hubs; v < live; v++ {
		for h := range hubs {
			if rng.Float64() < 0.15-0.02*float64(h) {
				arc(v, h)
				nb[h] = append(nb[h], v)
			}
		}
	}
	for h := range hubs {
		// (triangles at the hub)
		for range 5000 {
			arc(nb[h][rng.IntN(len(nb[h]))], nb[h][rng.IntN(len(nb[h]))])
		}
	}
	for h := range hubs {
		for range 200 {
			arc(h, hubs+rng.IntN(live-hubs))
		}
		for k := range hubs {
			if k != h && rng.IntN(2) == 0 {
				arc(h, k)
			}
		}
		arc(h, h)
	}
	for range 3 * live {
		u, v := hubs+rng.IntN(live-hubs), hubs+rng.IntN(live-hubs)
		arc(u, v)
		switch rng.IntN(20) {
		case 0:
			arc(v, u)
		case 1:
			arc(u, v)
		case 2:
			arc(u, u)
		}
	}
	return el
}

// On graphs with hubs whose rows are long and which close most of the
// triangles, directed and undirected, with loops and (directed) parallel
// arcs kept, in the generator's order and numbered by degree (where a
// device sums a warp's hub credits first on an undirected graph), every
// backend matches the reference.
func TestLCCHubs(t *testing.T) {
	t.Logf("backends: %v", vertexprog.Backends())
	for _, c := range []struct {
		directed bool
		relabel  datasets.Relabeling
	}{{true, datasets.RelabelNone}, {false, datasets.RelabelNone}, {true, datasets.RelabelDegree}, {false, datasets.RelabelDegree}} {
		t.Run(fmt.Sprintf("directed=%v/relabel=%v", c.directed, c.relabel), func(t *testing.T) {
			el := lccHubGraph(40000, c.directed, 3)
			d := apptest.Build(t, el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: c.directed, Relabel: c.relabel})
			want := reference.LCC(d)
			positive := 0
			for _, x := range want {
				if x > 0 {
					positive++
				}
			}
			if positive < d.N/4 {
				t.Fatalf("only %d of %d vertices have lcc > 0: the graph does not test much", positive, d.N)
			}
			// Every backend and configuration gives the same bits (the
			// credits are integers), and they match the reference.
			got := vptest.Compare[struct{}, int64](t, vertexprog.NewGraph(d), func() *lcc.Program { return &lcc.Program{} },
				func(p *lcc.Program, _ *vertexprog.Result[struct{}]) []float64 { return p.LCC },
				func(a, b float64) bool { return a == b })
			checkLCC(t, "lcc", got, want, d.OriginalID)
		})
	}
}

// Closed forms: in K_n every vertex has lcc 1 (directed with both arcs of
// every pair, or undirected); in a tournament (one arc per pair) 1/2; in a
// star 0 everywhere (the hub's neighbours are not adjacent, the leaves have
// one neighbour); an isolated vertex or a single edge 0.
func TestLCCClosedForms(t *testing.T) {
	complete := func(n int, directed, both bool) *datasets.EdgeList {
		el := &datasets.EdgeList{N: n, Directed: directed}
		for u := range n {
			for v := range n {
				if u < v || (u > v && both) {
					el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v))
				}
			}
		}
		return el
	}
	star := func(n int, directed bool) *datasets.EdgeList {
		el := &datasets.EdgeList{N: n, Directed: directed}
		for v := 1; v < n; v++ {
			el.Src, el.Dst = append(el.Src, 0), append(el.Dst, int32(v))
		}
		return el
	}
	type lccCase struct {
		name string
		el   *datasets.EdgeList
		want func(v int) float64
	}
	cases := []lccCase{
		{"K2", complete(2, false, false), func(int) float64 { return 0 }},
		{"isolated+edge", &datasets.EdgeList{N: 3, Src: []int32{0}, Dst: []int32{1}}, func(int) float64 { return 0 }},
	}
	for n := 3; n <= 9; n++ {
		cases = append(cases,
			lccCase{fmt.Sprintf("K%d-undirected", n), complete(n, false, false), func(int) float64 { return 1 }},
			lccCase{fmt.Sprintf("K%d-directed", n), complete(n, true, true), func(int) float64 { return 1 }},
			lccCase{fmt.Sprintf("tournament%d", n), complete(n, true, false), func(int) float64 { return 0.5 }},
		)
	}
	for _, directed := range []bool{false, true} {
		cases = append(cases, lccCase{fmt.Sprintf("star-directed=%v", directed), star(300, directed), func(int) float64 { return 0 }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := apptest.Build(t, c.el, datasets.Options{})
			want := make([]float64, d.N)
			for v := range want {
				want[v] = c.want(v)
			}
			checkLCC(t, "reference", reference.LCC(d), want, d.OriginalID)
			g := vertexprog.NewGraph(d)
			for _, cf := range apptest.PullConfigs() {
				r, err := lcc.Run(g, cf.Options)
				if vptest.Unsupported(err, cf) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", cf.Name, err)
				}
				checkLCC(t, cf.Name, r.LCC, want, d.OriginalID)
			}
		})
	}
}

// LDBC's example graphs give LDBC's expected LCC outputs (the authority on
// the definition), app and reference alike, within 1e-6.
func TestLCCLDBCExamples(t *testing.T) {
	if _, ok := refdata.Dir(); !ok {
		t.Skip("shared datasets not found")
	}
	for _, name := range refdata.LDBCExamples {
		t.Run(name, func(t *testing.T) {
			el, err := refdata.LDBCExample(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refdata.LDBCOutputLCC(name)
			if err != nil {
				t.Fatal(err)
			}
			d := apptest.Build(t, el, datasets.Options{})
			r, err := lcc.Run(vertexprog.NewGraph(d), vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := reference.LCC(d)
			if len(want) != d.N {
				t.Fatalf("expected output has %d vertices, graph %d", len(want), d.N)
			}
			for v := range int32(d.N) {
				id := d.OriginalID(v)
				w, ok := want[id]
				if !ok {
					t.Fatalf("vertex %d missing from the expected output", id)
				}
				if math.Abs(r.LCC[v]-w) > 1e-6 || math.Abs(ref[v]-w) > 1e-6 {
					t.Errorf("vertex %d: app %v, reference %v, LDBC %v", id, r.LCC[v], ref[v], w)
				}
			}
		})
	}
}

// fakeDevice is a device backend, available only while enabled, that
// keeps the job it is given and runs nothing.
type fakeDevice struct {
	on  *atomic.Bool
	job **driver.DeviceJob
}

func (f fakeDevice) Name() string { return "lcc-test-device" }
func (f fakeDevice) Available() error {
	if !f.on.Load() {
		return errors.New("test device off")
	}
	return nil
}
func (f fakeDevice) Start(job *driver.DeviceJob) (driver.DeviceRun, error) {
	*f.job = job
	return nil, errors.New("the test device runs nothing")
}

// LCC has device code: a named device is handed the job (HeavyGather,
// the state of the prepared program), where it used to be refused.
func TestLCCGoesToDevices(t *testing.T) {
	var on atomic.Bool
	var job *driver.DeviceJob
	driver.Register(fakeDevice{&on, &job})
	on.Store(true)
	defer on.Store(false)
	d := apptest.Build(t, &datasets.EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}}, datasets.Options{})
	g := vertexprog.NewGraph(d)
	_, err := lcc.Run(g, vertexprog.Options{Backend: "lcc-test-device"})
	if err == nil || !strings.Contains(err.Error(), "the test device runs nothing") || job == nil {
		t.Fatalf("LCC on a device: %v (job %v), want the device's own error", err, job)
	}
	if !job.Code.HeavyGather || job.Graph != g || len(job.Code.Arrays) == 0 || !strings.Contains(job.Code.Source, "vp_gather") {
		t.Errorf("LCC's device job: HeavyGather %v, graph %p (want %p), %d arrays", job.Code.HeavyGather, job.Graph, g, len(job.Code.Arrays))
	}
	on.Store(false)
	r, err := lcc.Run(g, vertexprog.Options{})
	if err != nil || r.Run.Backend == "lcc-test-device" {
		t.Fatalf("LCC on auto: %v on %v", err, r)
	}
	if _, err := lcc.Run(nil, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("LCC(nil): %v, want ErrNilGraph", err)
	}
}
