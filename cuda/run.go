//go:build cgo

package cuda

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// A run: its state on the host and device, and its start (the kernels'
// features, the device memory it needs, the module, the upload).

// run is one program on the device.
type run struct {
	buffers
	d      *device
	job    *vertexprog.DeviceJob
	mod    *rt.Module
	n      int
	words  int
	layout *stateLayout
	feats  features
	nagg   int
	recW   int // words per record

	pull, push *build.Matrix
	host       []uint64 // records read back (recHost)
	recArg     [16]byte // vp_records' VP_Copy (no allocation a call)

	step     int      // supersteps run
	base     int      // the device's ctl[0]
	bias     int      // the device's ctl[1]: iteration of superstep 0
	edges    int64    // the device's ctl[2]: a push batch's edge limit
	last     []uint64 // record of superstep step-1
	yDirty   bool
	yLoopOK  bool // yLoop holds the identity (filled before the first vp_loop)
	queued   bool // the frontier's queues are built (after a push superstep)
	tiles    bool // pulls run vp_pull_tiles
	closed   bool
	finished bool // Finish copied the results back: the run may be parked

	opt  Options // the backend's, read once, at the start
	loop int     // vp_loop's cluster size (Options.LoopCluster; 0: no loop)

	transfers time.Duration
	tr        *stepTrace // HPGRAPH_CUDA_TRACE: the call being traced
}

// buffers are a run's device memory, textures, events and CUDA graphs:
// what a resident run, parked when it closes, hands to the next run of
// the same program on the same matrices (park.go).
type buffers struct {
	clock rt.Clock // DeviceTime

	bufs []cu.DevicePtr
	texs []uint64

	x, y        cu.DevicePtr
	xTex        uint64
	mask        [2]cu.DevicePtr
	maskTex     [2]uint64
	queue       [2]cu.DevicePtr
	chunks      [2]cu.DevicePtr
	touchedList cu.DevicePtr
	farBits     cu.DevicePtr // vp_loop's far set (delta-stepping)
	yLoop       cu.DevicePtr // vp_loop's second accumulator array
	probeBuf    cu.DevicePtr // VP_PROBE: per tile its start, end and multiprocessor (printTileProbe)
	partial     cu.DevicePtr
	heavyCount  cu.DevicePtr
	rec, ctl    cu.DevicePtr
	arrays      []cu.DevicePtr
	seeds       []seed // a resident run's uploads (X, then arrays), to send only what changed
	state       []byte
	runArg      []byte
	recHost     unsafe.Pointer // pinned memory vp_records copies the records to,
	recDev      uint64         // at this address on the device

	graphs   map[graphKey]*rt.Graph
	noGraphs bool
}

