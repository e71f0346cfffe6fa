package cdlp

import (
	_ "embed"
	"math"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// CDLP's device code (vertexprog.MultisetDeviceProgram). The summary
// folds (VP_SUMMARY_FOLD) as Summarize scans: the most frequent label,
// the first (smallest) of those that tie, so that hub rows are
// summarized in parallel.
//
// Labels are original ids. Where the ids of a graph's vertices lie
// within 2^32 of the smallest (generated graphs, relabelled or not, and
// most files), every label, some vertex's id, minus that smallest id is
// a 4-byte key that orders as the label does: the device sorts those
// (CDLP_INDEX 1), half the traffic of 8-byte labels. Otherwise it
// sorts the labels themselves (CDLP_INDEX 0).

// cdlpDevice is the code of both: cdlp.cu, with CDLP_INDEX 1 (the 4-byte
// keys) or 0 (the labels).
//
//go:embed cdlp.cu
var cdlpDevice string

// Device implements vertexprog.MultisetDeviceProgram (after Prepare).
func (p *Program) Device() vertexprog.DeviceCode {
	r := p.g.Memo(cdlpIDRangeKey{}, func() any { return idRange(p.g.Dataset()) }).(cdlpIDRange)
	src := "#define CDLP_INDEX 0\n" + cdlpDevice
	if r.hi >= r.lo && uint64(r.hi-r.lo) <= math.MaxUint32 { // (the difference, exact as a uint64)
		src = "#define CDLP_INDEX 1\n" + cdlpDevice
	}
	return vertexprog.DeviceCode{Source: src, Scalars: []vertexprog.DeviceScalar{{Name: "base", Value: r.lo}}}
}

var _ vertexprog.DeviceFirst = (*Program)(nil)

// DeviceFirst implements vertexprog.DeviceFirst: a one-shot answer on
// --backend auto goes to the device, not a race. Raced, the CPU's run
// (every row's labels sorted and counted, every iteration) took the
// host's cores from the device's set-up: kron21 on an H200 host's 16
// cores, auto 0.72 s from spawn to exit against the device's 0.44 and the
// CPU's 1.28 (session 29).
func (*Program) DeviceFirst() string {
	return "its label multisets cost the CPU engine several times what they cost the device (kron21, 16 cores: 1.28 s against 0.44 with the device's set-up)"
}

// cdlpIDRange is the smallest and the largest id of a graph's vertices
// (hi < lo: no vertices), memoized on the graph (cdlpIDRangeKey).
type cdlpIDRange struct{ lo, hi int64 }

type cdlpIDRangeKey struct{}

func idRange(d *datasets.Graph) cdlpIDRange {
	if d.IDs == nil {
		return cdlpIDRange{d.IDBase, d.IDBase + int64(d.N) - 1}
	}
	r := cdlpIDRange{math.MaxInt64, math.MinInt64}
	for _, id := range d.IDs {
		r.lo, r.hi = min(r.lo, id), max(r.hi, id)
	}
	return r
}
