package gen

import (
	"fmt"
	"io"
	"unsafe"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// whole checks that p is all of g's rows.
func (g *Graph) whole(p *Part) error {
	if p.Lo != 0 || p.Hi != g.N {
		return fmt.Errorf("gen: rows [%d, %d) of %s are not the whole graph (%d rows)", p.Lo, p.Hi, g.Name, g.N)
	}
	return nil
}

// Host copies p to the host: for all of g's rows, the graph
// datasets.BuildStream builds from the host generator's stream; for rows
// [Lo, Hi), those of datasets.BuildStreamRows (every other row empty,
// the part's stats).
func (g *Graph) Host(d Device, p *Part) (*datasets.Graph, error) {
	h := &datasets.Graph{Name: g.Name, N: g.N, RowPtr: huge.Make[int64](g.N + 1), Col: huge.Make[int32](int(p.NNZ)),
		Stats: p.Stats, RepeatFree: !g.Options.KeepDuplicates}
	if p.W != 0 {
		h.W = huge.Make[float32](int(p.NNZ))
	}
	pt := phase.New("gen", fmt.Sprintf("%s rows [%d, %d) to the host", g.Name, p.Lo, p.Hi))
	defer pt.Print()
	g.HostInto(d, p, h, 0)
	pt.Mark("copied")
	tail := h.RowPtr[p.Hi:]
	par.Blocks(len(tail), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			tail[i] = p.NNZ
		}
	})
	return h, nil
}

// HostInto copies p into h, a graph of g's N vertices whose arrays hold
// it from arc base: its rows' offsets (base added), columns, and weights
// where both have them. The parts of one graph copied so, each from the
// arcs of the parts before it, are the whole graph, once the caller sets
// h.RowPtr[N]: HostInto writes the offsets of rows [Lo, Hi) only, not
// the one after its last row, which is the next part's first offset
// (parts copied at once, on several devices, each added its base to
// that shared word, which another part was writing: kron26 on two H200s
// panicked on its row offsets, session 37).
func (g *Graph) HostInto(d Device, p *Part, h *datasets.Graph, base int64) {
	rows := h.RowPtr[p.Lo:p.Hi]
	if len(rows) > 0 {
		d.DtoH(unsafe.Pointer(&rows[0]), p.RowPtr, int64(len(rows))*8)
	}
	if base != 0 {
		par.Blocks(len(rows), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				rows[i] += base
			}
		})
	}
	if p.NNZ == 0 {
		return
	}
	d.DtoH(unsafe.Pointer(&h.Col[base]), p.Col, p.NNZ*4)
	if p.W != 0 && h.W != nil {
		d.DtoH(unsafe.Pointer(&h.W[base]), p.W, p.NNZ*4)
	}
}

// piece is the arcs WriteCache downloads at a time (64 MiB of columns).
var piece int64 = 16 << 20

// WriteCache writes p, all of g's rows, to w as a .hpg file
// (datasets.WriteCacheStream): the row offsets copied to the host, then
// the columns and the weights in pieces, each downloaded while the one
// before is written. The host holds the offsets and two pieces, never the
// graph.
func (g *Graph) WriteCache(d Device, p *Part, w io.Writer) error {
	if err := g.whole(p); err != nil {
		return err
	}
	rowPtr := make([]int64, g.N+1)
	d.DtoH(unsafe.Pointer(&rowPtr[0]), p.RowPtr, int64(len(rowPtr))*8)
	s := datasets.CacheStream{Name: g.Name, Stats: p.Stats, RowPtr: rowPtr,
		Cols: func(put func([]int32) error) error { return stream(d, p.Col, p.NNZ, put) }}
	if p.W != 0 {
		s.Weights = func(put func([]float32) error) error { return stream(d, p.W, p.NNZ, put) }
	}
	return datasets.WriteCacheStream(w, s)
}

// stream hands put the n 4-byte values at src in pieces, downloading
// each (on the calling goroutine, which holds the device) while another
// goroutine puts the one before.
func stream[T int32 | float32](d Device, src Ptr, n int64, put func([]T) error) error {
	bufs := [2][]T{make([]T, min(n, piece)), make([]T, min(n, piece))}
	done := make(chan error, 1)
	done <- nil
	for i, off := 0, int64(0); off < n; i, off = i+1, off+piece {
		b := bufs[i%2][:min(piece, n-off)]
		d.DtoH(unsafe.Pointer(&b[0]), src+Ptr(off*4), int64(len(b))*4)
		// (the put of piece i-1, from the other buffer, done; piece i-2's,
		// from this one, was waited for before it)
		if err := <-done; err != nil {
			return err
		}
		go func() { done <- put(b) }()
	}
	return <-done
}

// Shuffle returns GAP's vertex of each drawn id (the shuffle, made on
// d from the swap targets), or nil for a uniform graph, whose vertices
// are the ids drawn: what Options.IDs renumbers.
func (g *Graph) Shuffle(d Device) (ids []int32, err error) {
	if g.Uniform {
		return nil, nil
	}
	b := &builder{d: d, g: g, sms: int64(max(d.SMs(), 1))}
	defer b.freeTmp()
	perm, err := b.shuffle(&b.tmp, g.Targets())
	if err != nil {
		return nil, err
	}
	ids = make([]int32, g.N)
	d.DtoH(unsafe.Pointer(&ids[0]), perm, int64(g.N)*4)
	return ids, nil
}

// Counts returns the row offsets (N+1) of g's arcs before duplicates
// are merged, from one count pass on d: what a run over several
// processes splits the rows by before any has made its own
// (datasets.StreamCounts, on the device).
func (g *Graph) Counts(d Device) (rowPtr []int64, err error) {
	b := &builder{d: d, g: g, sms: int64(max(d.SMs(), 1))}
	defer b.freeTmp()
	var perm Ptr
	if !g.Uniform {
		if perm, err = b.shuffle(&b.tmp, g.Targets()); err != nil {
			return nil, err
		}
	}
	c, err := b.count(&b.tmp, perm, 0, g.N)
	if err != nil {
		return nil, err
	}
	rowPtr = make([]int64, g.N+1)
	d.DtoH(unsafe.Pointer(&rowPtr[0]), c.count, int64(g.N+1)*8)
	return rowPtr, nil
}

// Split returns parts+1 row bounds that cut g into parts of about equal
// arcs (before duplicates are merged: within a few percent of the merged
// arcs), from one count pass on d (Counts); a partitioned run builds each
// part where it runs.
func (g *Graph) Split(d Device, parts int) (bounds []int, err error) {
	if parts < 1 {
		return nil, fmt.Errorf("gen: %d parts", parts)
	}
	counts, err := g.Counts(d)
	if err != nil {
		return nil, err
	}
	return par.Split(g.N, parts, func(i int) int64 { return counts[i] }), nil
}
