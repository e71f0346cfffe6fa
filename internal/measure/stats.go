// Package measure holds what a benchmark says about its numbers and its
// machine: the median, min and max of timed runs, the host's CPU model,
// memory and copy bandwidth (a roofline), the process's peak memory
// (/proc), and the commit the binary was built from (VCS stamps or git).
// `hpgraph bench` and `hpgraph run` report them; nothing here knows a
// graph.
package measure

import (
	"slices"
	"time"
)

// Median of sorted values (the mean of the middle two for an even count);
// 0 for none.
func Median(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Stats is the median, min and max of xs (in any order; xs is not
// changed), zeros for none.
func Stats(xs []float64) (med, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Median(s), s[0], s[len(s)-1]
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
