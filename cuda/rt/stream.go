//go:build cgo

package rt

/*
#include "../cu/cu.h"

static CUresult hp_stream_sync(CUstream s) { return cuStreamSynchronize(s); }

static CUresult hp_capture_begin(CUstream s) { return cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL); }

// hp_capture_end ends a capture and instantiates its graph (the graph
// itself is freed: the executable keeps what it needs).
static CUresult hp_capture_end(CUstream s, CUgraphExec* exec) {
	CUgraph g = 0;
	CUresult r = cuStreamEndCapture(s, &g);
	if (r != CUDA_SUCCESS) {
		if (g) cuGraphDestroy(g);
		return r;
	}
	r = cuGraphInstantiateWithFlags(exec, g, 0);
	cuGraphDestroy(g);
	if (r != CUDA_SUCCESS) return r;
	// (uploaded now, or its first launch does it: ~20 us on an H200)
	return cuGraphUpload(*exec, s);
}
static CUresult hp_graph_launch(CUgraphExec e, CUstream s) { return cuGraphLaunch(e, s); }
static CUresult hp_graph_destroy(CUgraphExec e) { return cuGraphExecDestroy(e); }

static CUresult hp_event_create(CUevent* e) { return cuEventCreate(e, CU_EVENT_BLOCKING_SYNC); }
static CUresult hp_event_create_order(CUevent* e) { return cuEventCreate(e, CU_EVENT_DISABLE_TIMING); }
static CUresult hp_stream_wait_event(CUstream s, CUevent e) { return cuStreamWaitEvent(s, e, 0); }
static CUresult hp_event_record(CUevent e, CUstream s) { return cuEventRecord(e, s); }
static CUresult hp_event_sync(CUevent e) { return cuEventSynchronize(e); }
static CUresult hp_event_destroy(CUevent e) { return cuEventDestroy(e); }
*/
import "C"

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// Handle is the stream as the cu binding takes it.
func (s Stream) Handle() cu.Stream { return cu.Stream(uintptr(unsafe.Pointer(s.s))) }

// Sync waits for the device stream's work. Inside Do.
func (d *Device) Sync() { check("waiting for the GPU", C.hp_stream_sync(d.stream.s)) }

// BeginCapture starts recording the stream's launches into a graph.
// Inside Do.
func (d *Device) BeginCapture() {
	check("starting a CUDA graph capture", C.hp_capture_begin(d.stream.s))
}

// EndCapture ends the recording and returns the instantiated graph,
// uploaded to the device. Inside Do.
func (d *Device) EndCapture() *Graph {
	var e C.CUgraphExec
	check("instantiating a CUDA graph", C.hp_capture_end(d.stream.s, &e))
	return &Graph{e}
}

// LaunchGraph launches g in the stream. Inside Do.
func (d *Device) LaunchGraph(g *Graph) {
	check("launching a CUDA graph", C.hp_graph_launch(g.e, d.stream.s))
}

// Destroy frees g (nothing for nil).
func (g *Graph) Destroy() {
	if g != nil && g.e != nil {
		C.hp_graph_destroy(g.e)
		g.e = nil
	}
}

// NewEvent makes an event whose wait blocks the thread. Inside Do.
func NewEvent() Event {
	var e C.CUevent
	check("creating an event", C.hp_event_create(&e))
	return Event{e}
}

// NewOrderEvent makes an event that orders streams (WaitEvent): no
// timing, never waited for by a thread. Inside Do.
func NewOrderEvent() Event {
	var e C.CUevent
	check("creating an event", C.hp_event_create_order(&e))
	return Event{e}
}

// WaitEvent makes the device's stream wait, on the device, for the work
// recorded before e, which may be another device's: the host goes on.
// Inside Do.
func (d *Device) WaitEvent(e Event) {
	check("waiting for an event in a stream", C.hp_stream_wait_event(d.stream.s, e.e))
}

// Record records e in the device's stream. Inside Do.
func (d *Device) Record(e Event) { check("recording an event", C.hp_event_record(e.e, d.stream.s)) }

// Wait waits for the work recorded before e. Inside Do.
func (e Event) Wait() { check("waiting for an event", C.hp_event_sync(e.e)) }

// Destroy frees e.
func (e Event) Destroy() { C.hp_event_destroy(e.e) }
