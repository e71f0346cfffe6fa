package main

// The time to answer: what a user who types `hpgraph run bfs g.hpg` waits
// for, from the process's start to the result, and what it is made of.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// processStart is when the process started, as near as Go lets a program
// see it: package main's variables are initialised before main runs, and
// this one comes early among them. It misses what happens before: the
// exec and the dynamic loader (libcuda in a GPU build), the Go runtime's
// start and the initialisation of every imported package — a few
// milliseconds on a CPU build. /proc/self/stat's starttime would include
// them but counts in clock ticks (10 ms), too coarse for this; `bench
// --answer` measures the whole of it from outside (spawn to exit).
var processStart = time.Now()

// fileBytes is the size of the input file (0 when it cannot be read).
func fileBytes(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// deviceSetup opens the device backend in a goroutine while the graph
// loads (vertexprog.Warm); join waits for it.
type deviceSetup struct {
	started bool
	done    chan struct{}
	took    time.Duration // Warm's own time
	err     error
	// skipped says why no device was set up: "--backend cpu", or, once
	// done, why auto has no device here (no driver, no GPU, ...).
	skipped string
	lazy    bool // (the race opens the device, where it must)
}

// startDeviceSetup starts opening the backend when it may be a device
// (--backend cuda, or auto where a device backend's probe finds what it
// needs: vertexprog.DeviceMayRun) and the answer's race will not open it
// itself (lazy: vertexprog.OpenLazily); otherwise it does nothing and
// says why. Where auto's device may open, whether it did is known when
// the set-up ends, not before: the load, and a race's CPU run, start
// while a GPU opens (asking first would wait for its driver and context).
func startDeviceSetup(backend string, lazy bool) *deviceSetup {
	s := &deviceSetup{done: make(chan struct{})}
	switch {
	case backend != "auto" && backend != "cuda":
		s.skipped = "--backend " + backend
	case backend == "auto" && !vertexprog.DeviceMayRun():
		// (no device backend can open: asking them why takes no time)
		s.skipped = "--backend auto: " + noDevice(backend)
	case lazy:
		s.skipped, s.lazy = "--backend auto: the race opens the device only where the CPU has not answered first", true
	}
	if s.skipped != "" {
		close(s.done)
		return s
	}
	s.started = true
	go func() {
		t0 := time.Now()
		s.err = vertexprog.Warm(backend)
		s.took = time.Since(t0)
		if why := noDevice(backend); why != "" { // (opened, or failed, by now)
			s.skipped = "--backend auto: " + why
		}
		close(s.done)
	}()
	return s
}

// noDevice says why backend auto has no device to run on here (the GPU
// backend's reason: no driver, no GPU, ...), or "" where it has one or
// the backend is another.
func noDevice(backend string) string {
	if backend != "auto" || !onCPU(backend) {
		return ""
	}
	if why := gpuUnavailable(); why != nil {
		return "the GPU is not used: " + why.Error()
	}
	return "no device backend is available"
}

// finished reports whether the set-up is over (or never started).
func (s *deviceSetup) finished() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// join waits for the set-up and returns how long it waited: the part of
// the set-up that loading did not hide.
func (s *deviceSetup) join() time.Duration {
	select {
	case <-s.done:
		return 0
	default:
	}
	t0 := time.Now()
	<-s.done
	return time.Since(t0)
}

// answerApp runs the one answer of a run (no batch, one run) as
// vertexprog.PlanAnswer says: raced between the CPU and a device where
// --backend auto may go either way (the CPU at once, the device once it
// has opened; the first answer wins), else on opt's backend. why says
// which backend answered and why; raced that a race answered, whose other
// side the process need not wait for (a device still opening stops with
// the process).
func answerApp(alg *apps.App, g *vertexprog.Graph, q params, opt vertexprog.Options) (o *outcome, why string, raced bool, err error) {
	plan := vertexprog.PlanAnswer(alg.Program, g, opt)
	if !plan.Race {
		o, err = runApp(alg, g, q, opt)
		if err != nil || plan.Backend != "auto" || o.run.Backend == "cpu" {
			plan.Why = "" // (the backend asked for, or the CPU for want of a device)
		}
		return o, plan.Why, false, err
	}
	o, rep, err := vertexprog.Race(opt, func(o vertexprog.Options) (*outcome, error) { return runApp(alg, g, q, o) })
	return o, rep.Why, true, err
}

// sourceSpec is run's --src: nothing (the highest-degree vertex), ids in
// the file's numbering (one, a comma list or @FILE), or gap:N.
type sourceSpec struct {
	text string
	ids  []int64 // the file's ids, in the order given
	gap  int     // gap:N: N sources drawn as GAP's SourcePicker does
	from string  // how the sources were chosen, for the output
}

// multi reports whether the spec asks for more than one query (gap:1 and
// @FILE with one line count as a batch: they say which source they mean
// only after loading, or in a file).
func (s sourceSpec) multi() bool {
	return s.gap > 0 || len(s.ids) > 1 || strings.HasPrefix(s.text, "@")
}

// parseSourceSpec reads --src: "" or -1 (the highest-degree vertex), an
// id, a comma list of ids, @FILE (one id per line, # comments), or gap:N.
func parseSourceSpec(text string) (sourceSpec, error) {
	s := sourceSpec{text: text}
	switch t := strings.TrimSpace(text); {
	case t == "" || t == "-1":
		s.text, s.from = "", "the highest-degree vertex (lowest id on ties)"
		return s, nil
	case strings.HasPrefix(t, "gap:"):
		n, err := strconv.Atoi(strings.TrimPrefix(t, "gap:"))
		if err != nil || n < 1 {
			return s, fmt.Errorf("--src %q: gap:N needs a positive count of sources, e.g. gap:64", text)
		}
		s.gap = n
		s.from = fmt.Sprintf("gap:%d, GAP's SourcePicker (std::mt19937_64 seeded %d, uniform over the file's numbering, out-degree 0 skipped)", n, gapSourceSeed)
		return s, nil
	case strings.HasPrefix(t, "@"):
		path := strings.TrimPrefix(t, "@")
		ids, err := readSourceFile(path)
		if err != nil {
			return s, err
		}
		s.ids = ids
		s.from = fmt.Sprintf("%d ids from %s", len(ids), path)
		return s, nil
	default:
		for _, f := range strings.Split(t, ",") {
			id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || id < 0 {
				return s, fmt.Errorf("--src %q: %q is not a vertex id; want an id, a comma list (1,17,42), @FILE (one id per line) or gap:N", text, f)
			}
			s.ids = append(s.ids, id)
		}
		s.from = "--src"
		return s, nil
	}
}

// readSourceFile reads one vertex id per line; blank lines and text after
// # are ignored.
func readSourceFile(path string) ([]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--src @%s: %w", path, err)
	}
	var ids []int64
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		t, _, _ := strings.Cut(sc.Text(), "#")
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		id, err := strconv.ParseInt(t, 10, 64)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a vertex id (want one non-negative id per line, # comments)", path, line, t)
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--src @%s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("--src @%s: no vertex ids in the file", path)
	}
	return ids, nil
}

