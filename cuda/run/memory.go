//go:build cgo

package run

// The device memory a run needs, and making room for it.

import (
	"fmt"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// tilesFit reports whether the run, its pull matrix's tiles and their
// build fit in the device memory free now, once the parked runs and the
// graph's CSR copies are given back, as reserve gives them back first (a
// parked run's buffers cost an allocation to make again, a CSR copy an
// upload where a matrix not cached needs it). A BFS before it on kron27
// had left PageRank without tiles, 34.8 against 15.5 ms an iteration:
// the tiles needed 97.2 GiB, 84.5 were free beside the graph's 17 GiB CSR
// and the BFS's parked state (session 32). The cached matrices stay:
// tiles are an optimization, worth less than the matrices reserve would
// give back for them. Where the whole build does not fit, it is made in
// pieces (ts.Chunks: 2, 4, ... 16), each needing room for its own
// entries' temporaries only: kron28's part of 4.2 G arcs after a BFS
// (its push matrix cached) needed 92.5 GiB whole, with 83.0 free.
func (d *Device) tilesFit(job *driver.DeviceJob, layout *stateLayout, lim build.BinLimits, ts *build.TileSpec) bool {
	fit := false
	_ = d.Do("sizing the run's tiles", func() error {
		need := func() int64 {
			b := deviceBytes(job, layout, lim, &d.Cache) + d.Cache.Need(job.Pull.Matrix, true, job.Push == job.Pull, lim, *ts, pullRows(job))
			if job.Push != nil && job.Push != job.Pull {
				b += d.Cache.Need(job.Push.Matrix, false, true, lim, build.TileSpec{}, build.Window{}) - build.SharedCSR(job.Pull.Matrix, job.Push.Matrix)
			}
			return b
		}
		d.hooks.sizing = true
		defer func() { d.hooks.sizing = false }()
		ts.Chunks = 1
		b := need()
		free, _ := d.MemInfo()
		pt := phase.New("cuda", fmt.Sprintf("tiles: need %.1f GiB, free %.1f GiB", float64(b)/(1<<30), float64(free)/(1<<30)))
		defer pt.Print()
		if b > free && len(d.parked) > 0 {
			d.unpark(0)
			free, _ = d.MemInfo()
			pt.Mark(fmt.Sprintf("parked runs freed: free %.1f GiB", float64(free)/(1<<30)))
		}
		if b > free && d.CSRs() > 0 {
			d.DropCSRs(false, true)
			free, _ = d.MemInfo()
			pt.Mark(fmt.Sprintf("CSR copies freed: free %.1f GiB", float64(free)/(1<<30)))
		}
		for b+tileMargin > free && ts.Chunks < maxTileChunks {
			ts.Chunks *= 2
			b = need()
			pt.Mark(fmt.Sprintf("in %d pieces: need %.1f GiB", ts.Chunks, float64(b)/(1<<30)))
		}
		fit = b+tileMargin <= free
		return nil
	})
	return fit
}

// maxTileChunks is the most pieces tilesFit has the tiles built in.
const maxTileChunks = 16

// tileMargin is the device memory tilesFit leaves free beyond its
// estimate: kron27 in GAP's order after a BFS was estimated at 120.9 GiB
// with 121.3 free, and its build ran out (session 36; the build now
// falls back to rows where it does, build.Cache.Get).
const tileMargin = 1 << 30

// reserve makes sure need bytes of device memory are free, freeing the
// matrices no run uses if it must. Inside Do.
func (d *Device) reserve(need int64) error {
	free, total := d.MemInfo()
	if need > free && d.CSRs() > 0 {
		d.DropCSRs(true, true)
		free, total = d.MemInfo()
	}
	if need > free && len(d.parked) > 0 {
		d.unpark(0)
		free, total = d.MemInfo()
	}
	if need > free && d.Cache.Len() > 0 {
		d.Cache.Trim(0)
		free, total = d.MemInfo()
	}
	if need > free {
		return fmt.Errorf("%w on %s: the run needs %d bytes (%.1f MiB) of device memory, %d bytes (%.1f MiB) of %d are free; "+
			"try --backend cpu, a GPU with more memory, or fewer device copies of the graph (--direction pull keeps a directed graph's pull matrix only)",
			rt.ErrOutOfMemory, d.Name, need, float64(need)/(1<<20), free, float64(free)/(1<<20), total)
	}
	return nil
}

// deviceBytes is the device memory a job needs besides its matrices.
func deviceBytes(job *driver.DeviceJob, l *stateLayout, lim build.BinLimits, c *build.Cache) int64 {
	n := int64(job.Pull.N)
	words := (n + 31) / 32
	need := n*int64(job.XSize) + max(8, n*int64(job.ASize)) + 2*words*4
	if job.Push != nil {
		need += n*4 + 2*max(1, n)*4 + 2*8*max(1, c.PushChunksOf(job.Push.Matrix)) + max(8, n*int64(job.ASize))
		if job.Part != nil {
			need += max(1, n) * 4 // (its whole-graph push degrees)
		}
		if job.Spec.Delta > 0 {
			need += words * 4
		}
	}
	// Heavy pull chunks' partials and counters, at most.
	need += (job.Pull.CooNNZ()/int64(max(1, lim.Chunk)) + 1 + n/int64(max(1, lim.Warp))) * (int64(job.ASize) + 4)
	need += int64(recordRing*(recordHead+len(job.Spec.Aggregators))*8 + 16 + 4*len(job.Spec.Aggregators))
	// (a resident run keeps a copy of its initial state, park.go, unless
	// vp_init makes it)
	seeds := job.Resident && !job.DeviceInit
	for _, a := range l.arrays {
		need += a.bytes
		if seeds && !a.readOnly && !a.scratch {
			need += a.bytes
		}
	}
	// An orientation the device builds (a directed graph's ranked one
	// reads its out-rows).
	outArcs := int64(0)
	if g := job.Graph; g != nil && g.Directed() {
		outArcs = int64(len(g.Dataset().Col))
	}
	need += c.OrientBytes(orientMatrix(job, l).Matrix, l.orientations(), outArcs)
	if seeds {
		need += int64(len(job.X))
	}
	return need
}
