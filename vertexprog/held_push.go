package vertexprog

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/hpgraph/hpgraph/internal/par"
)

// The push row offsets of a held graph's parts. A part's push is the
// transpose of its pull rows [lo, hi): row u holds u's neighbours in
// [lo, hi) (the graph is undirected). Counted from the part's own
// columns, that is an atomic add into one of N counters an arc, at
// random (kron26's half in two processes: 21 s of CPU, most of the first
// PREPROCESS after the transpose). But each row u's count is also two
// binary searches in u's own sorted row, which the process holding u can
// make for every part at once: pushCounts has each process count its
// rows for every other process's parts and all-gather them (4 bytes a
// row and part).

// pushCounts makes the push row offsets of this process's parts (rank's
// local parts of pt) of the held graph g, from every process's rows
// (collective: every process of the run calls it for the same pt, at
// the same point), unless it made them for pt already; pushRows then
// returns them.
func (g *Graph) pushCounts(pt Partition, rank, local int, comm Comm) error {
	h := g.held
	key := fmt.Sprint(pt.Bounds)
	h.mu.Lock()
	done := h.pushKey == key
	h.mu.Unlock()
	if done {
		return nil
	}
	size := len(h.bounds) - 1
	if commSize(comm) != size || pt.Parts() != size*local {
		return fmt.Errorf("vertexprog: %d parts over %d processes of a graph held by %d", pt.Parts(), commSize(comm), size)
	}
	owner := func(q int) int { return q / local }
	// counts[q][u-h.lo] is row u's neighbours in part q, for every part
	counts := make([][]uint32, pt.Parts())
	for q := range counts {
		counts[q] = make([]uint32, h.hi-h.lo)
	}
	d := g.g
	par.Blocks(int(h.hi-h.lo), func(_, a, b int) {
		for i := a; i < b; i++ {
			row := d.Col[d.RowPtr[int(h.lo)+i]:d.RowPtr[int(h.lo)+i+1]]
			at := 0 // (the row's first column in part q on)
			for q := range counts {
				hi := pt.Bounds[q+1]
				end := at + sort.Search(len(row)-at, func(k int) bool { return row[at+k] >= hi })
				counts[q][i] = uint32(end - at)
				at = end
			}
		}
	})
	// Each process sends its rows' counts for the parts of the others.
	le := binary.LittleEndian
	rows := int(h.hi - h.lo)
	msg := make([]byte, 0, 4*rows*(pt.Parts()-local))
	for q := range counts {
		if owner(q) != rank {
			at := len(msg)
			msg = msg[:at+4*rows]
			par.Blocks(rows, func(_, a, b int) {
				for k := a; k < b; k++ {
					le.PutUint32(msg[at+4*k:], counts[q][k])
				}
			})
		}
	}
	all := [][]byte{msg}
	if comm != nil {
		var err error
		if all, err = comm.AllGather(msg); err != nil {
			return err
		}
	}
	made := map[[2]int32][]int64{}
	for i := range local {
		q := rank*local + i
		rp := make([]int64, len(h.rowPtr))
		for r := range size {
			lo, hi := h.bounds[r], h.bounds[r+1]
			if r == rank {
				par.Blocks(int(hi-lo), func(_, a, b int) {
					for k := a; k < b; k++ {
						rp[int(lo)+k+1] = int64(counts[q][k])
					}
				})
				continue
			}
			// (r's message: its rows' counts for every part not its own, in
			// order)
			idx := q
			if q >= r*local {
				idx -= local
			}
			if want := 4 * int(hi-lo) * (pt.Parts() - local); len(all[r]) != want {
				return fmt.Errorf("vertexprog: process %d sent %d bytes of its rows' counts in the parts, want %d", r, len(all[r]), want)
			}
			m := all[r][4*int(hi-lo)*idx:]
			par.Blocks(int(hi-lo), func(_, a, b int) {
				for k := a; k < b; k++ {
					rp[int(lo)+k+1] = int64(le.Uint32(m[4*k:]))
				}
			})
		}
		par.PrefixSum(rp)
		lo, hi := pt.Range(q)
		made[[2]int32{lo, hi}] = rp
	}
	h.mu.Lock()
	h.pushKey, h.pushRows = key, made
	h.mu.Unlock()
	return nil
}

// pushRowPtr is the push row offsets of part [lo, hi) that pushCounts
// made, or nil.
func (h *heldRows) pushRowPtr(lo, hi int32) []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pushRows[[2]int32{lo, hi}]
}