// resolve maps the spec to vertices of the loaded graph; nil means the
// default source (resolved by the algorithm).
func (s sourceSpec) resolve(d *datasets.Graph) ([]int32, error) {
	switch {
	case s.gap > 0:
		return gapSources(d, s.gap)
	case len(s.ids) == 0:
		return nil, nil
	case len(s.ids) == 1:
		v, err := resolveSource(d, s.ids[0])
		return []int32{v}, err
	}
	// Many ids: one pass over the vertices instead of a search per id
	// (a relabelled graph's IDs are not sorted).
	if d.IDs == nil || slices.IsSorted(d.IDs) {
		out := make([]int32, len(s.ids))
		for i, id := range s.ids {
			v, err := resolveSource(d, id)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	want := make(map[int64]int32, len(s.ids))
	for _, id := range s.ids {
		want[id] = -1
	}
	for v, id := range d.IDs {
		if _, ok := want[id]; ok {
			want[id] = int32(v)
		}
	}
	out := make([]int32, len(s.ids))
	for i, id := range s.ids {
		if out[i] = want[id]; out[i] < 0 {
			_, err := resolveSource(d, id) // its message
			return nil, err
		}
	}
	return out, nil
}

// gapSourceSeed is GAP's kRandSeed, which its SourcePicker seeds with.
const gapSourceSeed = 27491095

// gapSources picks n sources as GAP's SourcePicker does (gapbs
// src/benchmark.h): std::mt19937_64 seeded with kRandSeed, each pick
// UniDist<NodeID>(num_nodes-1) (gen.SourceDraws), drawn again while the
// vertex has out-degree 0. Duplicates are kept, as GAP keeps them.
//
// The draw is on the file's numbering (datasets.Graph.FileOrder), so the
// sources are the same whatever --relabel does. GAP's num_nodes is the largest vertex
// number in any edge plus one; ours is the file's vertex count, which
// differs where the top-numbered vertices have no edges (a Kronecker
// graph's shuffle can put isolated vertices there), so num_nodes is taken
// as GAP computes it. With sparse ids that loading compacted, positions are
// ranks of the ids, not the ids themselves as GAP would use them.
func gapSources(d *datasets.Graph, n int) ([]int32, error) {
	order := d.FileOrder()
	vertex := func(k uint32) int32 {
		if order == nil {
			return int32(k)
		}
		return order[k]
	}
	var hasIn []bool
	if d.Directed {
		hasIn = make([]bool, d.N)
		for _, u := range d.Col {
			hasIn[u] = true
		}
	}
	nodes := 0 // GAP's num_nodes
	for k := d.N - 1; k >= 0; k-- {
		v := vertex(uint32(k))
		if d.Degree(v) > 0 || (hasIn != nil && hasIn[v]) {
			nodes = k + 1
			break
		}
	}
	if nodes == 0 {
		return nil, errors.New("--src gap:N: no vertex has an out-edge, so GAP's picker would never stop")
	}
	draws := gen.NewSourceDraws(gapSourceSeed, uint32(nodes))
	out := make([]int32, 0, n)
	for len(out) < n {
		k := draws.Next()
		if v := vertex(k); d.Degree(v) > 0 {
			out = append(out, v)
		}
	}
	return out, nil
}

// outPath is --out for source id: {src} replaced by the id.
func outPath(pattern string, id int64) string {
	return strings.ReplaceAll(pattern, "{src}", strconv.FormatInt(id, 10))
}
