package cdlp_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func checkLabels(t *testing.T, what string, got, want []int64, ids func(v int32) int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d labels, want %d", what, len(got), len(want))
	}
	for v := range want {
		if got[v] != want[v] {
			t.Fatalf("%s: vertex %d: label %d, reference %d", what, ids(int32(v)), got[v], want[v])
		}
	}
}

// LDBC's example graphs give LDBC's expected CDLP outputs exactly, app
// and reference alike, with the example configuration's iterations.
func TestCDLPLDBCExamples(t *testing.T) {
	if _, ok := refdata.Dir(); !ok {
		t.Skip("shared datasets not found")
	}
	for _, name := range refdata.LDBCExamples {
		t.Run(name, func(t *testing.T) {
			el, err := refdata.LDBCExample(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refdata.LDBCOutputCDLP(name)
			if err != nil {
				t.Fatal(err)
			}
			prm, err := refdata.LDBCExampleParams(name)
			if err != nil {
				t.Fatal(err)
			}
			d := apptest.Build(t, el, datasets.Options{})
			if len(want) != d.N {
				t.Fatalf("expected output has %d vertices, graph %d", len(want), d.N)
			}
			ref := reference.CDLP(d, prm.CDLPIterations)
			g := vertexprog.NewGraph(d)
			for _, c := range apptest.PullConfigs() {
				r, err := cdlp.Run(g, prm.CDLPIterations, c.Options)
				if vptest.Unsupported(err, c) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for v := range int32(d.N) {
					id := d.OriginalID(v)
					w, ok := want[id]
					if !ok {
						t.Fatalf("vertex %d missing from the expected output", id)
					}
					if r.Label[v] != w || ref[v] != w {
						t.Fatalf("%s: vertex %d: app %d, reference %d, LDBC %d", c.Name, id, r.Label[v], ref[v], w)
					}
				}
			}
			// One iteration fewer or more is not LDBC's answer: the
			// example tells the iteration count apart.
			for _, n := range []int{prm.CDLPIterations - 1, prm.CDLPIterations + 1} {
				r, err := cdlp.Run(g, n, vertexprog.Options{})
				if err != nil {
					t.Fatal(err)
				}
				differs := false
				for v := range int32(d.N) {
					differs = differs || r.Label[v] != want[d.OriginalID(v)]
				}
				if !differs {
					t.Logf("%d iterations give LDBC's output too", n)
				}
			}
		})
	}
}

// On every generated shape, loaded plain, with self loops and duplicate
// arcs kept, symmetrized, and renumbered, the app's labels equal the
// reference's after 0 to 10 iterations, in every pull configuration (the
// GPU's too where there is one).
func TestCDLPMatchesReference(t *testing.T) {
	for _, o := range []struct {
		name string
		opt  datasets.Options
	}{
		{"simple", datasets.Options{}},
		{"loops+duplicates", datasets.Options{KeepSelfLoops: true, KeepDuplicates: true}},
		{"symmetrized", datasets.Options{Symmetrize: true}},
		{"relabelled", datasets.Options{Relabel: datasets.RelabelDegree}},
	} {
		for _, tg := range apptest.Shapes(t, o.opt) {
			t.Run(o.name+"/"+tg.Name, func(t *testing.T) {
				g := vertexprog.NewGraph(tg.G)
				for _, iters := range []int{0, 1, 3, 10} {
					want := reference.CDLP(tg.G, iters)
					for _, c := range apptest.PullConfigs() {
						r, err := cdlp.Run(g, iters, c.Options)
						if vptest.Unsupported(err, c) {
							continue
						}
						if err != nil {
							t.Fatalf("%s: %v", c.Name, err)
						}
						checkLabels(t, c.Name, r.Label, want, tg.G.OriginalID)
						if r.Run.Iterations > iters {
							t.Fatalf("%s: %d supersteps for %d iterations", c.Name, r.Run.Iterations, iters)
						}
					}
				}
				communities := map[int64]int{}
				largest := 0
				for _, l := range reference.CDLP(tg.G, 10) {
					communities[l]++
					largest = max(largest, communities[l])
				}
				// The app's summary counts them by their vertices.
				prm := cdlp.App.DefaultParams()
				prm.Iterations = 10
				res, err := cdlp.App.Run(g, apps.Request{Params: prm}, vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				if res.Fields["communities"] != len(communities) || res.Fields["largest"] != int32(largest) {
					t.Fatalf("summary %v, want %d communities, largest %d", res.Fields, len(communities), largest)
				}
				t.Logf("directed %v, %d vertices, %d labels after 10 iterations", tg.G.Directed, tg.G.N, len(communities))
			})
		}
	}
}

// Every shipped graph, as loaded, directed or not: the app's labels after
// LDBC's usual 10 iterations are the reference's.
func TestCDLPShippedGraphs(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	var files []string
	for _, sub := range []string{"tiny", "small"} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			files = append(files, filepath.Join(dir, sub, e.Name()))
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := datasets.Load(f, datasets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := cdlp.Run(vertexprog.NewGraph(d), 10, vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkLabels(t, "cdlp", r.Label, reference.CDLP(d, 10), d.OriginalID)
		})
	}
	t.Logf("%d shipped graphs", len(files))
}

// Hand-checked cases. Ids are sparse and out of order, so a tie going to
// the smallest index, or labels being indices, would show.
func TestCDLPClosedForms(t *testing.T) {
	ids := []int64{900, 40, 70, 10, 500, 60}
	cases := []struct {
		name     string
		directed bool
		src, dst []int32
		iters    int
		want     []int64 // by vertex
	}{
		// Vertex 0 (id 900) is joined both ways to 4 (id 500) and one way
		// to 1 (40) and 2 (70): on a directed graph 500 counts twice and
		// wins; undirected, all tie once and 40 wins. 3 (id 10) has no
		// neighbour and keeps its id; 5 (60) has only the in-arc from 2;
		// 2 (70) has 0 (900) in and 5 (60) out, a tie that 60 wins.
		{"both-ways-counts-twice", true, []int32{0, 4, 0, 0, 2}, []int32{4, 0, 1, 2, 5}, 1,
			[]int64{500, 900, 60, 10, 900, 70}},
		{"undirected-counts-once", false, []int32{0, 0, 0, 2}, []int32{4, 1, 2, 5}, 1,
			[]int64{40, 900, 60, 10, 900, 70}},
		// A star on 0 with leaves 1, 2, 4, 5: the hub takes its smallest
		// leaf's id (40), the leaves the hub's (900); then they swap.
		{"star-1", false, []int32{0, 0, 0, 0}, []int32{1, 2, 4, 5}, 1, []int64{40, 900, 900, 10, 900, 900}},
		{"star-2", false, []int32{0, 0, 0, 0}, []int32{1, 2, 4, 5}, 2, []int64{900, 40, 40, 10, 40, 40}},
		{"no-iterations", false, []int32{0, 0}, []int32{1, 2}, 0, ids},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			el := &datasets.EdgeList{N: len(ids), Src: c.src, Dst: c.dst, Directed: c.directed, IDs: ids}
			d := apptest.Build(t, el, datasets.Options{})
			checkLabels(t, "reference", reference.CDLP(d, c.iters), c.want, d.OriginalID)
			g := vertexprog.NewGraph(d)
			for _, cf := range apptest.PullConfigs() {
				r, err := cdlp.Run(g, c.iters, cf.Options)
				if vptest.Unsupported(err, cf) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", cf.Name, err)
				}
				checkLabels(t, cf.Name, r.Label, c.want, d.OriginalID)
			}
		})
	}
}

