//go:build cgo

package gen

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
)

// The GPU tests run the kernels on device 0 and compare with the host
// generator; they skip without a GPU (fail with HPGRAPH_REQUIRE_GPU).

var gpuDev *jit.Device

func needGPU(t *testing.T) *jit.Device {
	t.Helper()
	if gpuDev == nil {
		d, err := rt.Open(0)
		gputest.Need(t, err)
		gpuDev = jit.New(d)
	}
	return gpuDev
}

// onGPU runs f with the kernels loaded on the test device.
func onGPU(t *testing.T, f func(d *OnDevice) error) {
	t.Helper()
	jd := needGPU(t)
	if err := jd.Do("testing cuda/gen", func() error { return f(NewDevice(jd)) }); err != nil {
		t.Fatal(err)
	}
}

// TestGPUMatchesHost: the device makes the rows the host's generator and
// builder make, Kronecker and uniform, scales 10 to 16, for the whole
// graph and ranges of rows, sorted at once and in chunks, weighted or
// not, loops and duplicates kept or not.
func TestGPUMatchesHost(t *testing.T) {
	needGPU(t)
	cases := []Spec{
		{kron(10, 16), datasets.Options{}},
		{kron(12, 16), weighted},
		{kron(13, 8), keepAll},
		{kron(14, 16), datasets.Options{}},
		{kron(16, 16), datasets.Options{}},
		{kron(16, 16), weighted},
		{urand(10, 16), datasets.Options{}},
		{urand(13, 16), keepAll},
		{urand(16, 16), weighted},
	}
	for _, s := range cases {
		want := hostGraph(t, s)
		g := newGraph(t, s)
		n := g.N
		small := max(rawMaxDegree(t, s), g.M/3)
		for _, r := range []struct {
			lo, hi int
			chunk  int64
		}{{0, n, 0}, {0, n, small}, {0, n / 3, 0}, {n / 3, n, small}, {n / 2, n/2 + 1, 0}, {n - 1, n, 0}, {7, 7, 0}} {
			onGPU(t, func(d *OnDevice) error {
				p, err := g.Build(d, r.lo, r.hi, Options{MaxChunk: r.chunk})
				if err != nil {
					return err
				}
				defer p.Free(d)
				if diff := samePart(d, p, want); diff != "" {
					t.Errorf("%s, rows [%d, %d), chunks of %d: %s", g.Name, r.lo, r.hi, r.chunk, diff)
				}
				if r.lo == 0 && r.hi == n && p.Stats != want.Stats {
					t.Errorf("%s: stats %+v, want %+v", g.Name, p.Stats, want.Stats)
				}
				return nil
			})
		}
	}
}

// TestGPUFile: the .hpg written from the device is the host's file, byte
// for byte, and the graph copied to the host is BuildStream's.
func TestGPUFile(t *testing.T) {
	needGPU(t)
	for _, s := range []Spec{{kron(15, 16), weighted}, {urand(14, 16), datasets.Options{}}} {
		want := hostGraph(t, s)
		var file bytes.Buffer
		if err := datasets.WriteCache(&file, want); err != nil {
			t.Fatal(err)
		}
		g := newGraph(t, s)
		onGPU(t, func(d *OnDevice) error {
			p, err := g.Build(d, 0, g.N, Options{})
			if err != nil {
				return err
			}
			defer p.Free(d)
			var got bytes.Buffer
			if err := g.WriteCache(d, p, &got); err != nil {
				return err
			}
			if !bytes.Equal(got.Bytes(), file.Bytes()) {
				t.Errorf("%s: the device's .hpg differs from the host's", g.Name)
			}
			h, err := g.Host(d, p)
			if err != nil {
				return err
			}
			if samePart(d, p, h) != "" || h.Stats != want.Stats {
				t.Errorf("%s: the host's copy differs", g.Name)
			}
			return nil
		})
	}
}

// TestGPUSplit: Split's bounds balance the arcs the host's graph has
// (before merging: within the duplicates' share).
func TestGPUSplit(t *testing.T) {
	needGPU(t)
	s := Spec{kron(16, 16), keepAll}
	want := hostGraph(t, s)
	g := newGraph(t, s)
	onGPU(t, func(d *OnDevice) error {
		got, err := g.Split(d, 3)
		if err != nil {
			return err
		}
		// keepAll: the raw arcs are the graph's arcs.
		if exp := par.Split(g.N, 3, func(i int) int64 { return want.RowPtr[i] }); !slicesEqual(got, exp) {
			t.Errorf("bounds %v, want %v", got, exp)
		}
		return nil
	})
}

