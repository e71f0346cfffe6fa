package vertexprog

import (
	"math/bits"
	"slices"

	"github.com/hpgraph/hpgraph/internal/par"
)

// listBitsRows and joinRows are the rows from which listBits and
// joinLists go on every worker; below them one goroutine is quicker than
// a region's start. listBitsWorkers is the fewest workers listBits
// files for: on two, filing a row costs more than the half of its bit
// it saves (the development machine's 2 cores, BFS at GAP's sources:
// urand20 36-37 -> 41 ms a query, kron20 18-19 -> 20-21).
const (
	listBitsRows    = 1 << 14
	listBitsWorkers = 4
	joinRows        = 1 << 16
)

// listBits clears words [wlo, whi) of ws and sets there the bits of the
// rows in lists (all of them in those words). Many rows go on
// len(lists) workers without atomics: each files its list's rows by the
// share of the words that holds them (into files, its scratch, grown and
// returned), then each sets its share's bits from every worker's file,
// the share's words in its own cache. On one goroutine, as before, a
// superstep that claimed a million rows (urand21's largest top-down
// step) spent 1.5-1.9 ms on their bits alone, the others waiting; GAP's
// queue-to-bitmap sets each bit by a compare-and-swap on every core,
// where the lines of the bitmap pass from core to core.
func listBits(ws []uint32, wlo, whi int, lists, files [][]int32) [][]int32 {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	p := len(lists)
	if n < listBitsRows || p < listBitsWorkers || par.Workers() < p {
		clear(ws[wlo:whi])
		for _, l := range lists {
			setBits(ws, l)
		}
		return files
	}
	// share s holds words [wlo+s<<shift, wlo+(s+1)<<shift): the least
	// power of two words that p shares cover
	shift := uint(bits.Len(uint((whi-wlo+p-1)/p - 1)))
	for len(files) < p {
		files = append(files, nil)
	}
	ends := make([]int, p*p) // ends[w*p+s]: where share s ends in worker w's file
	par.Each(p, func(w int) {
		l, e := lists[w], ends[w*p:(w+1)*p]
		for _, v := range l {
			e[(int(v>>5)-wlo)>>shift]++
		}
		at := 0
		for s, k := range e {
			e[s], at = at, at+k // (e[s]: where share s starts)
		}
		f := slices.Grow(files[w][:0], len(l))[:len(l)]
		for _, v := range l {
			s := (int(v>>5) - wlo) >> shift
			f[e[s]] = v
			e[s]++
		}
		files[w] = f
	})
	par.Each(p, func(s int) {
		lo := min(wlo+s<<shift, whi)
		hi := min(lo+1<<shift, whi)
		clear(ws[lo:hi])
		for w := range p {
			start := 0
			if s > 0 {
				start = ends[w*p+s-1]
			}
			setBits(ws, files[w][start:ends[w*p+s]])
		}
	})
	return files
}

// setBits sets the bits of vs in ws, on this goroutine.
func setBits(ws []uint32, vs []int32) {
	for _, v := range vs {
		ws[v>>5] |= 1 << (uint32(v) & 31)
	}
}

// joinLists appends lists to out and empties them, on len(lists)
// workers where they are many rows (a million rows' copy on one
// goroutine took about 0.4 ms, the other workers waiting).
func joinLists(out []int32, lists [][]int32) []int32 {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n < joinRows || len(lists) <= 1 || par.Workers() < len(lists) {
		for w, l := range lists {
			out = append(out, l...)
			lists[w] = l[:0]
		}
		return out
	}
	at := len(out)
	out = slices.Grow(out, n)[:at+n]
	starts := make([]int, len(lists))
	for w, l := range lists {
		starts[w], at = at, at+len(l)
	}
	par.Each(len(lists), func(w int) {
		copy(out[starts[w]:], lists[w])
		lists[w] = lists[w][:0]
	})
	return out
}
