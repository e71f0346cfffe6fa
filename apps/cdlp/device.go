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
