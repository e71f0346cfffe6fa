//go:build cgo

package cuda

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/internal/phase"
)

// A run's end: its times, the results copied back, and Close (which
// parks a resident run's buffers, park.go).

// DeviceTime implements vertexprog.DeviceTimer.
func (r *run) DeviceTime() time.Duration { return r.clock.deviceTime(r.d) }

// Transfers implements vertexprog.TransferReporter: the time Start spent
// copying the run to the device and Finish copying results back.
func (r *run) Transfers() time.Duration { return r.transfers }

// Finish implements vertexprog.DeviceRun: X into x, the writable state
// arrays into their Go slices.
func (r *run) Finish(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed run")
	}
	if x != nil && len(x) != r.n*r.job.XSize {
		return fmt.Errorf("cuda: Finish: %d bytes for X, want %d", len(x), r.n*r.job.XSize)
	}
	t0 := time.Now()
	defer func() { r.transfers += time.Since(t0) }()
	return r.d.do("copying results back", func() error {
		r.d.syncStream()
		if len(x) > 0 {
			dtoh(unsafe.Pointer(&x[0]), r.x, int64(len(x)))
		}
		for i, a := range r.layout.arrays {
			if !a.readOnly && a.bytes > 0 {
				dtoh(a.ptr, r.arrays[i], a.bytes)
			}
		}
		r.finished = true
		return nil
	})
}

// FinishSummary implements vertexprog.SummaryFinisher.
func (r *run) FinishSummary() error {
	if r.closed {
		return errors.New("cuda: FinishSummary on a closed run")
	}
	return r.d.do("finishing the run", func() error {
		r.d.syncStream()
		r.finished = true
		return nil
	})
}

// Close implements vertexprog.DeviceRun.
func (r *run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	pt := phase.New("cuda", "close")
	defer pt.Print()
	_ = r.d.do("freeing device memory", func() error {
		synced := catch("waiting for the GPU", func() error { r.d.syncStream(); return nil }) == nil
		pt.Mark("lock and sync")
		if synced && r.finished && r.job.Resident {
			r.d.park(r)
			pt.Mark("parked")
		} else {
			r.d.freeBuffers(&r.buffers, r.recW)
			pt.Mark("buffers")
		}
		for _, md := range []*matDev{r.pull, r.push} {
			if md != nil {
				r.d.cache.release(md)
			}
			if r.push == r.pull {
				break
			}
		}
		return nil
	})
}
