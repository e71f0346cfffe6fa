package vertexprog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Components in parts (docs/parts.md): each part links the edges of its
// own rows into a forest over every vertex, by the same Afforest as a
// whole run, then links every other part's forest into its own: v and its
// label in another forest are connected, and the union of the parts'
// edges is the graph's, so every part ends with the whole graph's labels
// (each component's smallest vertex). Two passes over the vertices per
// other part instead of a superstep per step of the largest component's
// diameter, each exchanging every value.
//
// Afforest lets the vertices of the largest component skip their edges
// after the first rounds, because the matrix is symmetric: the other end
// links an edge, unless it is in that component too. A part holds only
// one end's row of an edge between parts, so an edge may be skipped by
// both ends, one in each part's largest component; where those two
// components end up joined anyway, the edge joined nothing new. So each
// part skips, and where the parts' largest components do not all end in
// one component, the run is made again with no vertex skipping.

// runPartComponents is runComponents for a run of parts parts. ok is
// false, with no error, where the run must take supersteps (runParts):
// options only supersteps honour, or a device backend without
// driver.PartComponentsBackend.
func runPartComponents[X, A any](g *Graph, p Program[X, A], opt Options, parts int) (res *Result[X], ok bool, err error) {
	size, rank := commSize(opt.Comm), 0
	if opt.Comm != nil {
		rank = opt.Comm.Rank()
	}
	if opt.Direction != Auto || opt.MaxIterations != 0 || opt.PerEdge || parts%size != 0 {
		return nil, false, nil
	}
	tw := time.Now()
	var pcb driver.PartComponentsBackend
	if mayUseDevice(opt.Backend, p) {
		b, err := selectBackend(opt.Backend, p)
		if err != nil {
			return nil, false, err
		}
		if b != nil {
			if pcb, ok = b.(driver.PartComponentsBackend); !ok {
				return nil, false, nil
			}
		}
	}
	wait := time.Since(tw)
	if opt.HYB == (hyb.Options{}) {
		opt.HYB = hyb.CPUOptions()
		if pcb != nil {
			opt.HYB = hyb.DefaultOptions()
		}
	}
	t0 := time.Now()
	if err := rowsReadable(g, p); err != nil {
		return nil, false, err
	}
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, false, err
		}
	}
	rowPtr, nnz, err := g.splitRows(AllEdges, opt.HYB)
	if err != nil {
		return nil, false, err
	}
	var pt Partition
	if g.held != nil {
		pt, err = g.held.partition(parts)
	} else {
		pt, err = SplitRows(rowPtr, parts)
	}
	if err != nil {
		return nil, false, err
	}
	if err := agree(opt.Comm, fmt.Sprintf("components in %d parts of %T on a graph of %d vertices and %d arcs (HYB %+v)", parts, p, g.N(), nnz, opt.HYB)); err != nil {
		return nil, false, err
	}
	local := parts / size
	if err := g.partRows(pt.Bounds[rank*local], pt.Bounds[(rank+1)*local], true); err != nil {
		return nil, false, err
	}
	mats := make([]*driver.Matrix, local)
	info := make([]driver.Part, local)
	spans := arcSpans(rowPtr, pt)
	for i := range mats {
		lo, hi := pt.Range(rank*local + i)
		info[i] = driver.Part{Index: rank*local + i, Count: parts, Lo: lo, Hi: hi, Arcs: spans}
		if mats[i], _, err = g.PartMatrices(AllEdges, opt.HYB, lo, hi, true); err != nil {
			return nil, false, err
		}
	}
	var run driver.ComponentsRun
	name := "cpu"
	if pcb != nil {
		name = pcb.Name()
		run, err = pcb.PartComponents(mats, info, opt.Comm)
	} else {
		run = &hostPartComponents{mats: mats, pt: pt, spans: spans, first: rank * local, comm: opt.Comm}
	}
	if err != nil {
		return nil, false, err
	}
	defer run.Close()
	res, err = runLabels(run, p, g.N(), opt, &Result[X]{Backend: name, Preprocess: time.Since(t0), BackendWait: wait})
	return res, err == nil, err
}

// arcSpans is every part's rows up to its last with arcs
// (driver.Part.Arcs), from the whole graph's row offsets: in an order by
// degree, each part's vertices without arcs come last in its range (a
// kron graph's 40-50%), and no part's forest ever links them, nor any
// part's pull reads them.
func arcSpans(rowPtr []int64, pt Partition) []driver.Span {
	spans := make([]driver.Span, len(pt.Bounds)-1)
	for q := range spans {
		lo, hi := pt.Range(q)
		spans[q] = driver.Span{Lo: lo, Hi: int32(hyb.RowsEnd(rowPtr, int(lo), int(hi)))}
	}
	return spans
}