// TestGPURowsAndCounts: the device's counts are the host stream's, and a
// part copied to the host is datasets.BuildStreamRows's rows.
func TestGPURowsAndCounts(t *testing.T) {
	needGPU(t)
	s := Spec{kron(16, 16), weighted}
	g := newGraph(t, s)
	es := hostStream(t, s)
	want, err := datasets.StreamCounts(es, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	onGPU(t, func(d *OnDevice) error {
		got, err := g.Counts(d)
		if err != nil {
			return err
		}
		if firstDiff(got, want) >= 0 {
			t.Errorf("the device's counts differ from the host stream's at row %d", firstDiff(got, want))
		}
		// check: rows b made as o says, copied to the host, are the host
		// stream's renumbered by newID (nil: GAP's order).
		check := func(b [2]int, o Options, newID []int32) error {
			p, err := g.Build(d, b[0], b[1], o)
			if err != nil {
				return err
			}
			h, err := g.Host(d, p)
			p.Free(d)
			if err != nil {
				return err
			}
			want := hostRows(t, es, s.Options, newID, b)
			want.Name, h.IDs = g.Name, want.IDs
			if !reflect.DeepEqual(h, want) {
				t.Errorf("rows %v (renumbered %v): the device's differ from the host stream's", b, newID != nil)
			}
			return nil
		}
		for _, b := range [][2]int{{0, g.N / 3}, {g.N / 3, g.N}} {
			if err := check(b, Options{}, nil); err != nil {
				return err
			}
		}
		// Renumbered by the counts' degree order (gen.Options.IDs), the
		// weights GAP's ids' (Orig).
		newID := datasets.DegreeOrder(&datasets.Graph{N: g.N, RowPtr: got})
		datasets.InterleaveParts(newID, 2)
		ids, err := g.Shuffle(d)
		if err != nil {
			return err
		}
		orig := make([]int32, g.N)
		for i, v := range ids {
			ids[i] = newID[v]
		}
		for v, nv := range newID {
			orig[nv] = int32(v)
		}
		if err := check([2]int{g.N / 2, g.N}, Options{IDs: ids, Orig: orig}, newID); err != nil {
			return err
		}
		return nil
	})
}

func slicesEqual(a, b []int) bool { return firstDiff(a, b) < 0 }

// TestGPUTime times making GAP's graph of HPGRAPH_GEN_SCALE (Kronecker,
// and uniform with HPGRAPH_GEN_UNIFORM=1) on the device, to a CSR ready
// for a run (HPGRAPH_TRACE=1 for its phases); scripts/device-gen.sh runs
// it at scale 27.
func TestGPUTime(t *testing.T) {
	scale, err := strconv.Atoi(os.Getenv("HPGRAPH_GEN_SCALE"))
	if err != nil {
		t.Skip("set HPGRAPH_GEN_SCALE to time making a graph of that scale")
	}
	gg := kron(scale, 16)
	gg.Uniform = os.Getenv("HPGRAPH_GEN_UNIFORM") == "1"
	needGPU(t) // (the device's start is not the generator's)
	start := time.Now()
	g := newGraph(t, Spec{gg, datasets.Options{}})
	onGPU(t, func(d *OnDevice) error {
		loaded := time.Since(start)
		p, err := g.Build(d, 0, g.N, Options{})
		if err != nil {
			return err
		}
		built := time.Since(start)
		free := d.FreeMemory()
		p.Free(d)
		t.Logf("%s: %d arcs, %+v; kernels loaded at %v, CSR ready on the device at %v (%.1f M edges/s); %d bytes free with the CSR",
			g.Name, p.NNZ, p.Stats, loaded.Round(time.Millisecond), built.Round(time.Millisecond), float64(g.M)/built.Seconds()/1e6, free)
		return nil
	})
}

// TestGPUTimeParts times making GAP's Kronecker graph of
// HPGRAPH_GEN_SCALE in HPGRAPH_GEN_PARTS parts, one on each device (0, 1,
// ...), as a partitioned run would hold it: the bounds from a count pass
// on device 0 (Split), then every part built on its device at once;
// scripts/device-gen.sh's k29x2 runs it at scale 29 on two GPUs.
func TestGPUTimeParts(t *testing.T) {
	scale, err1 := strconv.Atoi(os.Getenv("HPGRAPH_GEN_SCALE"))
	parts, err2 := strconv.Atoi(os.Getenv("HPGRAPH_GEN_PARTS"))
	if err1 != nil || err2 != nil || parts < 1 {
		t.Skip("set HPGRAPH_GEN_SCALE and HPGRAPH_GEN_PARTS to time making a graph in parts, one a device")
	}
	count, err := rt.DeviceCount()
	gputest.Need(t, err)
	if count < parts {
		gputest.Need(t, fmt.Errorf("%d parts, %d devices", parts, count))
	}
	devs := make([]*jit.Device, parts)
	for i := range devs {
		d, err := rt.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		devs[i] = jit.New(d)
	}
	start := time.Now()
	g := newGraph(t, Spec{kron(scale, 16), datasets.Options{}})
	var bounds []int
	if err := devs[0].Do("splitting", func() error {
		var err error
		bounds, err = g.Split(NewDevice(devs[0]), parts)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	split := time.Since(start)
	var wg sync.WaitGroup
	errs := make([]error, parts)
	lines := make([]string, parts)
	for i, jd := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = jd.Do("building a part", func() error {
				d := NewDevice(jd)
				p, err := g.Build(d, bounds[i], bounds[i+1], Options{})
				if err != nil {
					return err
				}
				lines[i] = fmt.Sprintf("part %d, rows [%d, %d): %d arcs, %+v, ready at %v, %d bytes free",
					i, p.Lo, p.Hi, p.NNZ, p.Stats, time.Since(start).Round(time.Millisecond), d.FreeMemory())
				p.Free(d)
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		t.Log(lines[i])
	}
	t.Logf("%s in %d parts: split at %v (bounds %v), every part on its device at %v",
		g.Name, parts, split.Round(time.Millisecond), bounds, time.Since(start).Round(time.Millisecond))
}
