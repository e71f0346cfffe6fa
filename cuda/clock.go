//go:build cgo

package cuda

/*
#include "cu/cu.h"
static CUresult hp_clock_event(CUevent* e) { return cuEventCreate(e, CU_EVENT_DEFAULT); }
static CUresult hp_clock_record(CUevent e, CUstream s) { return cuEventRecord(e, s); }
// (an event recorded in a graph can be timed only if captured as external)
static CUresult hp_clock_record_captured(CUevent e, CUstream s) { return cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL); }
static CUresult hp_clock_elapsed(float* ms, CUevent a, CUevent b) { return cuEventElapsedTime(ms, a, b); }
static CUresult hp_clock_destroy(CUevent e) { return cuEventDestroy(e); }
*/
import "C"

import "time"

// deviceClock times a run's supersteps on the device (DeviceTimer): an
// event before the first launch of the first call, another after the
// last launch of every call. Its methods run inside device.do.
type deviceClock struct {
	ev      [2]C.CUevent
	started bool
}

// create makes the events, when the run starts: not in its first
// superstep, whose host time they would add to.
func (k *deviceClock) create() {
	if k.ev[0] == nil {
		check("creating an event", C.hp_clock_event(&k.ev[0]))
		check("creating an event", C.hp_clock_event(&k.ev[1]))
	}
}

// begin precedes a call's first launch (or a graph that records event 0
// first does: then the caller sets started).
func (k *deviceClock) begin(d *device) {
	if k.started {
		return
	}
	k.record(0, d)
	k.started = true
}

// end follows a call's last launch.
func (k *deviceClock) end(d *device) {
	if k.started {
		k.record(1, d)
	}
}

// record records event i in d's stream.
func (k *deviceClock) record(i int, d *device) {
	k.create()
	check("recording an event", C.hp_clock_record(k.ev[i], d.stream))
}

// capture records event i into the graph d's stream captures.
func (k *deviceClock) capture(i int, d *device) {
	k.create()
	check("recording an event in a graph", C.hp_clock_record_captured(k.ev[i], d.stream))
}

// elapsed is the span from begin's event to the last end's (0 before
// any), once the stream has been waited for.
func (k *deviceClock) elapsed() time.Duration {
	if !k.started {
		return 0
	}
	var ms C.float
	check("reading the device's clock", C.hp_clock_elapsed(&ms, k.ev[0], k.ev[1]))
	return time.Duration(float64(ms) * float64(time.Millisecond))
}

func (k *deviceClock) destroy() {
	for i, e := range k.ev {
		if e != nil {
			C.hp_clock_destroy(e)
			k.ev[i] = nil
		}
	}
	k.started = false
}

// deviceTime is k.elapsed on d's context thread (0 if that fails).
func (k *deviceClock) deviceTime(d *device) time.Duration {
	var t time.Duration
	_ = d.do("reading the device's clock", func() error { t = k.elapsed(); return nil })
	return t
}
