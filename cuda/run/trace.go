//go:build cgo

package run

import (
	"fmt"
	"os"
	"time"

	"github.com/hpgraph/hpgraph/cuda/rt"
)

// traceSteps (HPGRAPH_CUDA_TRACE=1) writes to stderr where each Step or
// StepBatch call's time went: getting the context (Do), the
// launches, the GPU's own time between the first launch and the last
// (events), the wait for the records, and the return to the caller; then
// "marks": the wait for Do's lock, and the steps between the
// marks of the call (the trace's own event, the device clock's, the
// launches, the clock's end, the records' copy).
var traceSteps = os.Getenv("HPGRAPH_CUDA_TRACE") == "1"

// mark notes the time at a point inside the call (printed as steps from
// the previous mark).
func (t *stepTrace) mark() {
	if t != nil {
		t.marks = append(t.marks, time.Now())
	}
}

// start is the first thing the call does inside Do.
func (t *stepTrace) start(d *rt.Device) {
	if t == nil {
		return
	}
	t.begin = time.Now()
	t.locked = d.Locked()
	if t.ev[0] == (rt.Mark{}) {
		t.ev[0], t.ev[1] = rt.NewMark(), rt.NewMark()
	}
	d.RecordMark(t.ev[0])
}

// enqueued follows the last launch, before the records are read back.
func (t *stepTrace) enqueued(d *rt.Device) {
	if t == nil {
		return
	}
	t.launched = time.Now()
	d.RecordMark(t.ev[1])
}

// waited follows the wait for the stream.
func (t *stepTrace) waited() {
	if t != nil {
		t.synced = time.Now()
	}
}

// report prints the call's line and frees its events (on the context's
// thread: d.do).
func (t *stepTrace) report(d *rt.Device, it, steps int) {
	if t == nil || t.ev[0] == (rt.Mark{}) {
		return
	}
	back := time.Now()
	var ms float64
	_ = d.Do("tracing", func() error {
		ms, _ = rt.Elapsed(t.ev[0], t.ev[1])
		t.ev[0].Destroy()
		t.ev[1].Destroy()
		return nil
	})
	us := func(a, b time.Time) float64 { return float64(b.Sub(a).Nanoseconds()) / 1e3 }
	marks := fmt.Sprintf(" lock %.1f", us(t.call, t.locked))
	prev := t.begin
	for _, m := range t.marks {
		marks += fmt.Sprintf(" %.1f", us(prev, m))
		prev = m
	}
	fmt.Fprintf(os.Stderr, "cuda trace: superstep %d (+%d): total %.1f us = handoff %.1f + launch %.1f + wait %.1f + back %.1f; gpu %.1f us; marks%s\n",
		it, steps, us(t.call, back), us(t.call, t.begin), us(t.begin, t.launched), us(t.launched, t.synced), us(t.synced, back), ms*1e3, marks)
}

type stepTrace struct {
	call, locked, begin, launched, synced time.Time
	ev                                    [2]rt.Mark
	marks                                 []time.Time
}

// partsTrace is where a partitioned run's superstep went on the host
// (HPGRAPH_CUDA_TRACE=1, parts.go): every part's superstep (launch and
// the wait for its record), the counts gathered (NCCL), then the
// exchange's launches and copies up to Step's return.
type partsTrace struct{ start, computed, counted time.Time }

func (t partsTrace) report(it int, sparse, net bool) {
	if !traceSteps {
		return
	}
	us := func(a, b time.Time) float64 { return float64(b.Sub(a).Nanoseconds()) / 1e3 }
	end := time.Now()
	// (at: the start on the host's clock, to line processes up)
	fmt.Fprintf(os.Stderr, "cuda trace: parts superstep %d (sparse %v, nccl %v): total %.1f us = parts %.1f + counts %.1f + exchange %.1f; at %d us\n",
		it, sparse, net, us(t.start, end), us(t.start, t.computed), us(t.computed, t.counted), us(t.counted, end), t.start.UnixMicro()%1e9)
}

// ccTrace is where a components run in parts went on the host
// (HPGRAPH_CUDA_TRACE=1, afforest_parts.go): its steps, each named at
// its end.
type ccTrace struct {
	at    []time.Time
	names []string
}

func (t *ccTrace) mark(name string) {
	if traceSteps {
		t.at, t.names = append(t.at, time.Now()), append(t.names, name)
	}
}

func (t *ccTrace) report() {
	if !traceSteps || len(t.at) < 2 {
		return
	}
	msg := "cuda trace: components in parts (us):"
	for k := 1; k < len(t.at); k++ {
		msg += fmt.Sprintf(" %s %.1f", t.names[k], float64(t.at[k].Sub(t.at[k-1]).Nanoseconds())/1e3)
	}
	fmt.Fprintln(os.Stderr, msg)
}
