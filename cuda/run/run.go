//go:build cgo

package run

import (
	"errors"
	"fmt"
	"time"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// A run: its state on the host and device, and its start (the kernels'
// features, the device memory it needs, the module, the upload).

// start starts job on d with options opt.
func start(d *Device, job *driver.DeviceJob, opt Options) (*progRun, error) {
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
		if a.Orientation != nil && (job.Spec.Edges != driver.AllEdges || job.Graph == nil || !a.Orientation.Of(job.Graph) || job.Part != nil && job.Whole == nil) {
			// (no matrix of the graph's Neighbors: a part's pull holds only
			// the part's rows, and its job may have no Whole)
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
		beyondL2 := int64(n)*int64(job.XSize) > d.L2
		ts = build.TileSpec{RowBits: build.TileRowBitsFor(job.ASize, beyondL2), MaxArcs: d.hooks.tileArcs, Near: job.ASize == 4, Symmetric: job.Graph != nil && !job.Graph.Directed() && job.Part == nil,
			Columns: beyondL2} // (launchOrder)
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
		} else if opt.Tiles == TilesResident && !d.tilesFit(job, layout, lim, &ts) {
			ts = build.TileSpec{} // (their build would not fit beside the run: rows)
		} else {
			feats.TileChunk = build.TileChunkFor(job.ASize)
		}
	}

	pt := phase.New("cuda", "start")
	defer pt.Print()
	ptx, key, err := d.kernelImage(&job.Code, layout, feats)
	pt.Mark("source and compile")
	if err != nil {
		return nil, err
	}
	r := &progRun{d: d, job: job, n: n, words: (n + 31) / 32, layout: layout, feats: feats, yDirty: true,
		nagg: len(job.Spec.Aggregators), opt: opt, loop: min(max(opt.LoopCluster, 0), maxLoopCluster)}
	r.recW = recordHead + r.nagg
	if job.Part != nil {
		r.loop = 0 // (a part exchanges after every superstep: no loop of them on the device)
	}
	err = d.Do("copying the run to the device", func() error {
		// Memory first: the cache gives back what no run uses when the
		// run would not fit otherwise.
		pt.Mark("lock")
		err := d.reserve(runBytes(d, job, layout, lim, ts))
		if whole := orientMatrix(job, layout) != job.Pull; whole && (errors.Is(err, rt.ErrOutOfMemory) || d.hooks.noWholeRoom && err == nil) {
			// The whole graph's matrix beside the part's does not fit: the
			// host builds the orientation and each part's device holds a
			// copy of it alone (the kernels are the same: their arrays
			// are pointers in State either way).
			layout.orientOnHost()
			d.counts.hostOrients++
			err = d.reserve(runBytes(d, job, layout, lim, ts))
			pt.Mark("the orientation on the host (out of memory for the whole matrix)")
		}
		if d.hooks.noELLRoom && err == nil && withoutELL(job) != nil {
			err = rt.ErrOutOfMemory
		}
		if err != nil {
			// A pull without its ELL may fit where the run does not.
			j := withoutELL(job)
			if j == nil || !errors.Is(err, rt.ErrOutOfMemory) || d.reserve(runBytes(d, j, layout, lim, ts)) != nil {
				return err
			}
			r.job = j
			d.counts.cooPullRuns++
			pt.Mark("the pull without its ELL (out of memory with it)")
		}
		if r.mod, err = d.Load(key, ptx, moduleKernels(feats)); err != nil {
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

// kernelImage is d.Image of the kernel source for code, l and f, built
// and looked up once per sourceKey: a run of many queries then neither
// writes its ~200 KB of text again nor hashes it for the image cache
// ("source and compile" was 0.15-0.18 ms of every kron21 query's start
// on the H200).
func (d *Device) kernelImage(code *driver.DeviceCode, l *stateLayout, f features) (image, key string, err error) {
	k := keyOf(code, l, f)
	if im, ok := d.kernelImages.Load(k); ok {
		im := im.([2]string)
		return im[0], im[1], nil
	}
	if image, key, err = d.Image(buildSource(code, l, f)); err == nil {
		d.kernelImages.Store(k, [2]string{image, key})
	}
	return image, key, err
}

// runBytes is the device memory job needs to start on d: its state and
// its matrices' copies (with what building them needs) that the cache
// lacks.
func runBytes(d *Device, job *driver.DeviceJob, layout *stateLayout, lim build.BinLimits, ts build.TileSpec) int64 {
	need := deviceBytes(job, layout, lim, &d.Cache)
	if om := orientMatrix(job, layout); om != job.Pull {
		need += d.Cache.Need(om.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, build.Window{})
	}
	switch {
	case job.Push == job.Pull:
		need += d.Cache.Need(job.Pull.Matrix, true, true, lim, ts, build.Window{})
	case job.Push != nil:
		need += d.Cache.Need(job.Pull.Matrix, true, false, lim, ts, pullRows(job)) + d.Cache.Need(job.Push.Matrix, false, true, lim, build.TileSpec{}, build.Window{}) -
			build.SharedCSR(job.Pull.Matrix, job.Push.Matrix)
	default:
		need += d.Cache.Need(job.Pull.Matrix, true, false, lim, ts, pullRows(job))
	}
	return need
}

// withoutELL is job with its pull matrix all COO (K = 0), where the pull
// has an ELL and a push apart from it (a part's, or a directed graph's),
// else nil: no ELL slots (a part's pull has K of them for each of its
// rows on the device: build.Window), and the pull's COO
// made on the device from the CSR the push is transposed from. What a run
// does where it does not fit otherwise (kron29's BFS in two parts needed
// 142.8 GiB with 142.1 free: docs/parts.md), at the price of the COO
// pull's short rows. Each run describes its own (the device's cache
// keeps none it does not need: a server's graphs come and go).
func withoutELL(job *driver.DeviceJob) *driver.DeviceJob {
	m := job.Pull
	if m.K == 0 || job.Push == nil || job.Push == job.Pull || m.TransposeOf != nil || m.SymmetrizeOf != nil || len(m.Src.Col) != int(m.Src.RowPtr[m.N]) {
		return nil
	}
	h, err := hyb.Describe(m.N, m.Src.RowPtr, m.Src.Col, m.Src.Val, hyb.CPUOptions())
	if err != nil {
		return nil
	}
	j := *job
	j.Pull = driver.NewMatrix(h, m.Degree)
	return &j
}

// jobFeatures are the compile-time features of job's kernels for n
// vertices on a device whose linear textures hold texMaxWidth texels,
// with options opt (start adds the tiles' where a run has them, and the
// device's hooks).
func jobFeatures(job *driver.DeviceJob, n int, texMaxWidth int64, opt Options) features {
	f := features{
		XSize: job.XSize, ASize: job.ASize, HasWants: job.HasWants, HasDone: job.HasDone,
		Priority: float32(job.Spec.Delta) > 0 && job.Push != nil, Texture: opt.Texture, Unroll: unroll, Stream: stream,
		Probe: probe, ApplyRows: applyRows, Aggs: aggOps(job.Spec.Aggregators),
	}
	f.Reds, f.RedsFinite = redOps(job.Spec.Reductions)
	f.TextureX = opt.Texture && job.XSize > 0 && job.XSize%4 == 0 && int64(n)*int64(job.XSize/4) <= texMaxWidth
	return f
}

// Start implements driver.DeviceBackend.
func (b Backend) Start(job *driver.DeviceJob) (driver.DeviceRun, error) {
	d, err := b.Dev()
	if err != nil {
		return nil, err
	}
	return start(d, job, b.Opt())
}
