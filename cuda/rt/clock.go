//go:build cgo

package rt

/*
#include "../cu/cu.h"
static CUresult hp_mark_create(CUevent* e) { return cuEventCreate(e, CU_EVENT_DEFAULT); }
static CUresult hp_mark_record(CUevent e, CUstream s) { return cuEventRecord(e, s); }
// (an event recorded in a graph can be timed only if captured as external)
static CUresult hp_mark_record_captured(CUevent e, CUstream s) { return cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL); }
static CUresult hp_mark_elapsed(float* ms, CUevent a, CUevent b) { return cuEventElapsedTime(ms, a, b); }
static CUresult hp_mark_destroy(CUevent e) { return cuEventDestroy(e); }
*/
import "C"

import (
	"time"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// NewMark makes a timing event. Inside Do.
func NewMark() Mark {
	var e C.CUevent
	check("creating an event", C.hp_mark_create(&e))
	return Mark{e}
}

// RecordMark records m in the device's stream. Inside Do.
func (d *Device) RecordMark(m Mark) { check("recording an event", C.hp_mark_record(m.e, d.stream.s)) }

// captureMark records m into the graph the device's stream captures.
func (d *Device) captureMark(m Mark) {
	check("recording an event in a graph", C.hp_mark_record_captured(m.e, d.stream.s))
}

// Elapsed is the milliseconds from a to b, both recorded and done.
func Elapsed(a, b Mark) (float64, error) {
	var ms C.float
	if r := C.hp_mark_elapsed(&ms, a.e, b.e); r != C.CUDA_SUCCESS {
		return 0, &Error{Op: "reading an event", Code: cu.Result(r)}
	}
	return float64(ms), nil
}

// Destroy frees m (nothing for an empty Mark).
func (m Mark) Destroy() {
	if m.e != nil {
		C.hp_mark_destroy(m.e)
	}
}

// Clock times a run's supersteps on the device (driver.DeviceTimer):
// a mark before the first launch of the first call, another after the
// last launch of every call. Its methods run inside Do.
type Clock struct {
	ev [2]Mark
	// Started: the first mark is recorded (or a graph that records it
	// launched).
	Started bool
}

// Create makes the marks, when the run starts: not in its first
// superstep, whose host time they would add to.
func (k *Clock) Create() {
	if k.ev[0].e == nil {
		k.ev[0], k.ev[1] = NewMark(), NewMark()
	}
}

// Begin precedes a call's first launch (or a graph that records the
// first mark does: then the caller sets Started).
func (k *Clock) Begin(d *Device) {
	if k.Started {
		return
	}
	k.Create()
	d.RecordMark(k.ev[0])
	k.Started = true
}

// End follows a call's last launch.
func (k *Clock) End(d *Device) {
	if k.Started {
		k.Create()
		d.RecordMark(k.ev[1])
	}
}

// CaptureBegin records the first mark into the graph d's stream
// captures.
func (k *Clock) CaptureBegin(d *Device) {
	k.Create()
	d.captureMark(k.ev[0])
}

// elapsed is the span from Begin's mark to the last End's (0 before
// any), once the stream has been waited for.
func (k *Clock) elapsed() time.Duration {
	if !k.Started {
		return 0
	}
	ms, err := Elapsed(k.ev[0], k.ev[1])
	if err != nil {
		panic(err)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Destroy frees the marks.
func (k *Clock) Destroy() {
	for i := range k.ev {
		k.ev[i].Destroy()
		k.ev[i] = Mark{}
	}
	k.Started = false
}

// DeviceTime is the clock's span, read on d (0 if that fails).
func (k *Clock) DeviceTime(d *Device) time.Duration {
	var t time.Duration
	_ = d.Do("reading the device's clock", func() error { t = k.elapsed(); return nil })
	return t
}
