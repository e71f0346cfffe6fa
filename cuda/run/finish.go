//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A run's end: its times, the results copied back, and Close (which
// parks a resident run's buffers, park.go).

// DeviceTime implements driver.DeviceTimer.
func (r *progRun) DeviceTime() time.Duration { return r.clock.DeviceTime(r.d.RT()) }

// Transfers implements driver.TransferReporter: the time Start spent
// copying the run to the device and Finish copying results back.
func (r *progRun) Transfers() time.Duration { return r.transfers }

// Finish implements driver.DeviceRun: X into x, the writable state
// arrays into their Go slices.
func (r *progRun) Finish(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed run")
	}
	err := copyBack(r.d, x, r.x, r.n*r.job.XSize, r.layout, r.arrays, &r.transfers)
	r.finished = err == nil
	return err
}

// copyBack is a run's Finish (run's and msRun's): X, n*XSize bytes at xDev,
// into x (none for a nil x: vertexprog.Options.NoValues), and the
// writable state arrays of layout from devArrays into their Go slices,
// the time added to transfers.
func copyBack(d *Device, x []byte, xDev cu.DevicePtr, xBytes int, layout *stateLayout, devArrays []cu.DevicePtr, transfers *time.Duration) error {
	if x != nil && len(x) != xBytes {
		return fmt.Errorf("cuda: Finish: %d bytes for X, want %d", len(x), xBytes)
	}
	t0 := time.Now()
	defer func() { *transfers += time.Since(t0) }()
	return d.Do("copying results back", func() error {
		d.Sync()
		if len(x) > 0 {
			d.DtoH(unsafe.Pointer(&x[0]), xDev, int64(len(x)))
		}
		for i, a := range layout.arrays {
			if !a.readOnly && !a.scratch && a.bytes > 0 {
				d.DtoH(a.ptr, devArrays[i], a.bytes)
			}
		}
		return nil
	})
}

// copyPart copies the values of vertices [lo, hi) (into x, where it is not
// nil; xsize bytes a vertex) and their elements of the writable state
// arrays back from a part's device.
func copyPart(d *Device, x []byte, xDev cu.DevicePtr, xsize int, layout *stateLayout, devArrays []cu.DevicePtr, n int, lo32, hi32 int32, transfers *time.Duration) error {
	lo, hi := int64(lo32), int64(hi32)
	t0 := time.Now()
	defer func() { *transfers += time.Since(t0) }()
	return d.Do("copying a part's results back", func() error {
		d.Sync()
		if xs := int64(xsize); len(x) > 0 && hi > lo && xs > 0 {
			d.DtoH(unsafe.Pointer(&x[lo*xs]), xDev+cu.DevicePtr(lo*xs), (hi-lo)*xs)
		}
		for i, a := range layout.arrays {
			if a.readOnly || a.scratch || a.bytes == 0 || hi <= lo {
				continue
			}
			es := a.bytes / int64(n)
			d.DtoH(unsafe.Add(a.ptr, lo*es), devArrays[i]+cu.DevicePtr(lo*es), (hi-lo)*es)
		}
		return nil
	})
}

// reduceBlocksPerSM is vp_reduce_values' blocks per multiprocessor: the
// grid-stride loop then makes a few turns over a kron21's 2M values.
const reduceBlocksPerSM = 4

// Reduce implements driver.Reducer: vp_reduce_values over X, and its
// results, nred doubles, copied back.
func (r *progRun) Reduce() ([]float64, error) {
	rs := r.job.Spec.Reductions
	if r.closed || r.feats.Reds == "" || r.job.Part != nil {
		return nil, errors.New("cuda: Reduce on a closed run, a part's, or one whose program declares no reductions")
	}
	out := make([]float64, len(rs))
	for k, red := range rs {
		out[k] = red.Identity()
	}
	if r.n == 0 {
		return out, nil
	}
	maxGrid := int64(reduceBlocksPerSM * max(1, r.d.SMs))
	grid := min(rt.Blocks(int64(r.n), rt.BlockSize), maxGrid)
	nred := int64(len(rs))
	err := r.d.Do("reducing the values", func() error {
		partBytes := 8 * nred * maxGrid
		if r.reduceMem == 0 {
			// (the count of blocks done starts at 0, and each launch
			// leaves it so; a parked run's buffers keep it)
			r.reduceMem = r.alloc(partBytes + 8*nred + 8)
			var zero uint64
			r.d.HtoD(r.reduceMem+cu.DevicePtr(partBytes+8*nred), unsafe.Pointer(&zero), 8)
		}
		arg := make([]byte, 24)
		binary.LittleEndian.PutUint64(arg, uint64(r.reduceMem))
		binary.LittleEndian.PutUint64(arg[8:], uint64(r.reduceMem)+uint64(partBytes))
		binary.LittleEndian.PutUint64(arg[16:], uint64(r.reduceMem)+uint64(partBytes+8*nred))
		r.mod.Launch2(reduceKernel, grid, r.d.Stream(), r.runArg, arg)
		r.d.Sync()
		r.d.DtoH(unsafe.Pointer(&out[0]), r.reduceMem+cu.DevicePtr(partBytes), 8*nred)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FinishSummary implements driver.SummaryFinisher.
func (r *progRun) FinishSummary() error {
	if r.closed {
		return errors.New("cuda: FinishSummary on a closed run")
	}
	return r.d.Do("finishing the run", func() error {
		r.d.Sync()
		r.finished = true
		return nil
	})
}

// Close implements driver.DeviceRun.
func (r *progRun) Close() {
	if r.closed {
		return
	}
	r.closed = true
	pt := phase.New("cuda", "close")
	defer pt.Print()
	_ = r.d.Do("freeing device memory", func() error {
		synced := rt.Catch("waiting for the GPU", func() error { r.d.Sync(); return nil }) == nil
		pt.Mark("lock and sync")
		if synced && r.finished && r.job.Resident {
			r.d.park(r)
			pt.Mark("parked")
		} else {
			r.d.freeBuffers(&r.buffers, r.recW)
			pt.Mark("buffers")
		}
		for _, md := range []*build.Matrix{r.pull, r.push} {
			if md != nil {
				r.d.Cache.Release(md)
			}
			if r.push == r.pull {
				break
			}
		}
		if r.whole != nil {
			r.d.Cache.Release(r.whole)
		}
		return nil
	})
}
