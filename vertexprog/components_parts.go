package vertexprog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Components in parts (docs/parts.md): each part links the edges of its
// own rows into a forest over every vertex, by the same Afforest as a
// whole run but with no vertex skipping its edges (a part holds only one
// end's row of an edge between parts), then links every other part's
// forest into its own: v and its label in another forest are connected,
// and the union of the parts' edges is the graph's, so every part ends
// with the whole graph's labels (each component's smallest vertex). Two
// passes over the vertices per other part instead of a superstep per
// step of the largest component's diameter, each exchanging every value.

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
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, false, err
		}
	}
	whole, err := g.matrixFor(rowsAll, opt.HYB, false, nil)
	if err != nil {
		return nil, false, err
	}
	pt, err := SplitRows(whole.Src.RowPtr, parts)
	if err != nil {
		return nil, false, err
	}
	if err := agree(opt.Comm, fmt.Sprintf("components in %d parts of %T on a graph of %d vertices and %d arcs (HYB %+v)", parts, p, g.N(), whole.NNZ(), opt.HYB)); err != nil {
		return nil, false, err
	}
	local := parts / size
	mats := make([]*driver.Matrix, local)
	info := make([]driver.Part, local)
	for i := range mats {
		lo, hi := pt.Range(rank*local + i)
		info[i] = driver.Part{Index: rank*local + i, Count: parts, Lo: lo, Hi: hi}
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
		run = &hostPartComponents{mats: mats, pt: pt, first: rank * local, comm: opt.Comm}
	}
	if err != nil {
		return nil, false, err
	}
	defer run.Close()
	res, err = runLabels(run, p, g.N(), opt, &Result[X]{Backend: name, Preprocess: time.Since(t0), BackendWait: wait})
	return res, err == nil, err
}

// hostPartComponents is the CPU's partitioned union-find
// (driver.ComponentsRun): every part's forest made in turn on all cores,
// the other processes' forests received through the Comm.
type hostPartComponents struct {
	mats  []*driver.Matrix
	pt    Partition
	first int
	comm  Comm
	comp  []int32
	stats []PartStat
}

func (h *hostPartComponents) Run() (int, error) {
	n := h.pt.Bounds[len(h.pt.Bounds)-1]
	forests := make([][]int32, len(h.mats))
	passes := 0
	for i, m := range h.mats {
		t := time.Now()
		forests[i] = make([]int32, n)
		passes = linkRows(m.Src.RowPtr, m.Src.Col, forests[i], false)
		lo, hi := h.pt.Range(h.first + i)
		h.stats = append(h.stats, PartStat{Index: h.first + i, Lo: lo, Hi: hi, Arcs: m.NNZ(), Compute: time.Since(t)})
	}
	t := time.Now()
	if commSize(h.comm) > 1 {
		msg := make([]byte, 0, 4*int(n)*len(forests))
		for _, f := range forests {
			msg = append(msg, valueBytes(f)...)
		}
		all, err := h.comm.AllGather(msg)
		if err != nil {
			return 0, err
		}
		for r, b := range all {
			if r == h.comm.Rank() {
				continue
			}
			if len(b) != len(msg) {
				return 0, fmt.Errorf("vertexprog: process %d sent %d bytes of its parts' forests, want %d", r, len(b), len(msg))
			}
			for ; len(b) > 0; b = b[4*n:] {
				forests = append(forests, decodeLabels(b[:4*n]))
			}
		}
	}
	h.comp = forests[0]
	for _, f := range forests[1:] {
		linkForest(h.comp, f)
	}
	for i := range h.stats {
		h.stats[i].Exchange = time.Since(t)
		h.stats[i].ExchangeBytes = int64(4*n) * int64(len(forests)-1)
	}
	return passes + 2*(len(forests)-1), nil
}

// decodeLabels is int32s written in the machine's order (valueBytes),
// little-endian as every machine hpgraph runs on.
func decodeLabels(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	par.Blocks(len(out), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
	})
	return out
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