// start starts job on d with options opt.
func start(d *device, job *vertexprog.DeviceJob, opt Options) (*run, error) {
	if job.Pull == nil {
		return nil, errors.New("cuda: the job has no pull matrix")
	}
	n := job.Pull.N
	if job.XSize < 0 || job.ASize <= 0 || len(job.X) != n*job.XSize {
		return nil, fmt.Errorf("cuda: inconsistent job: %d vertices, %d bytes of X at %d each, accumulator of %d bytes", n, len(job.X), job.XSize, job.ASize)
	}
	if job.Push != nil && (job.ASize != 4 && job.ASize != 8 || job.Push.N != n || len(job.Push.Degree) != n) {
		return nil, fmt.Errorf("cuda: push needs a 4- or 8-byte accumulator (have %d) and a square push matrix with its degrees", job.ASize)
	}
	if job.DeviceInit {
		if !job.Code.Init {
			return nil, errors.New("cuda: the job asks for vp_init, but the program's device code has none (DeviceCode.Init)")
		}
	} else {
		if job.Active == nil || job.Active.Len() != n {
			return nil, errors.New("cuda: the job's initial frontier does not match the graph")
		}
		if len(job.Aggregates) != len(job.Spec.Aggregators) {
			return nil, fmt.Errorf("cuda: %d aggregator values for %d aggregators", len(job.Aggregates), len(job.Spec.Aggregators))
		}
	}
	layout, err := layoutState(&job.Code)
	if err != nil {
		return nil, err
	}
	for _, a := range job.Code.Arrays {
		if a.Orientation != nil && (job.Spec.Edges != vertexprog.AllEdges || job.Graph == nil || !a.Orientation.Of(job.Graph)) {
			// (the gather matrix is not the graph's Neighbors)
			layout.orientOnHost()
			break
		}
	}
	feats := jobFeatures(job, n, d.TexMaxWidth, opt)
	feats.LoopList = d.hooks.loopList
	lim := d.hooks.binLimits
	var ts build.TileSpec
	if (opt.Tiles == TilesAlways || opt.Tiles == TilesResident && job.Resident) && job.Spec.GatherAll && !job.Code.HeavyGather && !job.HasWants && !job.HasDone && (job.ASize == 4 || job.ASize == 8) && n > 0 {
		// (an undirected graph's matrices are one symmetric adjacency)
		ts = build.TileSpec{RowBits: build.TileRowBitsFor(job.ASize), MaxArcs: d.hooks.tileArcs, Near: job.ASize == 4, Symmetric: job.Graph != nil && !job.Graph.Directed()}
		if d.hooks.tileNear >= 0 {
			ts.Near = d.hooks.tileNear == 1
		}
		if d.hooks.tileRowBits > 0 {
			ts.RowBits = d.hooks.tileRowBits
		}
		if build.TileShared(ts.RowBits, job.ASize) > d.SharedOptin {
			ts = build.TileSpec{} // (the slots do not fit: rows it is)
		} else if opt.Tiles == TilesResident && !build.TilesOnDevice(job.Pull.Matrix, ts) {
			ts = build.TileSpec{} // (a shape the device does not build: rows, not a second of the host's)
		} else if opt.Tiles == TilesResident && !d.tilesFit(job, layout, lim, ts) {
			ts = build.TileSpec{} // (their build would not fit beside the run: rows)
		} else {
			feats.TileChunk = build.TileChunkFor(job.ASize)
		}
	}

	pt := phase.New("cuda", "start")
	defer pt.Print()
	src := buildSource(&job.Code, layout, feats)
	ptx, key, err := d.Image(src)
	pt.Mark("source and compile")
	if err != nil {
		return nil, err
	}
	r := &run{d: d, job: job, n: n, words: (n + 31) / 32, layout: layout, feats: feats, yDirty: true,
		nagg: len(job.Spec.Aggregators), opt: opt, loop: min(max(opt.LoopCluster, 0), maxLoopCluster)}
	r.recW = recordHead + r.nagg
	err = d.Do("copying the run to the device", func() error {
		// Memory first: the cache gives back what no run uses when the
		// run would not fit otherwise.
		need := deviceBytes(job, layout, lim, &d.Cache)
		switch {
		case job.Push == job.Pull:
			need += d.Cache.Need(job.Pull.Matrix, true, true, lim, ts)
		case job.Push != nil:
			need += d.Cache.Need(job.Pull.Matrix, true, false, lim, ts) + d.Cache.Need(job.Push.Matrix, false, true, lim, build.TileSpec{})
		default:
			need += d.Cache.Need(job.Pull.Matrix, true, false, lim, ts)
		}
		pt.Mark("lock")
		if err := d.reserve(need); err != nil {
			return err
		}
		var err error
		if r.mod, err = d.Load(key, ptx, kernelNames); err != nil {
			return err
		}
		pt.Mark("module")
		if !d.layoutOK[r.mod] {
			if err := layout.layoutErr(stateOffsets(r.mod, len(layout.offsets))); err != nil {
				return err
			}
			d.layoutOK[r.mod] = true
		}
		t0 := time.Now()
		r.upload(lim, ts, pt)
		r.transfers += time.Since(t0)
		d.NotePeak()
		if opt.Graphs {
			r.applyGrid() // (asks the driver once, not inside a capture)
			for _, k := range pullGraphs {
				r.graph(k)
			}
			if graphWarmup && r.hasPullGraphs() {
				r.warmGraphs()
			}
			pt.Mark("graphs")
		}
		return nil
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// jobFeatures are the compile-time features of job's kernels for n
// vertices on a device whose linear textures hold texMaxWidth texels,
// with options opt (start adds the tiles' where a run has them, and the
// device's hooks).
func jobFeatures(job *vertexprog.DeviceJob, n int, texMaxWidth int64, opt Options) features {
	f := features{
		XSize: job.XSize, ASize: job.ASize, HasWants: job.HasWants, HasDone: job.HasDone,
		Priority: float32(job.Spec.Delta) > 0 && job.Push != nil, Texture: opt.Texture, Unroll: unroll, Stream: stream,
		Probe: probe, ApplyRows: applyRows, Aggs: aggOps(job.Spec.Aggregators),
	}
	f.TextureX = opt.Texture && job.XSize > 0 && job.XSize%4 == 0 && int64(n)*int64(job.XSize/4) <= texMaxWidth
	return f
}

// tilesFit reports whether the run, its pull matrix's tiles and their
// build fit in the device memory free now, nothing evicted: tiles are an
// optimization, worth less than the cached matrices and parked runs
// reserve would give back for them (kron27's build alone takes about 90
// GB).
func (d *device) tilesFit(job *vertexprog.DeviceJob, layout *stateLayout, lim build.BinLimits, ts build.TileSpec) bool {
	fit := false
	_ = d.Do("sizing the run's tiles", func() error {
		need := deviceBytes(job, layout, lim, &d.Cache) + d.Cache.Need(job.Pull.Matrix, true, job.Push == job.Pull, lim, ts)
		if job.Push != nil && job.Push != job.Pull {
			need += d.Cache.Need(job.Push.Matrix, false, true, lim, build.TileSpec{})
		}
		d.hooks.sizing = true
		free, _ := d.MemInfo()
		d.hooks.sizing = false
		fit = need <= free
		return nil
	})
	return fit
}

// reserve makes sure need bytes of device memory are free, freeing the
// matrices no run uses if it must. Inside Do.
func (d *device) reserve(need int64) error {
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
			ErrOutOfMemory, d.Name, need, float64(need)/(1<<20), free, float64(free)/(1<<20), total)
	}
	return nil
}

// deviceBytes is the device memory a job needs besides its matrices.
func deviceBytes(job *vertexprog.DeviceJob, l *stateLayout, lim build.BinLimits, c *build.Cache) int64 {
	n := int64(job.Pull.N)
	words := (n + 31) / 32
	need := n*int64(job.XSize) + max(8, n*int64(job.ASize)) + 2*words*4
	if job.Push != nil {
		need += n*4 + 2*max(1, n)*4 + 2*8*max(1, c.PushChunksOf(job.Push.Matrix)) + max(8, n*int64(job.ASize))
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
	// An orientation the device builds.
	need += c.OrientBytes(job.Pull.Matrix, l.orientations())
	if seeds {
		need += int64(len(job.X))
	}
	return need
}
