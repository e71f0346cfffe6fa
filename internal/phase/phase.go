// Package phase times the phases of a piece of work for debugging output:
// with HPGRAPH_TRACE=1 (or HPGRAPH_CUDA_TRACE=1, which also turns on the
// CUDA backend's per-superstep trace) each Trace prints one line to
// stderr, "PREFIX trace: WHAT (ms): phase t, phase t, ...". Off, a Trace
// is nil and its methods cost a nil check.
package phase

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// On says whether traces print.
var On = os.Getenv("HPGRAPH_TRACE") == "1" || os.Getenv("HPGRAPH_CUDA_TRACE") == "1"

// Trace collects the phases of one piece of work.
type Trace struct {
	prefix, what string
	last         time.Time
	parts        []string
}

// New starts a trace (nil when traces are off).
func New(prefix, what string) *Trace {
	if !On {
		return nil
	}
	return &Trace{prefix: prefix, what: what, last: time.Now()}
}

// Mark ends the phase called name.
func (t *Trace) Mark(name string) {
	if t == nil {
		return
	}
	now := time.Now()
	t.parts = append(t.parts, fmt.Sprintf("%s %.3f", name, float64(now.Sub(t.last).Microseconds())/1e3))
	t.last = now
}

// Add notes a phase timed elsewhere, d long, without ending one.
func (t *Trace) Add(name string, d time.Duration) {
	if t == nil {
		return
	}
	t.parts = append(t.parts, fmt.Sprintf("%s %.3f", name, float64(d.Microseconds())/1e3))
}

// Print writes the trace's line, if it has phases.
func (t *Trace) Print() {
	if t != nil && len(t.parts) > 0 {
		fmt.Fprintf(os.Stderr, "%s trace: %s (ms): %s\n", t.prefix, t.what, strings.Join(t.parts, ", "))
	}
}