// hostPartComponents is the CPU's partitioned union-find
// (driver.ComponentsRun): every part's forest made in turn on all cores,
// the other processes' forests received through the Comm, each only
// over the parts' spans of rows with arcs (outside them every forest is
// the identity).
type hostPartComponents struct {
	mats  []*driver.Matrix
	pt    Partition
	spans []driver.Span
	first int
	comm  Comm
	comp  []int32
	stats []PartStat
}

func (h *hostPartComponents) Run() (int, error) {
	passes, ok, err := h.run(true)
	if err == nil && !ok {
		passes, _, err = h.run(false)
	}
	return passes, err
}

// run makes every local part's forest, the vertices of its largest
// component skipping their edges after the first rounds where skip,
// receives the other processes' and links them all into one. ok is
// false where the parts' largest components did not end up in one:
// then an edge between two of them that both ends skipped may be
// missing, and the run must be made again without skipping.
func (h *hostPartComponents) run(skip bool) (passes int, ok bool, err error) {
	n := h.pt.Bounds[len(h.pt.Bounds)-1]
	forests := make([][]int32, len(h.mats))
	var giants []int32
	h.stats = h.stats[:0]
	for i, m := range h.mats {
		t := time.Now()
		forests[i] = make([]int32, n)
		var giant int32
		passes, giant = linkRows(m.Src.RowPtr, m.Src.Col, forests[i], skip)
		giants = append(giants, giant)
		lo, hi := h.pt.Range(h.first + i)
		h.stats = append(h.stats, PartStat{Index: h.first + i, Lo: lo, Hi: hi, Arcs: m.NNZ(), Compute: time.Since(t)})
	}
	t := time.Now()
	span := 0 // (the labels of a forest's spans)
	for _, s := range h.spans {
		span += int(s.Hi - s.Lo)
	}
	if commSize(h.comm) > 1 {
		msg := make([]byte, 0, (4*span+4)*len(forests))
		for i, f := range forests {
			msg = binary.LittleEndian.AppendUint32(msg, uint32(giants[i]))
			for _, s := range h.spans {
				msg = append(msg, valueBytes(f[s.Lo:s.Hi])...)
			}
		}
		all, err := h.comm.AllGather(msg)
		if err != nil {
			return 0, false, err
		}
		for r, b := range all {
			if r == h.comm.Rank() {
				continue
			}
			if len(b) != len(msg) {
				return 0, false, fmt.Errorf("vertexprog: process %d sent %d bytes of its parts' forests, want %d", r, len(b), len(msg))
			}
			for ; len(b) > 0; b = b[4+4*span:] {
				giants = append(giants, int32(binary.LittleEndian.Uint32(b)))
				f, at := make([]int32, n), b[4:]
				for _, s := range h.spans {
					copy(valueBytes(f[s.Lo:s.Hi]), at)
					at = at[4*(s.Hi-s.Lo):]
				}
				forests = append(forests, f)
			}
		}
	}
	h.comp = forests[0]
	for _, f := range forests[1:] {
		linkForest(h.comp, f, h.spans)
	}
	for i := range h.stats {
		h.stats[i].Exchange = time.Since(t)
		h.stats[i].ExchangeBytes = int64(4*span) * int64(len(forests)-1)
	}
	return passes + 2*(len(forests)-1), giantsJoined(h.comp, giants), nil
}

// giantsJoined reports whether the parts' largest components (giants,
// -1 where a part skipped nothing) lie in one component of the final
// labels comp: then an edge both of whose ends skipped it joins two
// vertices that are joined anyway.
func giantsJoined(comp []int32, giants []int32) bool {
	root := int32(-1)
	for _, g := range giants {
		if g < 0 {
			continue
		}
		if root < 0 {
			root = comp[g]
		} else if comp[g] != root {
			return false
		}
	}
	return true
}

func (h *hostPartComponents) Finish(labels []int32) error {
	if len(h.comp) != len(labels) {
		return errors.New("vertexprog: Finish before Run, or labels of another graph")
	}
	copy(labels, h.comp)
	return nil
}

func (h *hostPartComponents) Close() {}

// Parts is what each local part did.
func (h *hostPartComponents) Parts() []PartStat { return h.stats }