// A negative iteration count and a nil graph are errors; a device
// backend that does not gather multisets refuses CDLP (a multiset
// program) with ErrCPUOnly; one that does (driver.MultisetBackend)
// gets CDLP's device code, by name and on auto; without one auto runs it
// on the CPU.
func TestCDLPBadInputAndDevice(t *testing.T) {
	d := apptest.Build(t, &datasets.EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}, Directed: true}, datasets.Options{})
	g := vertexprog.NewGraph(d)
	if _, err := cdlp.Run(g, -1, vertexprog.Options{}); !errors.Is(err, apps.ErrInvalidInput) || !strings.Contains(err.Error(), "iterations: -1") {
		t.Errorf("CDLP with -1 iterations: %v", err)
	}
	if _, err := cdlp.Run(nil, 2, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("CDLP(nil): %v, want ErrNilGraph", err)
	}
	var on atomic.Bool
	driver.Register(cdlpDevice{&on})
	on.Store(true)
	defer on.Store(false)
	_, err := cdlp.Run(g, 2, vertexprog.Options{Backend: "cdlp-test-device"})
	if !errors.Is(err, vertexprog.ErrNoBackend) || !errors.Is(err, vertexprog.ErrCPUOnly) || !strings.Contains(err.Error(), "multiset") {
		t.Fatalf("CDLP on a device: %v, want ErrNoBackend and ErrCPUOnly", err)
	}
	t.Log(err)
	ms := &cdlpMultisetDevice{cdlpDevice{new(atomic.Bool)}, nil}
	driver.Register(ms)
	ms.on.Store(true)
	for _, name := range []string{"cdlp-test-multiset", "auto"} {
		ms.job = nil
		_, err = cdlp.Run(g, 2, vertexprog.Options{Backend: name})
		if err == nil || !strings.Contains(err.Error(), "runs nothing") || ms.job == nil {
			t.Fatalf("CDLP on a multiset device (%s): %v, job %v", name, err, ms.job)
		}
		j := ms.job
		if !strings.Contains(j.Code.Source, "vp_element") || j.XSize != 8 || j.ASize != 16 || j.Push != nil || j.Pull == nil ||
			j.Active.Count() != d.N || len(j.Code.Scalars) != 1 || j.Code.Scalars[0].Value != int64(0) {
			t.Fatalf("CDLP's multiset job: %+v", j)
		}
	}
	ms.on.Store(false)
	want := "cpu" // (or the GPU where this test binary has one: apps' tests import the cuda backend)
	if slices.Contains(vertexprog.Backends(), "cuda") {
		want = "cuda"
	}
	r, err := cdlp.Run(g, 2, vertexprog.Options{})
	if err != nil || r.Run.Backend != want {
		t.Fatalf("CDLP on auto: %v on %v, want %s", err, r, want)
	}
	if _, err := cdlp.Run(g, 2, vertexprog.Options{Direction: vertexprog.Push}); !errors.Is(err, vertexprog.ErrPushUnsupported) {
		t.Errorf("CDLP with push forced: %v, want ErrPushUnsupported", err)
	}
}

// cdlpDevice is a device backend that runs nothing, available only while
// enabled.
type cdlpDevice struct{ on *atomic.Bool }

func (f cdlpDevice) Name() string { return "cdlp-test-device" }
func (f cdlpDevice) Available() error {
	if !f.on.Load() {
		return errors.New("test device off")
	}
	return nil
}
func (f cdlpDevice) Start(*driver.DeviceJob) (driver.DeviceRun, error) {
	return nil, errors.New("the test device runs nothing")
}

// cdlpMultisetDevice is a device backend that gathers multisets and runs
// nothing either: it keeps the job it was given.
type cdlpMultisetDevice struct {
	cdlpDevice
	job *driver.DeviceJob
}

func (f *cdlpMultisetDevice) Name() string { return "cdlp-test-multiset" }
func (f *cdlpMultisetDevice) StartMultiset(job *driver.DeviceJob) (driver.DeviceRun, error) {
	f.job = job
	return nil, errors.New("the test device runs nothing")
}
