//go:build cgo

package run

import (
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// CUDA graphs: supersteps captured once and replayed with one host
// submission.

// graphSteps is the supersteps per captured CUDA graph: a batch replays it
// while at least that many supersteps remain and launches the rest one by
// one. (A graph is captured and instantiated once per run and direction,
// ~0.1-0.3 ms, so short batches do better without one.)
const graphSteps = 16

// graph returns the CUDA graph k (capturing it on first use), or nil when
// graphs cannot be used.
func (r *progRun) graph(k graphKey) *rt.Graph {
	if r.noGraphs {
		return nil
	}
	if e, ok := r.graphs[k]; ok {
		return e
	}
	r.d.BeginCapture()
	err := rt.Catch("capturing a CUDA graph", func() error {
		if k.begin {
			r.clock.CaptureBegin(r.d.RT())
		}
		for j := 0; j < k.steps; j++ {
			r.enqueue(k.dir, j, j > 0 || !k.first)
		}
		r.setCtl(1, k.steps)
		if k.records {
			r.launchRecords(-k.steps, k.steps)
		}
		return nil
	})
	var e *rt.Graph
	err2 := rt.Catch("instantiating a CUDA graph", func() error { e = r.d.EndCapture(); return nil })
	if err != nil || err2 != nil {
		e.Destroy()
		r.noGraphs = true
		return nil
	}
	r.graphs[k] = e
	return e
}

// pullGraphs are the graphs of single pull supersteps (unbatched with and
// without the records' copy, batched), captured when the run starts: a
// superstep replayed from a graph costs the host one submission, ~2-7 µs,
// where its launches cost ~5-10 µs each
// (docs/perf/supersteps-and-graphs.md#where-the-hosts-time-goes), but
// capturing, instantiating and uploading one costs more than a superstep.
var pullGraphs = []graphKey{
	{driver.Pull, 1, true, true, false},
	{driver.Pull, 1, true, false, false},
	{driver.Pull, 1, false, false, false},
	{driver.Pull, 1, true, true, true},
	{driver.Pull, 1, true, false, true},
}

// warmGraphs launches each of pullGraphs once on superstep 2, which does
// not run (record 1, which it reads, activated nothing: only record
// recordRing-1 holds the initial frontier), then sets the device's base
// back to 0: a graph's first launch costs the host ~6 µs more than the
// next ones, cuGraphUpload or not
// (docs/perf/supersteps-and-graphs.md#a-graphs-first-launch). Inside Do,
// at Start.
func (r *progRun) warmGraphs() {
	for _, k := range pullGraphs {
		r.setCtl(0, 2)
		r.d.LaunchGraph(r.graphs[k])
	}
	r.setCtl(0, r.base)
	r.d.Sync()
}

// pullGraph reports whether superstep s0 in direction dir replays a
// graph captured at Start (pullGraphs) with nothing launched before it: a
// pull, and no vp_ctl first to move the device's base to s0.
func (r *progRun) pullGraph(dir driver.Direction, s0 int) bool {
	return dir == driver.Pull && r.hasPullGraphs() && r.base == s0
}

// hasPullGraphs reports whether the run replays graphs (Options.Graphs)
// and every graph of pullGraphs was captured (and no capture has failed
// since; a parked run's buffers may bring them to a run without graphs).
func (r *progRun) hasPullGraphs() bool {
	return r.opt.Graphs && !r.noGraphs && r.graphs[pullGraphs[0]] != nil
}
